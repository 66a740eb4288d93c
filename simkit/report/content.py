"""What rests on invented card texts: each headline rate under content = "assumed" (every
printed Mythos card as the pack gives it) beside content = "rules" (the cards whose effect
and amount are public; the others played as blanks), for a lake whose grid varies
``content``.

Both modes play the printed 30-card deck, so the difference is the invented texts alone,
not a smaller deck that brings each kept card up more often (the 7-card "rules" deck of
ENGINE_VERSION 7 did). Cells that differ only in content share their seeds: the difference
is a paired one (common random numbers) with its 95% interval. How far the answer moves
over plausible content is the worlds section's band (simkit.report.worlds).
"""

from __future__ import annotations

from simkit import analysis
from simkit.names import label
from simkit.report.html import esc, table_html
from simkit.views import interval


def varies_content(lake: analysis.Lake) -> bool:
    return "content" in lake.grid_keys


def left_out_cards() -> tuple[list[str], list[str]]:
    """(cards of assumed text, blanks under 'rules'; cards of public text, played under both)
    of the shipped deck; the cards of unknown text are blanks in both (unknown = "blank")."""
    from simkit.revenge.mythos import load_mythos

    deck = load_mythos()
    return (
        [
            n
            for n, p, u in zip(deck.names, deck.public, deck.unknown, strict=True)
            if not p and not u
        ],
        [n for n, p in zip(deck.names, deck.public, strict=True) if p],
    )


def section(lake: analysis.Lake, sid: str) -> str:
    """The headline metric per cell, assumed beside rules, with the paired difference."""
    metric = lake.key_metric
    keys = [k for k in lake.grid_keys if k != "content"]
    frame = lake.scan()
    diffs = analysis.paired_difference(
        frame, {"content": "assumed"}, metric=metric, within=keys, by=keys or ["content"]
    )
    rates = analysis.win_rates(frame, by=keys + ["content"], metric=metric)

    def rate_of(row: dict, content: str) -> str:
        match = (
            rates.filter(*[rates[k] == row[k] for k in keys], rates["content"] == content)
            if keys
            else rates.filter(rates["content"] == content)
        )
        if match.height == 0:
            return "-"
        r = match.row(0, named=True)
        return interval(r["rate"], r["ci_low"], r["ci_high"])

    rows = []
    for r in analysis.play_order(diffs, keys).to_dicts() if keys else diffs.to_dicts():
        rows.append(
            [
                *(r[k] for k in keys),
                rate_of(r, "assumed"),
                rate_of(r, "rules"),
                interval(r["diff"], r["ci_low"], r["ci_high"], signed=True),
                f"{r['games']:,}",
            ]
        )
    out_only, both = left_out_cards()
    table = table_html(
        [
            *keys,
            f"{label(metric)}: assumed",
            f"{label(metric)}: rules",
            "rules - assumed (paired 95%)",
            "games",
        ],
        rows,
        f"table-{sid}-content",
        text_columns=tuple(range(len(keys))),
    )
    return (
        f'<section id="{sid}-content"><h2>What rests on invented card texts '
        f"({esc(lake.name)})</h2>"
        f"<p>Each cell's <b>{esc(label(metric))}</b> with every Mythos card as the pack gives it "
        "(<i>assumed</i>) beside only the cards whose effect and amount are public text "
        "(<i>rules</i>), on the same seeds. Both play the printed 30-card deck (Revenge "
        "Components), so a kept card comes up as often as in the game in both modes. The "
        f"difference is made by the {len(out_only)} cards of assumed text, played as blanks "
        f"under rules: {esc(', '.join(out_only))} (GAME-DATA.md says what is assumed). Played "
        f"in both modes: {esc(', '.join(both))}. The 14 cards no text names are blanks in both. "
        "Assumed numbers (TP costs, tile values, the Old One deck) and the readings of open "
        "texts stay in both: how much they move the answer is a worlds run's band "
        "(experiments/worlds_revenge.toml).</p>"
        f"{table}</section>"
    )
