"""Output files of the CLI: checked before any work starts, written atomically.

Every command that writes a file (``-o``, ``--out``, ``--export-lp``, plots) calls
:func:`check_output` while parsing its options, so that a path that cannot be written
fails with one line and exit 2 *before* a long simulation, and writes through
:func:`atomic_output`: a temporary file in the target's folder, renamed over the target
only once complete, so an interrupted run never leaves a half-written file. Existing
files are overwritten (decision 63).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from lpsched.errors import LpschedError

__all__ = ["atomic_output", "atomic_path", "check_output", "check_output_folder"]


def check_output(path: str, what: str, suffixes: Sequence[str] = ()) -> Path:
    """The file ``path`` can be written: not a folder, its folder exists and is writable,
    and (when ``suffixes`` are given) its name ends with one of them.

    >>> check_output("x.lp", "--export-lp", (".lp", ".mps")).name
    'x.lp'
    """
    target = Path(path)
    if suffixes and not str(target).lower().endswith(tuple(suffixes)):
        raise LpschedError(f"{what} {path}: the file name must end with "
                           f"{' or '.join(suffixes)}")
    if target.is_dir():
        raise LpschedError(f"{what} {path}: is a folder, give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise LpschedError(f"{what} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise LpschedError(f"{what} {path}: permission denied")
    return target


def check_output_folder(path: str, what: str) -> Path:
    """The folder ``path`` exists or can be created, and is writable."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise LpschedError(f"{what} {path}: is a file, give a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LpschedError(f"{what} {path}: cannot create the folder "
                           f"({exc.strerror or exc})") from None
    if not os.access(target, os.W_OK):
        raise LpschedError(f"{what} {path}: permission denied")
    return target


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w", newline: str | None = None,
                  ) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it over ``path``.

    On an exception the temporary file is removed and ``path`` is left as it was.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                               dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, mode, newline=newline) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[str]:
    """A temporary path beside ``path`` for writers that take a file name (HiGHS,
    matplotlib); renamed over ``path`` when the block ends without an exception. The
    temporary name keeps ``path``'s suffix, which such writers read the format from."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix,
                               dir=target.parent if str(target.parent) else ".")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
