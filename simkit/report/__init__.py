"""`simkit report`: one self-contained HTML file from a results folder.

Sections are chosen by what the folder holds: an odds table (odds.parquet from
`simkit odds` or `simkit demo`) gives the combat section; game lakes add their
sections as those engines land. Every report carries a provenance banner.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simkit import ENGINE_VERSION
from simkit.errors import UserError
from simkit.report.html import details_html, esc, page


@dataclass
class Report:
    html: str
    sections: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # one note per incomplete lake read


def _banner(metas: list[dict], sources: list[Path], missing: list[str] = ()) -> str:
    """Provenance in words; the data pack hashes go to a details line below it."""
    hashes = sorted({m.get("data_hash", "?") for m in metas})
    packs = sorted({str(m.get("data_pack") or "unnamed") for m in metas})
    engines = sorted({str(m.get("engine_version", "?")) for m in metas})
    assumed = [m.get("provenance_shares", {}).get("assumed") for m in metas]
    assumed_txt = (
        ", ".join(dict.fromkeys(f"{a:.0%}" for a in assumed if a is not None)) or "unknown"
    )
    seeds = sorted({str(m.get("seed")) for m in metas if m.get("seed") is not None})
    return (
        f"<b>engine</b> {esc(', '.join(engines))} (this build {ENGINE_VERSION}) &middot; "
        f"<b>data pack{'s' if len(hashes) > 1 else ''}</b> {esc(', '.join(packs))} "
        "&middot; <b>assumed values</b> "
        f"{esc(assumed_txt)} &middot; <b>seeds</b> {esc(', '.join(seeds) or 'n/a')} &middot; "
        f"<b>sources</b> {esc(', '.join(p.name for p in sources))} &middot; <b>made</b> "
        f"{dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}<br>Most card faces, tiles and "
        "the map are not public: numbers computed from assumed data are illustrations of the "
        "method until a user types in the real values (simkit/data/auztralia/README.md)."
        + "".join(
            f'<br><b style="color:#b00">{esc(note)}: every figure below from this lake '
            "is computed on the games present only</b>"
            for note in missing
        )
        + details_html([("data pack hash", h) for h in hashes], "Data pack identifiers")
    )


def _lake_meta(lake) -> dict:
    """Banner facts of one lake experiment, from its manifest."""
    from simkit.datapack import load_pack, provenance_shares

    record = lake.record
    data = record.get("data") or {}
    shares, name = {}, None
    try:  # the share of assumed values is a property of the pack the lake was built from
        pack = load_pack(data.get("path") if isinstance(data, dict) else None)
        if pack.hash == record.get("data_hash") or not isinstance(data, dict):
            shares = provenance_shares(pack)
            name = pack.name
    except UserError:
        pass
    return {
        "engine_version": record.get("engine_version", "?"),
        "data_hash": record.get("data_hash", "?"),
        "provenance_shares": shares,
        "data_pack": name,
        "seed": record.get("root_seed"),
    }


def build_report(
    source: Path | Sequence[Path],
    title: str | None = None,
    allow_incomplete: bool = False,
    forces: list[str] | None = None,
    data_path: str | None = None,
) -> Report:
    """Build the report for a results folder (or a single odds table file; several folders
    make one report, a skill curve run a level per folder, say). ``forces`` are
    the user's own forces ('infantry=2,artillery=1', the parser of ``simkit combat
    --force``): each odds table's heatmaps get a row for each, marked, computed the way the
    table was (same seed, games and exact/Monte Carlo choice) on the pack in ``data_path``
    (default: the shipped pack), which must be the table's."""
    from simkit import analysis
    from simkit.odds import read_table
    from simkit.report import combat, worlds

    sources = [Path(source)] if isinstance(source, str | Path) else [Path(s) for s in source]
    for src in sources:
        if not src.exists():
            raise UserError(f"{src}: no such file or folder")
    files, lakes = [], []
    for src in dict.fromkeys(s.resolve() for s in sources):  # a folder given twice reads once
        files += [src] if src.is_file() else sorted(src.glob("**/odds*.parquet"))
        if src.is_dir():
            lakes += sorted({p.parent for p in src.glob("**/manifest.json")} - set(lakes))
    name = ", ".join(s.name for s in sources)
    sections, metas, names, tables, game_lakes = [], [], [], [], []
    missing: list[str] = []
    mixes = parse_forces(forces or [])
    if mixes and not files:
        raise UserError(f"{name}: --my-force needs an odds table (odds*.parquet) to add to")
    for i, path in enumerate(files):
        table, meta = read_table(path)
        metas.append(meta)
        tables.append(table)
        yours = own_rows(table, meta, mixes, data_path) if mixes else None
        sections.append(
            combat.section(table, "combat-odds" if i == 0 else f"combat-odds-{i}", yours=yours)
        )
        names.append("combat-odds")
    from simkit.report import sensitivity

    sweeps = []
    for root in lakes:
        manifest = analysis.Manifest.load(root)
        for experiment in sorted(manifest.experiments):
            lake = analysis.open_lake(root, experiment, allow_incomplete=allow_incomplete)
            if sum(other.name == root.name for other in lakes) > 1:  # a run per level, say
                lake.where = root.parent.name
            if not lake.complete:
                missing.append(f"{root.name}: {lake.missing_note()}")
            metas.append(_lake_meta(lake))
            game_lakes.append(lake)
            if not lake.files():  # (only read with --allow-incomplete) nothing to show yet
                continue
            if sensitivity.is_sensitivity(lake):
                sweeps.append(lake)
                continue
            first = len(sections)
            if worlds.applies(lake):  # one section: its hundreds of cells are worlds, not cells
                sections.append(worlds.section(lake, f"lake{len(names)}"))
                names.append(f"lake{len(names)}-worlds")
            else:
                _game_sections(lake, sections, names)
            if not lake.complete:  # every figure of this lake says how much is missing
                warn = (
                    '<p style="color:#b00;font-weight:bold">'
                    f"{esc(lake.missing_note())}: the figures below use the games present only"
                    "</p>"
                )
                sections[first:] = [warn + html for html in sections[first:]]
    if sweeps:
        sections.append(sensitivity.section(sweeps))
        names.append("sensitivity")
    if not sections:
        raise UserError(f"{name}: nothing to report (no odds table, no game results)")
    from simkit.analysis.skill_curve import curve_lakes
    from simkit.report import curve as skill_curve
    from simkit.report.summary import summary_html

    plain = [
        lk for lk in game_lakes if not sensitivity.is_sensitivity(lk) and not worlds.applies(lk)
    ]
    curve = None
    # a curve lake with no games yet still joins its curve (whose warning names it)
    if on_curve := curve_lakes(plain):  # before the lakes' own sections: the balance answer
        curve = skill_curve.Curve(on_curve)
        html = skill_curve.section(curve)
        if short := [lk.missing_note() for lk in on_curve if not lk.complete]:
            warn = "; ".join(short) + ": the curve uses the games present only"
            html = f'<p style="color:#b00;font-weight:bold">{esc(warn)}</p>' + html
        sections.insert(len(files), html)
        names.insert(len(files), "skill-curve")
    read = [lk for lk in plain or game_lakes if lk.files()]
    summary = summary_html(read, tables, metas, curve)
    html = page(
        title or f"simkit report: {name}",
        _banner(metas, files + lakes, missing),
        sections,
        summary,
    )
    return Report(html=html, sections=names, missing=missing)


