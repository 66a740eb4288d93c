"""The Old One player decides through a policy interface (Revenge): the engine lists the
legal options and checks the answer; a look-ahead can force the action; the OOP search
player (``--oop search``) is legal, reproducible and never reads what the OOP cannot see."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.errors import UserError
from simkit.game.engine import Engine, make_spec
from simkit.game.search import Lookahead
from simkit.game.streams import game_streams, single_stream
from simkit.kernels.game_loop import OLD_ONES, STOP_OLD_ONES, advance, step_oop
from simkit.kernels.game_search import determinize, legal_oop_actions
from simkit.kernels.low import game_layout as L
from strategies.old_ones import LearnedOOP, parse_oop, policy
from strategies.old_ones.learned import KIND_LEARNED
from strategies.search import OOPSearchPlayer

S_COL = {c: k for k, c in enumerate(L.SUMMARY_COLUMNS)}
ACTIONS = (L.OOP_PLACE, L.OOP_REVEAL, L.OOP_MOVE, L.OOP_SUMMON)


@pytest.fixture(scope="module")
def eng():
    return Engine()


def _oop_turn(eng, spec, seed, turns_before=0):
    """Set up ``spec`` and play to the Old One player's turn number ``turns_before`` (the
    earlier ones its strategy's). Returns the game's streams."""
    rngs = game_streams(seed)
    eng.set_up(rngs, spec, checked=True)
    for k in range(turns_before + 1):
        who = advance(rngs, eng.S, eng.X, eng.W, STOP_OLD_ONES)
        assert who == OLD_ONES
        if k < turns_before:
            step_oop(rngs, eng.S, eng.X, eng.W, -1)
    return rngs


def _legal(eng):
    out = np.zeros(4, dtype=np.bool_)
    legal_oop_actions(eng.S, eng.X, eng.W, out)
    return out


def test_first_oop_turn_may_place_and_summon_but_not_reveal_or_move(eng):
    # Revenge setup: no Old One of the OOP's on the map yet, a full Mythos pile
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher")
    _oop_turn(eng, spec, 3)
    legal = _legal(eng)
    X = eng.state
    face_down = ((X.tile_hex >= 0) & ~X.tile_up).sum()
    assert legal[L.OOP_PLACE] and legal[L.OOP_SUMMON]
    assert legal[L.OOP_REVEAL] == (face_down > 0)
    assert not legal[L.OOP_MOVE] or ((X.tile_hex >= 0) & X.tile_up).any()


@pytest.mark.parametrize("action", [L.OOP_PLACE, L.OOP_SUMMON])
def test_a_forced_oop_action_is_the_one_taken(eng, action):
    spec = make_spec("revenge", 2, "balanced", difficulty="hard", oop="rusher:play_mythos=0")
    rngs = _oop_turn(eng, spec, 7)
    X = eng.state
    before = X.g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + 4].copy()
    hand = int(X.mythos_hand.sum())
    down = int(((X.tile_hex >= 0) & ~X.tile_up).sum())
    step_oop(rngs, eng.S, eng.X, eng.W, action)
    taken = X.g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + 4] - before
    assert list(taken) == [int(a == action) for a in range(4)]
    if action == L.OOP_SUMMON:  # draw three, keep one
        assert int(X.mythos_hand.sum()) == hand + 1
    else:  # one more face-down Old One on a Spawn tile
        assert int(((X.tile_hex >= 0) & ~X.tile_up).sum()) == down + 1
    assert X.g[L.G_ILLEGAL] == 0 and X.g[L.G_FORCED_OOP_ACTION] == 0


def test_a_forced_action_that_is_not_legal_falls_back_to_the_strategy_and_is_counted(eng):
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher:play_mythos=0")
    rngs = _oop_turn(eng, spec, 3)
    legal = _legal(eng)
    bad = next(a for a in ACTIONS if not legal[a])
    X = eng.state
    before = X.g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + 4].copy()
    step_oop(rngs, eng.S, eng.X, eng.W, bad)
    taken = X.g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + 4] - before
    assert taken.sum() == 1 and taken[bad] == 0 and legal[int(np.argmax(taken))]
    assert X.g[L.G_FORCED_FALLBACKS] == 1 and X.g[L.G_ILLEGAL] == 0


@pytest.mark.parametrize("kind", [policy.KIND_HEURISTIC, policy.KIND_RANDOM, KIND_LEARNED])
def test_the_oop_policy_only_answers_with_offered_actions(eng, kind):
    X = eng.state
    if kind == KIND_LEARNED:
        w = np.random.default_rng(kind).normal(size=L.NUM_OOP_ACTIONS * L.OOP_LEARN_NUM_FEATURES)
        X.oop_params[:] = LearnedOOP(weights=tuple(w)).lower()
    else:
        X.oop_params[:] = parse_oop("random" if kind else "rusher").lower()
    rng = np.random.default_rng(0)
    for bits in range(16):
        legal = np.array([(bits >> a) & 1 for a in range(4)], dtype=np.bool_)
        for up, down, hand in ((0, 0, 0), (3, 1, 2), (1, 5, 0)):
            a = policy.choose_action(rng, eng.S, eng.X, eng.W, legal, up, down, hand, 2)
            assert (a == -1) if not legal.any() else legal[a], (bits, a)


def test_oop_search_specs_parse_with_an_old_one_rollout_policy():
    s = parse_oop("search:rollouts=2:policy=blighter:objective=margin")
    assert isinstance(s, OOPSearchPlayer)
    assert (s.rollouts, s.base.name, s.objective) == (2, "blighter", "margin")
    np.testing.assert_array_equal(s.lower(), s.base.lower())
    assert parse_oop("search").base.name == "rusher"
    with pytest.raises(UserError, match="unknown Old One strategy 'balanced'"):
        parse_oop("search:policy=balanced")


def _hide_from_oop(eng):
    """Change only what the Old One player cannot see: the order of the tile stacks, the
    Old One deck and the Mythos draw pile. Returns what changed."""
    X = eng.state
    changed = []
    for lv in range(3):
        lo, hi = int(X.stack_top[lv]), int(X.stack_size[lv])
        if hi - lo > 1:
            X.stacks[lv, lo:hi] = X.stacks[lv, lo:hi][::-1].copy()
            changed.append(f"stack {lv + 1}")
    left = int(X.g[L.G_DECK_LEFT])
    if left > 1:
        X.oo_deck[:left] = X.oo_deck[:left][::-1].copy()
        changed.append("oo deck")
    nm, pos, n = X.mythos_deck.size, int(X.g[L.G_MYTHOS_POS]), int(X.g[L.G_MYTHOS_LEFT])
    if n > 1:
        idx = (pos + np.arange(n)) % nm
        X.mythos_deck[idx] = X.mythos_deck[idx][::-1].copy()
        changed.append("mythos pile")
    return changed


@pytest.mark.parametrize("extra", ["", ":mythos=1", ":sites=1"])
def test_oop_search_decisions_do_not_change_when_only_what_it_cannot_see_changes(eng, extra):
    spec = make_spec(
        "revenge",
        2,
        "balanced",
        difficulty="normal",
        oop=f"search:rollouts=2:policy=mythos{extra}",
    )
    _oop_turn(eng, spec, 1, turns_before=6)  # a position where it holds cards
    look = Lookahead(eng)
    snap = [a.copy() for a in eng.state], [a.copy() for a in eng.work]
    a1 = look.decide_oop(single_stream(2), spec.oop)
    s1 = look.last_scores.copy()
    forced1 = (look.forced_mythos, look.forced_place, look.forced_reveal)
    assert s1.size >= 2  # a real choice
    if extra == ":sites=1":  # the second search ran: its scores are of the sites or tiles
        assert a1 in (L.OOP_PLACE, L.OOP_REVEAL) and max(forced1[1:]) > 0
    changed = _hide_from_oop(eng)
    assert len(changed) >= 2, changed
    a2 = look.decide_oop(single_stream(2), spec.oop)
    assert a2 == a1
    assert (look.forced_mythos, look.forced_place, look.forced_reveal) == forced1
    np.testing.assert_array_equal(look.last_scores, s1)
    if extra == ":mythos=1":  # (an empty hand changes the choices themselves: no control)
        return
    # and the check can fail: what the OOP sees (its hand) does move the scores
    _restore(eng, *snap)
    eng.state.mythos_hand[:] = 0
    look.decide_oop(single_stream(2), spec.oop)
    assert not np.array_equal(look.last_scores, s1)


def test_the_learned_oop_reads_nothing_it_cannot_see(eng, learned_oop_file):
    """Its features (and so its choice) stay when only the stacks', the Old One deck's and
    the Mythos pile's order change; they move with what it sees (its hand)."""
    from simkit.kernels.game_search import oop_turn_features

    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=learned_oop_file)
    _oop_turn(eng, spec, 1, turns_before=6)
    X = eng.state
    X.oop_params[:] = spec.oop.lower()
    a, b = np.zeros(L.OOP_LEARN_NUM_FEATURES), np.zeros(L.OOP_LEARN_NUM_FEATURES)

    def view(out):
        oop_turn_features(eng.S, eng.X, eng.W, out)
        legal = _legal(eng)
        return policy.best_action(eng.X, legal, out)

    choice = view(a)
    changed = _hide_from_oop(eng)
    assert len(changed) >= 2, changed
    assert view(b) == choice
    np.testing.assert_array_equal(a, b)
    X.mythos_hand[:] = 0  # what it sees: the features move
    view(b)
    assert not np.array_equal(a, b)


