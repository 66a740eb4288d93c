"""Readable turn-by-turn logs: rebuild one game from its seed and print what happened.

    replay_game(seed, game, chunk=0, mode="base", players=2, strategies="balanced") -> str
    replay_game(seed, game, mode="revenge", players=2, difficulty="hard", oop="mythos") -> str
    replay_game(seed, game, mode="mythos-solo", difficulty="normal") -> str

Revenge logs show the Old One player's actions (place / reveal / move / summon) and every
Mythos card (played on its turn, in a combat, or flipped in Mythos Solo).

The text is a pure function of the event log (simkit.kernels.low.game_layout EV_* rows), so
golden logs (tests/golden/) pin the engine's behaviour: regenerate them only together
with an ENGINE_VERSION bump.
"""

from __future__ import annotations

import numpy as np

from simkit import ENGINE_VERSION
from simkit.board.model import FARMS, RESOURCES
from simkit.game.engine import Engine, GameSpec, make_spec
from simkit.game.events import event
from simkit.game.mythos import EFFECTS
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.names import OLD_ONES, STACKS, UNITS

TRADE = {
    L.TRADE_NONE: "-",
    L.IMPORT_COAL: "import coal",
    L.IMPORT_IRON: "import iron",
    L.EXPORT_COAL: "export coal",
    L.EXPORT_IRON: "export iron",
}
DECISIONS = (
    "action",
    "track",
    "mine",
    "recruit",
    "buy",
    "trade",
    "farm",
    "attack",
    "reveal",
    "free unit",
)


def _old_one(t: int) -> str:
    return "Empty" if t < 0 else OLD_ONES[t]


def _units(bits: int) -> str:
    return "+".join(UNITS[u] for u in range(L.NUM_UNITS) if (bits >> u) & 1) or "-"


def _mythos_names(eng: Engine) -> tuple[str, ...]:
    from simkit.game.arrays import mythos_deck

    return mythos_deck(eng.data).names


