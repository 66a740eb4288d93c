"""Run chunk tasks in this process, on loky workers or on a Dask cluster (through joblib).

Every backend yields results as chunks finish, in any order; the runner's result never
depends on that order (each chunk's rows depend only on its own seed).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from simkit.core.jobs import MAX_JOBS
from simkit.core.jobs import jobs as check_jobs
from simkit.errors import UserError
from simkit.runner.worker import WORKER_ENV, ChunkDone, ChunkTask, run_task

BACKENDS = ("loky", "dask")


class Fanout:
    """Maps run_task over tasks; ``imap`` yields ChunkDone objects in finishing order."""

    def __init__(
        self, jobs: int, backend: str, scheduler: str | None = None, security: str | None = None
    ):
        if backend not in BACKENDS:
            raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got '{backend}'")
        if scheduler and backend != "dask":
            raise UserError("--scheduler needs --backend dask")
        if security and not scheduler:
            raise UserError(
                "--security is for a cluster of your own (--scheduler); the private cluster "
                "makes its own temporary certificate"
            )
        self.security = security
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
            extra = {"security_file": self.security} if self.security else {}
            self._client = self._stack.enter_context(
                _dask_client(self.jobs, self.scheduler, **extra)
            )
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
def _dask_client(jobs: int, scheduler: str | None, security_file: str | None = None):
    try:
        from distributed import Client
    except ImportError:
        raise UserError(
            "--backend dask needs dask.distributed: pip install 'simkit[cluster]'"
        ) from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler:
        security = _security_from_file(security_file) if security_file else None
        try:
            client = Client(scheduler, timeout="10s", set_as_default=True, security=security)
        except (OSError, ValueError, TypeError) as exc:
            raise UserError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        with client:
            yield client
        return
    with private_cluster(jobs) as cluster, Client(cluster, set_as_default=True) as client:
        yield client


def _security_from_file(path: str):
    """A distributed Security from a YAML or JSON file of its keyword arguments, e.g.
    ``tls_ca_file``, ``tls_client_cert``, ``tls_client_key``, ``require_encryption``."""
    from distributed.security import Security

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--security {path}: cannot be read ({exc.strerror})") from None
    try:
        import yaml

        conf = yaml.safe_load(text)
    except ImportError:  # pragma: no cover - dask depends on pyyaml
        import json

        conf = json.loads(text)
    except Exception as exc:  # noqa: BLE001 - any parse error: one line
        raise UserError(f"--security {path}: not YAML ({type(exc).__name__})") from None
    if not isinstance(conf, dict):
        raise UserError(f"--security {path}: expected a mapping of Security options")
    base = Path(path).parent
    for key, value in list(conf.items()):
        if key.startswith("tls_") and isinstance(value, str) and not Path(value).is_absolute():
            conf[key] = str(base / value)  # certificate paths relative to the file
    try:
        return Security(**conf)
    except TypeError as exc:
        raise UserError(f"--security {path}: {exc}") from None


# -- the private cluster ----------------------------------------------------------------------


def _temporary_security(scratch: Path):
    """TLS for the private cluster: a fresh self-signed key and certificate that every
    member must present (mutual TLS), so no other local user can connect. distributed's
    Security.temporary() when `cryptography` is installed, else one made by `openssl` in the
    private (0700) scratch folder. None when neither is available."""
    from distributed.security import Security

    try:
        return Security.temporary()
    except ImportError:
        pass
    import shutil
    import subprocess

    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    key, cert = scratch / "tls-key.pem", scratch / "tls-cert.pem"
    done = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
        + ["-subj", "/CN=dask-internal", "-keyout", str(key), "-out", str(cert)],
        capture_output=True,
        timeout=60,
    )
    if done.returncode != 0 or not key.is_file():
        return None
    os.chmod(key, 0o600)
    files = {"tls_ca_file": str(cert)}
    for role in ("client", "scheduler", "worker"):
        files[f"tls_{role}_cert"] = str(cert)
        files[f"tls_{role}_key"] = str(key)
    return Security(require_encryption=True, **files)


@contextlib.contextmanager
def private_cluster(jobs: int):
    """A Dask cluster nobody else can reach: scheduler and workers on 127.0.0.1 over mutual
    TLS with a temporary certificate (or, without one, in-process workers on the inproc://
    transport: nothing listens at all), no HTTP server anywhere, its scratch (spill files,
    worker folders, the key) in a private temporary folder removed afterwards, also when
    SIGTERM stops the run (simkit.cli.main turns it into an exception)."""
    import tempfile

    from distributed import Nanny, SpecCluster

    from simkit.runner.quiet_dask import QuietScheduler, QuietWorker

    with tempfile.TemporaryDirectory(prefix="simkit-dask-") as scratch:
        security = _temporary_security(Path(scratch))
        if security is None:
            import warnings

            warnings.warn(
                "no TLS certificate could be made (neither cryptography nor openssl): the "
                "private Dask cluster runs its workers in this process (inproc://)",
                stacklevel=2,
            )
            workers = {
                i: {"cls": QuietWorker, "options": {"nthreads": 1, "local_directory": scratch}}
                for i in range(jobs)
            }
            spec = {
                "cls": QuietScheduler,
                "options": {"protocol": "inproc://", "dashboard": False, "dashboard_address": None},
            }
            with SpecCluster(
                scheduler=spec, workers=workers, asynchronous=False, silence_logs=logging.ERROR
            ) as cluster:
                yield cluster
            return
        common = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
        workers = {
            i: {
                "cls": Nanny,
                "options": {
                    **common,
                    "nthreads": 1,
                    "local_directory": scratch,
                    "env": dict(WORKER_ENV),
                    "worker_class": QuietWorker,
                    "dashboard": False,
                    "dashboard_address": None,
                    # a worker writes to the command's stderr: a task's error reaches the
                    # command through its future (one line), and a worker that logs while
                    # SIGTERM closes the scheduler under it (a heartbeat ERROR, seen once in
                    # a fresh-clone suite) would break the one-line rule
                    "silence_logs": logging.CRITICAL,
                },
            }
            for i in range(jobs)
        }
        spec = {
            "cls": QuietScheduler,
            "options": {**common, "dashboard": False, "dashboard_address": None},
        }
        with SpecCluster(
            scheduler=spec, workers=workers, security=security, silence_logs=logging.ERROR
        ) as cluster:
            yield cluster