def test_oop_determinize_keeps_its_hand_and_the_face_down_tiles_on_the_map(eng):
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="mythos")
    _oop_turn(eng, spec, 9, turns_before=8)
    X = eng.state
    before = {name: a.copy() for name, a in zip(L.State._fields, X, strict=True)}
    determinize(single_stream(1), eng.S, eng.X, eng.W, OLD_ONES)
    np.testing.assert_array_equal(X.mythos_hand, before["mythos_hand"])
    on_map = before["tile_hex"] >= 0
    np.testing.assert_array_equal(X.tile_hex[on_map], before["tile_hex"][on_map])
    for lv in range(3):
        lo, hi = int(X.stack_top[lv]), int(X.stack_size[lv])
        assert sorted(X.stacks[lv, lo:hi]) == sorted(before["stacks"][lv, lo:hi])


def test_an_oop_search_game_is_legal_and_reproducible(eng):
    spec = make_spec(
        "revenge", 2, "economist,balanced", difficulty="heroic", oop="search:rollouts=1"
    )
    row, log = eng.play(np.random.default_rng(4), spec, log=True, checked=True)
    assert row[S_COL["violations"]] == 0 and row[S_COL["illegal"]] == 0
    assert row[S_COL["end_reason"]] in (L.END_TIME, L.END_PORT)
    row2, log2 = eng.play(np.random.default_rng(4), spec, log=True, checked=True)
    np.testing.assert_array_equal(row, row2)
    np.testing.assert_array_equal(log, log2)


