"""The one --jobs rule (every command and the runner): 1..MAX_JOBS workers, at most the
machine's cores unless SIMKIT_OVERSUBSCRIBE=1 asks for more."""

from __future__ import annotations

import os

from simkit.errors import UserError

MAX_JOBS = 256
OVERSUBSCRIBE_ENV = "SIMKIT_OVERSUBSCRIBE"


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def jobs(value: int, flag: str = "--jobs") -> int:
    if value < 1:
        raise UserError(f"{flag} must be at least 1, got {value}")
    if value > MAX_JOBS:
        raise UserError(f"{flag} must be at most {MAX_JOBS}, got {value}")
    n = cores()
    if value > n and os.environ.get(OVERSUBSCRIBE_ENV) != "1":
        raise UserError(
            f"{flag} {value} is more than the {n} core(s) of this machine (results do not depend "
            f"on --jobs; set {OVERSUBSCRIBE_ENV}=1 to run more workers than cores)"
        )
    return value
