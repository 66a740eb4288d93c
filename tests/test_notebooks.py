"""Every notebook runs top to bottom (small sizes), so they never rot."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any(o.get("output_type") == "stream" for o in outputs)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_are_stored_with_their_outputs(path):
    """A reader sees the results without running anything (tools/make_notebooks.py stores them)."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(
        c.get("outputs") for c in code if "print(" in c.source or "plt.show()" in c.source
    )
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    if "plt.show()" in "".join(
        c.source for c in code
    ):  # every figure rendered (no Agg backend in a notebook)
        shows = sum(c.source.count("plt.show()") for c in code)
        images = sum("image/png" in o.get("data", {}) for o in outputs)
        assert images >= shows > 0
        assert "matplotlib.use('Agg')" not in "".join(c.source for c in code)


def test_revenge_notebook_has_plots():
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.stem.startswith("revenge")), as_version=4)
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert len(images) >= 2