def _restore(eng, state, work):
    """Copy a snapshot (lists of the state's and the work's arrays) back into the engine."""
    for dst, src in zip(eng.state, state, strict=True):
        np.copyto(dst, src)
    for dst, src in zip(eng.work, work, strict=True):
        np.copyto(dst, src)


def _replay_oop_turn(eng, start, action, **forced):
    """Replay the Old One player's turn from ``start`` (state, work, streams) with its
    action ``action`` (-1: its strategy's) and the G_* slots ``forced`` (e.g.
    G_FORCED_MYTHOS=c) set; returns (the turn's log rows, the forced fallbacks counted)."""
    state, work, rngs0 = start
    _restore(eng, state, work)
    X = eng.state
    X.g[L.G_LOG_ON] = 1
    first, fallbacks = int(X.g[L.G_LOG_N]), int(X.g[L.G_FORCED_FALLBACKS])
    for slot, value in forced.items():
        X.g[getattr(L, slot)] = value
    step_oop(rngs0.copy(), eng.S, eng.X, eng.W, action)
    rows = X.log[first : int(X.g[L.G_LOG_N])]
    return rows, int(X.g[L.G_FORCED_FALLBACKS]) - fallbacks


def _oop_turn_with_card(eng, start, forced):
    """The turn replayed with G_FORCED_MYTHOS = ``forced``: (the Mythos card it played
    before its action or None, the forced fallbacks counted)."""
    rows, fell = _replay_oop_turn(eng, start, -1, G_FORCED_MYTHOS=forced)
    played = [int(r[3]) for r in rows if r[0] == L.EV_MYTHOS and r[4] == L.MYTHOS_PLAYED]
    return (played[0] if played else None), fell