def format_log(log: np.ndarray, eng: Engine, names: list[str], mode: str = "base") -> list[str]:
    """One line per event. ``names[seat]`` labels the seats."""
    hexno = eng.board.hex_number
    myth = _mythos_names(eng) if mode in ("revenge", "mythos-solo") else ()
    pers = eng.rules.pers_names
    rev_card = eng.rules.rev_card

    def hx(h: int) -> str:
        return f"hex {int(hexno[h])}" if h >= 0 else "no hex"

    def who(p: int) -> str:
        return f"P{p} {names[p]}" if 0 <= p < len(names) else "Old Ones"

    def card(c: int) -> str:
        return pers[c] if 0 <= c < len(pers) else "-"

    def mythos(c: int) -> str:
        return myth[c] if 0 <= c < len(myth) else "-"

    lines = []
    for row in log:
        ev = event(row)
        kind, t, actor = ev.kind, ev.time, ev.actor
        if kind == L.EV_SETUP:
            lines.append(
                f"setup: {who(actor)} Port at {hx(ev.hex)}, disc on space {ev.start_space}"
            )
        elif kind == L.EV_ACTION:
            lines.append(
                f"[{t:2d}] {who(actor)}: {L.BOX_NAMES[ev.box]} ({ev.tp} TP"
                + (f", {ev.surcharge} Gold surcharge" if ev.surcharge else "")
                + f") -> space {ev.time_after}"
            )
        elif kind == L.EV_TRACK:
            lines.append(f"       track {hx(ev.hex)} - {hx(ev.other_hex)}")
        elif kind == L.EV_MINE:
            lines.append(f"       mines {ev.amount} {RESOURCES[ev.resource]} at {hx(ev.hex)}")
        elif kind == L.EV_RECRUIT:
            src = f"display slot {ev.slot}" if ev.slot >= 0 else "the draw pile (1 Gold)"
            lines.append(f"       recruits {card(ev.card)} from {src}")
        elif kind == L.EV_BUY:
            where = f" at {hx(ev.hex)}" if ev.unit == L.OUTPOST_STACK else ""
            lines.append(f"       buys {ev.count} {STACKS[ev.unit]} ({ev.gold} Gold){where}")
        elif kind == L.EV_TRADE:
            lines.append(f"       {TRADE.get(ev.sub1, '?')}, {TRADE.get(ev.sub2, '?')}")
        elif kind == L.EV_FARM:
            lines.append(f"       {FARMS[ev.farm_kind]} farm at {hx(ev.hex)}")
        elif kind == L.EV_ATTACK:
            lines.append(f"       attacks {hx(ev.hex)} with {ev.units} units ({_units(ev.force)})")
        elif kind == L.EV_FLIP:
            by = "revealed" if actor < 0 else "flipped"
            lines.append(
                f"       {by}: tile {ev.tile} at {hx(ev.hex)} is {_old_one(ev.old_one)}"
                + (" (removed)" if ev.old_one < 0 else "")
            )
        elif kind == L.EV_WITHDRAW_FLIP:
            lines.append("       withdraws after the flip")
        elif kind == L.EV_COMBAT:
            what = "defends its Port" if ev.port_defence else "fights"
            lines.append(
                f"       {who(actor)} {what} at {hx(ev.hex)}: {C.OUTCOME_NAMES[ev.outcome]} "
                f"({ev.cards} cards, {ev.units_lost} units lost)"
            )
        elif kind == L.EV_KILL:
            split = (
                "shared by "
                + ",".join(f"P{q}" for q in range(L.MAX_PLAYERS) if (ev.players >> q) & 1)
                if actor < 0
                else f"taken by P{actor}"
            )
            lines.append(
                f"       {_old_one(ev.old_one)} (tile {ev.tile}) destroyed, {ev.vp} VP {split}"
            )
        elif kind == L.EV_RETRIEVE:
            lines.append(f"       {ev.cubes} cubes back to the HQ")
        elif kind == L.EV_OO_TURN:
            if mode == "revenge":
                lines.append(f"[{t:2d}] Old One player: purple disc on space {ev.space}")
            else:
                lines.append(
                    f"[{t:2d}] Old Ones: purple disc to space {ev.space}"
                    + (" (illuminated)" if ev.illuminated else "")
                )
        elif kind == L.EV_OOP_ACTION:
            if ev.action == L.OOP_PLACE:
                lines.append(f"       place: a level-{ev.count} Old One")
            elif ev.action == L.OOP_REVEAL:
                lines.append(f"       reveal: tile {ev.detail} at {hx(ev.hex)}")
            elif ev.action == L.OOP_MOVE:
                lines.append(f"       move: {ev.count} Old One cards")
            else:
                lines.append(
                    f"       summon: draws {ev.count} Mythos cards, keeps {mythos(ev.detail)}"
                )
        elif kind == L.EV_REVENGE:
            if ev.what == L.RV_SPAWN_TAKEN and ev.shared:
                lines.append(
                    f"       {who(actor)} shares the Spawn tile at {hx(ev.hex)}: a {ev.vp} VP token"
                )
            elif ev.what == L.RV_SPAWN_TAKEN:
                lines.append(
                    f"       {who(actor)} takes the Spawn tile at {hx(ev.hex)} ({ev.vp} VP)"
                )
            elif ev.what == L.RV_PORT_FLIP:
                lines.append(f"       {who(actor)}'s Port token flips to its weaker side")
            elif ev.what == L.RV_OUTPOST_FIGHT:
                lines.append(f"       Old Ones reach {who(actor)}'s Outpost at {hx(ev.hex)}")
            elif ev.what == L.RV_REFRESH:
                lines.append(
                    f"       {who(actor)} pays {ev.hex} Gold to refresh the Personality display"
                )
            elif ev.what == L.RV_CYCLE:
                lines.append(
                    f"       {who(actor)} sends {pers[ev.hex]} "
                    f"(display slot {ev.vp}) to the bottom of the pile"
                )
            else:
                lines.append(
                    f"       {who(actor)} loses its Outpost at {hx(ev.hex)}"
                    + (f" ({ev.vp} VP to the Old One player)" if mode == "revenge" else "")
                )
        elif kind == L.EV_MYTHOS:
            b, c, e = ev.how, ev.detail, ev.effect
            how = L.MYTHOS_HOW[b] if 0 <= b < len(L.MYTHOS_HOW) else str(b)
            effect = EFFECTS[e] if 0 <= e < len(EFFECTS) else e
            text = f"       Mythos {mythos(ev.card)} ({effect}): {how}"
            if ev.tp:
                text += f", {ev.tp} TP"
            if b in (L.MYTHOS_PLAYED, L.MYTHOS_FLIPPED, L.MYTHOS_COMBAT) and actor >= 0:
                text += f", on {who(actor)}"
            if e == L.MYTH_REMOVE_RECENT_UNIT and c >= 0:
                text += (
                    f": loses an {STACKS[c]}"
                    if STACKS[c][0] in "aeiou"
                    else f": loses a {STACKS[c]}"
                )
            elif e == L.MYTH_TAKE_TROPHY and c >= 0:
                text += f": tile {c} goes back to the map"
            elif e == L.MYTH_GHOUL_JOINS_COMBAT and c >= 0:
                text += f": a Zombie (tile {c}) joins the Old Ones, an Infantry is lost"
            elif e == L.MYTH_TEMPLE_ATTACK_EXTRA_CAPACITY and c >= 0:
                text += f": the Temple (tile {c}) is harder to destroy"
            lines.append(text)
        elif kind == L.EV_REVELATION:
            num = int(rev_card[ev.card]) if 0 <= ev.card < len(rev_card) else ev.card
            lines.append(f"       Revelation #{num}: {L.REV_NAMES[ev.rev_kind]}")
        elif kind == L.EV_MOVE:
            lines.append(
                f"       {_old_one(ev.old_one)} (tile {ev.tile}) "
                f"{hx(ev.from_hex)} -> {hx(ev.to_hex)}"
            )
        elif kind == L.EV_BLIGHT:
            lines.append(
                f"       {FARMS[ev.farm_kind] if ev.farm_kind >= 0 else 'farm'} farm of P{actor} "
                f"at {hx(ev.hex)} blighted"
            )
        elif kind == L.EV_FARM_SAVED:
            lines.append(f"       Alanza Castro saves P{actor}'s farm at {hx(ev.hex)}")
        elif kind == L.EV_PORT_LOST:
            lines.append(f"       {who(actor)} loses its Port at {hx(ev.hex)}: the game ends")
        elif kind == L.EV_ASSASSINATE:
            lines.append(
                f"       assassination: {card(ev.card)} and {card(ev.card2)} leave the display"
            )
        elif kind == L.EV_PERSONALITY:
            what = (
                f"reveals tile {ev.detail}"
                if eng.rules.pers_effect[ev.card] == L.EFF_REVEAL
                else f"takes a free {UNITS[ev.detail]}"
            )
            lines.append(f"       {card(ev.card)}: {what}")
        elif kind == L.EV_TEMPLE_TILE:
            if ev.placed:
                what = "a face-down tile" if ev.old_one == -2 else f"a {_old_one(ev.old_one)}"
                lines.append(f"       {what} (tile {ev.tile}) is placed at {hx(ev.hex)}")
            else:
                lines.append(
                    f"       a {_old_one(ev.old_one)} (tile {ev.tile}) "
                    f"joins the Temple at {hx(ev.hex)}"
                )
        elif kind == L.EV_ILLEGAL:
            a = ev.decision
            lines.append(
                f"       ILLEGAL {DECISIONS[a] if 0 <= a < len(DECISIONS) else a} "
                f"answer {ev.value} (engine default used)"
            )
        elif kind == L.EV_END:
            lines.append(f"end: {L.END_NAMES[ev.reason]} (purple disc on {ev.space})")
        elif kind == L.EV_SCORE:
            a, b, c, d, e = ev.total, ev.part1, ev.part2, ev.part3, ev.part4
            if actor < 0 and mode == "revenge":
                lines.append(
                    f"score: Old One player {a} VP (Old Ones on the map {b}, blighted {d}, "
                    f"eliminations {a - b - d})"
                )
            elif actor < 0:
                lines.append(f"score: Old Ones {a} VP (revealed {b}, unrevealed {c}, blighted {d})")
            else:
                lines.append(
                    f"score: {who(actor)} {a} VP (farms {b}, phosphate {c}, Old Ones {d}, "
                    f"personalities {e})"
                )
        else:
            lines.append(f"event {kind}: {row.tolist()}")
    return lines


