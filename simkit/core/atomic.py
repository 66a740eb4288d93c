"""Writing files so that nothing is half-written, replaced by accident, or left behind.

:func:`atomic_write_bytes` writes a unique hidden temporary file next to the target,
fsyncs it and renames it over the target; on any failure (disk full, permission, a kill
signal raised as an exception) the temporary file is removed. It refuses a target that
exists and is not a regular file: a device node such as /dev/null, a FIFO or a folder
would otherwise be replaced by a regular file (or, as root, have its node destroyed).
OS failures become one UserError line naming the path.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from simkit.errors import UserError

NAME_MAX = 255


class OutputError(UserError):
    """An output that cannot be written (wrong kind of target, OS failure)."""


def describe_os_error(exc: OSError, path: Path | str) -> str:
    what = {
        errno.ENOSPC: "disk full",
        errno.EDQUOT: "disk quota exceeded",
        errno.EACCES: "permission denied",
        errno.EPERM: "not permitted",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.EISDIR: "is a folder",
        errno.ENAMETOOLONG: "name too long",
        errno.EROFS: "read-only file system",
        errno.ENOENT: "no such file or folder",
    }.get(exc.errno, exc.strerror or type(exc).__name__)
    return f"{path}: {what}"


def check_name(path: Path, flag: str = "--out") -> None:
    if not str(path).strip():
        raise OutputError(f"{flag}: empty path")
    if "\0" in str(path):
        raise OutputError(f"{flag} {str(path)!r}: a path cannot hold a NUL character")
    for part in path.parts:
        if len(part.encode()) > NAME_MAX:
            raise OutputError(
                f"{flag} {str(path)[:60]}...: name too long ({len(part.encode())} bytes, "
                f"at most {NAME_MAX} per name)"
            )


def check_target(path: Path, flag: str = "--out") -> None:
    """Refuse a target that exists and is not a regular file, or whose folder is a file."""
    check_name(path, flag)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise OutputError(f"{flag} {path}: a part of the path is not a folder") from None
    except OSError as exc:
        raise OutputError(f"{flag} {describe_os_error(exc, path)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = (
            "a folder"
            if stat.S_ISDIR(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(st.st_mode)
            else "not a regular file"
        )
        raise OutputError(f"{flag} {path}: is {kind}, not a regular file; refusing to replace it")
    check_parents(path, flag)


def check_parents(path: Path, flag: str) -> None:
    """The nearest existing folder above ``path`` must be a folder (not a file)."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"{flag} {path}: {parent} is not a folder")
            break


def _mode(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)  # replacing a file keeps its permissions
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def atomic_write(path: Path, write: Callable[[object], None], flag: str = "--out") -> None:
    """Call ``write(fh)`` on a temporary file beside ``path``, then rename it to ``path``."""
    path = Path(path)
    check_target(path, flag)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
        os.fchmod(
            fd, _mode(path)
        )  # mkstemp makes 0600: give the file the mode a plain open() would
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        check_target(path, flag)  # still not a device or folder (it may have appeared meanwhile)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OutputError(
            describe_os_error(exc, exc.filename if exc.filename and exc.filename != tmp else path)
        ) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def atomic_write_bytes(path: Path, payload: bytes, flag: str = "--out") -> None:
    """Write ``payload`` to ``path`` atomically (see the module docstring)."""
    atomic_write(path, lambda fh: fh.write(payload), flag)