def test_a_forced_mythos_card_is_the_one_played_and_a_forced_none_plays_none(eng):
    """G_FORCED_MYTHOS (the Old One search's card, mythos=1): the named card is played when
    it may be played now, "none" plays none, and a card that may not be played now leaves
    the strategy's own choice (counted as a forced fallback)."""
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="mythos")
    # seed 34's first Old One turn: the strategy plays a card and another one may be played
    # (most positions offer no choice: a card's effect must apply now)
    rngs = _oop_turn(eng, spec, 34, turns_before=0)
    start = [a.copy() for a in eng.state], [a.copy() for a in eng.work], rngs.copy()
    own, fell = _oop_turn_with_card(eng, start, 0)
    assert own is not None and fell == 0
    held = [int(c) for c in np.flatnonzero(start[0][list(L.State._fields).index("mythos_hand")])]
    assert len(held) >= 2, held  # a position with a choice of cards
    assert _oop_turn_with_card(eng, start, 1) == (None, 0)
    forced_other = 0
    for c in held:
        played, fell = _oop_turn_with_card(eng, start, c + 2)
        if fell:
            assert (played, fell) == (own, 1)  # not playable now: the strategy's card
        else:
            assert played == c
            forced_other += c != own
    assert forced_other >= 1  # the force did override the strategy


def test_the_oop_search_with_mythos_scores_every_card_and_action_pair(eng):
    oop = "search:rollouts=1:policy=mythos:mythos=1"
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=oop)
    _oop_turn(eng, spec, 1, turns_before=6)
    look = Lookahead(eng)
    legal = _legal(eng)
    held = np.flatnonzero(eng.state.mythos_hand > 0)
    action = look.decide_oop(single_stream(2), spec.oop)
    assert legal[action]
    assert look.last_scores.size == (1 + held.size) * legal.sum()
    assert look.forced_mythos in {1, *(int(c) + 2 for c in held)}
    # without mythos=1 the card stays the strategy's
    look.decide_oop(single_stream(2), parse_oop("search:rollouts=1:policy=mythos"))
    assert look.forced_mythos == 0


def test_the_searching_old_one_player_plays_the_card_its_search_chose(eng, monkeypatch):
    """A whole game with search:mythos=1: a turn whose search chose no card plays none, and
    a chosen card that may be played that turn is the one played (the live game applies
    the search's card, not only the rollouts)."""
    chosen = []
    decide = Lookahead.decide_oop

    def spy(self, rng, player):
        action = decide(self, rng, player)
        chosen.append(self.forced_mythos)
        return action

    monkeypatch.setattr(Lookahead, "decide_oop", spy)
    oop = "search:rollouts=1:policy=mythos:mythos=1"
    _, log = eng.play(
        (2, 0, 0), make_spec("revenge", 2, "balanced", difficulty="normal", oop=oop), log=True
    )
    starts = np.flatnonzero(log[:, 0] == L.EV_OO_TURN)
    played = []
    for a, b in zip(starts, [*starts[1:], len(log)], strict=True):
        turn = log[a:b]
        cards = turn[(turn[:, 0] == L.EV_MYTHOS) & (turn[:, 4] == L.MYTHOS_PLAYED), 3]
        played.append(int(cards[0]) if cards.size else None)
    assert len(chosen) == len(played)  # one search per Old One turn
    assert all(card is None for code, card in zip(chosen, played, strict=True) if code == 1)
    applied = [(code, card) for code, card in zip(chosen, played, strict=True) if code >= 2]
    assert any(card == code - 2 for code, card in applied), applied
    assert chosen.count(1) > 0


