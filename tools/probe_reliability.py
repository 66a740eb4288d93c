# ruff: noqa: E501  (the probe holds small programs as one-line strings)
"""Before/after probe for issue 26 (reliability): one line per case, on any checkout.

    python tools/probe_reliability.py ROOT     # ROOT: a simkit checkout (e.g. a git archive)

Each case builds what it needs in a temporary folder (small lakes of the fake
'test_recovery' mode from ROOT/tests/fake_modes.py: no numba) and prints
``case || exit code, traceback?, the last error line``. The closing note of issue 26
compares the output of the commit before the work with the output after it.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(sys.argv[1]).resolve()
PY = sys.executable
ENV = {
    **os.environ,
    "CI": "1",
    "SIMKIT_MODE_PROVIDERS": "fake_modes",
    "PYTHONPATH": f"{ROOT / 'tests'}:{ROOT}",
}
work = Path(tempfile.mkdtemp(prefix="rel_probe_"))
SPEC = '[experiment]\nname = "p"\nmode = "test_recovery"\nroot_seed = 5\nchunk_size = 100\ngames = 300\n[grid]\np = [0.25, 0.75]\n'


def sh(*argv, timeout=120, cwd=None):
    try:
        d = subprocess.run(
            [PY, "-m", "simkit", *map(str, argv)],
            env=ENV,
            cwd=cwd or work,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"hang (killed after {timeout}s)"
    err = [ln for ln in d.stderr.splitlines() if ln.strip()]
    tb = "Traceback" in d.stderr
    first = (err[-1] if tb else (err[0] if err else "")).replace("simkit: error: ", "")[:110]
    return f"exit {d.returncode}{', traceback' if tb else ''}{f', {len(err)} lines' if len(err) > 1 and not tb else ''}: {first}"


def pyc(code, timeout=120):
    try:
        d = subprocess.run(
            [PY, "-c", code], env=ENV, cwd=work, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "hang"
    return (d.stdout.strip() or d.stderr.strip().splitlines()[-1])[:120]


def lake(name):
    (work / f"{name}.toml").write_text(SPEC)
    out = work / name
    r = sh("experiment", "run", work / f"{name}.toml", "--out", out, "--quiet")
    assert r.startswith("exit 0"), r
    return out


out = {}
L = lake("del")
[f.unlink() for f in sorted(L.glob("summary/**/chunk-*-000001.parquet"))[:1]]
out["deleted chunk: experiment verify"] = sh("experiment", "verify", L)
out["deleted chunk: experiment summary"] = sh("experiment", "summary", L)
L = lake("st")
m = json.loads((L / "manifest.json").read_text())
for r in m["experiments"].values():
    r["status"] = "interrupted"
(L / "manifest.json").write_text(json.dumps(m))
out["status interrupted: summary"] = sh("experiment", "summary", L)
L = lake("deep")
a, b = (
    sorted(L.glob("summary/**/chunk-*-000001.parquet"))[0],
    sorted(L.glob("summary/**/chunk-*-000002.parquet"))[0],
)
rows = pq.read_table(a)
meta = pq.read_metadata(b).metadata
with pq.ParquetWriter(b, rows.schema, store_schema=False) as w:
    w.write_table(rows)
    w.add_key_value_metadata({"simkit": meta[b"simkit"].decode()})
out["chunk rewritten with another chunk's rows: verify --deep"] = sh(
    "experiment", "verify", L, "--deep"
)
L = lake("flip")
p = sorted(L.glob("summary/**/chunk-*-000000.parquet"))[0]
md = pq.read_metadata(p)
col = md.row_group(0).column(md.schema.names.index("win"))
data = bytearray(p.read_bytes())
for i in range(col.data_page_offset + 8, col.data_page_offset + col.total_compressed_size):
    data[i] ^= 0x5A
p.write_bytes(bytes(data))
out["flipped bytes in a data page: summary"] = sh("experiment", "summary", L)
L = lake("types")
m = json.loads((L / "manifest.json").read_text())
for r in m["experiments"].values():
    r["cells"] = ["x"]
(L / "manifest.json").write_text(json.dumps(m))
out["manifest cells of the wrong type: summary"] = sh("experiment", "summary", L)
L = lake("own")
(work / "notes.html").write_text("mine")
out["report --out notes.html (foreign)"] = sh("report", L, "--out", work / "notes.html") + (
    " [notes kept]" if (work / "notes.html").read_text() == "mine" else " [notes REPLACED]"
)
out["report --out LAKE/summary/r.html"] = (
    sh("report", L, "--out", L / "summary" / "r.html")
    + " | then summary: "
    + sh("experiment", "summary", L)[:60]
)
(work / "b.png").write_bytes(b"photo")
out["board show --out b.png (foreign)"] = sh("board", "show", "--out", work / "b.png") + (
    " [kept]" if (work / "b.png").read_bytes() == b"photo" else " [REPLACED]"
)
out["board show --out a.png --out c.png"] = sh(
    "board", "show", "--out", work / "a.png", "--out", work / "c.png"
)
s = work / "z.toml"
s.write_text(
    "[experiment]\nmode='base'\nroot_seed=1\ngames=10\n[params]\nplayers=2\nstrategies='balanced,file:/dev/zero'\n"
)
out["file:/dev/zero: experiment check"] = sh("experiment", "check", s, timeout=20)
os.mkfifo(work / "fifo.toml")
s.write_text(s.read_text().replace("/dev/zero", str(work / "fifo.toml")))
out["file:FIFO: experiment check"] = sh("experiment", "check", s, timeout=20)
s2 = work / "nul.toml"
s2.write_text(
    '[experiment]\nname = "a\\u0000b"\nmode = "test_recovery"\nroot_seed = 1\ngames = 10\n'
)
out["NUL in a spec name: experiment run"] = sh("experiment", "run", s2)
src = (ROOT / "simkit/data/auztralia/maps/eastern.csv").read_text().splitlines()
h = next(i for i, ln in enumerate(src) if ln.startswith("hex,"))
row = src[h + 1].split(",", 3)
row[1] = str(2**70)
m1 = src[: h + 1] + [",".join(row)] + src[h + 2 :]
(work / "big_q.csv").write_text("\n".join(m1) + "\n")
out["board check: q = 2**70"] = sh("board", "check", work / "big_q.csv")
row = src[h + 1].rsplit(",", 1)
m2 = src[: h + 1] + [row[0] + ',"' + "s" * 200_000 + '"'] + src[h + 2 :]
(work / "big_f.csv").write_text("\n".join(m2) + "\n")
out["board check: a 200 KB field"] = sh("board", "check", work / "big_f.csv")
m3 = src[: h + 1] + [row[0] + ',"' + "s" * (17 << 20) + '"'] + src[h + 2 :]
(work / "huge_f.csv").write_text("\n".join(m3) + "\n")
out["board check: a 17 MB field (over the limit)"] = sh("board", "check", work / "huge_f.csv")
tuned = ROOT / "experiments/strategies/balanced_tuned_base_2p.toml"
shutil.copy(tuned, work / "t.toml")
code = (
    "from simkit.runner import load_spec; import sys, pathlib\n"
    "p = pathlib.Path('s.toml'); p.write_text(\"[experiment]\\nmode='base'\\nroot_seed=1\\ngames=10\\n[params]\\nplayers=2\\nstrategies='balanced,file:t.toml'\\n\")\n"
    "a = load_spec(p).experiment_id\n"
    "t = pathlib.Path('t.toml'); t.write_text(t.read_text() + '\\n# edited\\n')\n"
    "b = load_spec(p).experiment_id\nprint('experiment id', 'CHANGES' if a != b else 'SAME (pooled)', a, b)"
)
out["edited file: strategy: experiment id"] = pyc(code)
d = work / "tune"
d.mkdir()
(d / "study.db").write_bytes(b"garbage" * 50)
out["tune on a corrupt study.db"] = sh(
    "tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--trials",
    "5",
    "--out",
    d,
)
code = (
    "from simkit.tune import TuneSpec, base_strategy, open_study\nfrom pathlib import Path\n"
    "s=TuneSpec(mode='base',strategy='balanced',opponents=('balanced',),trials=5); open_study(s, Path('tt'), base_strategy(s))\n"
    "s=TuneSpec(mode='base',strategy='balanced',opponents=('balanced',),trials=9)\n"
    "try:\n open_study(s, Path('tt'), base_strategy(s)); print('more --trials accepted')\n"
    "except Exception as e: print('more --trials refused:', str(e)[:80])"
)
out["tune rerun with more --trials"] = pyc(code)
code = (
    "import socket\nfrom simkit.runner.fanout import _dask_client\n"
    "if __name__ == '__main__':\n"
    " with _dask_client(1, None) as c:\n"
    "  addr = c.scheduler.address\n"
    "  try:\n   s = socket.create_connection(('127.0.0.1', 8787), timeout=2); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); r = s.recv(12)\n"
    "  except OSError: r = b'nothing'\n"
    "  print('scheduler', addr.split(':')[0], '| 127.0.0.1:8787 answers', r[:12])\n"
)
(work / "dask_probe.py").write_text(code)
d = subprocess.run(
    [PY, str(work / "dask_probe.py")],
    env=ENV,
    cwd=work,
    capture_output=True,
    text=True,
    timeout=120,
)
out["dask private cluster: protocol, port 8787"] = (
    d.stdout.strip() or d.stderr.strip().splitlines()[-1]
)[:120]
for k, v in out.items():
    print(f"{k} || {v}")
