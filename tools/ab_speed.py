"""Two checkouts' engine speed, taking turns: the ratio survives a noisy host.

    .venv/bin/python tools/ab_speed.py OLD_DIR NEW_DIR [--rounds 12] [--cases rev,base,solo,roll]

One persistent worker process per checkout (``PYTHONPATH`` = its directory, its own numba
cache; the first start compiles). Each round asks both workers for the same batch, in
alternating order, and reads their CPU time (``time.process_time``), so a neighbour on the
other core or a slow minute hits both alike. Prints one JSON line per case: each side's
median rate and the median and quartiles of NEW/OLD per round.

Cases: ``rev`` 1,500 2-human Revenge games (balanced, rusher; ``rev_random``: against
``random``), ``base`` 1,500 2-player base games (economist, hunter), ``solo`` 1,500 Mythos
Solo games (the games of ``tools/speed_at_commit.py``), ``roll`` 4,000 rollouts from
``benchmarks/bench_search.py``'s mid-game position, ``search`` 4 2-player base games of the
8-rollout search against balanced (bench_search's games). docs/engine-speed.md has what it found.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def worker() -> None:
    """Answer each case name on stdin with a rate per CPU-second on stdout."""
    sys.path.insert(0, str(Path.cwd() / "benchmarks"))
    from bench_search import play_rollouts, rollout_position
    from speed_at_commit import CASES_BY_NAME  # the same games, beside this file

    from simkit.game.engine import Engine, make_spec

    eng = Engine()
    specs = {k: make_spec(m, n, s, **kw) for k, (m, n, s, kw) in CASES_BY_NAME.items()}
    for spec in specs.values():
        eng.play_many(spec, 1, 0, 50)
    search = make_spec("base", 2, ["search:rollouts=8", "balanced"])
    eng.play_many(search, 1, 0, 1)
    # the rollouts' position lives in an engine of its own: play_many overwrites the state
    look, p, player = rollout_position(Engine())
    print("ready", flush=True)
    rep = decision = 0
    for line in sys.stdin:
        case = line.strip()
        rep += 1
        t = time.process_time()
        if case == "roll":
            done, decision = play_rollouts(look, p, player, 4000, decision)
        elif case == "search":
            eng.play_many(search, 5, rep, 4)
            done = 4
        else:
            eng.play_many(specs[case], 5, rep, 1500)
            done = 1500
        print(done / (time.process_time() - t), flush=True)


def start(checkout: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=checkout)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--worker"],
        cwd=checkout,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker in {checkout} did not start")
    return proc


def ask(proc: subprocess.Popen, case: str) -> float:
    proc.stdin.write(case + "\n")
    proc.stdin.flush()
    return float(proc.stdout.readline())


def _rate(x: float) -> float:
    """A rate to three significant figures (search games run a few a second)."""
    return float(f"{x:.3g}") if x < 100 else round(x)


def main() -> None:
    if "--worker" in sys.argv:
        worker()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--cases", default="rev,base,solo,roll")
    args = parser.parse_args()
    cases = args.cases.split(",")
    old, new = start(args.old), start(args.new)
    rates: dict[str, dict[str, list[float]]] = {c: {"old": [], "new": []} for c in cases}
    for r in range(args.rounds):
        for case in cases:
            order = (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old))
            for side, proc in order:
                rates[case][side].append(ask(proc, case))
    for case, got in rates.items():
        ratios = [n / o for n, o in zip(got["new"], got["old"], strict=True)]
        quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        line = {
            "name": f"ab_{case}_new_over_old",
            "value": round(statistics.median(ratios), 3),
            "unit": "ratio",
            "quartiles": [round(q, 3) for q in quartiles],
            "old_median_per_cpu_s": _rate(statistics.median(got["old"])),
            "new_median_per_cpu_s": _rate(statistics.median(got["new"])),
            "rounds": args.rounds,
            "old": args.old,
            "new": args.new,
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
