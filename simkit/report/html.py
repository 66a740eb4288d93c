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
       max-width: 1040px; color: #222; line-height: 1.45; padding: 0 1rem; }
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
h1, h2, h3, p, li, figcaption { overflow-wrap: anywhere; }
th, td { border: 1px solid #ccc; padding: .22rem .45rem; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
td.up { color: #a1261a; } td.down { color: #1c5aa6; }
figure { margin: 1rem 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: #555; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 10pt; color: #000; }
  .banner, .summary { background: none; }
  h2 { break-before: page; page-break-before: always; break-after: avoid; }
  .summary h2, h2.first { break-before: avoid; page-break-before: avoid; }
  h3, h4 { break-after: avoid; page-break-after: avoid; }
  table, figure, tr { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


def esc(text: object) -> str:
    return html.escape(str(text))


def svg_markup(fig) -> str:
    """A matplotlib figure as an inline <svg> element (no XML prolog, DOCTYPE or metadata)."""
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
    return text.strip()


def figure_html(fig, caption: str, fig_id: str) -> str:
    return (
        f'<figure id="{esc(fig_id)}" role="img" aria-label="{esc(caption)}">{svg_markup(fig)}'
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def table_html(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    table_id: str,
    text_columns: Sequence[int] = (0,),
) -> str:
    """A table; the columns in ``text_columns`` are left-aligned text, the rest numbers."""

    def cls(i):
        return "l" if i in text_columns else ""

    head = "".join(f'<th class="{cls(i)}">{esc(h)}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f'<td class="{cls(i)}">{esc(c)}</td>' for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return (
        f'<table id="{esc(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


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
        f"{''.join(sections)}</body></html>\n"
    )
