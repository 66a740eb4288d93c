"""The CombatKit StructRef: built from what the combat callers hold, sharing their arrays."""

import numba as nb
import numpy as np

from simkit.combat import Combat, combat_arrays
from simkit.datapack import load_pack
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import FIELDS, combat_kit
from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE
from strategies.combat import parse_allocation, parse_withdrawal


def _kit(**kw):
    data = load_pack()
    _, mx, cost = combat_arrays(Combat.parse("infantry=2,airship=1", "shoggoth"), data)
    kit = combat_kit(
        data,
        mx,
        cost,
        np.arange(5, data.card_hits.shape[0]),
        parse_allocation("spread").lower(),
        parse_withdrawal("sanity:2").lower(),
        EMPTY_TABLE,
        data.port["flip_threshold"],
        **kw,
    )
    return data, mx, kit


@nb.njit(cache=True)
def _touch(kit):
    kit.mx[C.PORT_FIGHTS] = 7
    kit.state[C.CARDS] = kit.start_deck.size
    return kit.alloc_id * 100 + kit.wd_id * 10 + kit.wd_b_id


def test_kit_shares_the_callers_arrays_and_sizes_its_buffers():
    data, mx, kit = _kit(tape_size=50)
    assert np.shares_memory(kit.mx, mx)
    assert np.shares_memory(kit.card_hits, data.card_hits)
    assert kit.start_deck.tolist() == list(range(5, data.card_hits.shape[0]))
    assert kit.deck.size == kit.deck2.size == data.card_hits.shape[0]
    assert kit.state.size == kit.state_b.size == kit.scratch.size == C.STATE_SIZE
    assert kit.dmg.size == C.MAX_OLD_ONES and kit.tape.size == 50
    assert kit.flip_threshold == data.port["flip_threshold"]
    assert kit.wd_params.tolist() == [2.0, -1.0, -1.0]
    assert len(FIELDS) == len(set(FIELDS))


def test_a_kernel_reads_and_writes_through_the_kit():
    _, mx, kit = _kit(withdraw_b=parse_withdrawal("never").lower())
    # spread = 1, threshold = 1, never = 0
    assert _touch(kit) == 110
    assert mx[C.PORT_FIGHTS] == 7  # the caller's matchup changed: shared, not copied
    assert kit.state[C.CARDS] == kit.start_deck.size


def test_the_tape_paired_play_records_replays_as_a_script_to_the_same_fight():
    """One draw loop: the cards a chance fight drew (policy A's tape), played again as a
    script, end the fight in the same state."""
    from simkit.kernels.combat import play_script
    from simkit.kernels.combat_paired import simulate_paired

    data = load_pack()
    fight = Combat.parse("infantry=2,artillery=1,airship=1", "shoggoth,zombie")
    st0, mx, cost = combat_arrays(fight, data)
    alloc = parse_allocation("spread").lower()
    never, leave = parse_withdrawal("never").lower(), parse_withdrawal("sanity:3").lower()
    n = data.card_hits.shape[0]
    for seed in range(20):
        kit = combat_kit(
            data,
            mx,
            cost,
            np.arange(n),
            alloc,
            never,
            EMPTY_TABLE,
            2,
            withdraw_b=leave,
            tape_size=400,
        )
        tallies = [np.zeros((2, k), dtype=np.int64) for k in (C.NUM_OUTCOMES, 7, 16, 3)]
        rng, rng2 = np.random.default_rng(seed), np.random.default_rng(seed + 99)
        simulate_paired(kit, rng, rng2, 1, st0, *tallies)
        played = kit.state
        assert tallies[0][0].sum() == 1 and played[C.OUTCOME] != C.ONGOING
        script = kit.tape[: played[C.CARDS]].copy()
        st = st0.copy()
        play_script(kit, st, script)
        assert st.tolist() == played.tolist()
