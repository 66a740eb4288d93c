"""Worker processes end when the process that started them dies.

loky and Dask workers outlive a parent killed by SIGKILL (hundreds of MB for minutes);
:func:`watch_parent` starts a daemon thread in the worker that checks once a second that
the parent's pid is alive and exits the worker when it is not. :func:`watched` wraps a
task function for joblib so every pool of every command gets the watch: use
``delayed(watched(fn))(...)`` instead of ``delayed(fn)(...)``.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

_WATCHED: set[int] = set()


def this_process() -> tuple[str, int]:
    return socket.gethostname(), os.getpid()


def watch_parent(parent: tuple[str, int] | None) -> None:
    """End this (worker) process when ``parent`` (host, pid) is gone. Only on the parent's
    own host (a remote cluster's workers belong to that cluster), never in the parent."""
    if parent is None:
        return
    host, pid = parent
    if pid == os.getpid() or pid in _WATCHED or host != socket.gethostname():
        return
    _WATCHED.add(pid)

    def loop() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass
            if os.getppid() == 1 and pid != 1:  # re-parented to init: the parent is gone
                os._exit(1)

    threading.Thread(target=loop, name="simkit-parent-watch", daemon=True).start()


class watched:  # noqa: N801 - used like a function: delayed(watched(fn))
    """``fn`` run in a worker that ends when the process that made this wrapper dies."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.parent = this_process()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        watch_parent(self.parent)
        return self.fn(*args, **kwargs)
