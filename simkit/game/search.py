"""The search player (strategies.search.SearchPlayer): determinized Monte Carlo look-ahead
with the jitted engine as its own forward model.

The game is driven turn by turn (simkit.kernels.game_loop.advance stops before each
search seat's turn). At that turn the seat lists its legal actions, and for each of
``rollouts`` re-deals of what it cannot see (simkit.kernels.game_search.determinize) it
plays every action and then the rest of the game with the rollout policy, on a copy of
the state. Every action meets the same re-deals and the same rollout chance (common
random numbers), so the comparison between actions is paired. The action with the best
mean result is taken in the real game.

``--oop search`` (strategies.search.OOPSearchPlayer) searches the Old One player's action
the same way (advance stops before its turns; its own stream RNG_OOP draws the re-deals).

The driver is Python because the jitted loop cannot call itself (numba has no recursion
through the engine); the rollouts of a decision (or of a halving round) are one kernel
call on preallocated copies (simkit.kernels.game_rollout.play_rollouts).
What the seat draws for its search comes from its own stream (RNG_SEAT + seat), so a
game with search seats is reproducible from its seed like any other.
"""

from __future__ import annotations

import numpy as np

from simkit.errors import UserError
from simkit.game.arrays import new_state, new_work
from simkit.game.streams import new_streams
from simkit.kernels import game_rollout as R
from simkit.kernels.game_loop import (
    NOBODY,
    OLD_ONES,
    STOP_OLD_ONES,
    advance,
    finish_game,
    step_oop,
    step_seat,
)
from simkit.kernels.game_oop import place_options
from simkit.kernels.game_scoring import summarize
from simkit.kernels.game_search import legal_boxes, legal_oop_actions
from simkit.kernels.game_setup import setup_game
from simkit.kernels.game_state import to_refs
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.rand import fill_u64
from strategies.registry import public_models
from strategies.search import OOPSearchPlayer, SearchPlayer

_NO_MODEL = (-1, np.zeros(0), np.zeros(0))  # start_rollout: every seat keeps its strategy
JOINT = 8  # the Old One player's joint choice (mythos=1): Mythos code * JOINT + OOP_* action


