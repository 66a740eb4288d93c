"""What rests on invented card texts: each headline rate under content = "assumed" (every
Mythos card in the pack) beside content = "rules" (only cards whose effect and amount are
public), for a lake whose grid varies ``content``.

Cells that differ only in content share their seeds, so the difference is a paired one
(common random numbers) with its 95% interval. The cards that make the difference are
the ones the rules mode leaves out (simkit.revenge.mythos: ``public`` is False).
"""

from __future__ import annotations

from simkit import analysis
from simkit.report.html import esc, table_html


def varies_content(lake: analysis.Lake) -> bool:
    return "content" in lake.grid_keys


def left_out_cards() -> tuple[list[str], list[str]]:
    """(cards played only under 'assumed', cards played under both) of the shipped deck."""
    from simkit.revenge.mythos import load_mythos

    deck = load_mythos()
    return (
        [n for n, p in zip(deck.names, deck.public, strict=True) if not p],
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
        return f"{r['rate']:.3f} ({r['ci_low']:.3f}-{r['ci_high']:.3f})"

    rows = []
    for r in analysis.play_order(diffs, keys).to_dicts() if keys else diffs.to_dicts():
        rows.append(
            [
                *(r[k] for k in keys),
                rate_of(r, "assumed"),
                rate_of(r, "rules"),
                f"{r['diff']:+.3f} ({r['ci_low']:+.3f} to {r['ci_high']:+.3f})",
                f"{r['games']:,}",
            ]
        )
    out_only, both = left_out_cards()
    table = table_html(
        [*keys, f"{metric}: assumed", f"{metric}: rules", "rules - assumed (paired 95%)", "games"],
        rows,
        f"table-{sid}-content",
        text_columns=tuple(range(len(keys))),
    )
    return (
        f'<section id="{sid}-content"><h2>What rests on invented card texts '
        f"({esc(lake.experiment)})</h2>"
        f"<p>Each cell's <b>{esc(metric)}</b> with every Mythos card in the pack (<i>assumed</i>) "
        "beside only the cards whose effect and amount are public text (<i>rules</i>), on the same "
        f"seeds. The difference is made by the {len(out_only)} cards the rules mode leaves out: "
        f"{esc(', '.join(out_only))} (their effects or amounts are assumed; GAME-DATA.md says "
        f"how). Played in both modes: {esc(', '.join(both))}. Assumed numbers (TP costs, tile "
        "values, the Old One deck) stay in both.</p>"
        f"{table}</section>"
    )