def _place_or_reveal(eng, start, action, forced_place=0, forced_reveal=0):
    """The turn replayed with its action forced to ``action`` and G_FORCED_PLACE /
    G_FORCED_REVEAL set: (its EV_OOP_ACTION row's (tile, hex, level), the forced fallbacks
    counted)."""
    rows, fell = _replay_oop_turn(
        eng, start, action, G_FORCED_PLACE=forced_place, G_FORCED_REVEAL=forced_reveal
    )
    done = [r for r in rows if r[0] == L.EV_OOP_ACTION and r[3] == action]
    assert len(done) == 1
    r = done[0]
    return (int(r[4]), int(r[5]), int(r[6])), fell


def _rulebook_place_sites(eng, level):
    """The hexes a level-``level`` (1-3) tile may go on, by the rule text (Revenge, Place):
    a Spawn tile whose level (+1 if Dangerous) is at least the tile's, an empty one while
    one of the required level is empty, else one with room."""
    X = eng.state
    n = X.hx.shape[0]
    count = np.zeros(n, dtype=int)
    for h in X.tile_hex[X.tile_hex >= 0]:
        count[h] += 1
    level_ok = [
        h
        for h in range(n)
        if X.hx[h, L.H_SPAWN] >= 0
        and eng.arrays.hex_level[h] >= 1
        and eng.arrays.hex_level[h] + X.hx[h, L.H_SPAWN] >= level
    ]
    empty = [h for h in level_ok if count[h] == 0]
    return set(empty) if empty else {h for h in level_ok if count[h] < L.MAX_IN_HEX}


def test_a_forced_place_is_the_level_and_site_played_and_an_illegal_one_falls_back(eng):
    """G_FORCED_PLACE (the Old One search's Place, sites=1): every legal (level, site) it
    lists is the one played, each a site the rule allows for that level; a site the rule
    does not allow leaves the strategy's own Place (a counted fallback)."""
    from simkit.kernels.game_oop import place_options

    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher")
    rngs = _oop_turn(eng, spec, 5, turns_before=3)
    start = [a.copy() for a in eng.state], [a.copy() for a in eng.work], rngs.copy()
    options = np.zeros(3 * eng.arrays.neighbors.shape[0], dtype=np.int64)
    k = place_options(eng.S, eng.X, eng.W, options)
    codes = [divmod(int(c), L.PLACE_CODE) for c in options[:k]]
    assert len(codes) >= 2, codes  # a position with a choice
    by_level = {lv: {h for lvl, h in codes if lvl == lv} for lv, _ in codes}
    for lv, sites in by_level.items():
        assert sites == _rulebook_place_sites(eng, lv + 1), lv
    own, fell = _place_or_reveal(eng, start, L.OOP_PLACE)
    assert fell == 0
    overridden = 0
    for lv, h in codes:
        (tile, hex_, level), fell = _place_or_reveal(
            eng, start, L.OOP_PLACE, forced_place=1 + lv * L.PLACE_CODE + h
        )
        assert (hex_, level, fell) == (h, lv + 1, 0)
        assert int(eng.arrays.tile_level[tile]) == lv + 1
        overridden += (hex_, level) != own[1:]
    assert overridden >= 1
    no_site = next(h for h in range(eng.state.hx.shape[0]) if eng.state.hx[h, L.H_SPAWN] < 0)
    got, fell = _place_or_reveal(eng, start, L.OOP_PLACE, forced_place=1 + no_site)
    assert (got, fell) == (own, 1)


