"""@kernel (simkit.kernels.low.jit): the game engine compiles once per argument type, not
once per constant a caller passes, and every engine kernel uses it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

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


# -- @kernel(nrt=False): no reference counts ------------------------------------------------


@kernel(cache=False, nrt=False)
def _count_true(mask):
    n = 0
    for x in mask:
        n += 1 if x else 0
    return n


def test_a_kernel_without_reference_counts_reads_arrays_and_refuses_to_allocate():
    import numpy as np
    import pytest
    from numba.core.errors import NumbaError

    assert _count_true(np.array([True, False, True])) == 2

    @kernel(cache=False, nrt=False)
    def allocates(n):
        return np.zeros(n).sum()

    # numba types np.zeros without the runtime as "may only return an argument array"
    with pytest.raises(NumbaError, match="Only accept returning of array passed into"):
        allocates(3)


def _nrt_free_kernels():
    """(file, function node) of every ``@kernel(..., nrt=False)`` in the engine."""
    import ast

    for d in ENGINE_DIRS:
        for f in sorted((ROOT / d).glob("*.py")):
            tree = ast.parse(f.read_text())
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef):
                    continue
                for dec in node.decorator_list:
                    if isinstance(dec, ast.Call) and any(
                        k.arg == "nrt"
                        and isinstance(k.value, ast.Constant)
                        and k.value.value is False
                        for k in dec.keywords
                    ):
                        yield f, node


def _hands_out_an_array(expr, arrays: set[str]) -> bool:
    """May ``expr`` be an array or container (a parameter, an alias of one, a field, a
    slice, either branch of a conditional)? Scalars, comparisons, arithmetic and calls (to
    kernels that return scalars, checked the same way) are fine. Not seen: ``a[i]`` of a
    2-D ``a`` (a row), and a call to a kernel with reference counts that returns an array;
    the allocation test below catches what games reach."""
    import ast

    if isinstance(expr, ast.Name):
        return expr.id in arrays
    if isinstance(expr, ast.Attribute):
        return True
    if isinstance(expr, ast.Subscript):
        parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return any(isinstance(s, ast.Slice) for s in parts)
    if isinstance(expr, ast.Tuple):
        return any(_hands_out_an_array(e, arrays) for e in expr.elts)
    if isinstance(expr, ast.IfExp):
        return _hands_out_an_array(expr.body, arrays) or _hands_out_an_array(expr.orelse, arrays)
    return False


def test_no_kernel_without_reference_counts_returns_an_array():
    """A kernel compiled without reference counts hands back borrowed values: an array it
    returned would be released by its caller without ever having been counted, and freed
    while the game still uses it. So such a kernel returns scalars only: not a parameter,
    an alias of one, a field or a slice."""
    import ast

    found, offenders = 0, []
    for f, fn in _nrt_free_kernels():
        found += 1
        params = {a.arg for a in fn.args.args}
        aliases = set(params)
        for node in ast.walk(fn):  # names bound to a parameter, a field or a slice
            if isinstance(node, ast.Assign) and _hands_out_an_array(node.value, aliases):
                for t in node.targets:  # a name or a tuple of names (not a[i] = ...)
                    for name in t.elts if isinstance(t, ast.Tuple) else [t]:
                        if isinstance(name, ast.Name):
                            aliases.add(name.id)
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and node.value is not None:
                if _hands_out_an_array(node.value, aliases):
                    offenders.append(f"{f.relative_to(ROOT)}:{node.lineno} {fn.name}")
    assert found >= 10  # the per-hex predicates and the searches of simkit.kernels.low.board
    assert offenders == []


def test_the_check_catches_a_kernel_returning_its_argument():
    """The control for the test above."""
    import ast

    fn = ast.parse("def f(a, n):\n    b = a[1:]\n    if n:\n        return b\n    return n").body[0]
    returns = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Return)), key=lambda n: n.lineno)
    assert _hands_out_an_array(fn.body[0].value, {"a"})  # b = a[1:]: a slice
    assert [_hands_out_an_array(r.value, {"a", "b"}) for r in returns] == [True, False]


def test_games_of_every_mode_and_both_searches_release_every_allocation():
    """Every array and container numba allocates while games of each mode and both search
    players play is freed again, and none is freed twice (a kernel that skipped counting
    a reference it handed out would free too early: more frees than allocations, or a
    crash)."""
    import gc

    from numba.core.runtime import _nrt_python
    from numba.core.runtime.nrt import rtsys

    from simkit.game.engine import Engine, make_spec

    eng = Engine()
    specs = [
        (make_spec("base", 2, ["balanced", "hunter"]), 20),
        (make_spec("revenge", 3, "balanced", difficulty="hard", oop="rusher"), 20),
        (make_spec("mythos-solo", 1, "balanced", difficulty="normal"), 10),
        (make_spec("base", 2, ["search:rollouts=1", "balanced"]), 1),
        (make_spec("revenge", 2, "balanced", difficulty="normal", oop="search:rollouts=1"), 1),
    ]
    for spec, _ in specs:  # load (or compile) before counting
        eng.play_many(spec, 1, 0, 1)
    _allocates(3)
    _nrt_python.memsys_enable_stats()
    try:
        gc.collect()
        before = rtsys.get_allocation_stats()
        assert _allocates(3) == 3.0  # the control: one array made and freed is counted
        for k, (spec, n) in enumerate(specs):
            eng.play_many(spec, 2, k, n)
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    alloc, free, mi_alloc, mi_free = (b - a for a, b in zip(before, after, strict=True))
    assert mi_alloc > 0
    assert (alloc, mi_alloc) == (free, mi_free)


@kernel(cache=False)
def _allocates(n):
    return np.ones(n).sum()
