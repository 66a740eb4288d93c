"""Balance against skill: does Normal < Hard < Heroic hold at every rung of play?

For a Revenge lake whose grid varies the difficulty and the human strategies (the rungs:
random, the heuristics, tuned strategies from ``simkit tune``), optionally the Old One
player and the number of humans: each group's Old One player win rate at each level,
and the paired steps normal->hard and hard->heroic (shared seeds) with 95% intervals
(simkit.analysis.difficulty_steps). A group is *ordered* when both steps' intervals lie
above zero.
"""

from __future__ import annotations

from simkit import analysis
from simkit.names import label
from simkit.report.html import esc, table_html
from simkit.views import interval


def applies(lake: analysis.Lake) -> bool:
    keys = lake.grid_keys
    # a ladder varies the rung; one rung alone (e.g. the search rung) still gets its steps
    levels = lake.record.get("spec", {}).get("grid", {}).get("difficulty", [])
    return (
        str(lake.record.get("mode")) == "revenge"
        and "difficulty" in keys
        and isinstance(levels, list)
        and {"normal", "hard", "heroic"} <= set(levels)
    )


def short_spec(value: object) -> str:
    """A strategy spec as a row label (the rows are long enough): a strategy file by its
    name, ``tuned:NAME`` for ``file:`` and ``learned:NAME`` for a learned weights file."""
    text = str(value)
    kind, _, path = text.partition(":")
    if kind in ("file", "learned") and path:
        name = path.rsplit("/", 1)[-1].removesuffix(".toml")
        return f"{'tuned' if kind == 'file' else 'learned'}:{name}"
    return text


STEPS = (("normal_to_hard", "Normal to Hard"), ("hard_to_heroic", "Hard to Heroic"))


def order_verdict(r: dict) -> str:
    """Whether Normal < Hard < Heroic holds for one group, in three honest answers:
    "yes" (both paired steps' 95% intervals above zero), "reversed: ..." (a step's interval
    lies wholly below zero: that level is easier than the one before), or "not shown at
    this sample size" (an interval still covers zero: more games could tell)."""
    if r.get("ordered"):
        return "yes"
    reversed_ = [
        label for key, label in STEPS if r.get(f"{key}_hi") is not None and r[f"{key}_hi"] < 0
    ]
    if reversed_:
        return "reversed: " + ", ".join(f"{label} is easier" for label in reversed_)
    if any(r.get(key) is None for key, _ in STEPS):
        return "-"
    return "not shown at this sample size"


def section(lake: analysis.Lake, sid: str) -> str:
    # every other key the grid varies (the rung, the Old One player, humans, ruleset...)
    by = [k for k in lake.grid_keys if k != "difficulty"] or ["strategies"]
    steps = analysis.difficulty_steps(lake.scan(), by=by, metric=lake.key_metric)
    order = {k: lake.record.get("spec", {}).get("grid", {}).get(k) for k in by}
    rows_in = analysis.play_order(
        steps, by, {k: v for k, v in order.items() if isinstance(v, list)}
    ).to_dicts()

    def pct(r, level):
        if r[level] is None:
            return "-"
        return interval(r[level], r[f"{level}_lo"], r[f"{level}_hi"])

    def step(r, name):
        if r[name] is None:
            return "-"
        return interval(r[name], r[f"{name}_lo"], r[f"{name}_hi"], signed=True)

    rows = [
        [
            *(short_spec(r[k]) for k in by),
            pct(r, "normal"),
            pct(r, "hard"),
            pct(r, "heroic"),
            step(r, "normal_to_hard"),
            step(r, "hard_to_heroic"),
            order_verdict(r),
        ]
        for r in rows_in
    ]
    per_rung: dict[str, list[bool]] = {}
    for r in rows_in:
        per_rung.setdefault(short_spec(r.get("strategies", "all")), []).append(bool(r["ordered"]))
    said = "; ".join(f"{esc(k)} {sum(v)} of {len(v)}" for k, v in per_rung.items())
    verdicts = [order_verdict(r) for r in rows_in]
    n_rev = sum(v.startswith("reversed") for v in verdicts)
    n_open = sum(v == "not shown at this sample size" for v in verdicts)
    table = table_html(
        [
            *by,
            "normal",
            "hard",
            "heroic",
            "normal -> hard (paired 95%)",
            "hard -> heroic (paired 95%)",
            "ordered",
        ],
        rows,
        f"table-{sid}-skill",
        text_columns=tuple(range(len(by))) + (len(by) + 5,),
    )
    return (
        f'<section id="{sid}-skill"><h2>Balance against skill ({esc(lake.name)})</h2>'
        f"<p>The Old One player's win rate (<b>{esc(label(lake.key_metric))}</b>) at each "
        "difficulty, for "
        "each rung of human play (<i>tuned:</i> a strategy tuned by <code>simkit tune</code>) and "
        "each Old One player, with the paired steps between levels on shared seeds. "
        "<b>Ordered</b>: <i>yes</i> when Normal &lt; Hard &lt; Heroic with both steps' 95% "
        "intervals above zero; <i>reversed</i> when a step's interval lies wholly below zero "
        "(that level is easier than the one before it); <i>not shown at this sample size</i> "
        "when an interval still covers zero (more games could tell). "
        f"Groups ordered per rung: {said}; reversed: {n_rev}; not shown at this sample size: "
        f"{n_open}.</p>{table}</section>"
    )
