"""End a worker process when the process that started it is gone (runner workers, the
game's background warm-up)."""

from __future__ import annotations

import os
import time

_WATCHED: set[int] = set()


def watch_parent(parent: tuple[str, int] | None) -> None:
    """End this worker process when the run that started it is gone.

    loky and Dask workers outlive a parent killed by SIGKILL or SIGTERM (hundreds of MB for
    minutes); a daemon thread checks once a second that the run's pid is alive and exits
    the process when it is not. Only on the run's own host (a remote cluster's workers
    belong to that cluster), and never in the run's own process.
    """
    import socket
    import threading

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

    threading.Thread(target=loop, name="simkit-parent-watch", daemon=True).start()
