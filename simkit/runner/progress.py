"""A progress bar with rate and ETA on stderr; silent in CI or when stderr is not a terminal.

It counts what the work is made of (``unit``: games, fights, odds rows) and says "starting"
until the first total is known (never ``0/0`` while workers start)."""

from __future__ import annotations

import os
import sys
import time


def progress_enabled(quiet: bool = False) -> bool:
    return not quiet and not os.environ.get("CI") and sys.stderr.isatty()


class Progress:
    """Counts units (games, fights, rows) done against a total a precision target may raise."""

    def __init__(self, enabled: bool, description: str = "games", unit: str = "games", file=None):
        self.enabled = enabled
        self.unit = unit
        self._file = file  # default: the terminal's stderr
        self.total = 0
        self.done = 0
        self.skipped = 0
        self._start = time.perf_counter()
        self._bar = None
        self._task = None
        self._description = description

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as Bar

            self._bar = Bar(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[count]}"),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True)
                if self._file is None
                else Console(file=self._file, force_terminal=True, width=120),
                transient=False,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(
                self._description, total=None, count=self.count_text(), rate=""
            )
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def add_total(self, n: int, already_done: int = 0) -> None:
        """Plan ``n`` more units, of which ``already_done`` were found finished in the lake."""
        self.total += n
        self.skipped += already_done
        self._update(already_done)

    def advance(self, n: int) -> None:
        self.done += n
        self._update(n)

    @property
    def rate(self) -> float:
        elapsed = time.perf_counter() - self._start
        return self.done / elapsed if elapsed > 0 else 0.0

    def count_text(self) -> str:
        if not self.total:
            return f"starting (no {self.unit} planned yet)"
        text = f"{self.done + self.skipped:,}/{self.total:,} {self.unit}"
        return text if self.done else text + " (starting)"

    def rate_text(self) -> str:
        return f"{self.rate:,.0f} {self.unit}/s" if self.done else ""

    def _update(self, advance: int) -> None:
        if self._bar is not None:
            self._bar.update(
                self._task,
                total=self.total or None,
                advance=advance,
                count=self.count_text(),
                rate=self.rate_text(),
            )
