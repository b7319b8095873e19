"""One bounded reader for every file a user names (CLI arguments, grids, answer files, datasets).

Why not ``Path.read_text``: it reads until end of file, and ``/dev/zero`` has none (``whatif judge /dev/zero``
grew to 23.7 GB); a FIFO blocks the open until a writer comes; a size check on ``stat`` passes for every
special file, which reports size 0. Here the path is checked *before* it is opened (a device or FIFO is
never opened at all), checked again on the open descriptor (the file cannot be swapped in between), and at
most ``cap + 1`` bytes are read, so memory stays bounded whatever the file claims.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ifworld.errors import InputError

__all__ = ["FileRefused", "FileTooLarge", "read_bounded", "read_text_bounded"]

CHUNK_BYTES = 1 << 20


class FileRefused(InputError):
    """A named file that cannot be read as input: missing, not a regular file, unreadable, or not UTF-8."""


class FileTooLarge(FileRefused):
    """A file larger than the cap for its kind of input."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _check_mode(path: Path, mode: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        raise FileRefused(f"{what} {path} is {_kind(mode)}; give a regular file")


def _too_large(path: Path, what: str, cap: int, limit_name: str) -> FileTooLarge:
    name = f" ({limit_name})" if limit_name else ""
    return FileTooLarge(f"{what} {path} is larger than the {cap:,}-byte limit{name}; give a smaller file")


def read_bounded(path: str | Path, cap: int, *, what: str = "file", limit_name: str = "") -> bytes:
    """The bytes of a regular file of at most ``cap`` bytes; :class:`FileRefused` otherwise (never more
    than ``cap + 1`` bytes are read, and a FIFO or device is never opened)."""
    path = Path(path)
    try:
        _check_mode(path, os.stat(path).st_mode, what)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise FileRefused(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        _check_mode(path, info.st_mode, what)  # the same file that was checked by name
        if info.st_size > cap:
            raise _too_large(path, what, cap, limit_name)
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(CHUNK_BYTES, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if total > cap:  # it grew after the size check
        raise _too_large(path, what, cap, limit_name)
    return b"".join(chunks)


def read_text_bounded(path: str | Path, cap: int, *, what: str = "file", limit_name: str = "") -> str:
    """:func:`read_bounded` decoded as UTF-8 (a leading byte-order mark dropped); not UTF-8 is refused."""
    data = read_bounded(path, cap, what=what, limit_name=limit_name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileRefused(f"{what} {path} is not UTF-8 text (byte {exc.start:,})") from None
