"""Strategies by name: ``get("economist")``, ``parse("hunter,economist:army_min=3")``.

A spec is a registered name, optionally followed by ``:field=value`` overrides of the
strategy's frozen parameters (numbers, or ``+``-joined numbers for tuple fields), or
``file:PATH`` for a strategy written by ``simkit tune`` (PATH: its strategy.toml or folder).
"""

from __future__ import annotations

from simkit.errors import UserError
from strategies.human import PLAYERS, HeuristicParams
from strategies.overrides import split_spec, with_overrides

REGISTRY: dict[str, type[HeuristicParams]] = {cls.name: cls for cls in PLAYERS}


def available() -> list[str]:
    return [*REGISTRY, "search"]


def get(name: str) -> HeuristicParams:
    key = name.strip().lower()
    if key not in REGISTRY:
        raise UserError(f"unknown strategy '{name}' (available: {', '.join(available())})")
    return REGISTRY[key]()


def parse_one(spec: str) -> HeuristicParams:
    if spec.strip().startswith("file:"):  # a tuned strategy (simkit tune's strategy.toml)
        from strategies.files import strategy_from_file

        return strategy_from_file(spec.strip()[5:], "human", get)
    if spec.strip().startswith("learned:"):  # a fitted policy (simkit learn's weights file)
        from strategies.files import learned_from_file

        return learned_from_file(spec.strip()[8:].strip(), get)
    name, *overrides = split_spec(spec.strip())
    if name.strip().lower() == "search":  # look-ahead over the engine (strategies.search)
        from strategies.old_ones import parse_oop
        from strategies.search import SearchPlayer, spec_of

        player = with_overrides(SearchPlayer(), overrides, "strategy 'search'")
        player = player.with_policy(parse_one(player.policy_spec()))
        return player.with_models(
            parse_one(player.opponents_spec()), parse_oop(spec_of(player.oop_model))
        )
    strategy = get(name)
    out = with_overrides(strategy, overrides, f"strategy '{name}'")
    out.lower()  # validates combat policies and vector lengths now, not mid-run
    return out


def parse(text: str) -> list[HeuristicParams]:
    """Comma-separated strategy specs (one per player, or one for all)."""
    parts = [t for t in text.split(",") if t.strip()]
    if not parts:
        raise UserError("--strategies names no strategy")
    return [parse_one(t) for t in parts]


def public_models(player):
    """An Old One search player with its public model of the humans resolved (a human
    strategy, from this registry, which strategies.old_ones does not import); any other
    player as it is. simkit.game.engine.make_spec and the look-ahead (simkit.game.search)
    call it."""
    from strategies.search import OOPSearchPlayer

    if isinstance(player, OOPSearchPlayer) and player.human_model is None:
        return player.with_models(parse_one(player.opponents_spec()), None)
    return player
