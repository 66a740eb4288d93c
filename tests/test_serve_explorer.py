"""`simkit serve`'s design explorer over HTTP (Starlette's TestClient, no network): the
balance table from a lake made here with the runner, the what-if's paired difference (sign
of a change with a known direction, reproduced by the command line it returns), the CLI's
--set validation as a 400 with its message, the time limit as a 503 with a message, and
the Host and token gates on the new routes."""

from __future__ import annotations

import json
import shlex
import tomllib

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from simkit.datapack import load_pack  # noqa: E402
from simkit.serve.app import create_app  # noqa: E402
from simkit.serve.calc import Calculator  # noqa: E402
from simkit.serve.explore import Explorer  # noqa: E402

PORT = 8765
TOKEN = "test-token-explore"
BASE = f"http://127.0.0.1:{PORT}"
STRONG = "old_ones.cthulhu.damage_capacity=30"  # 12 in the pack: much harder to destroy
SPEC = """
[experiment]
name = "tiny_difficulty"
description = "test: a tiny Revenge difficulty lake"
mode = "revenge"
root_seed = 7
chunk_size = 1000
games = 60
outputs = ["summary"]

[params]
strategies = "balanced"
oop = "rusher"
ruleset = "revenge"

[grid]
humans = [2, 3]
difficulty = ["normal", "hard"]
"""


@pytest.fixture(scope="module")
def data():
    return load_pack()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    from simkit.runner import parse_spec, run_experiment

    out = tmp_path_factory.mktemp("explorer") / "lake"
    spec = parse_spec(tomllib.loads(SPEC), "test", text=SPEC)
    run_experiment(spec, out=out, jobs=1, quiet=True)
    return out


@pytest.fixture(scope="module")
def app(data, lake):
    return create_app(
        data, TOKEN, PORT, calculator=Calculator(data), explorer=Explorer(data, lake=lake)
    )


@pytest.fixture()
def client(app):
    c = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    assert c.get(f"/explore?token={TOKEN}", follow_redirects=False).status_code == 303
    return c


def test_the_table_comes_from_the_lake_with_paired_steps_and_labels(client, lake):
    from simkit import analysis

    r = client.get("/api/table")
    assert r.status_code == 200
    t = r.json()
    assert t["source"] == "lake" and str(lake) in t["source_text"]
    assert t["metric"] == "old_ones_win" and t["levels"] == ["normal", "hard"]
    assert [row["group"] for row in t["rows"]] == [2, 3]
    want = analysis.win_rates(
        analysis.open_lake(lake).scan(), by=["humans", "difficulty"], metric="old_ones_win"
    ).to_dicts()
    got = {(row["group"], c["difficulty"]): c for row in t["rows"] for c in row["cells"]}
    for w in want:
        c = got[(w["humans"], w["difficulty"])]
        assert c["games"] == 60 and c["rate"] == pytest.approx(w["rate"])
        assert c["ci_low"] <= c["rate"] <= c["ci_high"]
    for row in t["rows"]:
        (step,) = row["steps"]
        assert (step["from"], step["to"], step["games"]) == ("normal", "hard", 60)
        assert step["ci_low"] <= step["diff"] <= step["ci_high"]
    labels = t["labels"]
    assert labels["strategies"] == "balanced" and labels["oop"] == "rusher"
    assert labels["ruleset"] == "revenge" and labels["content"] == "assumed"
    assert "servitor_placement" in labels["readings"] and labels["data"]


def test_a_stronger_old_one_raises_their_win_rate_and_the_command_reproduces_it(client, capsys):
    from simkit.cli import main

    r = client.get(f"/api/whatif?set={STRONG}&games=300&humans=2&difficulty=normal")
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["games"] == 300 and a["metric"] == "old_ones_win"
    assert a["b"] > a["a"] and a["difference"] == pytest.approx(a["b"] - a["a"])
    lo, hi = a["ci95"]
    assert 0 < lo <= a["difference"] <= hi and a["verdict"] == "higher"
    assert a["change"] == {"path": "old_ones.cthulhu.damage_capacity", "value": "30", "was": "12"}
    assert a["seconds"] > 0 and a["labels"]["data_b"] != a["labels"]["data"]
    argv = shlex.split(a["command"])
    assert argv[:2] == ["simkit", "compare"] and argv[-2:] == ["--set-b", STRONG]
    assert main([*argv[1:], "--json"]) == 0
    cli = {m["metric"]: m for m in json.loads(capsys.readouterr().out)["metrics"]}
    assert cli["old_ones_win"]["difference"] == pytest.approx(a["difference"], abs=1e-12)
    assert cli["old_ones_win"]["ci_low"] == pytest.approx(lo, abs=1e-12)
    again = client.get(f"/api/whatif?set={STRONG}&games=300&humans=2&difficulty=normal").json()
    assert again["cached"] and again["difference"] == a["difference"]


def cli_message(item: str) -> str:
    from simkit.cli.common import parse_sets
    from simkit.errors import UserError

    with pytest.raises(UserError) as exc:
        parse_sets([item])
    return str(exc.value)


@pytest.mark.parametrize(
    "item",
    [
        "units.artillery.cost=abc",
        "units.dragon.cost=3",
        "old_ones.cthulhu.damage_capacity=0",
        "old_ones.cthulhu.moves=maybe",
        "mythos.dholes.amount=12",
        "nothing",
        "deck.something=1",
    ],
)
def test_a_set_the_cli_refuses_is_400_with_the_clis_own_line(client, item):
    r = client.get("/api/whatif", params={"set": item, "games": "100"})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == cli_message(item)
    assert "Traceback" not in r.text


