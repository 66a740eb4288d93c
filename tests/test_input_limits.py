"""Inputs outside the bad-input table (issue 26, part 6): ``file:`` reads regular files only,
up to a size limit (never /dev/zero, never a FIFO); a single-value flag given twice is
refused; --state-budget is checked against the machine's memory before allocating; control
characters in a spec name and NUL in a path are refused; a map with an oversized field or
a coordinate beyond int64 is one line; without a writable numba cache the commands still
run (a temporary cache, one warning). Exit code 2 and one line naming the culprit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simkit.cli import main
from simkit.datapack import DEFAULT_PACK

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def spec_with(tmp_path: Path, strategy: str, name: str = "x") -> Path:
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'[experiment]\nname = "{name}"\nmode = "base"\nroot_seed = 1\ngames = 10\n'
        f"[params]\nplayers = 2\nstrategies = 'balanced,file:{strategy}'\n"
    )
    return spec


def test_file_strategy_dev_zero_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "experiment", "check", spec_with(tmp_path, "/dev/zero"))
    line = one_line(err)
    assert code == 2 and "/dev/zero" in line and "not a regular file" in line


def test_file_strategy_too_large_is_refused(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (2 << 20))
    code, _, err = run(capsys, "experiment", "check", spec_with(tmp_path, big))
    line = one_line(err)
    assert code == 2 and "big.toml" in line and "bytes" in line


def test_file_strategy_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    spec = spec_with(tmp_path, fifo)
    done = subprocess.run(
        [sys.executable, "-m", "simkit", "experiment", "check", str(spec)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and "pipe.toml" in one_line(done.stderr)
    assert "not a regular file" in done.stderr


@pytest.mark.parametrize(
    "argv,flag",
    [
        (("combat", "--force", "infantry=1", "--force", "infantry=2", "--vs", "zombie"), "--force"),
        (("odds", "best", "--vs", "zombie", "--vs=shoggoth"), "--vs"),
        (("experiment", "run", "x.toml", "--jobs", "1", "-j", "2"), "--jobs"),
        (("board", "show", "--out", "a.png", "--out", "b.png"), "--out"),
    ],
)
def test_a_single_value_flag_given_twice_is_refused(capsys, argv, flag):
    code, _, err = run(capsys, *argv)
    line = one_line(err)
    assert code == 2 and line.startswith(f"simkit: error: {flag}: given 2 times"), line


def test_options_that_take_many_values_may_repeat():
    import typer

    from simkit.cli import app
    from simkit.cli.validate import refuse_repeated

    cmd = typer.main.get_command(app)
    refuse_repeated(cmd, ["combat", "--force", "infantry=1", "--vs", "zombie", "--vs", "mi_go"])
    refuse_repeated(cmd, ["odds", "--vs", "zombie", "--vs", "mi_go", "--out", "o.parquet"])


def test_state_budget_beyond_the_machines_memory_is_refused(capsys, monkeypatch):
    import simkit.combat as combat

    monkeypatch.setattr(combat, "available_memory_bytes", lambda: 2 << 30)  # 2 GiB free
    code, _, err = run(
        capsys, "combat", "--force", "infantry=1", "--vs", "zombie", "--state-budget", "20000000"
    )
    line = one_line(err)
    assert code == 2 and "--state-budget 20,000,000" in line and "6.4 GiB" in line
    assert "2.0 GiB available" in line
    assert combat.exact_memory_bytes(20_000_000) > 6 * 2**30


def test_a_nul_in_a_spec_name_is_one_line(tmp_path, capsys):
    spec = tmp_path / "nul.toml"
    spec.write_text(
        '[experiment]\nname = "a\\u0000b"\nmode = "combat"\nroot_seed = 1\ngames = 10\n'
    )
    for argv in (("run", spec), ("run", spec, "--out", spec.parent / "lake"), ("check", spec)):
        code, _, err = run(capsys, "experiment", *argv)
        line = one_line(err)
        assert code == 2 and "control character" in line and "name" in line
    assert not (spec.parent / "lake").exists()


def test_a_nul_in_an_output_path_is_one_line(capsys):
    code, _, err = run(capsys, "report", ".", "--out", "a\x00b.html")
    line = one_line(err)
    assert code == 2 and "--out" in line and "U+0000" in line


@pytest.mark.parametrize("ch", ["\x00", "\x01", "\x1b", "\x7f", "\x9b"])
@pytest.mark.parametrize(
    "argv",
    [
        ("combat", "--force", "infantry=1", "--vs", "zom{}bie"),
        ("simulate", "--strategies", "bal{}anced,balanced", "--games", "2"),
        ("experiment", "run", "spec{}.toml"),
        ("odds", "--vs", "zombie", "--out", "o{}.parquet"),
    ],
    ids=["name", "strategy", "spec-path", "out-path"],
)
def test_a_control_character_in_any_argument_is_one_line(capsys, tmp_path, monkeypatch, argv, ch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *(a.format(ch) for a in argv))
    line = one_line(err)
    assert code == 2 and f"U+{ord(ch):04X}" in line and "control character" in line
    assert not list(tmp_path.iterdir())  # nothing written


def test_tabs_and_line_breaks_are_not_control_characters_in_arguments(capsys):
    code, out, _ = run(capsys, "combat", "--force", "infantry=1", "--vs", "zombie\t", "--json")
    assert code in (0, 2)  # an unknown name or a trimmed one: never the control-character refusal
    code, _, err = run(capsys, "combat", "--force", "infantry=1", "--vs", "zombie\t")
    assert "control character" not in err


def test_a_control_character_in_a_spec_value_names_its_line(tmp_path, capsys):
    spec = spec_with(tmp_path, "x.toml")
    text = spec.read_text().replace("balanced,file", "bal\\u0001anced,file")
    spec.write_text(text.replace("'bal", '"bal').replace("toml'", 'toml"'))
    code, _, err = run(capsys, "experiment", "check", spec)
    line = one_line(err)
    assert code == 2 and "s.toml: [params] strategies" in line and "U+0001" in line


def test_a_control_character_in_a_pack_file_names_file_and_line(tmp_path, capsys):
    pack = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, pack)
    csv_path = pack / "old_one_cards.csv"
    lines = csv_path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace("ccw", "c\x00cw", 1)
    csv_path.write_text("".join(lines), encoding="utf-8")
    code, _, err = run(capsys, "data", "check", "--data", pack)
    line = one_line(err)
    assert code == 2 and "old_one_cards.csv" in line and "line 3" in line and "U+0000" in line


def test_a_control_character_in_a_map_file_names_file_and_line(tmp_path, capsys):
    path, src = eastern(tmp_path)
    src[-1] = src[-1] + "\x1b[31m"
    path.write_text("\n".join(src) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "board", "check", path)
    line = one_line(err)
    assert code == 2 and "m.csv" in line and f"line {len(src)}" in line and "U+001B" in line


def test_a_control_character_in_a_strategy_file_names_file_and_line(tmp_path, capsys):
    strat = tmp_path / "st.toml"
    strat.write_text('[strategy]\nrole = "human"\nbase = "bal\x07anced"\n[strategy.fields]\n')
    code, _, err = run(capsys, "experiment", "check", spec_with(tmp_path, strat))
    line = one_line(err)
    assert code == 2 and "st.toml" in line and "line 3" in line and "U+0007" in line


def eastern(tmp_path: Path) -> tuple[Path, list[str]]:
    src = (DEFAULT_PACK / "maps" / "eastern.csv").read_text(encoding="utf-8").splitlines()
    return tmp_path / "m.csv", src


def edit_first_row(lines: list[str], col: int, value: str) -> list[str]:
    import csv
    import io

    header = next(i for i, ln in enumerate(lines) if ln.startswith("hex,"))
    cells = next(csv.reader([lines[header + 1]]))
    cells[col] = value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(cells)
    return lines[: header + 1] + [buf.getvalue()] + lines[header + 2 :]


def test_a_map_with_a_field_over_128_kb_reads_and_one_over_the_limit_is_one_line(tmp_path, capsys):
    path, lines = eastern(tmp_path)
    path.write_text("\n".join(edit_first_row(lines, 9, "s" * 200_000)) + "\n")
    assert run(capsys, "board", "check", path)[0] == 0  # a long source text is fine
    path.write_text("\n".join(edit_first_row(lines, 9, "s" * (17 << 20))) + "\n")
    code, _, err = run(capsys, "board", "check", path)
    line = one_line(err)
    assert code == 2 and "m.csv" in line and "row" in line and len(line) < 400


@pytest.mark.parametrize("col,value", [(1, str(2**70)), (2, str(-(2**64))), (0, "9" * 30)])
def test_a_map_number_beyond_int64_is_one_line(tmp_path, capsys, col, value):
    path, lines = eastern(tmp_path)
    path.write_text("\n".join(edit_first_row(lines, col, value)) + "\n")
    code, _, err = run(capsys, "board", "check", path)
    line = one_line(err)
    assert code == 2 and "out of range" in line and "m.csv" in line


@pytest.mark.slow  # compiles the Athena solver (the smallest kernel family) into an empty cache
def test_without_a_writable_numba_cache_a_command_still_runs(tmp_path):
    """numba finds no locator (a read-only install, an account without a writable home):
    only the NUMBA_CACHE_DIR locator is left and NUMBA_CACHE_DIR is unset. The command is
    Athena's exact turret odds: any jitted command takes the same cache path, and this one
    compiles in seconds, not minutes."""
    code = (
        "from numba.core.caching import CacheImpl\n"
        "CacheImpl._locator_classes = [c for c in CacheImpl._locator_classes "
        "if 'UserProvided' in c.__name__]\n"
        "import sys\nfrom simkit.cli import main\n"
        "sys.exit(main(['athena', 'turret', '--weapons', 'cannon:3', '--ammo', '2', "
        "'--defense', '2', '--json']))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path), HOME="/nonexistent")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    warnings = [ln for ln in done.stderr.splitlines() if "numba cache" in ln]
    assert len(warnings) == 1 and "simkit-numba-cache-" in warnings[0]
    assert '"destroy"' in done.stdout
    shutil.rmtree(tmp_path, ignore_errors=True)