def test_a_forced_reveal_flips_that_face_down_tile(eng):
    """G_FORCED_REVEAL (sites=1): the named face-down tile on the map is the one revealed;
    a tile not face down on the map leaves the strategy's (a counted fallback)."""
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher")
    rngs = _oop_turn(eng, spec, 5, turns_before=8)
    start = [a.copy() for a in eng.state], [a.copy() for a in eng.work], rngs.copy()
    X = eng.state
    down = np.flatnonzero((X.tile_hex >= 0) & ~X.tile_up)
    assert down.size >= 2, down  # a position with a choice
    own, fell = _place_or_reveal(eng, start, L.OOP_REVEAL)
    assert fell == 0
    for t in down:
        (tile, hex_, _), fell = _place_or_reveal(eng, start, L.OOP_REVEAL, forced_reveal=t + 1)
        assert (tile, hex_, fell) == (t, start[0][list(L.State._fields).index("tile_hex")][t], 0)
        assert eng.state.tile_up[t]
    in_stack = int(np.flatnonzero(start[0][list(L.State._fields).index("tile_hex")] < 0)[0])
    assert _place_or_reveal(eng, start, L.OOP_REVEAL, forced_reveal=in_stack + 1) == (own, 1)


def test_the_searching_old_one_player_plays_the_site_and_tile_its_search_chose(eng, monkeypatch):
    """A whole game with search:sites=1: every searched Place is played at the level and
    site the search chose, every searched Reveal flips its tile (the live game applies the
    second search, not only the rollouts), and both were searched at least once."""
    chosen = []
    decide = Lookahead.decide_oop

    def spy(self, rng, player):
        action = decide(self, rng, player)
        chosen.append((action, self.forced_place, self.forced_reveal, self.last_scores.size))
        return action

    monkeypatch.setattr(Lookahead, "decide_oop", spy)
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="search:rollouts=1:sites=1")
    _, log = eng.play((3, 0, 0), spec, log=True)
    starts = np.flatnonzero(log[:, 0] == L.EV_OO_TURN)
    assert len(starts) == len(chosen)  # one search per Old One turn
    searched = {L.OOP_PLACE: 0, L.OOP_REVEAL: 0}
    for (action, place, reveal, _), a, b in zip(
        chosen, starts, [*starts[1:], len(log)], strict=True
    ):
        turn = log[a:b]
        done = turn[turn[:, 0] == L.EV_OOP_ACTION]
        if len(done) == 0:  # a Mythos card with a time cost ended the turn before its action
            continue
        (row,) = done
        assert row[3] == action
        if action == L.OOP_PLACE and place:
            lv, h = divmod(place - 1, L.PLACE_CODE)
            assert (row[5], row[6]) == (h, lv + 1)
            searched[action] += 1
        if action == L.OOP_REVEAL and reveal:
            assert row[4] == reveal - 1
            searched[action] += 1
    assert searched[L.OOP_PLACE] > 0 and searched[L.OOP_REVEAL] > 0, searched


def test_the_site_search_refuses_a_map_too_large_for_its_place_codes(eng):
    """G_FORCED_PLACE packs a level and a hex as level * PLACE_CODE + hex: a map of
    PLACE_CODE hexes or more is one clear error, not a wrong site."""
    look = Lookahead(eng)
    look.options = np.zeros(3 * L.PLACE_CODE, dtype=np.int64)  # as for a 4,096-hex map
    player = parse_oop("search:rollouts=1:sites=1")
    with pytest.raises(UserError, match="sites=1: the map has 4096 hexes; at most 4095"):
        look._search_sites(single_stream(1), player, L.OOP_PLACE)
