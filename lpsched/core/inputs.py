"""Input files as every reader opens them: regular files, and streams that cannot seek.

A command's input may be a regular file or a *stream*: a pipe (``lpsched swf-info <(zcat
t.swf.gz)``, ``/dev/stdin``), a FIFO, a character device. A stream can be read once, from
its start, and never rewound, so the readers of lpsched never seek:

* :func:`open_input` opens either kind for reading bytes; on a stream, what
  :func:`peek` has already read of it comes first, so the format of an input (gzip's magic
  bytes, a JSON document's ``{``) is recognised from its first bytes before it is read
  (:func:`peek` keeps those bytes: peeking again after the read returns them, never blocks
  on a consumed pipe);
* :func:`read_input` reads an input whole, up to a limit: a regular file larger than the
  limit is refused from its size before a byte is read, a stream is read up to the limit and
  one byte more, then refused. JSON documents are parsed whole (a Python object per value:
  about ten times the file's size in memory), so every JSON reader reads through it with
  :func:`max_json_bytes`: :data:`MAX_JSON_BYTES` (256 MiB, a Batsim workload of about 2.8
  million jobs, 93 bytes each as ``lpsched convert`` writes them) unless the environment
  variable :data:`MAX_JSON_ENV` (``LPSCHED_MAX_JSON_BYTES``) gives another whole number of
  bytes.

Every error is a :class:`~lpsched.errors.ParseError` naming the input as the user gave it.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import BinaryIO

from lpsched.errors import LpschedError, ParseError

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_ENV", "is_stream", "max_json_bytes", "open_input",
           "peek", "read_input"]

#: the largest JSON input read by default (bytes): 256 MiB
MAX_JSON_BYTES = 256 * 2**20
#: the environment variable that sets another limit (a whole number of bytes >= 1)
MAX_JSON_ENV = "LPSCHED_MAX_JSON_BYTES"
_CHUNK = 1 << 20
#: the bytes of a stream kept for :func:`peek` (at least)
_FIRST = 64


class _Stream:
    """A stream opened by :func:`peek`: the open file, the bytes read ahead and not yet
    handed to a reader (``ahead``), and the first bytes ever read (``first``)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.ahead = b""
        self.first = b""
        self.handed = False


#: the streams this process has peeked at, by the path given (a stream is read only once)
_STREAMS: dict[str, _Stream] = {}


class _Prefixed(io.RawIOBase):
    """A raw reader that returns ``ahead`` first, then the rest of ``fh``."""

    def __init__(self, ahead: bytes, fh: BinaryIO) -> None:
        super().__init__()
        self._ahead = ahead
        self._fh = fh

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._ahead:
            n = min(len(buffer), len(self._ahead))
            buffer[:n] = self._ahead[:n]
            self._ahead = self._ahead[n:]
            return n
        data = self._fh.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._fh.close()
        super().close()


def is_stream(path: str | Path) -> bool:
    """Tell whether ``path`` names a stream, which can be read once and never rewound.

    A stream is a pipe, a FIFO, a device: anything but a regular file or a folder.

    Parameters
    ----------
    path : str or Path
        An input file as the user gave it (``/dev/stdin``, ``/dev/fd/63`` are streams when
        they stand for a pipe).

    Returns
    -------
    bool
        ``True`` for a stream; ``False`` for a regular file, a folder, or a path that does
        not exist (the reader then reports it).

    Examples
    --------
    >>> is_stream(__file__)
    False
    """
    if _key(path) in _STREAMS:
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _key(path: str | Path) -> str:
    """The key of ``path`` in :data:`_STREAMS` (``./a`` and ``a`` are one input)."""
    return str(Path(path))


def _open(path: str | Path) -> BinaryIO:
    try:
        return open(path, "rb")  # the caller closes it
    except OSError as exc:
        raise ParseError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL
        raise ParseError(str(path), f"cannot read file: {exc}") from None


def _read(fh: BinaryIO, n: int, path: str | Path) -> bytes:
    """Up to ``n`` bytes of ``fh`` (fewer only at its end), a ``ParseError`` on failure."""
    parts, got = [], 0
    while got < n:
        try:
            data = fh.read(min(n - got, _CHUNK))
        except OSError as exc:
            raise ParseError(str(path), f"cannot read file: {exc.strerror or exc}") from None
        if not data:
            break
        parts.append(data)
        got += len(data)
    return b"".join(parts)


