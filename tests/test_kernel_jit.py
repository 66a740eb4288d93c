"""@kernel (simkit.kernels.low.jit): the game engine compiles once per argument type, not
once per constant a caller passes, and every engine kernel uses it."""

from __future__ import annotations

import re
from pathlib import Path

from simkit.kernels.low.jit import kernel

ROOT = Path(__file__).resolve().parent.parent
# the game engine, its low-level kernels and the strategies it calls (the combat family
# and Athena keep numba's own njit: tests/test_combat_* pin their compiled behaviour)
ENGINE_DIRS = ("simkit/kernels", "simkit/kernels/low", "strategies/human", "strategies/old_ones")
NOT_ENGINE = re.compile(r"^(combat.*|athena|game_state)\.py$")


@kernel(cache=False)
def _scaled(x, k, flag):
    return x * k if flag else x


@kernel(cache=False)
def _caller(x):
    return _scaled(x, 2, True) + _scaled(x, 3, False) + _scaled(x, x, x > 0)


def test_constant_arguments_share_one_specialisation():
    assert _caller(5) == 10 + 5 + 25
    assert len(_scaled.signatures) == 1  # numba's njit makes three: one per literal pair


def test_plain_njit_would_specialise_per_constant():
    """The control: the behaviour @kernel removes is real in this numba."""
    import numba as nb

    scaled = nb.njit(_scaled.py_func)

    @nb.njit
    def caller(x):
        return scaled(x, 2, True) + scaled(x, 3, False)

    caller(5)
    assert len(scaled.signatures) == 2


def test_every_engine_kernel_uses_kernel_not_njit():
    offenders = []
    for d in ENGINE_DIRS:
        for f in sorted((ROOT / d).glob("*.py")):
            if NOT_ENGINE.match(f.name):
                continue
            for n, line in enumerate(f.read_text().splitlines(), 1):
                if re.match(r"\s*@(nb\.|numba\.)?njit", line):
                    offenders.append(f"{f.relative_to(ROOT)}:{n}")
    assert offenders == []
