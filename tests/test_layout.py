"""The declared layouts (simkit.kernels.low.fields): every slot of every layout belongs to
exactly one field, the derived constants are the ones the kernels read, and one prefix
means one thing."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low import gen_constants
from simkit.kernels.low.fields import Layout

ALL = L.LAYOUTS + (C.STATE_LAYOUT, C.MATCHUP_LAYOUT)


@pytest.mark.parametrize("layout", ALL, ids=lambda lay: lay.title)
def test_no_two_fields_overlap_and_every_slot_is_covered(layout):
    owner = [None] * layout.size
    for f in layout:
        for i in range(f.offset, f.stop):
            assert owner[i] is None, f"{layout.title}: slot {i} is in {owner[i]} and {f.name}"
            owner[i] = f.name
    gaps = [i for i in range(layout.start, layout.size) if owner[i] is None]
    assert not gaps, f"{layout.title}: slots {gaps} belong to no field"
    assert len(layout.slot_names()) == layout.size - layout.start


@pytest.mark.parametrize("layout", ALL, ids=lambda lay: lay.title)
def test_every_exported_constant_is_the_fields_offset(layout):
    module = C if layout in (C.STATE_LAYOUT, C.MATCHUP_LAYOUT) else L
    for name, value in layout.constants().items():
        assert getattr(module, name) == value, name


def test_the_sizes_the_buffers_are_allocated_with():
    assert (L.G_SIZE, L.P_SIZE, L.H_SIZE, L.R_SIZE) == (
        L.G_LAYOUT.size,
        L.P_LAYOUT.size,
        L.H_LAYOUT.size,
        L.R_LAYOUT.size,
    )
    # 40 heuristic slots, then the learned player's box weights (boxes x features)
    learned = L.NUM_BOXES * L.LEARN_NUM_FEATURES
    assert L.NUM_PARAMS == L.PARAM_LAYOUT.size == 40 + learned
    assert L.PARAM_LAYOUT["HP_LEARN_W"].size == learned
    # 12 heuristic Old One slots, then the learned Old One player's (actions x features)
    oop_learned = L.NUM_OOP_ACTIONS * L.OOP_LEARN_NUM_FEATURES
    assert L.OOP_NUM_PARAMS == L.OOP_PARAM_LAYOUT.size == 12 + oop_learned
    assert L.OOP_PARAM_LAYOUT["OP_LEARN_W"].size == oop_learned
    assert L.CTX_SIZE == L.CTX_LAYOUT.size and L.SUMMARY_SIZE == len(L.SUMMARY_COLUMNS)
    assert C.STATE_SIZE == C.STATE_LAYOUT.size and C.MATCHUP_SIZE == C.MATCHUP_LAYOUT.size
    assert L.S_PLAYER_STRIDE == L.SUM_P_LAYOUT.size
    assert L.PARAM_LAYOUT["HP_PERS_W"].size == len(
        L.EFFECT_NAMES
    )  # one wish per Personality effect
    assert L.PARAM_LAYOUT["HP_UNIT_W"].size == L.NUM_UNITS
    assert len(set(L.SUMMARY_COLUMNS)) == L.SUMMARY_SIZE


def test_a_prefix_names_one_kind_of_index():
    """SP_ = combat-policy parameter slots, SUM_P_ = summary player fields, MYTH_ = Mythos
    effect ids, EFF_ = Personality effects: no constant is declared in two layouts."""
    seen = {}
    for layout in L.LAYOUTS:
        for name in layout.constants():
            assert name not in seen, f"{name} in {seen.get(name)} and {layout.title}"
            seen[name] = layout.title
    assert all(seen[n] == "params[p]" for n in seen if n.startswith(("SP_", "HP_")))
    assert all(seen[n] == "summary player" for n in seen if n.startswith("SUM_P_"))
    assert all(seen[n] == "oop_params" for n in seen if n.startswith("OP_"))
    assert all(
        seen[n] == "myth_effect ids"
        for n in seen
        if n.startswith("MYTH_") and n != "MYTH_NUM_EFFECTS"
    )


def test_mythos_effect_ids_are_the_data_packs_effect_order():
    from simkit.revenge.mythos import EFFECTS

    assert EFFECTS is L.MYTHOS_EFFECTS
    for i, name in enumerate(EFFECTS):
        assert getattr(L, f"MYTH_{name.upper()}") == i
    from simkit.kernels.game_mythos_cards import COMBAT_EFFECTS

    assert [EFFECTS[e] for e in COMBAT_EFFECTS] == [
        "combat_damage_and_sanity",
        "port_combat_extra_damage",
        "temple_attack_extra_capacity",
        "ghoul_joins_combat",
    ]


def test_layout_rejects_bad_declarations():
    with pytest.raises(ValueError, match="duplicate"):
        Layout("x", (("A", 1), ("A", 2)))
    with pytest.raises(ValueError, match="size"):
        Layout("x", (("A", 0),))
    with pytest.raises(ValueError, match="labels"):
        Layout("x", (("A", 2, "", ("a",)),))


def test_describe_state_names_the_fields_of_a_real_game():
    from simkit.game.engine import Engine, make_spec

    eng = Engine()
    eng.play(np.random.default_rng(5), make_spec("base", 2, "balanced"))
    text = L.describe_state(eng.state, hexes=True)
    lines = text.splitlines()
    assert lines[0].startswith("g: G_NUM_PLAYERS=2 ") and "G_OVER=1" in lines[0]
    assert (
        lines[1].startswith("pl[0]: P_ACTIVE=1 ")
        and len([s for s in lines if s.startswith("pl[")]) == 2
    )
    assert f"P_RES={eng.state.pl[0, L.P_RES : L.P_RES + L.NUM_RES].tolist()}" in lines[1]
    assert any(s.startswith("hx[") and "H_PORT_OWNER=0" in s for s in lines)
    assert (
        L.G_LAYOUT.describe(eng.state.g)["G_SUPPLY"]
        == eng.state.g[L.G_SUPPLY : L.G_SUPPLY + L.NUM_UNITS].tolist()
    )


def test_every_event_kind_has_named_fields_within_the_row():
    from simkit.game import events

    assert sorted(events.SCHEMA) == list(range(L.NUM_EVENTS))
    for kind, names in events.SCHEMA.items():
        assert len(names) <= L.LOG_W - len(events.HEAD) and len(set(names)) == len(names), kind
        assert not set(names) & set(events.HEAD), kind
        for i, name in enumerate(names):
            assert events.column(kind, name) == len(events.HEAD) + i
    row = np.array([L.EV_MOVE, 40, -1, 7, 12, 13, 2, L.SHOGGOTH])
    ev = events.event(row)
    assert (ev.tile, ev.from_hex, ev.to_hex, ev.card, ev.old_one) == (7, 12, 13, 2, L.SHOGGOTH)
    cols = events.fields(row[None, :], L.EV_MOVE)
    assert cols["to_hex"].tolist() == [13] and cols["time"].tolist() == [40]
    with pytest.raises(KeyError, match="no field"):
        events.column(L.EV_MOVE, "hex")


def test_the_generated_constants_modules_are_current():
    """combat_constants.py / game_constants.py are what gen_constants writes from the
    Layouts now (a changed Layout needs the regenerate command)."""
    stale = gen_constants.stale()
    assert not stale, f"stale generated constants {stale}: run {gen_constants.COMMAND}"


def test_a_stale_constants_module_is_found(tmp_path, monkeypatch):
    for gen in gen_constants.TARGETS.values():
        (tmp_path / gen_constants.path_of(gen).name).write_text(
            gen_constants.path_of(gen).read_text(encoding="utf-8"), encoding="utf-8"
        )
    monkeypatch.setattr(
        gen_constants, "path_of", lambda m: tmp_path / (m.rsplit(".", 1)[1] + ".py")
    )
    assert gen_constants.stale() == []
    edited = tmp_path / "game_constants.py"
    edited.write_text(edited.read_text(encoding="utf-8").replace("G_MODE = 1", "G_MODE = 2"))
    assert gen_constants.stale() == ["simkit.kernels.low.game_constants"]
    assert gen_constants.main(["--check"]) == 1


def test_every_layout_constant_has_a_definition_line():
    """grep 'NAME =' finds each exported constant (no globals().update)."""
    for gen, layouts in (
        (gen_constants.TARGETS[C.__name__], C.LAYOUTS),
        (gen_constants.TARGETS[L.__name__], L.LAYOUTS),
    ):
        text = gen_constants.path_of(gen).read_text(encoding="utf-8")
        for layout in layouts:
            for name, value in layout.constants().items():
                assert f"\n{name} = {value}" in text, name
