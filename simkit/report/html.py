"""Self-contained HTML: inline CSS, figures embedded as inline SVG (vector: crisp on screen
and in print), a table of contents and a print stylesheet. Nothing is fetched: no
external stylesheet, script, font or image."""

from __future__ import annotations

import html
import io
import re
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "simkit", "font.family": "DejaVu Sans"}

# A backslash at the end of a line joins the next one to it (the stylesheet's text is unchanged).
CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; \
margin: 2rem auto;
       max-width: 1040px; color: #222; background: #fff; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } \
h2 { border-bottom: 2px solid #6b4c9a; padding-bottom: .2rem;
     margin-top: 2.2rem; } h3 { margin-top: 1.4rem; }
.banner { background: #f4f0fa; border-left: 4px solid #6b4c9a; padding: .6rem 1rem; \
font-size: .85rem; }
.banner b { color: #4a3470; } .note { color: #555; font-size: .9rem; }
.summary { border: 1px solid #c9bde0; border-radius: 4px; padding: .2rem 1rem .6rem; \
margin-top: 1rem; }
.summary h2 { margin-top: .6rem; } .summary li { margin: .15rem 0; }
nav.toc { font-size: .9rem; margin: 1rem 0; } nav.toc ol { margin: .2rem 0; columns: 2; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .86rem; \
display: block; overflow-x: auto; max-width: 100%; }
h1, h2, h3, h4, p, li, dt, dd, figcaption, summary { overflow-wrap: anywhere; }
th, td { border: 1px solid #ccc; padding: .22rem .45rem; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
td:not(.l) { white-space: nowrap; }
dl.outcome-legend { font-size: .9rem; } dl.outcome-legend dt { font-weight: 600; }
dl.outcome-legend dd { margin: 0 0 .3rem 1.2rem; color: #444; }
td.up { color: #a1261a; } td.down { color: #1c5aa6; }
tr.yours td { background: #fff6d6; font-weight: 600; }
table.sortable th[aria-sort] { cursor: pointer; }
table.sortable th[aria-sort]::after { content: " \\2195"; color: #888; font-weight: normal; }
table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; color: #222; }
table.sortable th[aria-sort="descending"]::after { content: " \\2193"; color: #222; }
figure { margin: 1rem 0; page-break-inside: avoid; break-inside: avoid; max-width: 100%; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: #555; }
details.ids { font-size: .78rem; color: #666; margin: .4rem 0 1rem; }
details.ids code { overflow-wrap: anywhere; }
@media (max-width: 640px) {
  body { margin: .6rem auto; padding: 0 .6rem; font-size: 15px; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.15rem; margin-top: 1.6rem; }
  h3 { font-size: 1.02rem; }
  nav.toc ol { columns: 1; padding-left: 1.4rem; }
  .banner, .summary { padding: .4rem .6rem; }
  table { font-size: .78rem; }
  th, td { padding: .18rem .3rem; }
  .summary ul { padding-left: 1.1rem; }
}
@page { size: A4; margin: 14mm 12mm; }
@media print {
  html, body { background: #fff; color: #000; }
  body { margin: 0; max-width: none; padding: 0; font-size: 9.5pt; }
  .banner, .summary, th, tr.yours td { background: none; }
  .note, figcaption, details.ids { color: #000; }
  h2 { break-before: page; page-break-before: always; break-after: avoid; }
  .summary h2, h2.first { break-before: avoid; page-break-before: avoid; }
  h3, h4 { break-after: avoid; page-break-after: avoid; }
  table { display: table; overflow: visible; width: 100%; font-size: 7.5pt; }
  thead { display: table-header-group; }
  th, td { padding: .1rem .25rem; overflow-wrap: anywhere; border-color: #888; }
  figure, tr { break-inside: avoid; page-break-inside: avoid; }
  figure svg { max-width: 100%; max-height: 240mm; width: auto; }
  nav.toc ol { columns: 2; }
  table.sortable th[aria-sort]::after { content: none; }
  a { color: inherit; text-decoration: none; }
}
"""

# The sorting of long tables (class "sortable"): written for simkit, kept small and inlined
# in the page (no CDN, nothing fetched). Without JavaScript the tables are plain tables in
# the order the report wrote them. A click (or Enter) on a header sorts by that column,
# numbers by value ("1,234", "0.57 [0.53, 0.61]" -> 0.57), text alphabetically; again
# reverses.
SORT_JS = """
(function () {
  function key(cell) {
    var t = cell.textContent.trim(), m = t.replace(/,/g, "").match(/^[+\\u2212-]?\\d*\\.?\\d+/);
    return m ? [0, parseFloat(m[0].replace("\\u2212", "-"))] : [1, t.toLowerCase()];
  }
  function sort(table, col, th) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    rows.sort(function (a, b) {
      var x = key(a.cells[col] || a), y = key(b.cells[col] || b);
      if (x[0] !== y[0]) return x[0] - y[0];
      return (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.setAttribute("aria-sort", "none");
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.setAttribute("aria-sort", "none");
      th.tabIndex = 0;
      th.title = "sort by this column";
      th.addEventListener("click", function () { sort(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(table, col, th); }
      });
    });
  });
})();
"""
SORTABLE_ROWS = 8  # a table with at least this many rows gets sortable headers


def esc(text: object) -> str:
    return html.escape(str(text))


_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'((?:xlink:)?href)="#([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")


def prefix_svg_ids(svg: str, prefix: str) -> str:
    """Every id of one inline SVG given ``prefix``, and every reference to one (``url(#..)``,
    ``href="#.."``, ``xlink:href="#.."``) changed with it: matplotlib writes the same ids
    (clip paths, glyphs, hatches) in every figure, and two figures in one page must not share
    one (the second would draw with the first one's clip path)."""
    ids = set(_ID.findall(svg))
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = _HREF.sub(
        lambda m: f'{m.group(1)}="#{prefix}{m.group(2)}"' if m.group(2) in ids else m.group(0),
        svg,
    )
    return _URL.sub(
        lambda m: f"url(#{prefix}{m.group(1)})" if m.group(1) in ids else m.group(0), svg
    )


def svg_markup(fig, prefix: str = "") -> str:
    """A matplotlib figure as an inline <svg> element (no XML prolog, DOCTYPE or metadata),
    its ids prefixed with ``prefix`` (figure_html passes the figure's own id)."""
    for ax in fig.axes:  # colorbars rasterize their gradient by default: keep every artist vector
        for artist in ax.get_children():
            artist.set_rasterized(False)
        bar = getattr(ax, "_colorbar", None)
        if bar is not None and getattr(bar, "solids", None) is not None:
            bar.solids.set_edgecolor("face")  # no hairline seams between the gradient's cells
    buf = io.StringIO()
    with matplotlib.rc_context(SVG_RC):
        fig.savefig(
            buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None}
        )
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    if prefix:
        text = prefix_svg_ids(text, prefix)
    return text.strip()


def figure_html(fig, caption: str, fig_id: str) -> str:
    return (
        f'<figure id="{esc(fig_id)}" role="img" aria-label="{esc(caption)}">'
        f"{svg_markup(fig, prefix=f'{fig_id}-')}"
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def table_html(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    table_id: str,
    text_columns: Sequence[int] = (0,),
    marked: Sequence[int] = (),
) -> str:
    """A table; the columns in ``text_columns`` are left-aligned text, the rest numbers. Each
    header is shown in plain words (simkit.names.label: 'vs' -> 'Old One'); the rows whose
    index is in ``marked`` are highlighted (the user's own forces). A table of
    SORTABLE_ROWS rows or more sorts by a click on a header (SORT_JS; plain without it)."""
    from simkit.names import label

    def cls(i):
        return "l" if i in text_columns else ""

    head = "".join(f'<th class="{cls(i)}">{esc(label(h))}</th>' for i, h in enumerate(headers))
    body = "".join(
        ('<tr class="yours">' if k in marked else "<tr>")
        + "".join(f'<td class="{cls(i)}">{esc(c)}</td>' for i, c in enumerate(r))
        + "</tr>"
        for k, r in enumerate(rows)
    )
    sortable = ' class="sortable"' if len(rows) >= SORTABLE_ROWS else ""
    return (
        f'<table id="{esc(table_id)}"{sortable}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def details_html(items: Sequence[tuple[str, str]], what: str = "Identifiers") -> str:
    """The machine identifiers of a section (cell ids, data pack hashes) in one closed
    <details> line, so the visible text stays in plain words."""
    if not items:
        return ""
    body = "; ".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in items)
    return f'<details class="ids"><summary>{esc(what)}</summary>{body}</details>'


H2 = re.compile(r'<h2 id="([^"]+)"[^>]*>(.*?)</h2>', re.S)
# a heading without an id, and the id of the <section> it opens (if it opens one)
_BARE_H2 = re.compile(r'(<section id="([^"]+)"[^>]*>\s*)?<h2(?![^>]*\bid=)([^>]*)>(.*?)</h2>', re.S)


def with_heading_ids(sections: Sequence[str]) -> list[str]:
    """Every h2 given an id (so the table of contents lists it): the id of the section it
    opens plus "-head", else a slug of its text; never one already in the page."""
    taken = {m.group(1) for s in sections for m in re.finditer(r'\bid="([^"]+)"', s)}

    def fix(m: re.Match) -> str:
        opener, section_id, attrs, text = m.group(1) or "", m.group(2), m.group(3), m.group(4)
        plain = re.sub(r"<[^>]+>", "", text)
        base = (
            f"{section_id}-head"
            if section_id
            else (re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:48] or "section")
        )
        new, n = base, 2
        while new in taken:
            new, n = f"{base}-{n}", n + 1
        taken.add(new)
        return f'{opener}<h2 id="{new}"{attrs}>{text}</h2>'

    return [_BARE_H2.sub(fix, s) for s in sections]


def toc_html(sections: Sequence[str]) -> str:
    """A numbered table of contents linking every section heading (h2) in order."""
    items = [
        (m.group(1), re.sub(r"<[^>]+>", "", m.group(2))) for s in sections for m in H2.finditer(s)
    ]
    if not items:
        return ""
    lis = "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in items)
    return f'<nav class="toc" id="toc"><b>Contents</b><ol>{lis}</ol></nav>'


def page(title: str, banner: str, sections: Sequence[str], summary: str = "") -> str:
    """The whole document: title, provenance banner, the one-screen summary, the table of
    contents, then the sections."""
    sections = with_heading_ids(sections)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title>"
        f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>"
        f'<div class="banner" id="provenance">{banner}</div>{summary}{toc_html(sections)}'
        f"{''.join(sections)}<script>{SORT_JS}</script></body></html>\n"
    )
