"""Write the notebooks in notebooks/ from the cell sources below (kept in code for review),
then run each and store it with its outputs and figures (``--no-execute``: sources only).

    .venv/bin/python tools/make_notebooks.py
"""

from pathlib import Path

import nbformat as nbf

HERE = Path(__file__).resolve().parents[1] / "notebooks"

NOTEBOOKS = {
    "combat_odds_for_your_mix.ipynb": [
        (
            "md",
            "# Combat odds for your own unit mix\n\n"
            "Exact odds where the state space is small, Monte Carlo with 95% intervals where not. "
            "Change `FORCE` and `VS` and run all cells.",
        ),
        (
            "code",
            "%config InlineBackend.figure_formats = ['svg']   # vector figures, crisp when zoomed\n"
            "from simkit.combat import Combat, auto_odds, exact_odds\n"
            "from simkit.datapack import load_pack\n"
            "from simkit.names import OUTCOME_TEXT\n"
            "from simkit.views import gold_cost, interval\n\n"
            "data = load_pack()          # or load_pack('path/to/your/pack')\n"
            "FORCE = 'infantry=2,artillery=1'\n"
            "VS = 'mi_go'\n"
            "GAMES = 20_000              # Monte Carlo games (small for a quick run)",
        ),
        (
            "code",
            "fight = Combat.parse(FORCE, VS)   # the parser of `simkit combat --force/--vs`\n"
            "odds = auto_odds(fight, data, games=GAMES, seed=1)\n"
            "print(odds.method, fight.describe(), '|', gold_cost(fight.force, data.unit_cost), "
            "'Gold')\n"
            "ci = odds.ci95 or {}   # Monte Carlo intervals (an exact answer has none)\n"
            "for key, p in odds.outcomes.items():\n"
            "    shown = interval(p, *ci[key]) if key in ci else f'{p:.4f}'\n"
            "    print(f'{OUTCOME_TEXT[key][0]:26s} {shown}')\n"
            "print('P(destroy)', round(odds.p_destroy, 4), "
            "'expected units lost', odds.expected_units_lost)",
        ),
        (
            "md",
            "## When should I withdraw?\n\n"
            "The exact solver's value-optimal policy weighs the Old One's VP (in Gold) against the "
            "Gold value of the units at risk.",
        ),
        (
            "code",
            "never = exact_odds(fight, data)\n"
            "value = exact_odds(fight, data, withdraw='value')\n"
            'print(f"never withdraw: P(destroy) {never.p_destroy:.4f}, Gold lost '
            '{never.expected_gold_lost:.3f}")\n'
            'print(f"value-optimal : P(destroy) {value.p_destroy:.4f}, Gold lost '
            '{value.expected_gold_lost:.3f}, "\n'
            "      f\"P(withdraw) {value.outcomes['withdraw']:.4f}\")",
        ),
        (
            "md",
            "### Without counting cards\n\n"
            "That policy counts every card. The *withdraw table* is the optimum for a player who "
            "does not (each draw treated as independent): small enough for the game engine to "
            "solve before every combat. The exact solver prices it under the real deck, so the "
            "difference is what card counting is worth here.",
        ),
        (
            "code",
            "table = exact_odds(fight, data, withdraw='table-value')\n"
            "vp = sum(int(data.old_one_vp[t]) for t in fight.old_ones)\n"
            "worth = lambda o: vp * o.p_destroy - o.expected_gold_lost\n"
            'print(f"card counting: {worth(value):.4f} | table: {worth(table):.4f} | never: '
            '{worth(never):.4f} "\n'
            "      f\"(VP x P(destroy) - Gold lost; the table has {table.extra['table_states']} "
            'states)")',
        ),
        (
            "md",
            "## Card counting\n\nWith cards already in the discard pile (`seen`), the odds change:",
        ),
        (
            "code",
            "seen = tuple(int(c) for c in data.card_ids[:8])\n"
            "counted = exact_odds(fight, data, seen=seen)\n"
            "print('fresh deck', round(never.p_destroy, 4), "
            "'| after seeing cards', seen, '->', round(counted.p_destroy, 4))",
        ),
        (
            "md",
            "## How many of each unit will I lose?\n\n"
            "The distribution of units lost per type (not only the mean) and of the Gold lost, "
            "from one Monte Carlo row per fight (`simkit combat` prints the same):",
        ),
        (
            "code",
            "import matplotlib.pyplot as plt   # the notebook's own (inline) backend: the figure "
            "is stored below\n"
            "from simkit.combat.losses import fight_params, loss_distribution\n\n"
            "# fight_params fills every other combat parameter with its default (as the CLI does)\n"
            "dist = loss_distribution(fight_params(FORCE, VS, withdraw='never'), data, "
            "games=GAMES, seed=1)\n"
            "fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))\n"
            "width = 0.8 / len(dist.per_type)\n"
            "for i, (unit, rows) in enumerate(dist.per_type.items()):\n"
            "    ks = [r['lost'] + (i - (len(dist.per_type) - 1) / 2) * width for r in rows]\n"
            "    ax1.bar(ks, [r['p'] for r in rows], width=width, label=unit,\n"
            "            yerr=[[r['p'] - r['ci_low'] for r in rows], [r['ci_high'] - r['p'] for r "
            "in rows]])\n"
            "ax1.set_xticks(range(max(len(rows) for rows in dist.per_type.values())))\n"
            "ax1.set_xlabel('units of that type lost'); ax1.set_ylabel('probability'); "
            "ax1.legend()\n"
            "ax2.bar([g['gold'] for g in dist.gold], [g['p'] for g in dist.gold])\n"
            "ax2.set_xlabel('Gold lost'); ax2.set_ylabel('probability')\n"
            "fig.suptitle(fight.describe())\n"
            "plt.show()\n"
            "print({unit: [round(r['p'], 3) for r in rows] for unit, rows in "
            "dist.per_type.items()})",
        ),
    ],
    "revenge_difficulty_with_polars.ipynb": [
        (
            "md",
            "# Revenge difficulty levels, analysed with polars\n\n"
            "A small run of the Revenge mode at Normal, Hard and Heroic (raise `GAMES` for real "
            "answers), then the Old One player's win rate with 95% Wilson intervals, paired "
            "differences on shared seeds, and where the points come from.",
        ),
        (
            "code",
            "%config InlineBackend.figure_formats = ['svg']   # vector figures, crisp when zoomed\n"
            "import tempfile, tomllib\nfrom pathlib import Path\nimport polars as pl\n"
            "from simkit import analysis\nfrom simkit.names import label\n"
            "from simkit.runner import parse_spec, run_experiment\n"
            "from simkit.views import interval\n\n"
            "GAMES = 300\n"
            'spec = parse_spec(tomllib.loads(f"""\n'
            "[experiment]\n"
            "name = 'notebook_revenge'\n"
            "mode = 'revenge'\n"
            "root_seed = 11\n"
            "chunk_size = 150\n"
            "games = {GAMES}\n"
            "outputs = ['summary', 'seats', 'farms', 'ports']\n"
            "[params]\n"
            "humans = 2\n"
            "strategies = 'balanced'\n"
            "oop = 'rusher'\n"
            "[grid]\n"
            "difficulty = ['normal', 'hard', 'heroic']\n"
            '"""))\n'
            "lake_dir = Path(tempfile.mkdtemp()) / 'lake'\n"
            "run_experiment(spec, out=lake_dir, jobs=1, quiet=True)\n"
            "lake = analysis.open_lake(lake_dir)",
        ),
        (
            "code",
            "rates = analysis.play_order(analysis.win_rates(lake.scan(), by=['difficulty'], "
            "metric='old_ones_win'),\n"
            "                           ['difficulty'])\n"
            "print(label('old_ones_win'), 'rate, 95% interval, per difficulty:')\n"
            "for r in rates.to_dicts():\n"
            "    print(f\"{r['difficulty']:7s} {interval(r['rate'], r['ci_low'], r['ci_high'])} "
            "over {r['games']:,} games\")",
        ),
        (
            "code",
            "import matplotlib.pyplot as plt\n"
            "r = rates.to_dicts()\n"
            "fig, ax = plt.subplots(figsize=(6, 3))\n"
            "ax.errorbar([x['difficulty'] for x in r], [x['rate'] for x in r],\n"
            "            yerr=[[max(x['rate'] - x['ci_low'], 0) for x in r], [max(x['ci_high'] - "
            "x['rate'], 0) for x in r]],\n"
            "            fmt='o', capsize=4)\n"
            "ax.set_ylabel(f\"{label('old_ones_win')} (95% interval)\"); ax.set_ylim(0, 1); "
            "ax.grid(alpha=0.3)\n"
            "plt.show()",
        ),
        (
            "md",
            "Every cell played the same seeds, so differences between "
            "difficulties are measured game by game (common random numbers):",
        ),
        (
            "code",
            "steps = analysis.paired_difference(lake.scan(), {'difficulty': 'normal'}, "
            "metric='old_ones_win', by=['difficulty'])\n"
            "for r in steps.to_dicts():\n"
            "    print(f\"{r['difficulty']:7s} vs normal: \"\n"
            "          f\"{interval(r['diff'], r['ci_low'], r['ci_high'], signed=True)} "
            "(paired, {r['games']:,} games)\")",
        ),
        (
            "code",
            "summary = lake.scan()\n"
            "print(analysis.play_order(summary.group_by('difficulty')"
            ".agg(pl.col('ports_lost').mean(), pl.col('oo_vp').mean(),\n"
            "      pl.col('best_player_vp').mean(), pl.len().alias('games')).collect(), "
            "['difficulty']))",
        ),
        (
            "md",
            "## Where the points come from, as distributions\n\n"
            "Means hide a lot: `old_ones_vp_sources` splits the Old One player's VP (tiles on the "
            "map, blighted farms, units and Outposts, Ports) and `vp_quantiles` gives each "
            "source's quantiles per difficulty; `human_vp_sources` does the same for each human "
            "seat (the `seats` table).",
        ),
        (
            "code",
            "oop = analysis.vp_quantiles(analysis.old_ones_vp_sources(lake.scan()), "
            "by=['difficulty'])\n"
            "print(oop.filter(pl.col('source').is_in(['blighted', 'ports', 'total'])))\n"
            "humans = analysis.vp_quantiles(analysis.human_vp_sources(lake.scan('seats')), "
            "by=['difficulty'])\n"
            "print(humans.filter(pl.col('source') == 'total'))",
        ),
        (
            "code",
            "vp = lake.scan().select('difficulty', 'oo_vp').collect()\n"
            "levels = ['normal', 'hard', 'heroic']\n"
            "fig, ax = plt.subplots(figsize=(6, 3.5))\n"
            "ax.boxplot([vp.filter(pl.col('difficulty') == lv)['oo_vp'].to_numpy() for lv in "
            "levels], showmeans=True)\n"
            "ax.set_xticks([1, 2, 3], levels); ax.set_ylabel('Old One player VP per game'); "
            "ax.grid(axis='y', alpha=0.3)\n"
            "plt.show()",
        ),
        (
            "md",
            "## Port loss by site and blight by hex\n\n"
            "The `ports` and `farms` tables (in `outputs`) have one row per Port / farm placed, "
            "with whether it fell / was blighted:",
        ),
        (
            "code",
            "print(analysis.port_loss_by_site(lake.scan('ports'), by=['difficulty']).sort('rate', "
            "descending=True).head(6))\n"
            "print(analysis.blight_by_hex(lake.scan('farms')).filter(pl.col('games') >= 20)\n"
            "      .sort('rate', descending=True).head(5))",
        ),
    ],
    "type_in_your_own_deck.ipynb": [
        (
            "md",
            "# Typing in your own Old One deck\n\n"
            "The shipped deck is *assumed* (the card faces are not public). Copy the pack, edit "
            "`old_one_card_rows.csv` from your own cards, then check it.",
        ),
        (
            "code",
            "import shutil, tempfile\nfrom pathlib import Path\n"
            "from simkit.datapack import DEFAULT_PACK, load_pack, provenance_shares\n"
            "from simkit.datapack.thumbs import rule_of_thumb_violations\n\n"
            "mine = Path(tempfile.mkdtemp()) / 'my-pack'\n"
            "shutil.copytree(DEFAULT_PACK, mine)\n"
            "print('copied', len(list(mine.iterdir())), 'files of the shipped pack to', mine.name)",
        ),
        (
            "md",
            "Edit a card: here card 1's Zombie row becomes *Infantry + Artillery hit, one purple "
            "cube*, typed in as `rules` provenance (you read it off your own card).",
        ),
        (
            "code",
            "rows = mine / 'old_one_card_rows.csv'\nlines = rows.read_text().splitlines()\n"
            "i = next(k for k, line in enumerate(lines) if line.startswith('1,zombie,'))\n"
            "lines[i] = '1,zombie,infantry+artillery,1,0,0,0,rules,my copy of the game (card 1)'\n"
            "rows.write_text('\\n'.join(lines) + '\\n')\n"
            "pack = load_pack(mine)\nprint('hash', pack.hash)\n"
            "print({k: round(v, 4) for k, v in provenance_shares(pack).items()})",
        ),
        (
            "md",
            "`simkit data check` validates structure and hard rules (errors name file, row and "
            "field) and warns about the rulebook's rules of thumb:",
        ),
        ("code", "print(rule_of_thumb_violations(pack) or 'all rules of thumb hold')"),
        (
            "code",
            "from simkit.errors import UserError\n"
            "lines[i] = '1,zombie,infantry+tank,1,0,0,0,rules,typo'\n"
            "rows.write_text('\\n'.join(lines) + '\\n')\n"
            "try:\n"
            "    load_pack(mine)\n"
            "except UserError as exc:\n"
            "    print('error:', exc)",
        ),
    ],
}


def execute(path: Path) -> None:
    """Run a notebook top to bottom and store it with its outputs (figures included), so a
    reader sees the results without running it."""
    import tempfile

    from nbclient import NotebookClient

    nb = nbf.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        NotebookClient(
            nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": tmp}}
        ).execute()
    for cell in nb.cells:  # no timing metadata: re-running changes only what the results change
        cell.metadata.pop("execution", None)
    nbf.write(nb, path)


def main() -> None:
    import sys

    HERE.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        nb = nbf.v4.new_notebook()
        nb.cells = [
            nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src)
            for kind, src in cells
        ]
        for k, cell in enumerate(nb.cells):  # stable ids: regenerating changes only what changed
            cell.id = f"{Path(name).stem[:40]}-{k}"
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbf.write(nb, HERE / name)
        if "--no-execute" not in sys.argv:
            execute(HERE / name)


if __name__ == "__main__":
    main()
