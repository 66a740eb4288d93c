"""A progress bar with games/s and ETA on stderr; silent in CI or when stderr is not a terminal."""

from __future__ import annotations

import os
import sys
import time


def progress_enabled(quiet: bool = False) -> bool:
    return not quiet and not os.environ.get("CI") and sys.stderr.isatty()


class Progress:
    """Counts games done against a total that a precision target may still raise."""

    def __init__(self, enabled: bool, description: str = "games"):
        self.enabled = enabled
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
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as Bar

            self._bar = Bar(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self._description, total=0, rate="")
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def add_total(self, games: int, already_done: int = 0) -> None:
        """Plan ``games`` more, of which ``already_done`` were found finished in the lake."""
        self.total += games
        self.skipped += already_done
        self._update(already_done)

    def advance(self, games: int) -> None:
        self.done += games
        self._update(games)

    @property
    def rate(self) -> float:
        elapsed = time.perf_counter() - self._start
        return self.done / elapsed if elapsed > 0 else 0.0

    def _update(self, advance: int) -> None:
        if self._bar is not None:
            self._bar.update(
                self._task, total=self.total, advance=advance, rate=f"{self.rate:,.0f} games/s"
            )
