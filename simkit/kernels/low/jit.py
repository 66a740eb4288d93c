"""``@kernel``: the game engine's jit decorator, ``numba.njit(cache=True)`` compiled once
per argument type instead of once per constant.

When one jitted function calls another with a constant (``log_event(X, L.EV_FIGHT, ...)``,
``fight(..., True)``), numba types that argument as a literal and compiles the callee, and
everything below it, once per value: the engine had compiled ``log_event`` 29 times and
the fight subtree twice, and because numba re-optimises a function's module with every
callee linked in, each copy cost the full subtree again. A ``kernel`` compiles for the
plain types (a literal argument matches them by a safe conversion); LLVM still folds the
constant where it inlines the call. Keyword options pass through (``inline="always"``).

``@kernel(nrt=False)`` compiles a kernel without numba's reference counting. Every read of
a container's array field and every array argument is otherwise an ``NRT_incref`` and an
``NRT_decref``, each an out-of-line call that the pruning pass leaves in functions with
early returns: in the small predicates the players call per hex (``farm_site``,
``can_build_track``, ...) they were a quarter of a rollout's time. Without them the arrays
are borrowed, which is safe because the game's arrays outlive every call. Such a kernel
may neither allocate (numba refuses to compile it) nor return an array or container (the
caller would release a reference it was never given):
``tests/test_kernel_jit.py`` checks every one.

    >>> @kernel(cache=False)  # (a doctest has no file to cache in)
    ... def add(x, k):
    ...     return x + k
    >>> @kernel(cache=False)
    ... def twice(x):
    ...     return add(x, 1) + add(x, 2)
    >>> twice(3), len(add.signatures)
    (9, 1)
"""

from __future__ import annotations

from numba.core import types
from numba.core.registry import CPUDispatcher
from numba.experimental import structref


class KernelDispatcher(CPUDispatcher):
    """A CPU dispatcher that compiles its callers' calls for non-literal argument types."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def kernel(fn=None, /, *, cache: bool = True, nrt: bool = True, **options):
    """``@kernel``, ``@kernel(inline="always")`` or ``@kernel(nrt=False)``: njit with on-disk
    caching, one specialisation per argument type."""

    def wrap(func):
        targetoptions = {"nopython": True, **options}
        if not nrt:
            targetoptions["_nrt"] = False
        disp = KernelDispatcher(py_func=func, locals={}, targetoptions=targetoptions)
        if cache:
            disp.enable_caching()
        return disp

    return wrap(fn) if fn is not None else wrap


class KitType(types.StructRef):
    """Base of the kits' StructRef types: fields are typed without literals, so one
    compiled kernel serves every kit of the same arrays."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


def define_kit(name: str, fields, module: str):
    """A kit: a numba StructRef over a clump of arrays, passed to kernels as one pointer
    where a tuple would be passed as many scalars (see simkit.kernels.game_state). Returns
    (its type class, its Python proxy class, constructed with the fields in order), both
    named ``module``.NAME(Type): assign them to those names there, so numba's cache finds
    them (simkit.kernels.low.movement.MoveKit, simkit.kernels.low.board.SurveyKit)."""
    typ = structref.register(type(f"{name}Type", (KitType,), {"__module__": module}))
    doc = f"The {name} StructRef's Python side; fields: {', '.join(fields)}."
    proxy = type(name, (structref.StructRefProxy,), {"__module__": module, "__doc__": doc})
    structref.define_proxy(proxy, typ, list(fields))
    return typ, proxy
