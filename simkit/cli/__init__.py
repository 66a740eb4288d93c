"""The `simkit` command line. Each command group lives in its own module here.

User mistakes raise simkit.errors.UserError anywhere below; :func:`main` turns
them into one line on stderr and exit code 2 (never a traceback).
"""

from __future__ import annotations

import functools
import sys

import typer

from simkit.errors import UserError

try:  # typer >= 0.29 bundles its own click; older releases depend on click itself
    from typer import _click as click
except ImportError:  # pragma: no cover - depends on the installed typer
    import click

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="simkit: a balance lab for AuZtralia and Revenge of the Old Ones.",
    epilog="Example: simkit combat --force infantry=2,artillery=1 --vs shoggoth",
)


def _version(value: bool) -> None:
    if value:
        from simkit import ENGINE_VERSION, __version__

        typer.echo(f"simkit {__version__} (engine {ENGINE_VERSION})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_version,
        help="Print the simkit version and engine version, then exit.",
    ),
) -> None:
    """simkit: a balance lab for AuZtralia and Revenge of the Old Ones."""


def _register() -> None:
    # Imported for their side effect of adding commands to `app`.
    from simkit.cli import combat, data  # noqa: F401

    for optional in (
        "board",
        "athena",
        "simulate",
        "compare",
        "experiment",
        "report",
        "demo",
        "tune",
        "learn",
        "serve",
    ):
        try:
            __import__(f"simkit.cli.{optional}")
        except ModuleNotFoundError as exc:
            if exc.name != f"simkit.cli.{optional}":
                raise


@functools.cache
def command() -> click.Command:
    """The click command tree of ``app``, built once per process. Typer builds it from every
    command function's signature on each call (about 0.1 s of CPU), and one invocation
    needs it up to three times: the repeated-option check, the run, an error's JSON object."""
    _register()
    return typer.main.get_command(app)


def one_line(text: str) -> str:
    """An error message on one line (a parser's multi-line message joined with '; ')."""
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


def _on_sigterm(signum, frame) -> None:
    from simkit.errors import Terminated

    raise Terminated()


def _on_sigint(signum, frame) -> None:
    import signal

    from simkit.errors import Interrupted

    Interrupted.requested = True
    signal.default_int_handler(signum, frame)  # raises KeyboardInterrupt


