"""Every user mistake: exit code 2, exactly one line on stderr naming the culprit, no
traceback, no file changed that the command did not write (tests/bad_inputs.py holds the
table; tools/probe_bad_inputs.py counts the same cases on any checkout).

In-process through simkit.cli.main (the `simkit` script's entry point) so the suite is fast;
every case fails in validation, before any kernel runs.
"""

from __future__ import annotations

import collections

import bad_inputs as bi
import pytest


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    root = bi.build(tmp_path_factory.mktemp("bad_inputs"))
    return root, bi.sentinels(root)


def test_table_is_large_and_covers_every_subcommand_and_category():
    assert len(bi.CASES) >= 150
    assert len({c.id for c in bi.CASES}) == len(bi.CASES)
    cats = collections.Counter(c.category for c in bi.CASES)
    for cat in (
        "flag",
        "nan",
        "seed",
        "contradiction",
        "limit",
        "output",
        "input",
        "datapack",
        "map",
        "athena-pack",
    ):
        assert cats[cat] >= 5 or cat == "nan" and cats[cat] >= 4, cat
    commands = {
        " ".join(a for a in c.argv[:2] if not a.startswith("-") and "{T}" not in a)
        for c in bi.CASES
    }
    for cmd in (
        "combat",
        "odds",
        "odds best",
        "board show",
        "board check",
        "athena turret",
        "athena check",
        "data check",
        "data provenance",
        "simulate",
        "replay",
        "experiment run",
        "experiment check",
        "experiment verify",
        "experiment summary",
        "report",
        "demo",
    ):
        assert any(
            c == cmd or c.startswith(cmd + " ") or c == cmd.split()[0] and len(cmd.split()) == 1
            for c in commands
        ), cmd


@pytest.mark.parametrize("case", bi.CASES, ids=[c.id for c in bi.CASES])
def test_bad_input(case, fixtures):
    root, before = fixtures
    code, out, err = bi.run_in_process(case.args(root))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert code == 2, (code, err, out[-300:])
    assert len(lines) == 1, err
    assert case.culprit.lower() in lines[0].lower(), lines[0]
    assert bi.SECRET not in err + out
    assert bi.sentinels(root) == before
