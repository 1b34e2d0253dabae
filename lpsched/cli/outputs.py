"""Output files of the CLI: checked before any work starts, written atomically.

Every command that writes a file (``-o``, ``--out``, ``--export-lp``, plots) calls
:func:`check_output` while parsing its options, so that a path that cannot be written
fails with one line and exit 2 *before* a long simulation, and writes through
:func:`atomic_output` or :func:`atomic_path`. The rules (decisions 67, 204, 205 and 253):

* **Regular files** are written to a temporary file in the target's folder, renamed over
  the target only once complete, so an interrupted run never leaves a half-written file;
  existing files are overwritten and keep their permissions (new ones get ``0o666`` less
  the umask).
* **Symbolic links** are followed: the file a link points to is replaced, the link kept. A
  *dangling* link (its target does not exist) creates its target when the target's folder
  exists, and is refused naming the link and that folder otherwise. A link that *loops*
  (``ln -s x x``, or through other links: the system's ``ELOOP``) is always refused: one
  line naming the path, exit 2, the link left as it was.
* **Special files** (``/dev/null``, a device, a FIFO, a terminal) are written in place,
  since a rename would replace the node itself; an existing one must be writable.
* **Every write is checked, whatever the kind of path**: a failed write, flush or close
  (``ENOSPC`` on a full disk or ``/dev/full``, ``EFBIG`` past a file size limit, ``EPIPE``
  on a FIFO whose reader left) is ``lpsched: error: cannot write PATH: reason``, exit 2,
  and the old file is kept. A file written by a compiled library (HiGHS' ``writeModel``,
  matplotlib's ``savefig``) through :func:`atomic_path`, which may not report a short
  write, is written to a temporary regular file and verified (:func:`verify_written`: it
  must exist, be non-empty and, for the formats whose end is known, ``.lp``, ``.mps``,
  ``.png``, ``.pdf``, ``.svg``, ``.eps``/``.ps``, ``.jpg``, end as a complete file of that
  format) before it is renamed over a regular file or copied into a special one; an error
  the writer raises about the file it was given (a :class:`~lpsched.errors.SolverError`
  of HiGHS) is the same ``cannot write`` error, exit 2: every output that cannot be
  written exits with 2.
* **Temporary files never stay**: they are created with ``SIGINT`` and ``SIGTERM``
  blocked and recorded until renamed or removed; an exception (Ctrl-C, or ``SIGTERM``,
  which the CLI turns into one) removes the temporary of the write it interrupts, and the
  CLI removes any left on exit (:func:`remove_temporaries`). Only ``kill -9`` can leave
  one, named ``.<name>.<random>.tmp`` beside the target.
* **An output that is one of the command's inputs** (the same path once symbolic links
  are resolved, or the same file by :func:`os.path.samefile`, e.g. a hard link) is refused
  by :func:`check_output` (``inputs=``) before anything is read: replacing it would destroy
  the input.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from lpsched.errors import LpschedError

__all__ = ["atomic_output", "atomic_path", "check_not_input", "check_output",
           "check_output_folder", "remove_temporaries", "verify_written", "write_rows_csv"]

#: how a complete file of each format ends (the last non-blank bytes), by suffix
TRAILERS: dict[str, tuple[bytes, ...]] = {
    ".lp": (b"end",), ".mps": (b"ENDATA",), ".png": (b"IEND\xaeB`\x82",),
    ".pdf": (b"%%EOF",), ".svg": (b"</svg>",), ".eps": (b"%%EOF", b"showpage"),
    ".ps": (b"%%EOF", b"showpage"),
    ".jpg": (b"\xff\xd9",), ".jpeg": (b"\xff\xd9",),
}


def check_not_input(path: str | Path, what: str,
                    inputs: Iterable[str | Path | None]) -> None:
    """Refuse an output ``path`` that is one of ``inputs``.

    One of them: the same path once symbolic links are resolved, or, when both exist, the
    same file (:func:`os.path.samefile`: a hard link, another spelling of the path). ``-``
    (stdout) and ``None`` are never files.

    Parameters
    ----------
    path : str or Path
        The output file.
    what : str
        The option that names it (``-o``, ``--out``), for the message.
    inputs : iterable of str, Path or None
        The files the command reads.

    Raises
    ------
    LpschedError
        ``path`` is one of ``inputs``: one line naming both.

    Examples
    --------
    >>> check_not_input("out.csv", "--out", ["trace.swf", None])
    >>> try:
    ...     check_not_input("./trace.swf", "-o", ["trace.swf"])
    ... except LpschedError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    -o ./trace.swf: the same file as the input trace.swf; writing it would destroy the
    input: give another output file
    """
    if str(path) == "-":
        return
    real = _real(Path(path))
    for source in inputs:
        if source is None or str(source) in ("", "-"):
            continue
        same = _real(Path(source)) == real
        if not same:
            with contextlib.suppress(OSError):
                same = os.path.samefile(real, source)
        if same:
            raise LpschedError(f"{what} {path}: the same file as the input {source}; writing "
                               "it would destroy the input: give another output file")


def check_output(path: str, what: str, suffixes: Sequence[str] = (),
                 inputs: Iterable[str | Path | None] = ()) -> Path:
    """Check, before any work, that the output file ``path`` can be written.

    Not a folder, its folder exists and a file can be created in it (probed by creating and
    removing a temporary file, so a read-only or special file system fails here, before any
    work), and (when ``suffixes`` are given) its name ends with one of them. A symbolic
    link is followed (the file it points to is written, the link stays; a dangling link's
    target is created, in its folder, which must exist); a link that loops is refused; an
    existing special file (``/dev/null``, a FIFO) must be writable and is written in place
    (module doc). An output that is one of ``inputs`` (the files the command reads) is
    refused (:func:`check_not_input`).

    Parameters
    ----------
    path : str
        The output file as the user gave it.
    what : str
        The option that names it (e.g. ``"--export-lp"``), the start of error messages.
    suffixes : sequence of str
        The accepted endings (compared in lower case); empty (default): any name.
    inputs : iterable of str, Path or None
        The files the command reads (``None`` entries ignored); default none.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path` (the link, not its target).

    Raises
    ------
    LpschedError
        A wrong suffix, a folder, a missing folder, no permission, a file that cannot be
        created there, a symbolic link that loops, or one of the inputs.

    Examples
    --------
    >>> check_output("x.lp", "--export-lp", (".lp", ".mps")).name
    'x.lp'
    """
    target = Path(path)
    check_not_input(path, what, inputs)
    if suffixes and not str(target).lower().endswith(tuple(suffixes)):
        raise LpschedError(f"{what} {path}: the file name must end with "
                           f"{' or '.join(suffixes)}")
    real = _target(target, f"{what} {path}")
    if real.is_dir():
        raise LpschedError(f"{what} {path}: is a folder, give a file name")
    if real.exists() and not real.is_file():
        if not os.access(real, os.W_OK):
            raise LpschedError(f"{what} {path}: permission denied")
        return target
    folder = real.parent
    if not folder.is_dir():
        link = f" (a symbolic link to {real})" if os.path.islink(target) else ""
        raise LpschedError(f"{what} {path}{link}: the folder {folder} does not exist")
    if real.exists() and not os.access(real, os.W_OK):
        raise LpschedError(f"{what} {path}: permission denied")
    fd, probe = _temporary(real, f".{real.name}.", ".tmp",
                           fail=f"{what} {path}: cannot create a file in {folder} ({{}})")
    os.close(fd)
    _remove(probe)
    return target


def _target(target: Path, where: str) -> Path:
    """The file the output ``target`` names, symbolic links followed (a dangling link's
    target, which writing creates); a link that loops is refused (module doc). ``where``
    starts the message (``--out x.csv``, ``cannot write x.csv``)."""
    try:
        os.stat(target)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LpschedError(f"{where}: a symbolic link that loops (it leads back to "
                               "itself through links), nothing written: remove the link or "
                               "give another name") from None
    except ValueError:  # an embedded NUL byte
        raise LpschedError(f"{where}: not a valid file name") from None
    return _real(target)


def _real(target: Path) -> Path:
    """``target`` with symbolic links resolved (an output replaces the file a link points
    to, never the link itself)."""
    return Path(os.path.realpath(target))


def _mode_for(real: Path) -> int:
    """The permissions of the file to write: those of the file it replaces, else what
    ``open()`` would give (``0o666`` less the umask) — never ``mkstemp``'s ``0o600``."""
    with contextlib.suppress(OSError):
        return real.stat().st_mode & 0o7777
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write_error(exc: OSError, path: str | Path, real: Path, tmp: str | None = None,
                 ) -> BaseException:
    """An error writing the output ``path`` as one line naming it (``cannot write out.csv:
    No space left on device``): a failed write or flush has no file name, a failed rename
    names the temporary file; an ``OSError`` naming another file (the block read one) is
    returned unchanged."""
    if exc.filename not in (None, tmp, str(real), str(path)):
        return exc
    return LpschedError(f"cannot write {path}: {exc.strerror or exc}")


#: the temporary files this process has created and not yet renamed or removed
_LIVE: set[str] = set()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """``SIGINT`` and ``SIGTERM`` held back for the block (delivered once it ends), so a
    temporary file is never created, renamed or removed without :data:`_LIVE` knowing."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _temporary(real: Path, prefix: str, suffix: str, folder: str | Path | None = None,
               fail: str = "") -> tuple[int, str]:
    """A new temporary file (its descriptor and name) in ``folder`` (default ``real``'s),
    recorded in :data:`_LIVE`; when it cannot be created, ``fail`` (``{}``: the reason;
    default ``cannot write REAL: {}``) is the error."""
    with _signals_held():
        try:
            fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix,
                                       dir=folder if folder is not None else real.parent)
        except OSError as exc:
            message = fail or f"cannot write {real}: {{}}"
            raise LpschedError(message.format(exc.strerror or exc)) from None
        _LIVE.add(tmp)
    return fd, tmp


def _remove(tmp: str) -> None:
    """Remove the temporary file ``tmp`` (already gone: nothing to do)."""
    with _signals_held():
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _LIVE.discard(tmp)


def _commit(tmp: str, real: Path) -> None:
    """Rename the complete temporary file ``tmp`` over ``real``."""
    with _signals_held():
        os.replace(tmp, real)
        _LIVE.discard(tmp)


def remove_temporaries() -> list[str]:
    """Remove every temporary file this process created and has not renamed or removed.

    The CLI calls it on exit, after an interruption or a ``SIGTERM`` (module doc).

    Returns
    -------
    list of str
        The files removed (empty when every write ended cleanly).
    """
    left = sorted(_LIVE)
    for tmp in left:
        _remove(tmp)
    return left


def check_output_folder(path: str, what: str) -> Path:
    """Check that the output folder ``path`` exists or can be created, and is writable.

    Parameters
    ----------
    path : str
        The output folder as the user gave it (created with its parents when missing).
    what : str
        The option that names it (e.g. ``"--out"``), the start of error messages.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    LpschedError
        ``path`` is a file, cannot be created, or is not writable.
    """
    target = Path(path)
    _target(target, f"{what} {path}")  # a link that loops
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
                  ) -> Iterator[IO[Any]]:
    """Write ``path`` atomically: through a temporary file beside it, renamed over it on success.

    The file gets the permissions the replaced file had (or ``0o666`` less the umask for a
    new one).

    On an exception the temporary file is removed and ``path`` is left as it was. A
    symbolic link is followed (a dangling one creates its target; one that loops is
    refused); a special file (``/dev/null``, a FIFO, a terminal) is written in place, since
    it cannot be replaced by a rename, and every write to it is checked as well (``ENOSPC``
    of ``/dev/full``, ``EPIPE`` of a FIFO whose reader left: module doc).

    Parameters
    ----------
    path : str or Path
        The file to write.
    mode : str
        The :func:`open` mode of the temporary file (default ``"w"``; ``"wb"`` for bytes).
    newline : str or None
        As :func:`open`'s (``""`` for the csv module); default ``None``.

    Yields
    ------
    file object
        The open temporary file (or the special file itself).

    Raises
    ------
    LpschedError
        A write, flush or rename failed, or ``path`` is a symbolic link that loops
        (``cannot write PATH: reason``).
    """
    real = _target(Path(path), f"cannot write {path}")
    if real.exists() and not real.is_file():
        try:
            with open(real, mode, newline=newline) as fh:
                yield fh
        except OSError as exc:
            raise _write_error(exc, path, real) from None
        return
    fd, tmp = _temporary(real, f".{real.name}.", ".tmp")
    try:
        os.fchmod(fd, _mode_for(real))
        with os.fdopen(fd, mode, newline=newline) as fh:
            yield fh
        _commit(tmp, real)
    except BaseException as exc:
        _remove(tmp)
        if isinstance(exc, OSError):
            raise _write_error(exc, path, real, tmp) from None
        raise


def verify_written(written: str | Path, path: str | Path | None = None) -> None:
    r"""Check that a file a library wrote is complete.

    It must exist, not be empty and, when its suffix is one of :data:`TRAILERS`, end with
    the last non-blank bytes of a complete file of that format (a writer that ignores the
    short writes of a full disk or a file size limit leaves a file cut anywhere, never with
    the trailer it writes last).

    Parameters
    ----------
    written : str or Path
        The file written (e.g. the temporary file of :func:`atomic_path`).
    path : str or Path, optional
        The name the user gave, for the message (default ``written``).

    Raises
    ------
    LpschedError
        ``cannot write PATH: ...`` naming what is missing.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     f = os.path.join(d, "m.lp")
    ...     _ = open(f, "w").write("min\n obj: x\nend\n")
    ...     verify_written(f)
    ...     _ = open(f, "w").write("min\n obj: x + ")
    ...     try:
    ...         verify_written(f, "m.lp")
    ...     except LpschedError as exc:
    ...         print(exc)  # doctest: +ELLIPSIS
    cannot write m.lp: the file is incomplete (...)
    """
    name = path if path is not None else written
    try:
        size = os.stat(written).st_size
    except OSError as exc:
        raise LpschedError(f"cannot write {name}: the writer left no file "
                           f"({exc.strerror or exc})") from None
    if size == 0:
        raise LpschedError(f"cannot write {name}: the writer left an empty file (disk full "
                           "or file size limit?)")
    trailers = TRAILERS.get(Path(written).suffix.lower())
    if not trailers:
        return
    with open(written, "rb") as fh:
        fh.seek(max(0, size - 4096))
        tail = fh.read().rstrip(b" \t\r\n\x00")
    if not tail.endswith(trailers):
        raise LpschedError(f"cannot write {name}: the file is incomplete ({size} bytes, "
                           f"without the {trailers[0]!r} a complete file ends with: disk "
                           "full or file size limit?)")


@contextlib.contextmanager
def atomic_path(path: str | Path,
                check: Callable[[str], None] | None = verify_written) -> Iterator[str]:
    """Give a writer that takes a file name (HiGHS, matplotlib) a temporary path beside ``path``.

    The temporary file is renamed over ``path`` when the block ends without an exception
    and the file passes ``check`` (default :func:`verify_written`: present, not empty, and
    ending as a complete file of its format; ``None`` skips it; a callable receives the
    temporary path and raises to refuse it). A refused file is removed and ``path`` left
    as it was.
    The temporary name keeps ``path``'s suffix (the name the user gave, not a link's
    target), which such writers read the format from. Permissions and symbolic links as in
    :func:`atomic_output`; for a special file (a device, a FIFO) the temporary file is in
    the system's temporary folder and, once checked, copied into it, every write checked
    (module doc).

    Parameters
    ----------
    path : str or Path
        The file to write.
    check : callable or None
        Called with the temporary path after the block (default :func:`verify_written`,
        which also names ``path``); ``None``: no check.

    Yields
    ------
    str
        The temporary path to give the writer (or the special file's own path).

    Raises
    ------
    LpschedError
        The check refused the file (the message names ``path``), or a write or rename
        failed.
    """
    real = _target(Path(path), f"cannot write {path}")
    special = real.exists() and not real.is_file()
    # a special file is written from a checked temporary file in the system's temporary
    # folder (its own folder, /dev, may not be writable)
    fd, tmp = _temporary(real, f".{real.stem}.", Path(path).suffix,  # the format
                         tempfile.gettempdir() if special else None)
    mode = _mode_for(real)
    os.close(fd)
    try:
        yield tmp
        if check is verify_written:
            verify_written(tmp, path)
        elif check is not None:
            check(tmp)
        if special:
            _copy_into(tmp, real)
            _remove(tmp)
        else:
            os.chmod(tmp, mode)
            _commit(tmp, real)
    except BaseException as exc:
        _remove(tmp)
        if isinstance(exc, OSError):
            raise _write_error(exc, path, real, tmp) from None
        if isinstance(exc, LpschedError) and tmp in str(exc):  # about the file it was given
            raise LpschedError(str(exc).replace(tmp, str(path))) from None
        raise


def _copy_into(tmp: str, real: Path) -> None:
    """Copy the checked file ``tmp`` into the special file ``real`` (a device, a FIFO);
    every write is checked (``ENOSPC`` of ``/dev/full`` raises)."""
    with open(tmp, "rb") as src, open(real, "wb") as dst:
        shutil.copyfileobj(src, dst)


def write_rows_csv(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``rows`` as CSV, atomically (:func:`atomic_output`), or to stdout for ``-``.

    One column per key met in any row, in sorted order; nothing is written when there are
    no rows.

    Parameters
    ----------
    path : str or Path
        The CSV file, or ``"-"`` for stdout.
    rows : sequence of dict
        The rows; a key missing from a row leaves its cell empty.

    Raises
    ------
    LpschedError
        The file could not be written.
    """
    import csv

    if not rows:
        return
    with contextlib.ExitStack() as stack:
        fh = sys.stdout if str(path) == "-" else stack.enter_context(
            atomic_output(path, "w", newline=""))
        writer = csv.DictWriter(fh, fieldnames=sorted({k for r in rows for k in r}))
        writer.writeheader()
        writer.writerows(rows)

