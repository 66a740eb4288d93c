"""The search player: its spec, reproducibility, legality, and that it never reads what its
seat cannot see (face-down tiles, deck orders, the Old One player's hand)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.errors import UserError
from simkit.game.engine import Engine, make_spec
from simkit.game.search import Lookahead, search_seats
from simkit.game.streams import game_streams, single_stream
from simkit.kernels import game_rollout as R
from simkit.kernels.game_loop import NOBODY, OLD_ONES, advance, step_seat
from simkit.kernels.game_search import determinize, legal_boxes, start_rollout
from simkit.kernels.low import game_layout as L
from strategies.registry import parse_one
from strategies.search import SEARCH_SID, SearchPlayer

S_COL = {c: k for k, c in enumerate(L.SUMMARY_COLUMNS)}


@pytest.fixture(scope="module")
def eng():
    return Engine()


def test_search_specs_parse_with_rollouts_policy_and_objective():
    s = parse_one("search:rollouts=3:policy=economist:objective=margin")
    assert isinstance(s, SearchPlayer)
    assert (s.rollouts, s.base.name, s.objective) == (3, "economist", "margin")
    assert s.sid == s.base.sid and np.array_equal(s.lower(), s.base.lower())
    assert parse_one("search").base.name == "balanced"


@pytest.mark.parametrize(
    "spec, words",
    [
        ("search:rollouts=0", "rollouts must be >= 1"),
        ("search:policy=search", "cannot be search"),
        ("search:objective=luck", "objective 'luck'"),
        ("search:depth=3", "unknown parameter 'depth=3'"),
        ("search:policy=nobody", "unknown strategy 'nobody'"),
    ],
)
def test_bad_search_specs_name_the_problem(spec, words):
    with pytest.raises(UserError, match=words):
        parse_one(spec)


def _position(eng, spec, seed, decisions_before):
    """Set up ``spec`` and play until the search seat's decision number ``decisions_before``
    (earlier ones taken by its rollout policy). Returns (rngs, seat, player)."""
    rngs = game_streams(seed)
    eng.set_up(rngs, spec, checked=True)
    seats = search_seats(spec, eng.work.seat_perm)
    mask = sum(1 << s for s in seats)
    for _ in range(decisions_before + 1):
        p = advance(rngs, eng.S, eng.X, eng.W, mask)
        assert p != NOBODY
        if _ < decisions_before:
            step_seat(rngs, eng.S, eng.X, eng.W, p, -1)
    return rngs, p, seats[p]


def _snapshot(eng):
    return [a.copy() for a in eng.state], [a.copy() for a in eng.work]


def _restore(eng, snap):
    for dst, src in zip(eng.state, snap[0], strict=True):
        np.copyto(dst, src)
    for dst, src in zip(eng.work, snap[1], strict=True):
        np.copyto(dst, src)


def _decide(eng, look, p, player, seed=11):
    box = look.decide(single_stream(seed), p, player)
    return box, look.last_scores.copy()


def _hide_differently(eng, p):
    """Change only what seat p cannot see: swap two unseen same-level Old One identities,
    reverse the unseen deck orders, re-order the Personality pile. Returns what changed."""
    X, S = eng.state, eng.arrays
    changed = []
    for lv in range(1, 4):
        unseen = [
            i
            for i in range(X.tile_hex.size)
            if S.tile_level[i] == lv
            and not X.tile_up[i]
            and (X.tile_state[i] == L.TILE_STACK or (X.tile_state[i] == L.TILE_BOARD))
        ]
        board = [i for i in unseen if X.tile_state[i] == L.TILE_BOARD]
        stack = [i for i in unseen if X.tile_state[i] == L.TILE_STACK]
        if board and stack and S.tile_type[board[0]] != S.tile_type[stack[-1]]:
            a, b = board[0], stack[-1]
            j = int(np.flatnonzero(X.stacks[lv - 1] == b)[0])
            X.stacks[lv - 1, j] = a
            X.tile_hex[b], X.tile_hex[a] = X.tile_hex[a], -1
            X.tile_state[b], X.tile_state[a] = L.TILE_BOARD, L.TILE_STACK
            changed.append(f"tiles {a}<->{b}")
    left = int(X.g[L.G_DECK_LEFT])
    if left > 1:
        X.oo_deck[:left] = X.oo_deck[:left][::-1].copy()
        changed.append("oo deck")
    lo, hi = int(X.g[L.G_PERS_POS]), int(X.g[L.G_PERS_SIZE])
    if hi - lo > 1:
        X.pers_deck[lo:hi] = X.pers_deck[lo:hi][::-1].copy()
        changed.append("personality pile")
    rlo, rhi = int(X.g[L.G_REV_POS]), int(X.g[L.G_REV_SIZE])
    seen_or_dealt = set(X.rev_deck[:rhi].tolist())
    for j in range(rlo, rhi):  # a card setup left out (of another kind) replaces a dealt one
        lv = S.rev_level[X.rev_deck[j]]
        out = [c for c in range(S.rev_level.size) if S.rev_level[c] == lv]
        out = [
            c for c in out if c not in seen_or_dealt and S.rev_kind[c] != S.rev_kind[X.rev_deck[j]]
        ]
        if out:
            changed.append(f"revelation {X.rev_deck[j]} -> left-out {out[0]}")
            X.rev_deck[j] = out[0]
            break
    nm, pos, left = X.mythos_deck.size, int(X.g[L.G_MYTHOS_POS]), int(X.g[L.G_MYTHOS_LEFT])
    if X.g[L.G_MODE] == L.MODE_MYTHOS_SOLO and left > 1:
        at = [(pos + k) % nm for k in range(left)]
        X.mythos_deck[at] = X.mythos_deck[at][::-1].copy()
        changed.append("mythos pile")
    if X.g[L.G_MODE] == L.MODE_REVENGE:
        held = np.flatnonzero(X.mythos_hand > 0)
        nm, pos = X.mythos_deck.size, int(X.g[L.G_MYTHOS_POS])
        if held.size and X.g[L.G_MYTHOS_LEFT] > 0:
            top = int(X.mythos_deck[pos % nm])
            X.mythos_hand[held[0]], X.mythos_hand[top] = 0, 1
            X.mythos_deck[pos % nm] = held[0]
            changed.append("mythos hand")
    return changed


@pytest.mark.parametrize(
    "mode, kw, decisions_before, seed",
    [("base", {}, 6, 5), ("revenge", {"difficulty": "hard", "oop": "mythos"}, 5, 1)],
)
def test_the_learned_players_features_do_not_change_when_only_hidden_information_changes(
    eng, mode, kw, decisions_before, seed
):
    from strategies.human.learned import turn_features

    spec = make_spec(mode, 2, ["search:rollouts=3", "balanced"], **kw)
    _, p, _ = _position(eng, spec, seed, decisions_before)
    before, after = np.zeros(L.LEARN_NUM_FEATURES), np.zeros(L.LEARN_NUM_FEATURES)
    turn_features(eng.S, eng.X, eng.W, p, before)
    changed = _hide_differently(eng, p)
    assert any(c.startswith("tiles") for c in changed), changed  # a face-down tile swapped
    turn_features(eng.S, eng.X, eng.W, p, after)
    np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize(
    "mode, players, kw, decisions_before, seed",
    [
        ("base", 2, {}, 6, 5),
        ("revenge", 2, {"difficulty": "hard", "oop": "mythos"}, 5, 1),
        ("mythos-solo", 1, {"difficulty": "normal"}, 5, 2),
    ],
)
def test_search_decisions_do_not_change_when_only_hidden_information_changes(
    eng, mode, players, kw, decisions_before, seed
):
    seats = ["search:rollouts=3", "balanced"][:players]
    spec = make_spec(mode, players, seats, **kw)
    _, p, player = _position(eng, spec, seed, decisions_before)  # hides several kinds
    look = Lookahead(eng)
    snap = _snapshot(eng)
    box, scores = _decide(eng, look, p, player)
    changed = _hide_differently(eng, p)
    assert len(changed) >= 2, changed  # the position really hides something different now
    assert any(not np.array_equal(a, b) for a, b in zip(eng.state, snap[0], strict=True))
    box2, scores2 = _decide(eng, look, p, player)
    assert box2 == box
    np.testing.assert_array_equal(scores2, scores)
    # and the check can fail: what the seat sees does move the scores
    _restore(eng, snap)
    eng.state.pl[p, L.P_RES + L.GOLD] += 6
    _, scores3 = _decide(eng, look, p, player)
    assert not np.array_equal(scores3, scores)


def test_determinize_keeps_every_seen_piece_and_every_count(eng):
    spec = make_spec("base", 2, ["search:rollouts=2", "balanced"])
    _, p, _ = _position(eng, spec, 9, 8)
    X, S = eng.state, eng.arrays
    before = [a.copy() for a in X]
    determinize(single_stream(1), eng.S, eng.X, eng.W, p)
    b = dict(zip(L.State._fields, before, strict=True))
    up = b["tile_up"]
    np.testing.assert_array_equal(X.tile_hex[up], b["tile_hex"][up])  # face-up stay put
    for lv in range(1, 4):
        at = S.tile_level == lv
        for state in (L.TILE_BOARD, L.TILE_STACK, L.TILE_ASIDE, L.TILE_KILLED):
            assert ((X.tile_state == state) & at).sum() == ((b["tile_state"] == state) & at).sum()
    on_map = lambda hexes: np.sort(hexes[hexes >= 0])  # noqa: E731
    np.testing.assert_array_equal(on_map(X.tile_hex), on_map(b["tile_hex"]))
    left = int(X.g[L.G_DECK_LEFT])
    assert sorted(X.oo_deck[:left]) == sorted(b["oo_deck"][:left])
    np.testing.assert_array_equal(X.oo_deck[left:], b["oo_deck"][left:])  # the discards
    for name in ("g", "pl", "hx", "hex_blocked", "hex_old_ones", "display", "edge_owner"):
        np.testing.assert_array_equal(getattr(X, name), b[name], err_msg=name)


@pytest.mark.parametrize(
    "mode, kw",
    [("base", {}), ("revenge", {"difficulty": "normal", "oop": "rusher"})],
)
def test_a_search_game_is_legal_and_reproducible(eng, mode, kw):
    spec = make_spec(mode, 2, ["search:rollouts=1", "economist"], **kw)
    row, log = eng.play(np.random.default_rng(4), spec, log=True, checked=True)
    assert row[S_COL["violations"]] == 0 and row[S_COL["illegal"]] == 0
    assert row[S_COL["end_reason"]] in (L.END_TIME, L.END_PORT)
    labels = {int(row[S_COL[f"p{q}_strategy"]]) for q in range(2)}
    assert SEARCH_SID in labels
    row2, log2 = eng.play(np.random.default_rng(4), spec, log=True, checked=True)
    np.testing.assert_array_equal(row, row2)
    np.testing.assert_array_equal(log, log2)


def test_search_spec_takes_an_opponent_model_and_peek():
    s = parse_one("search:rollouts=2:model=actual:peek=1")
    assert (s.model, s.peek) == ("actual", 1)
    d = parse_one("search")
    assert d.model == "public" and d.peek == 0
    assert d.human_model.name == "balanced" and d.oop_policy.name == "rusher"
    o = parse_one("search:opponents=hunter:oop_model=mythos")
    assert o.human_model.name == "hunter" and o.oop_policy.name == "mythos"
    from simkit.game.engine import public_models
    from strategies.old_ones import parse_oop

    oop = public_models(parse_oop("search:rollouts=2"))
    assert oop.model == "public" and oop.human_model.name == "balanced"
    for bad, words in (("model=true", "model 'true'"), ("peek=2", "peek must be 0 or 1")):
        with pytest.raises(UserError, match=words):
            parse_one(f"search:{bad}")
    with pytest.raises(UserError, match="opponents cannot be search"):
        parse_one("search:opponents=search")


def test_public_model_never_reads_the_opponents_true_strategy(eng):
    """With model=public the other seats are rolled out with the public model, so changing
    a rival's true strategy and parameters changes nothing the searcher computes; with
    model=actual it does (the check can fail)."""
    for model, moves in (("public", False), ("actual", True)):
        spec = make_spec("base", 2, [f"search:rollouts=3:model={model}", "balanced"])
        _, p, player = _position(eng, spec, 5, 6)
        look = Lookahead(eng)
        _, scores = _decide(eng, look, p, player)
        q = 1 - p
        rival = parse_one("hunter")
        eng.state.sid[q] = rival.sid
        eng.state.params[q, :] = 0.0
        eng.state.params[q, : rival.lower().size] = rival.lower()
        _, scores2 = _decide(eng, look, p, player)
        assert (not np.array_equal(scores, scores2)) == moves, model


def test_the_old_one_search_public_model_ignores_the_humans_true_strategies(eng):
    spec = make_spec(
        "revenge", 2, ["economist", "hunter"], difficulty="normal", oop="search:rollouts=2"
    )
    from simkit.kernels.game_loop import OLD_ONES, STOP_OLD_ONES, step_oop

    rngs = game_streams(3)
    eng.set_up(rngs, spec, checked=True)
    look = Lookahead(eng)
    for _ in range(40):  # to the first Old One turn with more than one legal action
        p = advance(rngs, eng.S, eng.X, eng.W, STOP_OLD_ONES)
        assert p == OLD_ONES
        action = look.decide_oop(single_stream(2), spec.oop)
        if look.last_scores.size > 1:
            break
        step_oop(rngs, eng.S, eng.X, eng.W, action)
    else:
        pytest.fail("no Old One turn with a choice in 40 turns")
    first = look.last_scores.copy()
    balanced = parse_one("balanced")
    for q in range(2):
        eng.state.sid[q] = balanced.sid
        eng.state.params[q, :] = 0.0
        eng.state.params[q, : balanced.lower().size] = balanced.lower()
    look.decide_oop(single_stream(2), spec.oop)
    np.testing.assert_array_equal(look.last_scores, first)


def test_peek_sees_the_hidden_cards(eng):
    """peek=1 does not re-deal: changing only hidden information moves its scores (the
    honest searcher's do not: test_search_decisions_do_not_change_...)."""
    spec = make_spec("base", 2, ["search:rollouts=3:peek=1", "balanced"])
    _, p, player = _position(eng, spec, 5, 6)
    look = Lookahead(eng)
    _, scores = _decide(eng, look, p, player)
    assert _hide_differently(eng, p)
    _, scores2 = _decide(eng, look, p, player)
    assert not np.array_equal(scores, scores2)


def test_sequential_halving_spends_the_same_budget_on_the_contenders(eng):
    spec = make_spec("base", 2, ["search:rollouts=4:halving=1", "balanced"])
    for decisions_before in range(4, 30):
        _, p, player = _position(eng, spec, 5, decisions_before)
        look = Lookahead(eng)
        before = look.rollouts_played
        box, scores = _decide(eng, look, p, player)
        if scores.size >= 3:
            break
    else:
        pytest.fail("no decision with three or more legal boxes")
    n = scores.size
    assert look.rollouts_played - before <= 4 * n  # never more than the flat budget
    played = look.last_played
    legal = np.zeros(L.NUM_BOXES, dtype=bool)
    legal_boxes(eng.S, eng.X, eng.W, p, legal)
    chosen = list(np.flatnonzero(legal)).index(box)
    assert played[chosen] == played.max() and played.min() < played.max()
    box2, scores2 = _decide(eng, look, p, player)
    assert box2 == box and np.array_equal(scores2, scores)
    assert parse_one("search:halving=1").halving == 1
    with pytest.raises(UserError, match="halving must be 0 or 1"):
        parse_one("search:halving=3")


def test_a_rollout_starts_from_every_field_of_the_live_game_but_its_log(eng):
    """start_rollout copies the whole live game into the rollout buffers (the log and the
    withdraw-table caches excepted), switches logging and checks off, and with a public model
    gives every other seat the model's strategy and parameters."""
    spec = make_spec("revenge", 3, ["search:rollouts=1", "hunter", "economist"], oop="rusher")
    _, p, _ = _position(eng, spec, 4, 5)
    look = Lookahead(eng)
    for name in L.State._fields:  # scribble over the buffers: nothing may survive the copy
        getattr(look.state, name)[...] = 7
    for name in L.Work._fields:
        if not name.startswith("wt_"):
            getattr(look.work, name)[...] = 7
    sid, params = 9, np.arange(4, dtype=np.float64)
    start_rollout(look.X, look.W, eng.X, eng.W, p, sid, params, np.zeros(0))
    for name in L.State._fields:
        got, live = getattr(look.state, name), getattr(eng.state, name)
        if name == "log":
            assert (got == 7).all()
        elif name in ("g", "sid", "params", "pl"):
            continue  # below
        else:
            np.testing.assert_array_equal(got, live, err_msg=name)
    for name in L.Work._fields:
        if not name.startswith("wt_"):
            np.testing.assert_array_equal(getattr(look.work, name), getattr(eng.work, name))
    g = look.state.g.copy()
    assert g[L.G_LOG_ON] == 0 and g[L.G_CHECKED] == 0
    g[[L.G_LOG_ON, L.G_CHECKED]] = eng.state.g[[L.G_LOG_ON, L.G_CHECKED]]
    np.testing.assert_array_equal(g, eng.state.g)
    for q in range(3):
        if q == p:
            np.testing.assert_array_equal(look.state.params[q], eng.state.params[q])
            assert look.state.sid[q] == eng.state.sid[q]
        else:
            np.testing.assert_array_equal(look.state.params[q, :4], params)
            assert look.state.sid[q] == sid == look.state.pl[q, L.P_STRATEGY]


def test_the_public_model_cache_is_not_fooled_by_a_reused_object_id(eng):
    """Lookahead caches each search player's public model. A player freed after its game
    and a new one made at the same address (CPython reuses ids) must get its own model,
    not the freed one's: else a long-lived engine plays a later spec with an earlier
    spec's opponent model, and a game's result depends on what the process played before."""
    import weakref
    from dataclasses import replace

    look = Lookahead(eng)
    economist = parse_one("search:rollouts=1:opponents=economist")
    hunter = parse_one("search:rollouts=1:opponents=hunter")
    assert economist.human_model.sid != hunter.human_model.sid
    first = replace(economist)
    assert look._public_model(0, first)[0] == economist.human_model.sid
    freed, alive = id(first), weakref.ref(first)
    del first
    others = [replace(hunter) for _ in range(2000)]  # kept alive: each its own address
    reused = [o for o in others if id(o) == freed]
    # either the address was reused (then that player must get its own model) or the cache
    # still holds the first player, so its address cannot be reused
    assert reused or alive() is not None
    for other in reused:
        assert look._public_model(0, other)[0] == hunter.human_model.sid


def test_a_rollout_scores_the_win_share_plus_a_thousandth_of_the_margin():
    """objective=win: 1/k of a k-way tie for the win, plus the VP margin over the best rival
    (Old Ones included) / 1000; objective=margin: the margin alone; the Old One player's
    margin is over the best human."""
    row = np.zeros(L.SUMMARY_SIZE, dtype=np.int64)
    row[L.S_NUM_PLAYERS] = 3
    for q, vp in enumerate((10, 10, 7)):
        row[L.S_PLAYER0 + q * L.S_PLAYER_STRIDE + L.SUM_P_VP] = vp
    row[L.S_OO_VP], row[L.S_BEST_PLAYER_VP], row[L.S_WINNERS_MASK] = 8, 10, 0b011
    assert R.rollout_score(row, 0, False) == 0.5  # tied with seat 1: half a win, margin 0
    assert R.rollout_score(row, 2, False) == pytest.approx(-0.003)
    assert R.rollout_score(row, 2, True) == -3.0
    assert R.rollout_score(row, OLD_ONES, False) == pytest.approx(-0.002)
    row[L.S_OLD_ONES_WIN], row[L.S_OO_VP], row[L.S_WINNERS_MASK] = 1, 12, 0
    assert R.rollout_score(row, OLD_ONES, False) == pytest.approx(1.002)
    assert R.rollout_score(row, 0, False) == pytest.approx(-0.002)  # 10 against the Old Ones' 12


def test_a_batch_of_rollouts_plays_each_one_as_if_alone(eng):
    """Rollout i of a batch depends on its own choice and seeds only: the same rollout
    scores the same first and last in a batch, with another choice played between."""
    spec = make_spec("base", 2, ["search:rollouts=2", "balanced"])
    _, p, player = _position(eng, spec, 3, 6)
    look = Lookahead(eng)
    legal = np.zeros(L.NUM_BOXES, dtype=bool)
    legal_boxes(eng.S, eng.X, eng.W, p, legal)
    boxes = np.flatnonzero(legal)
    assert boxes.size >= 2
    seeds = np.array([[1, 2], [3, 4], [1, 2]], dtype=np.uint64)
    model = look._public_model(p, player)
    plans = look._plans(p, player, model, boxes[[0, 1, 0]])
    scores = look._rollouts(player, model, plans, seeds)
    alone = look._rollouts(player, model, plans[1:2], seeds[1:2])
    assert scores[0] == scores[2] and scores[1] == alone[0]
    assert look.rollouts_played == 4