def peek(path: str | Path, n: int = 64) -> bytes:
    """Return the first ``n`` bytes of the input ``path`` without consuming them.

    A regular file is opened and read again by :func:`open_input`; a stream's bytes are
    kept for the reader :func:`open_input` then returns.

    Parameters
    ----------
    path : str or Path
        The input.
    n : int
        How many bytes (default 64).

    Returns
    -------
    bytes
        Its first bytes; after a stream has been read, the first bytes it had.

    Raises
    ------
    ParseError
        The input cannot be opened or read.
    """
    key = _key(path)
    if key not in _STREAMS and not is_stream(path):
        with _open(path) as fh:
            return _read(fh, n, path)
    stream = _STREAMS.get(key)
    if stream is None:
        stream = _STREAMS[key] = _Stream(_open(path))
    if not stream.handed and len(stream.ahead) < n:  # at least _FIRST: kept for later peeks
        stream.ahead += _read(stream.fh, max(n, _FIRST) - len(stream.ahead), path)
        stream.first = stream.ahead
    return stream.first[:n]


def open_input(path: str | Path) -> BinaryIO:
    """Open the input ``path`` to read its bytes from the start.

    A regular file is opened as :func:`open` does; a stream at its start, what :func:`peek`
    read of it first.

    Parameters
    ----------
    path : str or Path
        The input.

    Returns
    -------
    binary file object
        Open for reading (the caller closes it); it need not be seekable.

    Raises
    ------
    ParseError
        The input cannot be opened, or is a stream already read (a second reader of one
        pipe would see only what the first left).
    """
    key = _key(path)
    if key not in _STREAMS:
        if not is_stream(path):
            return _open(path)
        peek(path, _FIRST)  # its first bytes stay known to peek() once it is read
    stream = _STREAMS[key]
    if stream.handed:
        raise ParseError(str(path), "a pipe or stream already read: it cannot be read "
                         "twice (save it to a file)")
    stream.handed = True
    return io.BufferedReader(_Prefixed(stream.ahead, stream.fh), _CHUNK)


def max_json_bytes() -> int:
    """Return the largest JSON input read, in bytes.

    ``$LPSCHED_MAX_JSON_BYTES`` when set (module doc), else :data:`MAX_JSON_BYTES`.

    Returns
    -------
    int
        The limit in bytes (>= 1).

    Raises
    ------
    LpschedError
        The variable is set but is not a whole number >= 1.

    Examples
    --------
    >>> max_json_bytes() >= 1
    True
    """
    text = os.environ.get(MAX_JSON_ENV, "").strip()
    if not text:
        return MAX_JSON_BYTES
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise LpschedError(f"{MAX_JSON_ENV}={text!r}: must be a whole number of bytes >= 1 "
                           f"(default {MAX_JSON_BYTES})")
    return value


def read_input(path: str | Path, limit: int | None = None, what: str = "input") -> bytes:
    """Read the input ``path`` (a regular file or a stream) whole, up to ``limit`` bytes.

    A larger regular file is refused from its size before anything is read, a stream after
    ``limit + 1`` bytes.

    Parameters
    ----------
    path : str or Path
        The input.
    limit : int, optional
        The most bytes accepted; ``None`` (the default): no limit.
    what : str
        What the input is, for the refusal (``"JSON file"``).

    Returns
    -------
    bytes
        The whole content.

    Raises
    ------
    ParseError
        The input cannot be read, or is larger than ``limit`` (the message names its size,
        when known, and the limit).
    """
    if limit is not None and _key(path) not in _STREAMS:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            info = None  # _open names the problem
        if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise ParseError(str(path), _too_large(what, info.st_size, limit))
    with open_input(path) as fh:
        data = _read(fh, limit + 1 if limit is not None else 1 << 62, path)
    if limit is not None and len(data) > limit:
        raise ParseError(str(path), _too_large(what, None, limit))
    return data


def _too_large(what: str, size: int | None, limit: int) -> str:
    """The refusal of an input larger than ``limit`` (``size``: ``None`` for a stream)."""
    hint = (f"; set {MAX_JSON_ENV} to a larger number of bytes to read it"
            if what.startswith("JSON") else "")
    size_text = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    return (f"{size_text}, larger than the limit of a {what} ({limit:,} bytes: it is read "
            f"whole{hint})")