@pytest.mark.parametrize(
    "query, message",
    [
        ("", "give one change: set=PATH=VALUE"),
        ("set=old_ones.cthulhu.damage_capacity=12", "the pack already has"),
        ("set=mythos.nope.amount=2", "no Mythos card 'nope'"),
        (f"set={STRONG}&set=units.artillery.cost=4", "one change at a time"),
        (f"set={STRONG}&humans=7", "humans must be one of 1, 2, 3, 4"),
        (f"set={STRONG}&difficulty=nightmare", "difficulty must be one of"),
        (f"set={STRONG}&games=5", "games must be a whole number 100..20,000"),
        (f"set={STRONG}&games=999999", "games must be a whole number"),
        (f"set={STRONG}&seed=-1", "seed must be"),
        (f"set={STRONG}&evil=1", "unknown parameter 'evil'"),
    ],
)
def test_malformed_whatifs_are_400_with_a_message(client, query, message):
    r = client.get(f"/api/whatif?{query}")
    assert r.status_code == 400, r.text
    assert message in r.json()["error"]


def test_a_malformed_explorer_link_shows_the_message_on_the_page_with_400(client):
    r = client.get("/explore?set=units.dragon.cost=3")
    assert r.status_code == 400
    assert "unknown unit &#x27;dragon&#x27;" in r.text
    assert 'id="error" class="error" role="alert">' in r.text
    ok = client.get("/explore?humans=3&difficulty=hard")
    assert ok.status_code == 200 and 'role="alert" hidden>' in ok.text
    assert client.get("/api/table?x=1").status_code == 400


def test_the_page_lists_editable_paths_and_links_the_calculator(client):
    r = client.get("/explore")
    assert r.status_code == 200
    assert '<script src="/static/explore.js">' in r.text and 'href="/"' in r.text
    assert "http://" not in r.text and "https://" not in r.text
    config = json.loads(r.text.split('id="config">')[1].split("</script>")[0])
    paths = {p["path"]: p for p in config["paths"]}
    assert paths["units.artillery.cost"]["group"] == "Unit costs (Gold)"
    assert paths["old_ones.cthulhu.damage_capacity"]["value"] == "12"
    assert "mythos.dholes.effect" in paths and paths["mythos.dholes.effect"]["choices"]
    assert "reading.servitor_placement" in paths
    assert 'href="/explore"' in client.get("/").text  # and back from the calculator
    js = client.get("/static/explore.js")
    assert js.status_code == 200 and "/api/whatif?" in js.text


def test_a_whatif_over_the_time_limit_is_refused_before_it_starts_with_503(app, client):
    explorer = app.app.state.explorer
    saved = explorer.games_per_second
    explorer.games_per_second = 10.0  # 2 x 2,000 games would take 400 s here
    try:
        r = client.get(f"/api/whatif?set={STRONG}&games=2000&seed=5")
    finally:
        explorer.games_per_second = saved
    assert r.status_code == 503
    body = r.json()
    assert "over this server's limit of 30 s" in body["error"]
    assert "ask for at most 100 games" in body["error"]
    assert body["command"].startswith("simkit compare ") and "Traceback" not in r.text


def test_a_whatif_that_reaches_the_deadline_stops_with_503(data, lake):
    explorer = Explorer(data, lake=lake, seconds=0.001)  # unmeasured: only the deadline
    app = create_app(data, TOKEN, PORT, calculator=Calculator(data), explorer=explorer)
    c = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    r = c.get(f"/api/whatif?set={STRONG}&games=300", headers={"authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 503, r.text
    assert "reached this server's limit of 0.001 s and was stopped" in r.json()["error"]
    assert "--set-b " + STRONG in r.json()["command"]


@pytest.mark.parametrize("path", ["/explore", "/api/table", f"/api/whatif?set={STRONG}"])
def test_the_host_and_token_gates_guard_the_explorer(app, path):
    c = TestClient(app, base_url=BASE)
    r = c.get(path)
    assert r.status_code == 403 and "token" in r.text
    r = c.get(path, headers={"host": "evil.example:8765", "authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 400 and "DNS rebinding" in r.text


def test_serve_refuses_a_folder_that_is_not_a_lake(capsys, tmp_path):
    from simkit.cli import main

    assert main(["serve", "--lake", str(tmp_path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "not a simkit lake" in err and "Traceback" not in err
    assert main(["serve", "--whatif-seconds", "0"]) == 2


def test_a_whatif_on_one_combat_card_face_runs_and_names_it(client):
    """The page offers every combat card's face per Old One; a what-if on one is a paired
    run like any other, and its command line carries the same --set-b."""
    page = client.get("/explore").text
    config = json.loads(page.split('id="config">')[1].split("</script>")[0])
    paths = {p["path"]: p for p in config["paths"]}
    entry = paths["card.1.zombie.hits"]
    assert entry["kind"] == "text" and entry["value"] != "none"
    assert entry["group"] == "Old One combat card faces (zombie)"
    item = "card.1.zombie.hits=none"
    r = client.get("/api/whatif", params={"set": item, "games": "200"})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["change"]["path"] == "card.1.zombie.hits" and a["change"]["value"] == "none"
    assert a["command"].endswith(f"--set-b {item}") and a["labels"]["data_b"] != a["labels"]["data"]
    bad = client.get("/api/whatif", params={"set": "card.1.zombie.hits=tank", "games": "200"})
    assert bad.status_code == 400 and "hits are '+'-joined units" in bad.text
