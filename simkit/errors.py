"""User-facing errors: one clear line, exit code 2, never a traceback."""


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
