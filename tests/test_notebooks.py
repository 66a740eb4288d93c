"""Every notebook runs top to bottom (small sizes), so they never rot; stored with vector
figures, calling the library's helpers, printing no machine paths."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
# a path of the machine that ran the notebook: a home, a temporary or a work folder, a
# Windows drive
MACHINE_PATH = re.compile(
    r"(/work/|/tmp/|/home/|/root/|/Users/|/private/var/|/var/folders/|[A-Z]:\\\\)"
)


def outputs_text(nb) -> str:
    """Everything a reader of the stored notebook sees as output (text, errors, HTML)."""
    parts = []
    for cell in nb.cells:
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            parts.append(o.get("text", ""))
            parts += [str(v) for k, v in o.get("data", {}).items() if not k.startswith("image/")]
            parts += o.get("traceback", [])
    return "\n".join(parts)


def code_of(cell) -> str:
    """A code cell's Python (IPython magics such as %config dropped)."""
    return "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))


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
    text = outputs_text(nb)
    assert not MACHINE_PATH.search(text), MACHINE_PATH.search(text).group(0)
    shows = sum(code_of(c).count("plt.show()") for c in nb.cells if c.cell_type == "code")
    svgs = sum("image/svg+xml" in o.get("data", {}) for o in outputs)
    assert svgs >= shows and not any("image/png" in o.get("data", {}) for o in outputs)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_are_stored_with_their_outputs(path):
    """A reader sees the results without running anything (tools/make_notebooks.py stores
    them), every figure as SVG (vector), and no path of the machine that ran them."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(
        c.get("outputs") for c in code if "print(" in c.source or "plt.show()" in c.source
    )
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = outputs_text(nb)
    assert not MACHINE_PATH.search(text), MACHINE_PATH.search(text).group(0)
    if "plt.show()" in "".join(c.source for c in code):
        assert "figure_formats = ['svg']" in code[0].source  # set before the first figure
        shows = sum(c.source.count("plt.show()") for c in code)
        images = sum("image/svg+xml" in o.get("data", {}) for o in outputs)
        assert images >= shows > 0
        assert not any("image/png" in o.get("data", {}) for o in outputs)
        assert "matplotlib.use('Agg')" not in "".join(c.source for c in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_spell_out_no_parameter_dicts(path):
    """The notebooks build what the library takes with its helpers (fight_params, the
    parsers), not dicts of every parameter typed by hand: no dict literal of more than 4
    keys in any cell."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(code_of(cell))):
            if isinstance(node, ast.Dict):
                assert len(node.keys) <= 4, cell.source[:200]


def test_the_combat_notebook_calls_the_helpers_of_the_cli_and_the_web_calculator():
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.stem.startswith("combat")), as_version=4)
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for helper in (
        "Combat.parse(",
        "fight_params(",
        "loss_distribution(",
        "interval(",
        "OUTCOME_TEXT",
    ):
        assert helper in source, helper


def test_revenge_notebook_has_plots():
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.stem.startswith("revenge")), as_version=4)
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/svg+xml" in o.get("data", {})
    ]
    assert len(images) >= 2


def test_fight_params_fills_the_defaults_and_checks_what_it_is_given():
    from simkit.combat.losses import fight_params
    from simkit.combat.mode import PARAMS
    from simkit.errors import UserError

    params = fight_params("Infantry=2,artillery=1", "Mi-Go", withdraw="table-value")
    assert set(params) == set(PARAMS)
    assert params["force"] == "infantry=2,artillery=1" and params["vs"] == "mi_go"
    assert params["withdraw"] == "table-value" and params["allocate"] == "cheapest"
    with pytest.raises(UserError, match="unknown combat parameter"):
        fight_params("infantry=1", "zombie", sanity=3)
    with pytest.raises(UserError, match="force"):
        fight_params("tanks=1", "zombie")
