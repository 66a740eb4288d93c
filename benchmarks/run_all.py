"""Run every benchmark script in this folder; each prints JSON lines (name, value, unit).

    .venv/bin/python benchmarks/run_all.py [--out benchmarks/results/latest.jsonl] [NAME ...]

The lines go to stdout and to --out (what benchmarks/check_figures.py reads); NAME picks
scripts (``game`` runs bench_game.py).
"""

import argparse
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
ap = argparse.ArgumentParser()
ap.add_argument("--out", type=Path, default=here / "results" / "latest.jsonl")
ap.add_argument("names", nargs="*")
args = ap.parse_args()
scripts = sorted(here.glob("bench_*.py"))
if args.names:
    scripts = [s for s in scripts if s.stem.removeprefix("bench_") in args.names]
args.out.parent.mkdir(parents=True, exist_ok=True)
failed = 0
with args.out.open("w") as out:
    for script in scripts:
        print(f"# {script.name}", file=sys.stderr, flush=True)
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            sys.stdout.write(line)
            out.write(line)
            out.flush()
        failed |= proc.wait()
sys.exit(1 if failed else 0)
