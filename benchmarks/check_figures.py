"""The speed guard: compare benchmark JSON lines with the figures the README quotes
(benchmarks/figures.toml) and fail loudly when one has fallen to half of its figure (or a
time has doubled), or was not measured at all.

    .venv/bin/python benchmarks/check_figures.py benchmarks/results/latest.jsonl

`make bench` runs every benchmark into that file and then this check. It is a benchmark,
not a test: it runs on the machine you measure on, never inside `make test`.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = HERE / "figures.toml"
TOLERANCE = 2.0  # fail below figure / 2 (higher is better) or above figure * 2 (lower)


def load_figures(path: Path = FIGURES) -> list[dict]:
    return tomllib.loads(path.read_text())["figure"]


def read_lines(paths: list[Path]) -> list[dict]:
    lines = []
    for p in paths:
        for text in p.read_text().splitlines():
            text = text.strip()
            if text.startswith("{"):
                lines.append(json.loads(text))
    return lines


def measured(fig: dict, lines: list[dict]) -> float | None:
    """The last line named like the figure whose fields match its ``match`` table."""
    value = None
    for line in lines:
        if line.get("name") == fig["name"] and all(
            line.get(k) == v for k, v in fig.get("match", {}).items()
        ):
            value = float(line["value"])
    return value


def verdict(fig: dict, value: float | None) -> str:
    """'ok', 'slow' or 'missing'."""
    if value is None:
        return "missing"
    if fig.get("better", "higher") == "higher":
        return "ok" if value >= fig["value"] / TOLERANCE else "slow"
    return "ok" if value <= fig["value"] * TOLERANCE else "slow"


def check(lines: list[dict], figures: list[dict]) -> list[tuple[dict, float | None, str]]:
    return [(fig, v, verdict(fig, v)) for fig in figures for v in [measured(fig, lines)]]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: check_figures.py RESULTS.jsonl [...]", file=sys.stderr)
        return 2
    results = check(read_lines([Path(a) for a in argv]), load_figures())
    bad = 0
    for fig, value, v in results:
        shown = "not measured" if value is None else f"{value:,.1f} {fig['unit']}"
        print(
            f"{v.upper():7} {fig['name']} {fig.get('match', '')}: {shown} "
            f"(README {fig['value']:,} {fig['unit']}; {fig['command']})"
        )
        bad += v != "ok"
    if bad:
        print(
            f"SPEED GUARD FAILED: {bad} of {len(results)} figures below half of the "
            "README's (or not measured)",
            file=sys.stderr,
        )
        return 1
    print(f"speed guard: all {len(results)} figures within a factor 2 of the README's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