class Lookahead:
    """Rollout buffers for one Engine: a second state and work, reused every decision."""

    def __init__(self, engine):
        self.eng = engine
        self.state = new_state(engine.arrays, 1)
        self.work = new_work(engine.arrays)
        self.S, self.X, self.W = to_refs(engine.arrays, self.state, self.work)
        self.row = np.zeros(L.SUMMARY_SIZE, dtype=np.int64)
        self.rngs = new_streams()  # a rollout's chance: every stream seeded per re-deal
        self.legal = np.zeros(L.NUM_BOXES, dtype=np.bool_)
        self.oop_legal = np.zeros(4, dtype=np.bool_)
        self.rollouts_played = 0
        self.last_scores = np.zeros(0)
        self.forced_mythos = 0  # decide_oop's Mythos card (mythos=1), G_FORCED_MYTHOS's code
        self.forced_place = 0  # decide_oop's Place (sites=1), G_FORCED_PLACE's code
        self.forced_reveal = 0  # decide_oop's Reveal (sites=1), G_FORCED_REVEAL's code
        n_hex = engine.arrays.neighbors.shape[0]
        self.options = np.zeros(3 * n_hex, dtype=np.int64)  # place_options: levels x hexes
        self._models: dict = {}  # (seat, player id) -> (player, its public model's arrays)
        # called as recorder(engine, seat, legal choices, their mean scores, chosen) after
        # every searched decision with a choice: a human seat's box, or (seat OLD_ONES) the
        # Old One player's action (simkit.learn records the search's values)
        self.recorder = None
        # called as roll_in(engine, seat, legal choices, chosen) after the recorder: the
        # choice played instead (simkit learn's DAgger roll-in plays its learned player's
        # pick at some decisions); None: the search's own choice is played
        self.roll_in = None

    def decide(self, seat_rng: np.ndarray, p: int, player: SearchPlayer) -> int:
        """The action box seat p takes now (the engine state is not changed)."""
        eng = self.eng
        legal_boxes(eng.S, eng.X, eng.W, p, self.legal)
        self.last_scores = np.zeros(0)
        boxes = np.flatnonzero(self.legal)
        if boxes.size == 0:
            return L.BOX_RETRIEVE
        box = self._search(seat_rng, p, player, boxes)
        if self.recorder is not None and self.last_scores.size > 1:
            self.recorder(eng, p, boxes, self.last_scores, box)
        if self.roll_in is not None and self.last_scores.size > 1:  # (a recorded decision)
            box = self.roll_in(eng, p, boxes, box)
        return box

    def decide_oop(self, rng: np.ndarray, player: OOPSearchPlayer) -> int:
        """The OOP_* action the Old One player takes this turn (-1: none is legal; the
        engine state is not changed). With ``mythos=1`` the Mythos card is searched with
        it: every (card, action) pair, the card none or one in hand; the card is left in
        ``forced_mythos`` (G_FORCED_MYTHOS's code: card id + 2, 1 none; 0 without). With
        ``sites=1`` a chosen Place or Reveal is then searched over its own choices (every
        level and site, or every face-down tile), left in ``forced_place`` /
        ``forced_reveal``."""
        eng = self.eng
        legal_oop_actions(eng.S, eng.X, eng.W, self.oop_legal)
        self.last_scores = np.zeros(0)
        self.forced_mythos = self.forced_place = self.forced_reveal = 0
        actions = np.flatnonzero(self.oop_legal)
        if actions.size == 0:
            return -1
        choices = actions
        if player.mythos:  # joint choices: code * JOINT + action
            codes = [1, *(int(c) + 2 for c in np.flatnonzero(eng.state.mythos_hand > 0))]
            choices = np.array([c * JOINT + a for c in codes for a in actions], dtype=np.int64)
        choice = self._search(rng, OLD_ONES, player, choices)
        if player.mythos:
            self.forced_mythos, choice = divmod(choice, JOINT)
        elif self.recorder is not None and self.last_scores.size > 1:
            # (simkit learn records actions: its searches keep mythos=0)
            self.recorder(eng, OLD_ONES, actions, self.last_scores, choice)
        if not player.mythos and self.roll_in is not None and self.last_scores.size > 1:
            choice = self.roll_in(eng, OLD_ONES, actions, choice)
        if player.sites and choice in (L.OOP_PLACE, L.OOP_REVEAL):
            self._search_sites(rng, player, choice)
        return choice

    def _search_sites(self, rng, player, action: int) -> None:
        """forced_place (Place: every legal level and site) or forced_reveal (Reveal: every
        face-down tile on the map) by the same search, the action and the Mythos card as
        chosen. The engine plays the policy's instead if the card changed the board."""
        eng = self.eng
        if action == L.OOP_PLACE:
            if self.options.size >= 3 * L.PLACE_CODE:  # G_FORCED_PLACE: level * PLACE_CODE + hex
                n_hex = self.options.size // 3
                raise UserError(f"sites=1: the map has {n_hex} hexes; at most {L.PLACE_CODE - 1}")
            k = place_options(eng.S, eng.X, eng.W, self.options)
            options = self.options[:k].copy()
        else:
            state = eng.state
            options = np.flatnonzero((state.tile_hex >= 0) & ~state.tile_up).astype(np.int64)
        if options.size == 0:
            return
        mythos = self.forced_mythos

        def plan(option: int) -> tuple:
            if action == L.OOP_PLACE:
                return mythos, action, option + 1, 0
            return mythos, action, 0, option + 1

        best = self._search(rng, OLD_ONES, player, options, plan)
        if action == L.OOP_PLACE:
            self.forced_place = best + 1
        else:
            self.forced_reveal = best + 1

    def _public_model(self, p: int, player) -> tuple:
        """(strategy id, parameters) for the other humans and the Old One parameters
        (empty: leave them) that ``model=public`` rolls out in place of the true ones."""
        key = (p, id(player))
        cached = self._models.get(key)
        # the entry keeps its player alive: an id is only unique among live objects, and a
        # freed player's address may be a later player's (whose models may differ)
        if cached is None or cached[0] is not player:
            owner = player
            if player.human_model is None:  # made without simkit.game.engine.make_spec
                player = public_models(player)
            human = player.human_model
            oop = player.oop_policy if p != OLD_ONES else None
            cached = self._models[key] = (
                owner,
                (
                    int(human.sid),
                    np.asarray(human.lower(), dtype=np.float64),
                    np.zeros(0) if oop is None else np.asarray(oop.lower(), dtype=np.float64),
                ),
            )
        return cached[1]

    def _search(self, rng, p: int, player, choices: np.ndarray, plan=None) -> int:
        """The choice with the best mean rollout result for p (a seat, or OLD_ONES); every
        choice meets the same re-deals and the same rollout chance (rollout j of every
        choice shares its seeds). ``rng``: the deciding seat's own stream, which draws the
        re-deal and rollout seeds. ``halving=1``: sequential halving (Karnin, Koren and
        Somekh 2013) spends the same budget, rollouts x choices, in rounds that each drop
        the worse half of the choices left, so the close contenders get the rollouts.
        ``plan``: choice -> (Mythos code, action, Place code, Reveal code) for the Old One
        player (default: ``divmod(choice, JOINT)`` and the policy's Place and Reveal)."""
        if choices.size == 1:
            return int(choices[0])
        n = choices.size
        halving = player.halving
        budget = player.rollouts * n
        # seed pairs: one per rollout index (halving: at most the whole budget on one choice)
        seeds = np.empty((budget if halving else player.rollouts, 2), dtype=np.uint64)
        fill_u64(rng, seeds.reshape(-1))
        total = np.zeros(n)
        played = np.zeros(n, dtype=np.int64)
        model = self._public_model(p, player) if player.model == "public" else _NO_MODEL
        plans = self._plans(p, player, model, choices, plan)
        if not halving:
            # rollout j of every choice, j ascending: each choice's sum adds in that order
            scores = self._rollouts(
                player,
                model,
                np.tile(plans, (player.rollouts, 1)),
                np.repeat(seeds[: player.rollouts], n, axis=0),
            )
            for j in range(player.rollouts):
                total += scores[j * n : (j + 1) * n]
            played[:] = player.rollouts
        else:
            alive = np.arange(n)
            rounds = int(np.ceil(np.log2(n)))
            for r in range(rounds):
                per = max(1, budget // (alive.size * rounds))
                # the round's k-th rollout of each live choice a is its rollout played[a] + k
                index = (played[alive][None, :] + np.arange(per)[:, None]).reshape(-1)
                scores = self._rollouts(
                    player, model, np.tile(plans[alive], (per, 1)), seeds[index]
                )
                for k in range(per):
                    total[alive] += scores[k * alive.size : (k + 1) * alive.size]
                played[alive] += per
                if r < rounds - 1:
                    mean = total[alive] / played[alive]
                    keep = max(1, (alive.size + 1) // 2)
                    alive = alive[np.argsort(-mean, kind="stable")[:keep]]
            mean = total / np.maximum(played, 1)
            best = alive[int(np.argmax(mean[alive]))]
            self.last_scores, self.last_played = mean, played
            return int(choices[best])
        self.last_scores = total / played  # mean result per legal choice
        self.last_played = played
        return int(choices[int(np.argmax(total))])

    @staticmethod
    def _plans(p: int, player, model, choices: np.ndarray, plan_of=None) -> np.ndarray:
        """One R.PLAN_* row per choice: the rollouts that test it."""
        plans = np.zeros((choices.size, R.PLAN_SIZE), dtype=np.int64)
        plans[:, R.PLAN_SEAT] = p
        plans[:, R.PLAN_MODEL_SID] = model[0]
        plans[:, R.PLAN_PEEK] = 1 if player.peek else 0
        varying = [R.PLAN_MYTHOS, R.PLAN_CHOICE, R.PLAN_PLACE, R.PLAN_REVEAL]
        for a, choice in enumerate(choices.tolist()):
            if p != OLD_ONES:
                plans[a, R.PLAN_CHOICE] = choice
            elif plan_of is None:
                plans[a, R.PLAN_MYTHOS], plans[a, R.PLAN_CHOICE] = divmod(choice, JOINT)
            else:
                plans[a, varying] = plan_of(choice)
        return plans

    def _rollouts(self, player, model, plans, seeds) -> np.ndarray:
        """Rollout i plays plans[i] on the re-deal and chance of seeds[i] (one kernel call
        for the batch); returns each one's result for its seat (R.rollout_score)."""
        scores = np.empty(plans.shape[0])
        eng = self.eng
        R.play_rollouts(
            self.rngs,
            self.S,
            self.X,
            self.W,
            eng.X,
            eng.W,
            plans,
            seeds,
            model[1],
            model[2],
            player.objective == "margin",
            self.row,
            scores,
        )
        self.rollouts_played += plans.shape[0]
        return scores


def search_seats(spec, seat_perm: np.ndarray) -> dict[int, SearchPlayer]:
    """Seat -> SearchPlayer for the seats (after the seating shuffle) that search."""
    return {
        seat: spec.strategies[int(seat_perm[seat])]
        for seat in range(spec.players)
        if isinstance(spec.strategies[int(seat_perm[seat])], SearchPlayer)
    }


def play_searched(eng, rngs, spec, setup, out: np.ndarray) -> int:
    """Set up, play and score one game in which some seats search (the twin of
    simkit.kernels.game_loop.play_game). Returns the log rows written."""
    S, X, W = eng.S, eng.X, eng.W
    setup_game(rngs, S, X, W, setup)
    if getattr(eng, "lookahead", None) is None:
        eng.lookahead = Lookahead(eng)
    look = eng.lookahead
    seats = search_seats(spec, eng.work.seat_perm)
    oop_search = isinstance(spec.oop, OOPSearchPlayer)
    mask = sum(1 << seat for seat in seats) | (STOP_OLD_ONES if oop_search else 0)
    g = eng.state.g
    if g[L.G_OVER] == 0:
        while True:
            p = advance(rngs, S, X, W, mask)
            if p == NOBODY:
                break
            if p == OLD_ONES:
                action = look.decide_oop(rngs[L.RNG_OOP], spec.oop)
                g[L.G_FORCED_MYTHOS] = look.forced_mythos
                g[L.G_FORCED_PLACE] = look.forced_place
                g[L.G_FORCED_REVEAL] = look.forced_reveal
                step_oop(rngs, S, X, W, action)
                continue
            box = look.decide(rngs[L.RNG_SEAT + p], p, seats[p])
            step_seat(rngs, S, X, W, p, box)
        finish_game(S, X)
    summarize(S, X, W, out)
    for seat in seats:  # label the seat as the search player, not its rollout policy
        out[L.S_PLAYER0 + seat * L.S_PLAYER_STRIDE + L.SUM_P_STRATEGY] = SearchPlayer.sid_label
    return int(g[L.G_LOG_N])