def _game_sections(lake, sections: list[str], names: list[str]) -> None:
    """The sections of one game lake: per-cell results, skill, look-ahead, content."""
    from simkit.report import content, games, lookahead, skill

    for sid, html in games.sections(lake, len(names)):
        sections.append(html)
        names.append(sid)
    if skill.applies(lake):
        sections.append(skill.section(lake, f"lake{len(names)}"))
        names.append(f"lake{len(names)}-skill")
    if lookahead.applies(lake):
        sections.append(lookahead.section(lake, f"lake{len(names)}"))
        names.append(f"lake{len(names)}-lookahead")
    if content.varies_content(lake):
        sections.append(content.section(lake, f"lake{len(names)}"))
        names.append(f"lake{len(names)}-content")


def parse_forces(texts: list[str]) -> list[tuple[int, ...]]:
    """The user's forces as counts per unit type (UNITS order), each read by the parser of
    ``simkit combat --force`` ('infantry=2,artillery=1,airship')."""
    from simkit.combat import parse_force
    from simkit.names import UNITS

    out = []
    for text in texts:
        counts = parse_force(text)
        if any(counts[len(UNITS) :]):
            raise UserError(f"--my-force '{text}': an odds table has military units only")
        mix = tuple(counts[: len(UNITS)])
        if mix not in out:
            out.append(mix)
    return out


def own_rows(table, meta: dict, mixes: list[tuple[int, ...]], data_path: str | None = None):
    """The odds rows of the user's forces against the table's Old Ones and copies, with the
    table's seed, games and precision target (simkit.odds.force_rows)."""
    from simkit.datapack import load_pack
    from simkit.names import OLD_ONES
    from simkit.odds import FALLBACK_GAMES, force_rows

    data = load_pack(data_path)
    if meta.get("data_hash") not in (None, data.hash):
        raise UserError(
            f"--my-force: the odds table was made with data pack {meta.get('data_pack', '?')} "
            f"(hash {meta.get('data_hash')}), not {data.name} (hash {data.hash}): pass the "
            "table's pack with --data"
        )
    present = set(table["old_one"].astype(str))
    kinds = [i for i, k in enumerate(OLD_ONES) if k in present]
    copies = tuple(sorted(int(c) for c in table["old_ones"].unique()))
    return force_rows(
        data,
        mixes,
        kinds,
        copies,
        seed=int(meta.get("seed") or 0),
        games=int(meta.get("games") or FALLBACK_GAMES),
        target_ci=meta.get("target_ci"),
    )
