"""Self-contained HTML: inline CSS, figures embedded as base64 PNG, print-friendly."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; margin: 2rem auto;
       max-width: 1000px; color: #222; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } h2 { border-bottom: 2px solid #6b4c9a; padding-bottom: .2rem;
     margin-top: 2.2rem; } h3 { margin-top: 1.4rem; }
.banner { background: #f4f0fa; border-left: 4px solid #6b4c9a; padding: .6rem 1rem; font-size: .9rem; }
.banner b { color: #4a3470; } .note { color: #555; font-size: .9rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .88rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
figure { margin: 1rem 0; page-break-inside: avoid; } figure img { max-width: 100%; }
figcaption { font-size: .85rem; color: #555; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-before: auto; } table, figure { page-break-inside: avoid; } }
"""


def esc(text: object) -> str:
    return html.escape(str(text))


def figure_html(fig, caption: str, fig_id: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return (f'<figure id="{esc(fig_id)}"><img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def table_html(headers: Sequence[str], rows: Sequence[Sequence[object]], table_id: str,
               text_columns: Sequence[int] = (0,)) -> str:
    """A table; the columns in ``text_columns`` are left-aligned text, the rest numbers."""
    def cls(i):
        return "l" if i in text_columns else ""
    head = "".join(f'<th class="{cls(i)}">{esc(h)}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f'<td class="{cls(i)}">{esc(c)}</td>' for i, c in enumerate(r)) + "</tr>"
        for r in rows)
    return f'<table id="{esc(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def page(title: str, banner: str, sections: Sequence[str]) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>"
            f"<div class=\"banner\" id=\"provenance\">{banner}</div>{''.join(sections)}</body></html>\n")
