"""User-facing errors: one clear line, exit code 2, never a traceback."""

import re


class UserError(Exception):
    """A mistake in something the user typed or supplied (flag, data pack, spec)."""

    exit_code = 2


class DataPackError(UserError):
    """A data pack that does not validate; the message names file, row and field."""

    def __init__(self, file: str, message: str, row: int | None = None, field: str | None = None):
        where = file
        if row is not None:
            where += f": row {row}"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"data pack {where}: {message}")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt so every cleanup
    (temporary files, the lake's manifest, workers, a Dask cluster's scratch) runs; the
    command line ends with exit code 143 instead of 130."""

    exit_code = 143
    raised = False  # set when one is raised: typer reports any KeyboardInterrupt as 130

    def __init__(self, *args):
        super().__init__(*args)
        Terminated.raised = True


class Interrupted:
    """Whether Ctrl-C (SIGINT) has reached this process: the command line's SIGINT handler
    sets it, then raises KeyboardInterrupt as Python's own handler does. A long loop calls
    :func:`stop_if_interrupted` between its steps, so a library that catches and drops the
    KeyboardInterrupt cannot make the process forget Ctrl-C (a tune run once played on)."""

    requested = False


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt again if Ctrl-C came and the process is still going."""
    if Interrupted.requested:
        raise KeyboardInterrupt


# Tab, line feed and carriage return are layout; every other C0 control character, DEL and
# the C1 range are never part of a name, a token or a card text: a NUL or an escape in one
# is a damaged file or a pasted terminal sequence, refused before it reaches a label,
# a path or a Parquet column.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def interrupt_behind(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM's Terminated) that ``exc`` was raised while unwinding, if any.

    A signal landing in a library's own bookkeeping can surface as another error: optuna 4's
    ``_run_trial`` reads a local its ``try`` never set in its ``finally`` (an
    UnboundLocalError whose context is the KeyboardInterrupt). The user pressed Ctrl-C; the
    command line reports that."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def first_control_char(text: str) -> tuple[int, str] | None:
    """(line number, character) of the first control character in ``text``, or None.

    >>> first_control_char("name = 'ok'\\nother = 'b\\x00d'")
    (2, '\\x00')
    >>> first_control_char("tabs\\tand\\nlines") is None
    True
    """
    m = _CONTROL.search(text)
    return None if m is None else (text.count("\n", 0, m.start()) + 1, m.group())


def control_char_message(ch: str) -> str:
    """'holds the control character '\\x01' (U+0001)': the tail of every such refusal."""
    return f"holds the control character {ch!r} (U+{ord(ch):04X})"
