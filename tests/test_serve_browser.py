"""`simkit serve` in a real browser: Playwright driving Debian's chromium (`make browser`
installs both). Clicks +/-, checks the answer against `simkit combat --json`, reloads from
the URL, goes back, and checks the phone width (390 px) never scrolls sideways.
Screenshots land in $SIMKIT_SCREENSHOTS (default: the system temp folder)."""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("SIMKIT_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

if not Path(CHROMIUM).exists():
    pytest.skip(
        f"no chromium at {CHROMIUM}: `make browser` installs it (apt-get install -y chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright: pip install -e '.[dev]'")

SHOTS = Path(os.environ.get("SIMKIT_SCREENSHOTS", tempfile.gettempdir()))


def wait_js(page, expression: str, timeout: float = 30_000) -> None:
    """Poll a JavaScript expression from Python until it is true. (Playwright's own
    wait_for_function evaluates its predicate with eval inside the page, which the page's
    Content-Security-Policy -- script-src 'self' -- refuses.)"""
    end = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for: {expression}")
        time.sleep(0.05)


def serve_in_thread(make_app):
    """Run ``make_app(token, port)`` on uvicorn in a thread; yields (base URL, token)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(16)
    srv = uvicorn.Server(uvicorn.Config(make_app(token, port), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", token
    srv.should_exit = True
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def server():
    from simkit.datapack import load_pack
    from simkit.serve.app import create_app
    from simkit.serve.calc import Calculator

    data = load_pack()
    calc = Calculator(data)
    calc.warm()
    yield from serve_in_thread(lambda token, port: create_app(data, token, port, calculator=calc))


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def open_page(browser, server, width: int, path: str = "/"):
    base, token = server
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sep = "&" if "?" in path else "?"
    page.goto(f"{base}{path}{sep}token={token}")
    assert "token=" not in page.url  # the token becomes a cookie; shared links never carry it
    return page, errors


def headline(page, index: int = 0) -> str:
    loc = page.locator(f"#result{index} [data-testid=p-destroy]")
    loc.wait_for(timeout=20_000)
    return loc.inner_text()


def cli_p_destroy(capsys, force: str, vs: str, withdraw: str = "never") -> float:
    from simkit.cli import main

    code = main(["combat", "--force", force, "--vs", vs, "--withdraw", withdraw, "--json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)["p_destroy"]


def test_plus_minus_updates_the_answer_and_the_url_and_matches_the_cli(browser, server, capsys):
    page, errors = open_page(browser, server, 1280, "/?vs=zombie&w=never&f=1.0.0.0.0")
    assert headline(page) == f"{100 * cli_p_destroy(capsys, 'infantry=1', 'zombie'):.1f}%"
    page.click("#force0 button[data-unit=infantry][data-op=plus]")
    page.wait_for_url(re.compile(r"f=2\.0\.0\.0\.0"))
    wait_js(page, "document.querySelector('#result0 .method') !== null")
    wait_js(
        page, "document.querySelector('#force0 output[data-unit=infantry]').textContent === '2'"
    )
    want = f"{100 * cli_p_destroy(capsys, 'infantry=2', 'zombie'):.1f}%"
    wait_js(
        page,
        f"(document.querySelector('#result0 [data-testid=p-destroy]') || {{}}).textContent "
        f"=== '{want}'",
        timeout=20_000,
    )
    assert page.locator("#result0 .method").get_attribute("data-method") == "exact"
    assert "2 Gold" in page.locator("#force0 .cost").inner_text()
    page.click("#force0 button[data-unit=artillery][data-op=plus]")
    page.wait_for_url(re.compile(r"f=2\.0\.1\.0\.0"))
    assert "5 Gold" in page.locator("#force0 .cost").inner_text()
    assert "2 TP" in page.locator("#force0 .cost").inner_text()
    page.go_back()
    page.wait_for_url(re.compile(r"f=2\.0\.0\.0\.0"))
    assert page.locator("#force0 output[data-unit=artillery]").inner_text() == "0"
    assert not errors


def test_a_shared_url_restores_every_control_and_shows_the_withdraw_rule(browser, server):
    path = "/?vs=mi_go&w=table-value&seen=3&f=1.0.0.0.1&f=2.0.1.0.0"
    page, errors = open_page(browser, server, 1280, path)
    headline(page, 0)
    headline(page, 1)
    assert page.locator("#vs0").input_value() == "mi_go"
    assert page.locator("input[name=w][value=table-value]").is_checked()
    assert page.locator("button.face.seen").count() == 1
    assert page.locator("#force0 .rule table tbody tr").count() > 0
    page.screenshot(path=str(SHOTS / "serve-calculator-1280.png"), full_page=True)
    page.reload()
    headline(page, 1)
    assert page.locator("article.force").count() == 2
    assert "w=table-value" in page.url and "seen=3" in page.url
    assert not errors


def test_malformed_links_get_a_message_on_the_page_and_a_400(browser, server):
    base, token = server
    page, _ = open_page(browser, server, 1280)
    response = page.goto(f"{base}/?f=99.0.0.0.0")
    assert response.status == 400
    assert "at most 10 infantry" in page.locator("#error").inner_text()


def test_the_phone_width_never_scrolls_sideways(browser, server):
    path = "/?vs=shoggoth&w=table-value&seen=3.17&f=2.0.1.0.0&f=3.1.0.0.1"
    page, errors = open_page(browser, server, 390, path)
    headline(page, 0)
    headline(page, 1)
    assert page.locator("details.seen[open]").count() == 1  # seen cards open the list
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
    page.screenshot(path=str(SHOTS / "serve-calculator-390.png"), full_page=True)
    assert not errors


def test_a_saved_force_stays_in_this_browser_after_a_reload(browser, server):
    page, errors = open_page(browser, server, 1280, "/?vs=zombie&w=never&f=1.0.1.0.0")
    headline(page)
    assert page.locator("select[aria-label='add a saved force']").count() == 0  # fresh browser
    page.click("#force0 button.small:text-is('save force')")
    saved = page.evaluate("localStorage.getItem('simkit.savedForces')")
    assert json.loads(saved) == [[1, 0, 1, 0, 0]]
    page.reload()
    headline(page)
    picker = page.locator("select[aria-label='add a saved force']")
    assert picker.locator("option").all_inner_texts()[1] == "1 infantry, 1 artillery"
    picker.select_option("1.0.1.0.0")
    page.wait_for_url(re.compile(r"f=1\.0\.1\.0\.0&f=1\.0\.1\.0\.0"))
    assert page.locator("article.force").count() == 2
    assert not errors


# ---- the design explorer (/explore) ----------------------------------------------------------

STRONG = "old_ones.cthulhu.damage_capacity=30"


@pytest.fixture(scope="module")
def explore_server():
    from simkit.datapack import load_pack
    from simkit.serve.app import create_app
    from simkit.serve.explore import Explorer

    data = load_pack()
    explorer = Explorer(data, table_games=100)
    explorer.table()  # the bounded run on the pack, made once (the server does it at start)
    yield from serve_in_thread(lambda token, port: create_app(data, token, port, explorer=explorer))


def whatif_answer(page) -> str:
    loc = page.locator("#result [data-testid=difference]")
    loc.wait_for(timeout=60_000)
    return loc.inner_text()


def choose(page, path: str, value: str, games: str = "200", humans: str = "2") -> None:
    page.select_option("#path", path)
    if page.locator("select#value").count():
        page.select_option("#value", value)
    else:
        page.fill("#value", value)
    page.select_option("#humans", humans)
    page.fill("#games", games)
    page.click("#run")


def test_the_explorer_runs_a_whatif_by_clicking_and_keeps_it_in_the_url(browser, explore_server):
    page, errors = open_page(browser, explore_server, 1280, "/explore")
    page.locator("#balance-rates tbody tr").nth(3).wait_for(timeout=30_000)
    assert page.locator("#balance-steps tbody tr").count() == 4
    assert "bounded run" in page.locator("#table .source").inner_text()
    assert "human strategies balanced" in page.locator("#table .labels").inner_text()
    page.select_option("#path", "old_ones.cthulhu.damage_capacity")
    assert page.locator("#value").input_value() == "12"  # the pack's value, to edit
    choose(page, "old_ones.cthulhu.damage_capacity", "30")
    page.wait_for_url(re.compile(r"set=old_ones\.cthulhu\.damage_capacity=30&humans=2"))
    assert whatif_answer(page).startswith("+")  # a much tougher Cthulhu: the Old Ones win more
    command = page.locator("[data-testid=command]").inner_text()
    assert command.startswith("simkit compare --mode revenge --humans 2")
    assert command.endswith("--set-b " + STRONG)
    assert "Old One player rusher" in page.locator("#result .labels").inner_text()
    page.screenshot(path=str(SHOTS / "serve-explorer-1280.png"), full_page=True)
    choose(page, "units.artillery.cost", "9")
    page.wait_for_url(re.compile(r"set=units\.artillery\.cost=9"))
    wait_js(
        page,
        "document.querySelector('#result .change code')?.textContent === 'units.artillery.cost'",
    )
    page.go_back()
    page.wait_for_url(re.compile(r"set=old_ones\.cthulhu\.damage_capacity=30"))
    assert page.locator("#path").input_value() == "old_ones.cthulhu.damage_capacity"
    assert page.locator("#value").input_value() == "30"
    wait_js(
        page,
        "document.querySelector('#result .change code')?.textContent === "
        "'old_ones.cthulhu.damage_capacity'",
    )
    page.reload()
    assert whatif_answer(page).startswith("+")
    assert page.locator("#games").input_value() == "200"
    assert page.locator("#result .note").first.inner_text().endswith("(cached).")
    assert not errors


def test_a_malformed_explorer_link_gets_its_message_on_the_page(browser, explore_server):
    base, _ = explore_server
    page, errors = open_page(browser, explore_server, 1280, "/explore")
    response = page.goto(f"{base}/explore?set=units.artillery.cost=cheap&humans=2")
    assert response.status == 400
    wait_js(page, "document.querySelector('#result .failed') !== null")
    assert "must be float" in page.locator("#error").inner_text()
    assert page.locator("#result .failed").get_attribute("data-status") == "400"
    assert not errors


def test_the_explorer_at_phone_width_never_scrolls_sideways(browser, explore_server):
    path = f"/explore?set={STRONG}&humans=2&difficulty=normal&games=200"
    page, errors = open_page(browser, explore_server, 390, path)
    page.locator("#balance-rates tbody tr").nth(3).wait_for(timeout=30_000)
    whatif_answer(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
    page.screenshot(path=str(SHOTS / "serve-explorer-390.png"), full_page=True)
    assert not errors


# ---- one interval notation on both pages (simkit.views) --------------------------------------

BRACKETS = re.compile(r"\[[+-]?\d+(?:\.\d+)?, [+-]?\d+(?:\.\d+)?\]")


def interval_forms(page) -> tuple[str, list[str]]:
    """The page's visible text, and every pair of bounds in it or in a tooltip written in a
    form other than simkit.views' '[a, b]'. A percent sign is read as part of its number
    ('53.2% to 71.8%' counts as 'a to b'); a tab is innerText's border between two table
    cells, not a separator ('0.205<tab>-0.165' is two numbers)."""
    from simkit.views import OTHER_INTERVAL_FORMS

    text = page.evaluate("document.body.innerText")
    titles = page.evaluate("[...document.querySelectorAll('[title]')].map((e) => e.title)")
    found = [
        m.group(0)
        for t in [text, *titles]
        for m in OTHER_INTERVAL_FORMS.finditer(re.sub(r"(\d)%", r"\1", t).replace("\t", " | "))
    ]
    return text, found


def test_both_pages_write_every_interval_as_value_then_brackets(browser, server, explore_server):
    problems = []
    # a Monte Carlo answer: the headline and every outcome carry a 95% interval
    path = "/?vs=shoggoth&w=table-value&seen=3.17&f=2.0.1.0.0"
    page, errors = open_page(browser, server, 1280, path)
    headline(page)
    assert page.locator("#result0 .method").get_attribute("data-method") == "mc"
    text, other = interval_forms(page)
    if other:
        problems.append(f"the calculator writes intervals another way: {other[:6]}")
    if not BRACKETS.search(text):
        problems.append("the calculator shows no [a, b] interval")
    assert not errors

    page, errors = open_page(browser, explore_server, 1280, f"/explore?set={STRONG}&games=200")
    page.locator("#balance-rates tbody tr").nth(3).wait_for(timeout=30_000)
    whatif_answer(page)
    page.locator("#result table.metrics").wait_for()
    text, other = interval_forms(page)
    if other:
        problems.append(f"the explorer writes intervals another way: {other[:6]}")
    if not BRACKETS.search(text):
        problems.append("the explorer shows no [a, b] interval")
    assert not errors
    assert not problems, "\n".join(problems)
