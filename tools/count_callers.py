"""Count who calls a function of a running engine process, under gdb: a breakpoint on
each target reads the return address at the stack top and names the caller from the
perf map of tools/profile_rollouts.py.

    PAUSE=8 .venv/bin/python tools/profile_rollouts.py 6000 &     # prints "PID <pid>"
    TPID=<pid> TARGETS=NRT_incref,NRT_decref NHITS=30000 \
        gdb -p <pid> -batch -x tools/count_callers.py

perf cannot unwind numba's frames (no frame pointers, no unwind tables it can find), so
its call graphs stop at the hot function; the return address at a function's first
instruction is exact. Prints the callers' shares of NHITS hits, largest first.
"""

import bisect
import collections
import os

import gdb  # noqa: F401 - only inside gdb

pid = int(os.environ["TPID"])
targets = os.environ.get("TARGETS", "NRT_incref,NRT_decref").split(",")
wanted = int(os.environ.get("NHITS", "20000"))
symbols = []
with open(f"/tmp/perf-{pid}.map") as fh:
    for line in fh:
        addr, size, name = line.split(" ", 2)
        symbols.append((int(addr, 16), int(size, 16), name.strip()))
symbols.sort()
starts = [s[0] for s in symbols]


def caller(addr: int) -> str:
    k = bisect.bisect_right(starts, addr) - 1
    if k >= 0 and addr < symbols[k][0] + symbols[k][1]:
        return symbols[k][2]
    return "?"


counts: collections.Counter = collections.Counter()
hits = [0]


class Count(gdb.Breakpoint):
    def stop(self):
        rsp = int(gdb.parse_and_eval("$rsp"))
        counts[caller(int(gdb.parse_and_eval(f"*(unsigned long*){rsp}")))] += 1
        hits[0] += 1
        return hits[0] >= wanted  # stop (and report) after NHITS


for target in targets:
    addr = next(s[0] for s in symbols if s[2] == target)
    Count(f"*{addr:#x}", internal=True)
gdb.execute("continue")
for name, n in counts.most_common(40):
    print(f"{n / hits[0]:6.3f} {name}")
gdb.execute("detach")
