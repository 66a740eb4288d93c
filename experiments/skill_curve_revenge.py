"""The skill curve of issue 25 (deliverable 4): the Old One player's (OOP) win rate in Revenge
against search budget, at Normal, Hard and Heroic, 2 humans.

    .venv/bin/python experiments/skill_curve_revenge.py run --out results/skill_curve_revenge \
        --minutes 60
    .venv/bin/python experiments/skill_curve_table.py results/skill_curve_revenge \
        --figure docs/skill-curve.png

One spec grid cannot tie the humans' budget to the OOP's ("both sides at R" is the diagonal
of strategies x oop), so this script builds the specs: one per (arm, budget), each a grid
over difficulty, all with the same root seed and chunk size. Chunk k of every spec is seeded
by SeedSequence(ROOT_SEED, spawn_key=(k,)), so game (chunk_id, game_index) is the same deal in
every cell: the steps between budgets are paired. The arms:

- ``both``: two search humans and the searching OOP, the same budget R on both sides;
- ``humans``: two search humans at R against the default OOP (``rusher``);
- ``oop``: the searching OOP at R against two ``balanced`` humans (the default);
- ``none`` (budget 0, no search): ``balanced`` humans against ``rusher``, the reference.

Human search: ``search:rollouts=R:policy=strategies/balanced_tuned_base_2p.toml:model=public``
(the tuned balanced player rolls out every seat it controls; the other human with the same
policy, the OOP with ``rusher``: the public model). OOP search:
``search:rollouts=R:policy=rusher:model=public`` (humans modelled as ``balanced``). Equal
rollouts per legal action (``halving=0``): R rollouts x the legal choices is the budget
exactly (sequential halving must give every choice one rollout first, so at R=1 it spends
about 1.75x the budget and the axis would not be the budget).

``run --arms oop none --games 1000`` plays only those arms, every budget at the same number
of games a cell (enough pairs for a doubling's interval to be read against +-0.02), with
``--difficulties`` to choose the levels and ``--budgets`` to choose the budgets (``--budgets
32`` extends a curve already played: its doublings pair with the lakes in OUT).

``run`` plays the specs in rounds of growing size (round k brings every (arm, budget) to k/10
of its planned games), so a run cut by ``--minutes`` keeps the plan's proportions; a rerun
resumes (finished chunks are kept). Each spec's lake is OUT/<spec name>/, its TOML text also
in OUT/specs/ (``file:`` paths there resolve against experiments/).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT_SEED = 2512  # held out: no other spec, tuning or `simkit learn` run uses it
CHUNK = 10
HUMANS = 2
BUDGETS = (1, 2, 4, 8, 16)
DIFFICULTIES = ("normal", "hard", "heroic")
HUMAN_POLICY = "strategies/balanced_tuned_base_2p.toml"
ARMS = ("both", "humans", "oop")
# games per cell by (arm, budget), sized from the wall time per game measured on the first
# 10 games a cell (docs/strong-play.md, "Skill curve"): a game with search on both sides costs
# 0.7 s at 1 rollout to about 4 s at 8 (on a shared core), 16 doubles that again, so the
# costly cells get fewer games; the OOP-only arm is the cheapest and plays the most; the
# reference (no search, ~0.04 s a game) the most of all
PLAN = {
    ("none", 0): 400,
    **{("both", r): 80 for r in (1, 2, 4)},
    ("both", 8): 60,
    ("both", 16): 30,
    **{("humans", r): 100 for r in (1, 2, 4, 8)},
    ("humans", 16): 50,
    **{("oop", r): 150 for r in BUDGETS},
}
ROUNDS = 10  # round k brings every cell to k/ROUNDS of its plan (whole chunks)


def human_search(r: int) -> str:
    return f"search:rollouts={r}:policy={HUMAN_POLICY}:model=public"


def oop_search(r: int) -> str:
    return f"search:rollouts={r}:policy=rusher:model=public"


def players(arm: str, r: int) -> tuple[str, str]:
    """(human strategies, OOP) of an arm at budget r."""
    if arm == "both":
        return human_search(r), oop_search(r)
    if arm == "humans":
        return human_search(r), "rusher"
    if arm == "oop":
        return "balanced", oop_search(r)
    if arm == "none":
        return "balanced", "rusher"
    raise ValueError(f"unknown arm {arm!r}")


def spec_name(arm: str, r: int) -> str:
    return f"skill_curve_revenge_{arm}_r{r}"


def spec_text(arm: str, r: int, games: int, difficulties=DIFFICULTIES) -> str:
    """The TOML spec of one (arm, budget): a grid over difficulty."""
    humans, oop = players(arm, r)
    return f"""# Skill curve (issue 25), arm '{arm}', budget {r} rollouts per legal action
# (0: no search). Revenge, {HUMANS} humans playing '{humans}' against the Old One player
# '{oop}', at {", ".join(difficulties)}; shipped data pack, content assumed. Root seed
# {ROOT_SEED} (held out), chunks of {CHUNK}: every spec of the curve plays the same deals.
# Built by experiments/skill_curve_revenge.py; file: paths resolve against experiments/.
[experiment]
name = "{spec_name(arm, r)}"
description = "OOP win rate, arm {arm}, {r} rollouts, by difficulty"
mode = "revenge"
root_seed = {ROOT_SEED}
chunk_size = {CHUNK}
games = {games}
outputs = ["summary"]

