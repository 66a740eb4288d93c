"""`simkit serve`: the odds calculator as a local web page (simkit.serve)."""

from __future__ import annotations

import ipaddress
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from simkit.cli import app
from simkit.cli.common import DataOption, JsonOption, data_pack
from simkit.errors import UserError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@app.command(
    "serve",
    epilog="Example: simkit serve --port 8765   (then open the URL it prints)",
)
def serve_cmd(
    port: Annotated[int, typer.Option(help="TCP port on 127.0.0.1 (0: any free port).")] = 8765,
    host: Annotated[
        str, typer.Option(help="Interface to bind; anything but loopback needs --allow-remote.")
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            help="Allow --host other than loopback (anyone who can reach it and has the token "
            "can run queries)."
        ),
    ] = False,
    data: DataOption = None,
    lake: Annotated[
        Path | None,
        typer.Option(
            "--lake",
            help="A lake whose experiment varies difficulty: the explorer's balance table "
            "(default: a small run on the pack at start).",
        ),
    ] = None,
    whatif_seconds: Annotated[
        float, typer.Option("--whatif-seconds", help="Time limit of one what-if (seconds).")
    ] = 30.0,
    json: JsonOption = False,
) -> None:
    """The odds calculator page on this machine: +/- per unit, exact or Monte Carlo odds,
    the withdraw rule, seen cards, up to four forces side by side; and the design explorer
    (/explore): the balance table per humans x difficulty with paired steps, and a what-if
    (one value changed, a paired run on shared seeds). Needs the token it prints (like
    Jupyter); answers only requests to 127.0.0.1/localhost. With --json it prints one object
    (url, host, port) once warm, then serves."""
    if not 0 <= port <= 65535:
        raise UserError(f"--port must be 0..65535, got {port}")
    if not 1 <= whatif_seconds <= 3600:
        raise UserError(f"--whatif-seconds must be 1..3600, got {whatif_seconds:g}")
    if not is_loopback(host):
        if not allow_remote:
            raise UserError(
                f"--host {host} is not a loopback address: simkit serve listens on 127.0.0.1 "
                "only unless you add --allow-remote"
            )
        print(
            f"simkit serve: warning: listening on {host}, reachable from other machines; "
            "the token still guards every request, the traffic is plain HTTP",
            file=sys.stderr,
        )
    try:
        import uvicorn
    except ModuleNotFoundError:
        raise UserError(
            "simkit serve needs starlette and uvicorn: pip install -e . (they are dependencies)"
        ) from None
    import socket

    from simkit.serve.app import create_app
    from simkit.serve.calc import Calculator
    from simkit.serve.explore import Explorer

    pack = data_pack(data)
    explorer = Explorer(pack, lake=lake, seconds=whatif_seconds, data_arg=data)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    calc = Calculator(pack)
    if not json:
        print("simkit serve: warming up the engine (the first run compiles ~35 s)...", flush=True)
    seconds = calc.warm()
    if not json:
        print(
            "simkit serve: the explorer's balance table "
            + (f"from {lake}" if lake else "(a small run on the pack; first compile ~3 min)")
            + "...",
            flush=True,
        )
    seconds += explorer.warm()
    token = secrets.token_urlsafe(24)
    shown = "127.0.0.1" if is_loopback(host) else host
    url = f"http://{shown}:{port}/?token={token}"
    if json:
        from simkit.cli.output import emit

        emit(
            "serve",
            {"host": host, "port": port, "data": data, "lake": lake},
            {
                "url": url,
                "explore": url.replace("/?", "/explore?"),
                "host": shown,
                "port": port,
                "warm_seconds": seconds,
            },
        )
        sys.stdout.flush()
    else:
        print(f"simkit serve: engine warm in {seconds:.1f} s. Open this URL (Ctrl-C stops):")
        print(f"    {url}", flush=True)
        print(f"    design explorer: {url.replace('/?', '/explore?')}", flush=True)
    asgi = create_app(
        pack,
        token,
        port,
        extra_host=None if is_loopback(host) else host,
        calculator=calc,
        explorer=explorer,
    )
    config = uvicorn.Config(asgi, log_level="warning", lifespan="off", server_header=False)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
