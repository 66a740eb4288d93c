"""The search player's speed: games per second at each budget, rollouts per second.

    .venv/bin/python benchmarks/bench_search.py [--games 12] [--budgets 1,4,8]

JSON lines (name, value, unit). One core, one process. The first search game loads (or,
with a cold numba cache, compiles) the kernels; its time is reported on its own line as
``search_warmup`` and is not in any rate. ``search_games_per_second_rK``: 2-player base
games, search (rollouts K, rollout policy balanced) against balanced, seeds 0..games-1.
``search_rollouts_per_second``: rollouts from a mid-game position (the search seat's 10th
decision), each one a state copy, a re-deal of the hidden information, the action and the
rest of the game with the rollout policy, and the scoring: the median of ``--repeats`` timings
of ``--rollouts`` each, their min and max on the line (so one reading shows its own spread;
this host's rate also moves by a fifth or more from one minute to the next,
docs/engine-speed.md). The goal of issue 14 is at least 1 game per second per core at the
default budget (SearchPlayer.rollouts).
``oop_search_games_per_second``: 2-human Revenge games (Normal, balanced humans) with the Old
One player searching at the default budget (rusher rollouts), beside its rollout policy alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit  # noqa: E402

from simkit.game.engine import Engine, make_spec  # noqa: E402
from simkit.game.search import Lookahead, search_seats  # noqa: E402
from simkit.game.streams import game_streams, single_stream  # noqa: E402
from simkit.kernels.game_loop import advance, step_seat  # noqa: E402
from strategies.search import SearchPlayer  # noqa: E402


def mid_game(eng: Engine, spec, seed: int, decisions: int):
    """Play to the search seat's decision number ``decisions``; returns (seat, player)."""
    rngs = game_streams(seed)
    eng.set_up(rngs, spec)
    seats = search_seats(spec, eng.work.seat_perm)
    mask = sum(1 << s for s in seats)
    for k in range(decisions + 1):
        p = advance(rngs, eng.S, eng.X, eng.W, mask)
        if k < decisions:
            step_seat(rngs, eng.S, eng.X, eng.W, p, -1)
    return p, seats[p]


def rollout_position(eng: Engine):
    """The position of the rollout figure (base, 2 players, the search seat's 10th decision
    of deal 3) with a Lookahead that has made one decision there (warm): (look, seat, player).
    Shared by tools/profile_rollouts.py and tools/ab_speed.py, so all three time the same."""
    spec = make_spec("base", 2, ["search:rollouts=1", "balanced"])
    eng.play((99, 0, 0), spec)
    p, player = mid_game(eng, spec, 3, 10)
    look = Lookahead(eng)
    look.decide(single_stream(0), p, player)
    return look, p, player


def play_rollouts(look: Lookahead, seat: int, player, rollouts: int, decision: int = 0):
    """Decide at the position again and again (decision k draws single_stream(k), k after
    ``decision``) until ``rollouts`` rollouts are played: (rollouts played, last decision)."""
    start = look.rollouts_played
    while look.rollouts_played - start < rollouts:
        decision += 1
        look.decide(single_stream(decision), seat, player)
    return look.rollouts_played - start, decision


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--budgets", default="1,4,8")
    parser.add_argument("--rollouts", type=int, default=2000, help="rollouts a timing")
    parser.add_argument("--repeats", type=int, default=5, help="timings of the rollout rate")
    args = parser.parse_args()
    eng = Engine()
    default = SearchPlayer().rollouts
    with Timer() as t:
        eng.play((99, 0, 0), make_spec("base", 2, ["search:rollouts=1", "balanced"]))
    emit("search_warmup", t.seconds, "s", note="first search game: kernel load or compile")
    for k in (int(b) for b in args.budgets.split(",")):
        spec = make_spec("base", 2, [f"search:rollouts={k}", "balanced"])
        eng.play((98, 0, 0), spec)  # this budget's first game is not timed
        before = eng.lookahead.rollouts_played
        with Timer() as t:
            rows, _ = eng.play_many(spec, 0, 0, args.games)
        played = eng.lookahead.rollouts_played - before
        emit(
            f"search_games_per_second_r{k}",
            args.games / t.seconds,
            "games/s",
            rollouts=k,
            default_budget=k == default,
            games=args.games,
            rollouts_per_game=round(played / args.games, 1),
            goal="issue 25: 3 games/s per core at the default budget of 8",
            load=round(os.getloadavg()[0], 2),
        )
    for oop in (f"search:rollouts={default}", "rusher"):  # the OOP's search and its policy
        spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=oop)
        eng.play((97, 0, 0), spec)
        before = eng.lookahead.rollouts_played
        with Timer() as t:
            eng.play_many(spec, 0, 0, args.games * 4)
        emit(
            "oop_search_games_per_second"
            if oop.startswith("search")
            else "oop_policy_games_per_second",
            args.games * 4 / t.seconds,
            "games/s",
            mode="revenge normal, 2 balanced humans",
            oop=oop,
            games=args.games * 4,
            rollouts_per_game=round((eng.lookahead.rollouts_played - before) / (args.games * 4), 1),
            load=round(os.getloadavg()[0], 2),
        )
    look, p, player = rollout_position(eng)
    rates, decision = [], 0
    for _ in range(args.repeats):  # each timing draws new streams (decisions go on counting)
        with Timer() as t:
            n, decision = play_rollouts(look, p, player, args.rollouts, decision)
        rates.append(n / t.seconds)
    emit(
        "search_rollouts_per_second",
        statistics.median(rates),
        "rollouts/s",
        repeats=args.repeats,
        rollouts_each=args.rollouts,
        min=round(min(rates)),
        max=round(max(rates)),
        position="base 2p, the search seat's 10th decision",
        goal="issue 25: 5,400 rollouts/s (3 x the 1,300-1,800 of ENGINE_VERSION 6)",
        load=round(os.getloadavg()[0], 2),
    )


if __name__ == "__main__":
    main()
