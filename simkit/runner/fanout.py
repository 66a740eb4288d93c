"""Run chunk tasks in this process, on loky workers or on a Dask cluster (through joblib).

Every backend yields results as chunks finish, in any order; the runner's result never
depends on that order (each chunk's rows depend only on its own seed).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator

from simkit.core.jobs import MAX_JOBS
from simkit.core.jobs import jobs as check_jobs
from simkit.errors import UserError
from simkit.runner.worker import WORKER_ENV, ChunkDone, ChunkTask, run_task

BACKENDS = ("loky", "dask")


class Fanout:
    """Maps run_task over tasks; ``imap`` yields ChunkDone objects in finishing order."""

    def __init__(self, jobs: int, backend: str, scheduler: str | None = None):
        if backend not in BACKENDS:
            raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got '{backend}'")
        if scheduler and backend != "dask":
            raise UserError("--scheduler needs --backend dask")
        if scheduler:  # workers of a remote cluster: its machines' cores, not ours
            if not 1 <= jobs <= MAX_JOBS:
                raise UserError(f"--jobs must be in 1..{MAX_JOBS}, got {jobs}")
        else:
            check_jobs(jobs)
        self.jobs = jobs
        self.backend = backend
        self.scheduler = scheduler
        self._stack = contextlib.ExitStack()
        self._client = None

    def __enter__(self) -> Fanout:
        if self.backend == "dask":
            self._client = self._stack.enter_context(_dask_client(self.jobs, self.scheduler))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def describe(self) -> str:
        if self.backend == "dask":
            return f"dask ({self.scheduler or f'LocalCluster, {self.jobs} workers on 127.0.0.1'})"
        return "in-process" if self.jobs == 1 else f"loky, {self.jobs} workers"

    def imap(self, tasks: Iterable[ChunkTask]) -> Iterator[ChunkDone]:
        if self.backend == "loky" and self.jobs == 1:
            for task in tasks:
                yield run_task(task)
            return
        from joblib import Parallel, delayed, parallel_config

        if self.backend == "loky":
            config = parallel_config(backend="loky", inner_max_num_threads=1)
            n_jobs = self.jobs
        else:
            config = parallel_config(backend="dask")
            n_jobs = -1
        with config:
            parallel = Parallel(
                n_jobs=n_jobs,
                return_as="generator_unordered",
                batch_size=1,
                pre_dispatch="2*n_jobs",
            )
            yield from parallel(delayed(run_task)(task) for task in tasks)


@contextlib.contextmanager
def _dask_client(jobs: int, scheduler: str | None):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UserError(
            "--backend dask needs dask.distributed: pip install 'simkit[cluster]'"
        ) from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s", set_as_default=True)
        except OSError as exc:
            raise UserError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        with client:
            yield client
        return
    # A private cluster on loopback only: no dashboard, nothing listening beyond 127.0.0.1;
    # its scratch space (spill files, worker folders) in a private temporary folder removed
    # afterwards, never a fixed shared path such as ./dask-scratch-space.
    import tempfile

    with (
        tempfile.TemporaryDirectory(prefix="simkit-dask-") as scratch,
        LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            env=dict(WORKER_ENV),
            silence_logs=logging.ERROR,
            local_directory=scratch,
        ) as cluster,
        Client(cluster, set_as_default=True) as client,
    ):
        yield client