def _install_handlers() -> dict:
    """SIGTERM unwinds like Ctrl-C (finally blocks run: nothing half-written, no scratch
    left), and Ctrl-C is remembered (simkit.errors.Interrupted) as well as raised. Only in
    the main thread, and only where a signal still has Python's own handling. Returns the
    handlers to restore, by signal."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    ours = {
        signal.SIGTERM: (_on_sigterm, (signal.SIG_DFL, None)),
        signal.SIGINT: (_on_sigint, (signal.default_int_handler,)),
    }
    restore = {}
    try:
        for signum, (handler, untouched) in ours.items():
            previous = signal.getsignal(signum)
            if any(previous is u for u in untouched):
                signal.signal(signum, handler)
                restore[signum] = signal.SIG_DFL if previous is None else previous
    except (ValueError, OSError):  # pragma: no cover - not the main interpreter
        pass
    return restore


def main(argv: list[str] | None = None) -> int:
    import warnings

    # joblib warns when an interrupted run closes its generator with tasks in flight; the
    # interrupt's own line already says finished chunks are kept, so a second one (a file
    # path and a warnings.warn echo) would break the one-line rule.
    warnings.filterwarnings(
        "ignore", message=r".*tasks which were still being processed", category=UserWarning
    )
    from simkit.errors import Interrupted

    Interrupted.requested = False  # each command starts without an old Ctrl-C
    restore = _install_handlers()
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:  # arrived before _main's own handling (its imports)
        return _stopped(exc)
    finally:
        import signal

        for signum, previous in restore.items():
            signal.signal(signum, previous)


def _main(argv: list[str] | None = None) -> int:
    from simkit.cli import output
    from simkit.errors import Terminated

    Terminated.raised = False
    output.EMITTED = False
    from simkit.cli.validate import prescan

    args = list(sys.argv[1:] if argv is None else argv)
    fail = _Failure(args)
    try:
        prescan(args)
        from simkit.cli.validate import refuse_repeated

        refuse_repeated(command(), args)
        # with standalone_mode=False typer returns the code of typer.Exit / Ctrl-C instead of
        # exiting (what `app(...)` runs, without rebuilding the command tree)
        code = command().main(args=argv, standalone_mode=False)
    except UserError as exc:
        return fail(one_line(str(exc)), exc.exit_code)
    except typer.Exit as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # typer: Ctrl-C -> Exit(130), silent
            return _stopped(exc.__cause__, fail)
        return exc.exit_code
    except OSError as exc:
        # The last line of defence for an operating-system failure on a named path (disk
        # full, permission, not a folder, name too long): one line naming it, exit 2.
        # Validation before work catches the foreseeable ones; errors without a path
        # are bugs and keep their traceback.
        if exc.filename is None:
            line = damaged_file_line(exc)
            if line is None:
                raise
            return fail(line, 2)
        from simkit.core.atomic import describe_os_error

        return fail(describe_os_error(exc, exc.filename), 2)
    except (typer.Abort, KeyboardInterrupt) as exc:
        return _stopped(exc.__cause__ if isinstance(exc, typer.Abort) else exc, fail)
    except click.ClickException as exc:  # usage errors (bad flag, bad type): exit code 2
        if type(exc).__name__ == "NoArgsIsHelpError":
            return 0  # the help was printed: asking for it is no mistake
        where = f"{exc.ctx.command_path}: " if getattr(exc, "ctx", None) is not None else ""
        return fail(f"{where}{one_line(exc.format_message())}", exc.exit_code)
    except Exception as exc:
        from simkit.errors import interrupt_behind

        stop = interrupt_behind(exc)  # a library broke while a Ctrl-C unwound it
        if stop is not None:
            return _stopped(stop, fail)
        line = damaged_file_line(exc)
        if line is None:
            raise
        return fail(line, 2)
    if code == 130:  # typer turned a KeyboardInterrupt into a silent exit code 130
        from simkit.errors import Terminated

        return _stopped(Terminated() if Terminated.raised else KeyboardInterrupt(), fail)
    return code if isinstance(code, int) else 0


class _Failure:
    """The one way a command line fails: one line on stderr (``simkit: error: ...``) and,
    when ``--json`` was asked for, one JSON object on stdout too: ``{"error": LINE,
    "exit_code": N, "command": "experiment run", "argv": [...]}`` (unless the command had
    already printed its object: stdout never holds two)."""

    def __init__(self, args: list[str]):
        self.args = args
        words = args[: args.index("--")] if "--" in args else args
        self.json = "--json" in words

    def command(self) -> str | None:
        """The subcommand path the arguments name ("experiment run"), as far as it exists."""
        try:
            group = command()
        except Exception:  # noqa: BLE001 - a name for the error object, never a new error
            return None
        path: list[str] = []
        for arg in self.args:
            if arg.startswith("-") or not hasattr(group, "get_command"):
                break
            sub = group.get_command(None, arg)
            if sub is None:
                break
            path.append(arg)
            group = sub
        return " ".join(path) or None

    def __call__(self, line: str, code: int, prefix: str = "error") -> int:
        print(f"simkit: {prefix}: {line}", file=sys.stderr)
        from simkit.cli import output

        if self.json and not output.EMITTED:
            import json

            body = {"error": line, "exit_code": int(code), "command": self.command()}
            body["argv"] = [str(a) for a in self.args]
            sys.stdout.write(json.dumps(body) + "\n")
            sys.stdout.flush()
        return code


def _stopped(exc: BaseException | None, fail: _Failure | None = None) -> int:
    """One line for Ctrl-C (exit 130) or SIGTERM (simkit.errors.Terminated, exit 143)."""
    code = getattr(exc, "exit_code", 130)
    what = "terminated (SIGTERM)" if code == 143 else "interrupted"
    if fail is not None:
        return fail("stopped; nothing half-written is left", code, prefix=what)
    print(f"simkit: {what}: stopped; nothing half-written is left", file=sys.stderr)
    return code


def damaged_file_line(exc: BaseException) -> str | None:
    """One line naming the damaged lake file behind a Parquet reader's error, or None.

    Readers check each file's footer before reading; damage inside a data page (a flipped
    byte) shows only when the rows are read, deep in polars or pyarrow. Then every lake this
    process read is checked page by page (checksums) and the first bad file is named."""
    module = type(exc).__module__ or ""
    if not module.startswith(("polars", "pyarrow")) or "simkit.analysis" not in sys.modules:
        return None
    from simkit.analysis import opened_lakes
    from simkit.lake import scan

    for root in opened_lakes():
        try:
            bad = [p for p in scan(root, deep=True).problems if p.kind == "corrupt"]
        except Exception:  # noqa: BLE001 - the original error is the one to report
            continue
        if bad:
            detail = one_line(bad[0].detail)[:200]
            more = f" (and {len(bad) - 1} more bad file(s))" if len(bad) > 1 else ""
            return (
                f"{root / bad[0].relpath}: damaged file ({detail}){more}; check with "
                f"'simkit experiment verify {root} --deep' and rerun the spec to rewrite it"
            )
    return None


def run() -> None:
    sys.exit(main())
