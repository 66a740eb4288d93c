"""`simkit serve`'s HTTP contract (Starlette's TestClient, no network): the Host header
check, the token, 4xx with a message for malformed or out-of-bounds queries, the answer's
fields, and the CLI's refusal of non-loopback interfaces."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from simkit.combat import Combat, exact_odds  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from simkit.serve.app import create_app  # noqa: E402
from simkit.serve.calc import Calculator  # noqa: E402

PORT = 8765
TOKEN = "test-token-123"
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def app():
    data = load_pack()
    return create_app(data, TOKEN, PORT, calculator=Calculator(data))


@pytest.fixture()
def client(app):
    c = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    assert c.get(f"/?token={TOKEN}", follow_redirects=False).status_code == 303
    return c


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8765", "127.0.0.1:9999", "127.0.0.1.nip.io:8765"]
)
def test_a_foreign_host_header_is_refused_before_anything_else(app, host):
    c = TestClient(app, base_url=BASE)
    r = c.get(f"/?token={TOKEN}", headers={"host": host})
    assert r.status_code == 400
    assert "DNS rebinding" in r.text and "Traceback" not in r.text


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "localhost", "[::1]:8765"])
def test_loopback_host_headers_are_served(app, host):
    c = TestClient(app, base_url=BASE)
    r = c.get("/", headers={"host": host, "authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200


def test_without_the_token_every_path_is_403(app):
    c = TestClient(app, base_url=BASE)
    for path in ("/", "/api/odds?f=1.0.0.0.0", "/static/app.js", "/nothing"):
        r = c.get(path)
        assert r.status_code == 403 and "token" in r.text
    assert c.get("/?token=wrong").status_code == 403
    assert c.get("/", headers={"authorization": "Bearer wrong"}).status_code == 403
    assert c.get("/", headers={"cookie": f"simkit_token_{PORT}=wrong"}).status_code == 403


def test_the_token_becomes_a_cookie_and_leaves_the_url(app):
    c = TestClient(app, base_url=BASE)
    r = c.get(f"/?vs=zombie&token={TOKEN}&f=1.0.0.0.0", follow_redirects=False)
    assert r.status_code == 303
    assert "token" not in r.headers["location"]
    assert r.headers["location"] == "/?vs=zombie&f=1.0.0.0.0"
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
    assert c.get("/").status_code == 200  # the cookie alone now


def test_the_page_is_self_contained_with_a_strict_content_security_policy(client):
    r = client.get("/")
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "http://" not in r.text.replace(BASE, "") and "https://" not in r.text
    js = client.get("/static/app.js")
    assert js.status_code == 200 and "fetch(" in js.text
    assert client.get("/static/style.css").status_code == 200


def test_an_exact_answer_equals_the_exact_solver(client):
    r = client.get("/api/odds?f=2.0.0.0.0&vs=zombie&w=never")
    assert r.status_code == 200
    a = r.json()
    want = exact_odds(Combat.parse("infantry=2", "zombie"), load_pack())
    assert a["method"] == "exact" and a["p_destroy"] == pytest.approx(want.p_destroy, abs=1e-12)
    assert a["p_destroy_ci95"] == [a["p_destroy"], a["p_destroy"]]
    assert a["gold"] == 2 and a["tp"] == 1
    names = {o["key"]: o["name"] for o in a["outcomes"]}
    assert names["defeat"] == "Defeated"
    explain = {o["key"]: o["explain"] for o in a["outcomes"]}
    assert "can leave units alive" in explain["defeat"]
    assert sum(o["p"] for o in a["outcomes"]) == pytest.approx(1.0)
    rows = a["losses"]["per_type"]["infantry"]
    assert [r["lost"] for r in rows] == [0, 1, 2]


def test_a_large_fight_says_monte_carlo_and_carries_an_interval(client):
    a = client.get("/api/odds?f=3.2.2.0.0&vs=cthulhu&games=20000").json()
    assert a["method"] == "mc" and "Monte Carlo, 20,000 fights" in a["method_note"]
    lo, hi = a["p_destroy_ci95"]
    assert lo < a["p_destroy"] < hi


def test_the_withdraw_rule_is_a_grid_of_plain_decisions(client):
    a = client.get("/api/odds?f=1.0.0.0.1&vs=mi_go&w=table-value").json()
    rule = a["rule"]
    assert rule["columns"][0].startswith("Sanity") and rule["rows"]
    cells = {c for row in rule["rows"] for c in row["cells"]}
    assert any(c.startswith("withdraw") for c in cells)
    assert client.get("/api/odds?f=1.0.0.0.1&vs=mi_go&w=never").json()["rule"] is None


@pytest.mark.parametrize(
    "query, message",
    [
        ("f=x", "5 whole numbers"),
        ("f=1.0.0", "5 whole numbers"),
        ("f=0.0.0.0.0", "the force is empty"),
        ("f=11.0.0.0.0", "at most 10 infantry"),
        ("f=0.0.0.0.4", "at most 3 airship"),
        ("f=1.0.0.0.0&vs=dragon", "unknown Old One 'dragon'"),
        ("f=1.0.0.0.0&vs=zombie.zombie.zombie", "at most 2 Old Ones"),
        ("f=1.0.0.0.0&vs=", "pick an Old One"),
        ("f=1.0.0.0.0&w=optimal", "withdraw objective 'optimal'"),
        ("f=1.0.0.0.0&seen=99", "card 99, which is not in the deck"),
        ("f=1.0.0.0.0&seen=3.3", "card 3 twice"),
        ("f=1.0.0.0.0&seen=a", "card numbers"),
        ("f=1.0.0.0.0&games=5", "games must be"),
        ("f=1.0.0.0.0&games=99999999", "games must be"),
        ("", "exactly one force"),
        ("f=1.0.0.0.0&f=2.0.0.0.0", "exactly one force"),
        ("f=1.0.0.0.0&evil=1", "unknown parameter 'evil'"),
        ("f=1.0.0.0.0&seen=" + "1." * 300, "too long"),
    ],
)
def test_malformed_queries_are_400_with_a_message_never_a_traceback(client, query, message):
    r = client.get(f"/api/odds?{query}")
    assert r.status_code == 400, r.text
    assert message in r.json()["error"]
    assert "Traceback" not in r.text


@pytest.mark.parametrize(
    "query, message",
    [
        ("f=99.0.0.0.0", "at most 10 infantry"),
        ("f=1.0.0.0.0&f=1.0.0.0.0&f=1.0.0.0.0&f=1.0.0.0.0&f=1.0.0.0.0", "at most 4 forces"),
        ("f=1.0.0.0.0&w=sometimes", "withdraw objective"),
    ],
)
def test_a_malformed_page_link_shows_the_message_on_the_page_with_400(client, query, message):
    r = client.get(f"/?{query}")
    assert r.status_code == 400
    assert message in r.text and 'id="error" class="error" role="alert">' in r.text


def test_unknown_paths_and_methods_are_4xx(client):
    assert client.get("/nothing").status_code == 404
    assert client.post("/api/odds?f=1.0.0.0.0").status_code == 405


def test_serve_refuses_a_non_loopback_host_without_allow_remote(capsys):
    from simkit.cli import main

    assert main(["serve", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "--allow-remote" in err and "Traceback" not in err
    assert main(["serve", "--port", "70000"]) == 2
