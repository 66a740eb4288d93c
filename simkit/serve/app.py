"""The Starlette application behind `simkit serve`: the odds calculator page (``/``), the
design explorer page (``/explore``: balance table and what-if, simkit.serve.explore) and
their API (``/api/odds``, ``/api/table``, ``/api/whatif``).

Every request passes two gates before any route sees it (:class:`Gate`):

1. the Host header must name this machine's loopback (``127.0.0.1``, ``localhost`` or
   ``[::1]``, with this server's port or none; plus ``--host`` when it was allowed):
   anything else is 400, so a page on another site cannot reach the server through DNS
   rebinding;
2. the request must carry the server's random token: ``?token=...`` once (the URL printed at
   start; the server answers with a cookie and a redirect to the same URL without the
   token, so shared links never carry it), then the cookie; or ``Authorization: Bearer``.
   Anything else is 403.

Malformed queries get 400 with the message (JSON for the API, the page with a banner for
the page); a what-if over the time limit, or while another runs, gets 503 with the message
and the command line that runs it without a limit; the engine's unexpected errors get a
plain 500 line, never a traceback.
"""

from __future__ import annotations

import hmac
import html
import json
import sys
import traceback
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from simkit.errors import UserError
from simkit.serve.calc import MAX_FORCES, Calculator, QueryError, page_config, parse_query
from simkit.views import INTERVAL_NOTE

STATIC = Path(__file__).resolve().parent / "static"
# the one interval notation (simkit.views; written by static/format.js), said once per page
INTERVAL_LEGEND = f"Notation: {html.escape(INTERVAL_NOTE)}"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


def allowed_hosts(port: int, extra: str | None = None) -> frozenset[str]:
    names = list(LOOPBACK) + ([extra] if extra and extra not in ("0.0.0.0", "::") else [])
    return frozenset([*names, *(f"{h}:{port}" for h in names)])


class Gate:
    """ASGI middleware: Host header check (400), then the token (403), then security headers."""

    def __init__(self, app, token: str, port: int, extra_host: str | None = None):
        self.app = app
        self.token = token
        self.cookie = f"simkit_token_{port}"
        self.hosts = allowed_hosts(port, extra_host)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").strip().lower()
        if host not in self.hosts:
            shown = host[:60] or "none"
            return await self._plain(
                send,
                scope,
                400,
                f"Host '{shown}' is not this machine's loopback address: simkit serve answers "
                f"only http://127.0.0.1:PORT or http://localhost:PORT (DNS rebinding guard).",
            )
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.get("token")
        if given is not None:
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return await self._plain(send, scope, 403, "Wrong token.")
            rest = urlencode(
                [
                    (k, v)
                    for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"))
                    if k != "token"
                ],
                safe=".,:",
            )
            location = scope["path"] + (f"?{rest}" if rest else "")
            cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
            response = Response(
                status_code=303, headers={"location": location, "set-cookie": cookie}
            )
            return await response(scope, receive, self._secured(send))
        if not self._authorised(headers):
            return await self._plain(
                send,
                scope,
                403,
                "This simkit serve needs its token: open the URL it printed at start "
                "(http://127.0.0.1:PORT/?token=...).",
            )
        return await self.app(scope, receive, self._secured(send))

    def _authorised(self, headers: dict[str, str]) -> bool:
        bearer = headers.get("authorization", "")
        if bearer.lower().startswith("bearer ") and hmac.compare_digest(
            bearer[7:].strip().encode(), self.token.encode()
        ):
            return True
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == self.cookie and hmac.compare_digest(value.encode(), self.token.encode()):
                return True
        return False

    def _secured(self, send):
        async def wrapped(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)

        return wrapped

    async def _plain(self, send, scope, status: int, text: str):
        response = PlainTextResponse(text + "\n", status_code=status)

        async def no_body():  # pragma: no cover - the gate never reads the body
            return {"type": "http.request", "body": b"", "more_body": False}

        await response(scope, no_body, self._secured(send))


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AuZtralia combat odds - simkit</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="data:,">
</head><body>
<header><nav class="pages"><a href="/" aria-current="page">Combat odds</a>
<a href="/explore">Design explorer</a></nav><h1>Combat odds</h1>
<p class="sub">AuZtralia: your force against an Old One or a Temple, from simkit's engine
(data pack {data_hash}).</p></header>
<div id="error" class="error" role="alert"{error_hidden}>{error}</div>
<main id="app"><noscript>This calculator needs JavaScript (a small local script, nothing
is fetched from elsewhere).</noscript></main>
<footer><p>Exact results come from the card-counting solver; where a fight needs more than
{budget} states, Monte Carlo answers with 95% intervals, and the page says which. Costs:
Gold from the data pack; TP = distinct types among Infantry, Armoured Car and Artillery
(at least 1). Many card faces and costs are <em>assumed</em> (see <code>simkit data
provenance</code>). {interval_note}.</p></footer>
<script type="application/json" id="config">{config}</script>
<script src="/static/dom.js"></script>
<script src="/static/format.js"></script>
<script src="/static/app.js"></script>
</body></html>
"""


EXPLORE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AuZtralia design explorer - simkit</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="data:,">
</head><body>
<header><nav class="pages"><a href="/">Combat odds</a>
<a href="/explore" aria-current="page">Design explorer</a></nav><h1>Design explorer</h1>
<p class="sub">Revenge of the Old Ones: how often the Old Ones win, per number of humans and
difficulty, and what one changed value does to it (data pack {data_hash}).</p></header>
<div id="error" class="error" role="alert"{error_hidden}>{error}</div>
<main id="explore"><noscript>This page needs JavaScript (a small local script, nothing is
fetched from elsewhere).</noscript></main>
<footer><p>Balance numbers describe play: every figure here is how these bots played these
rules on this data, labelled with the strategies, the Old One player, the ruleset, the content
mode, the readings of open rules and the data pack. Many card faces and costs are
<em>assumed</em> (see <code>simkit data provenance</code>). A what-if plays {min_games:,} to
{max_games:,} games per side with a limit of {seconds:g} s; the command line it shows plays
the same games without a limit. {interval_note}.</p></footer>
<script type="application/json" id="config">{config}</script>
<script src="/static/dom.js"></script>
<script src="/static/format.js"></script>
<script src="/static/explore.js"></script>
</body></html>
"""


