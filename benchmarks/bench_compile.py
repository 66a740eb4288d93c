"""Cold compile time per entry point (JSON lines): each in a fresh process with an empty
numba cache, so it measures what a fresh clone pays before that command's first result.

    .venv/bin/python benchmarks/bench_compile.py [ENTRY ...]

Entries: combat, base, revenge, mythos-solo, search, athena (tools/compile_profile.py says
which functions the time goes to).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = ("combat", "base", "revenge", "mythos-solo", "search", "athena")


def main() -> None:
    for entry in sys.argv[1:] or ENTRIES:
        out = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "compile_profile.py"), entry, "--top", "0"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        head = json.loads(out.splitlines()[-1])
        emit(
            f"compile_cold_{entry}_s",
            head["value"],
            "s",
            functions=head["functions"],
            compiles=head["compiles"],
            note="first result of the entry point with an empty numba cache",
        )


if __name__ == "__main__":
    main()
