"""Run every benchmark script in this folder; each prints JSON lines (name, value, unit)."""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
failed = 0
for script in sorted(here.glob("bench_*.py")):
    print(f"# {script.name}", file=sys.stderr, flush=True)
    failed |= subprocess.run([sys.executable, str(script)], check=False).returncode
sys.exit(1 if failed else 0)