def create_app(
    data,
    token: str,
    port: int,
    extra_host: str | None = None,
    calculator=None,
    explorer=None,
) -> Gate:
    """The ASGI app (gated). ``calculator``: a warm simkit.serve.calc.Calculator to reuse;
    ``explorer``: a simkit.serve.explore.Explorer (default: one on ``data``, no lake, its
    table made at the first request)."""
    from simkit.serve import explore as ex
    from simkit.serve.calc import SERVE_STATE_BUDGET

    calc = calculator or Calculator(data)
    explorer = explorer or ex.Explorer(data)
    config = json.dumps(page_config(data)).replace("</", "<\\/")
    explore_config = json.dumps(
        {
            "paths": ex.editable_paths(data),
            "humans": list(ex.HUMANS),
            "levels": list(ex.LEVELS),
            "games": {"default": ex.DEFAULT_GAMES, "min": ex.MIN_GAMES, "max": ex.MAX_GAMES},
            "seconds": explorer.seconds,
            "data_hash": data.hash,
        }
    ).replace("</", "<\\/")

    def page_error(request: Request) -> str | None:
        params = request.query_params
        forces = params.getlist("f")
        if len(forces) > MAX_FORCES:
            return f"at most {MAX_FORCES} forces side by side, the link has {len(forces)}"
        unknown = sorted(set(params) - {"f", "vs", "w", "seen", "games"})
        if unknown:
            return f"unknown parameter '{unknown[0][:40]}' (expected f, vs, w, seen)"
        for f in forces:
            try:
                parse_query({**dict(params), "f": f}, data)
            except QueryError as exc:
                return str(exc)
        return None

    async def index(request: Request) -> Response:
        error = page_error(request)
        body = PAGE.format(
            data_hash=html.escape(data.hash),
            error=html.escape(error or ""),
            error_hidden="" if error else " hidden",
            budget=f"{SERVE_STATE_BUDGET:,}",
            interval_note=INTERVAL_LEGEND,
            config=config,
        )
        return HTMLResponse(body, status_code=400 if error else 200)

    async def explore_page(request: Request) -> Response:
        error = None
        try:
            explorer.parse(request.query_params, need_set=False)
        except QueryError as exc:
            error = str(exc)
        body = EXPLORE_PAGE.format(
            data_hash=html.escape(data.hash),
            error=html.escape(error or ""),
            error_hidden="" if error else " hidden",
            min_games=ex.MIN_GAMES,
            max_games=ex.MAX_GAMES,
            seconds=explorer.seconds,
            interval_note=INTERVAL_LEGEND,
            config=explore_config,
        )
        return HTMLResponse(body, status_code=400 if error else 200)

    def table(request: Request) -> Response:
        if request.query_params:
            raise QueryError("/api/table takes no parameters")
        return JSONResponse(explorer.table(), headers={"cache-control": "no-store"})

    def whatif(request: Request) -> Response:
        try:
            found = explorer.whatif(request.query_params)
        except ex.WhatIfTooLong as exc:
            return JSONResponse(
                {"error": str(exc), "command": exc.command},
                status_code=503,
                headers={"retry-after": "5", "cache-control": "no-store"},
            )
        return JSONResponse(found, headers={"cache-control": "no-store"})

    def odds(request: Request) -> Response:
        params = request.query_params
        if len(params.getlist("f")) != 1:
            raise QueryError("give exactly one force (f=2.0.1.0.0) per query")
        unknown = sorted(set(params) - {"f", "vs", "w", "seen", "games"})
        if unknown:
            raise QueryError(f"unknown parameter '{unknown[0][:40]}' (expected f, vs, w, seen)")
        q = parse_query(dict(params), data)
        return JSONResponse(calc.answer(q), headers={"cache-control": "no-store"})

    async def user_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=400)

    async def busy(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=503)

    async def http_error(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        text = {404: "no such page", 405: "only GET is served here"}.get(code, "error")
        return JSONResponse({"error": text}, status_code=code)

    async def crash(request: Request, exc: Exception) -> Response:
        traceback.print_exception(exc, file=sys.stderr)  # the server's log, never the page
        return JSONResponse(
            {"error": "the engine failed on this query (a bug: see the server's log)"},
            status_code=500,
        )

    from starlette.exceptions import HTTPException

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/odds", odds),
            Route("/explore", explore_page),
            Route("/api/table", table),
            Route("/api/whatif", whatif),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={
            UserError: user_error,
            TimeoutError: busy,
            HTTPException: http_error,
            Exception: crash,
        },
    )
    app.state.calculator = calc
    app.state.explorer = explorer
    return Gate(app, token, port, extra_host)
