"""Run the bad-input case table (tests/bad_inputs.py) and count what happens.

    python tools/probe_bad_inputs.py                 # this checkout, each case in its own process
    PYTHONPATH=/tmp/orig python tools/probe_bad_inputs.py --simkit-root /tmp/orig

Each case runs as ``python -m simkit ...`` with a timeout (a case that runs on is a hang),
in a fresh fixture folder; outcomes: clean (exit 2, one line naming the culprit), unclear
(an error, but not one line naming the culprit), traceback, exit0 (a bad input accepted),
hang, echo (a file's content printed), plus data lost (a file the program did not write
changed or vanished, or a temporary file was left behind).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

import bad_inputs as bi  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--simkit-root", default=str(HERE), help="checkout whose simkit to run")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--json", default=None, help="write per-case outcomes here")
    ap.add_argument("--only", default=None, help="only cases whose id contains this")
    args = ap.parse_args()
    root = Path(args.simkit_root).resolve()
    env = {**os.environ, "PYTHONPATH": str(root)}
    sys.path.insert(0, str(root))
    counts: collections.Counter[str] = collections.Counter()
    lost = []
    rows = []
    cases = [c for c in bi.CASES if not args.only or args.only in c.id]
    with tempfile.TemporaryDirectory() as base:
        fixtures = bi.build(Path(base) / "t")
        before = bi.sentinels(fixtures)
        for i, c in enumerate(cases):
            try:
                p = subprocess.run(
                    [sys.executable, "-m", "simkit", *c.args(fixtures)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    env=env,
                    cwd=base,
                )
                code, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as exc:
                code, out, err = None, exc.stdout or "", exc.stderr or ""
                out = out.decode() if isinstance(out, bytes) else out
                err = err.decode() if isinstance(err, bytes) else err
            kind = bi.classify(c, code, out, err)
            counts[kind] += 1
            after = bi.sentinels(fixtures)
            if after != before:
                changed = [k for k in after if after[k] != before[k]]
                lost.append((c.id, changed))
                import shutil

                shutil.rmtree(fixtures)
                fixtures = bi.build(fixtures)
            last = (err.strip().splitlines() or [""])[-1][:160]
            rows.append(
                {
                    "id": c.id,
                    "category": c.category,
                    "outcome": kind,
                    "code": code,
                    "stderr_last": last,
                }
            )
            print(f"{i + 1:3d} {kind:9s} {code!s:>4} {c.id[:70]:70s} | {last[:90]}", flush=True)
        controls_ok = 0
        for argv in [] if args.only else getattr(bi, "CONTROLS", []):
            p = subprocess.run(
                [sys.executable, "-m", "simkit", *bi.control_args(argv, fixtures)],
                capture_output=True,
                text=True,
                timeout=max(args.timeout, 300),
                env=env,
                cwd=base,
            )
            good = p.returncode == 0 and "Traceback" not in p.stderr
            controls_ok += good
            if not good:
                print(f"control FAILED ({p.returncode}): {' '.join(argv)} | {p.stderr[-200:]}")
        if not args.only:
            n = len(getattr(bi, "CONTROLS", []))
            print(f"\nvalid-command controls: {controls_ok} of {n} exit 0")
    total = len(cases)
    print(
        f"\n{total} cases: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + f"; data lost in {len(lost)}"
    )
    for cid, changed in lost:
        print(f"  data lost: {cid}: {', '.join(changed)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"counts": counts, "lost": lost, "cases": rows}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
