"""`simkit serve`: warm query latency through the HTTP app (Starlette's in-process client, no
socket), with the answer cache cleared before every query so each one is computed.

    .venv/bin/python benchmarks/bench_serve.py [--repeats 7]

``serve_headline_*_ms``: the headline (P(destroy) with its interval or exact, the method)
from the start of the query; ``serve_answer_*_ms``: the whole answer the page shows (plus the
per-type loss distribution and the withdraw rule), measured at the client. Medians of
--repeats; the numba cache is the normal on-disk one (``serve_warm_s`` is the start-up's warm
call with that cache, not a cold compile). Prints JSON lines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from simkit.datapack import load_pack  # noqa: E402
from simkit.serve.app import create_app  # noqa: E402
from simkit.serve.calc import Calculator  # noqa: E402

FIGHTS = [
    # (name, query): exact-size fights, then one past the exact budget (Monte Carlo)
    ("exact_infantry3_vs_cthulhu", "f=3.0.0.0.0&vs=cthulhu&w=never"),
    ("exact_infantry1_airship1_vs_mi_go_table_value", "f=1.0.0.0.1&vs=mi_go&w=table-value"),
    ("exact_infantry2_vs_zombie_x2_seen", "f=2.0.0.0.0&vs=zombie.zombie&w=table&seen=3.17"),
    ("mc_infantry3_car2_artillery2_vs_cthulhu", "f=3.2.2.0.0&vs=cthulhu&w=never"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    data = load_pack()
    calc = Calculator(data)
    start = time.perf_counter()
    calc.warm()
    emit("serve_warm_s", time.perf_counter() - start, "s", note="with the on-disk numba cache")
    client = TestClient(
        create_app(data, "bench", 8765, calculator=calc), base_url="http://127.0.0.1:8765"
    )
    headers = {"authorization": "Bearer bench"}
    for name, query in FIGHTS:
        headline, whole = [], []
        for _ in range(args.repeats):
            calc.cache.clear()
            t0 = time.perf_counter()
            response = client.get(f"/api/odds?{query}", headers=headers)
            whole.append((time.perf_counter() - t0) * 1e3)
            answer = response.json()
            if response.status_code != 200:
                raise SystemExit(f"bench_serve: {query}: {answer}")
            headline.append(answer["headline_ms"])
        extra = {"method": answer["method"], "query": query, "repeats": args.repeats, "cores": 1}
        emit(f"serve_headline_{name}_ms", statistics.median(headline), "ms", **extra)
        emit(f"serve_answer_{name}_ms", statistics.median(whole), "ms", **extra)


if __name__ == "__main__":
    main()
