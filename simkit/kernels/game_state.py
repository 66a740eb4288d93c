"""The game's containers as numba StructRefs (one pointer per argument).

simkit.kernels.low.game_layout names the fields (Static, State, Work named tuples, which the
Python side keeps for direct numpy access); the kernels take these StructRef views of the
same arrays. Why not the named tuples themselves: numba passes a tuple of ~45 arrays as
~400 scalar arguments, which made every kernel function cost ~1 s to compile (the whole
engine ~200 s); a StructRef is one pointer (the engine compiles in well under a minute).
"""

import numba as nb
from numba.core import types
from numba.experimental import structref

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.movement import new_kit


@structref.register
class StaticType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


@structref.register
class StateType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


@structref.register
class WorkType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class StaticRef(structref.StructRefProxy):
    pass


class StateRef(structref.StructRefProxy):
    pass


class WorkRef(structref.StructRefProxy):
    pass


structref.define_proxy(StaticRef, StaticType, list(L.Static._fields))
structref.define_proxy(StateRef, StateType, list(L.State._fields))
# Work's arrays, and the Old One movement kit over the game's arrays (made once here: a
# kit made per movement card cost a heap allocation and ~70 reference counts each time)
structref.define_proxy(WorkRef, WorkType, [*L.Work._fields, "move_kit"])


@nb.njit(cache=True)
def _static(t):
    return StaticRef(*t)


@nb.njit(cache=True)
def _state(t):
    return StateRef(*t)


@nb.njit(cache=True)
def _work(t):
    return WorkRef(*t)


def to_refs(S: L.Static, X: L.State, W: L.Work):
    """StructRef views (sharing the arrays) of the three named tuples. The Work view also
    holds ``move_kit``, the MoveKit over these S, X and W arrays: X and W always go to
    the kernels as the pair made here."""
    kit = new_kit(
        S.neighbors,
        X.hex_target,
        X.hex_farm,
        X.tile_hex,
        hex_dist=S.hex_dist,
        card_moves=S.card_moves,
        card_compass=S.card_compass,
        card_rotation=S.card_rotation,
        type_moves=S.type_moves,
        mover_type=S.tile_type,
        mover_face_up=W.face,
        mover_moves=W.moves,
        mover_stopped=W.stopped,
        dist=W.dist,
        port_dist=W.dist2,
        before=W.before,
        cand=W.cand6,
    )
    return _static(tuple(S)), _state(tuple(X)), _work((*W, kit))
