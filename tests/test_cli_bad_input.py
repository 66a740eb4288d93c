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


JSON_CASES = [c for c in bi.CASES if "--json" not in c.argv and "--" not in c.argv]


@pytest.mark.parametrize("case", JSON_CASES, ids=[c.id for c in JSON_CASES])
def test_bad_input_with_json_prints_one_error_object(case, fixtures):
    """With --json the same mistake is also one JSON object on stdout (the shared error path
    in simkit.cli.main, every command): {"error": the stderr line, "exit_code": 2, ...}."""
    import json

    root, before = fixtures
    code, out, err = bi.run_in_process([*case.args(root), "--json"])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert code == 2, (code, err, out[-300:])
    assert len(lines) == 1, err
    assert out.count("\n") == 1 and out.endswith("\n"), out
    obj = json.loads(out)
    assert obj["exit_code"] == 2
    assert case.culprit.lower() in obj["error"].lower(), obj
    assert lines[0] == f"simkit: error: {obj['error']}"
    assert bi.SECRET not in err + out
    assert bi.sentinels(root) == before


def test_json_error_names_the_command():
    import json

    code, out, err = bi.run_in_process(["experiment", "run", "/no/such/spec.toml", "--json"])
    assert code == 2 and json.loads(out)["command"] == "experiment run"
    code, out, err = bi.run_in_process(["no-such-command", "--json"])
    assert code == 2 and json.loads(out)["command"] is None


def test_json_error_never_follows_a_result(tmp_path, monkeypatch):
    """`experiment verify --json` prints its result object and then fails (exit 2): stdout
    still holds exactly one object (the result, "ok": false)."""
    import json

    import simkit.lake as lake

    (tmp_path / "manifest.json").write_text("{}")
    monkeypatch.setattr(lake.Manifest, "load", classmethod(lambda cls, root: _FakeManifest()))
    monkeypatch.setattr(
        lake,
        "scan",
        lambda *a, **k: lake.LakeIndex(
            root=tmp_path, files=[], problems=[lake.Problem("x.parquet", "corrupt", "bad")]
        ),
    )
    code, out, err = bi.run_in_process(["experiment", "verify", str(tmp_path), "--json"])
    assert code == 2, err
    assert out.count("\n") == 1, out
    assert json.loads(out)["ok"] is False
    assert err.startswith("simkit: error:")


class _FakeManifest:
    experiments: dict = {}

    def exists(self):
        return True


def test_valid_command_controls_succeed_beside_the_table(fixtures):
    """The same commands with good input exit 0 without an error line, and leave every
    sentinel as it was (so the table's refusals are about the bad token, not the command)."""
    root, before = fixtures
    for argv in bi.CONTROLS:
        code, out, err = bi.run_in_process(bi.control_args(argv, root))
        assert code == 0 and "Traceback" not in err, (argv, code, err[-500:])
        assert "error" not in err.lower(), (argv, err[-300:])
    assert bi.sentinels(root) == before