def replay_text(eng: Engine, spec: GameSpec, seed: int, game: int, chunk: int = 0) -> str:
    row, log = eng.play((seed, chunk, game), spec, log=True)
    seats = [
        int(row[L.S_PLAYER0 + p * L.S_PLAYER_STRIDE + L.SUM_P_LISTED]) for p in range(spec.players)
    ]
    names = [spec.strategies[i].name for i in seats]
    winner = int(row[L.S_WINNER])
    who = (
        "the Old Ones"
        if winner == -1
        else ("shared" if winner == -2 else f"P{winner} {names[winner]}")
    )
    head = [
        f"# simkit replay: mode {spec.mode}, seed {seed}, chunk {chunk}, game {game}, "
        f"engine {ENGINE_VERSION}, data {eng.data.hash}, "
        f"rules {eng.rules.hash}, map {eng.board.hash}",
        f"# seats: {', '.join(f'P{p} {n}' for p, n in enumerate(names))}",
    ]
    if spec.mode == "revenge":
        head.append(
            f"# Old One player: {spec.oop.name}, difficulty "
            f"{spec.difficulty}, ruleset {spec.ruleset}"
            + (f", content {spec.content}" if spec.content != "assumed" else "")
        )
    elif spec.mode == "mythos-solo":
        head.append(
            f"# difficulty {spec.difficulty}"
            + (f", content {spec.content}" if spec.content != "assumed" else "")
        )
    if int(row[L.S_LOG_OVERFLOW]):
        head.append("# (log truncated: the event buffer filled up)")
    tail = [f"# winner: {who}"]
    return "\n".join(head + format_log(log, eng, names, spec.mode) + tail) + "\n"


def replay_game(
    seed: int,
    game: int,
    chunk: int = 0,
    mode: str = "base",
    players: int = 2,
    strategies: str = "balanced",
    difficulty: str | None = None,
    eng: Engine | None = None,
    ruleset: str = "revenge",
    oop: str = "rusher",
    content: str = "assumed",
) -> str:
    eng = eng or Engine()
    spec = make_spec(
        mode,
        1 if mode in ("solo", "mythos-solo") else players,
        strategies,
        difficulty=difficulty,
        rules=eng.rules,
        ruleset=ruleset,
        oop=oop,
        content=content,
    )
    return replay_text(eng, spec, seed, game, chunk)