[params]
humans = {HUMANS}
strategies = "{humans}"
oop = "{oop}"

[grid]
difficulty = {list(difficulties)!r}
""".replace("'", '"')


def load(arm: str, r: int, games: int, difficulties=DIFFICULTIES):
    from simkit.runner.spec import parse_spec

    text = spec_text(arm, r, games, difficulties)
    return text, parse_spec(
        tomllib.loads(text),
        f"{spec_name(arm, r)}.toml",
        text=text,
        base_dir=HERE,
        default_name=spec_name(arm, r),
    )


def cells(plan: dict, budgets) -> list[tuple[str, int]]:
    """(arm, budget) in play order: the reference, then cheap budgets first."""
    return [("none", 0)] * (("none", 0) in plan) + [
        (arm, r) for r in budgets for arm in ARMS if (arm, r) in plan
    ]


def run(
    out: Path,
    plan: dict = PLAN,
    budgets=BUDGETS,
    difficulties=DIFFICULTIES,
    minutes: float | None = None,
    jobs: int = 1,
    rounds: int = ROUNDS,
    log=print,
) -> bool:
    """Play every (arm, budget) of ``plan`` into OUT/<spec name>/ in ``rounds`` rounds, round
    k bringing each cell to k/rounds of its plan in whole chunks (a short last chunk would be
    replayed when it grows), so a run cut by ``minutes`` keeps the plan's proportions. True
    when the plan is complete, False when ``minutes`` ran out first."""
    from simkit.runner import run_experiment
    from simkit.runner.run import DeadlinePassed

    out.mkdir(parents=True, exist_ok=True)
    (out / "specs").mkdir(exist_ok=True)
    deadline = None if minutes is None else time.perf_counter() + 60 * minutes
    reached: dict[tuple[str, int], int] = {}
    for k in range(1, rounds + 1):
        for arm, r in cells(plan, budgets):
            # the reference costs ~1/50 of a search game: all of it in the first round
            share = 1.0 if arm == "none" else k / rounds
            games = min(plan[arm, r], CHUNK * math.ceil(share * plan[arm, r] / CHUNK))
            if games <= reached.get((arm, r), 0):
                continue
            text, spec = load(arm, r, games, difficulties)
            (out / "specs" / f"{spec.name}.toml").write_text(text)
            try:
                res = run_experiment(
                    spec, out=out / spec.name, jobs=jobs, quiet=True, deadline=deadline
                )
            except DeadlinePassed:
                log(f"deadline: stopped before {spec.name} reached {games} games a cell")
                return False
            reached[arm, r] = games
            log(
                f"{time.strftime('%H:%M:%S')} {spec.name}: {games} games a cell "
                f"(+{res.games_written} in {res.seconds:.0f} s)"
            )
    return True


def sized_plan(arms, games: int, budgets=BUDGETS) -> dict:
    """A plan of ``games`` a cell for every budget of ``arms`` ('none': the reference), for a
    run that sizes a few arms for their steps' intervals instead of the cost-sized PLAN."""
    return {(arm, r): games for arm in arms for r in ((0,) if arm == "none" else budgets)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="play the curve's specs into OUT (resumable)")
    r.add_argument("--out", type=Path, default=Path("results/skill_curve_revenge"))
    r.add_argument("--minutes", type=float, default=None, help="stop starting chunks after this")
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument(
        "--arms", nargs="+", choices=("none", *ARMS), help="only these arms (with --games)"
    )
    r.add_argument("--games", type=int, help="games a cell for every budget of --arms")
    r.add_argument("--difficulties", nargs="+", choices=DIFFICULTIES, default=DIFFICULTIES)
    r.add_argument(
        "--budgets",
        nargs="+",
        type=int,
        help="only these budgets, for a sized run any powers of 2 (e.g. 32 to extend a curve)",
    )
    s = sub.add_parser("spec", help="print one (arm, budget) spec")
    s.add_argument("arm", choices=("none", *ARMS))
    s.add_argument("budget", type=int)
    a = ap.parse_args(argv)
    if a.cmd == "spec":
        print(spec_text(a.arm, a.budget, PLAN.get((a.arm, a.budget), 10)), end="")
        return 0
    if (a.arms is None) != (a.games is None):
        print("skill_curve_revenge.py: --arms and --games go together", file=sys.stderr)
        return 2
    if a.games is not None and (a.games < CHUNK or a.games % CHUNK):
        print(f"skill_curve_revenge.py: --games must be a multiple of {CHUNK}", file=sys.stderr)
        return 2
    budgets = tuple(sorted(set(a.budgets))) if a.budgets else BUDGETS
    if any(b < 1 or b & (b - 1) for b in budgets):
        print(
            "skill_curve_revenge.py: --budgets must be powers of 2 (1, 2, 4, ...)", file=sys.stderr
        )
        return 2
    plan = sized_plan(a.arms, a.games, budgets) if a.arms else PLAN
    done = run(
        a.out,
        plan=plan,
        budgets=budgets,
        difficulties=tuple(a.difficulties),
        minutes=a.minutes,
        jobs=a.jobs,
        log=lambda m: print(m, flush=True),
    )
    return 0 if done else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
