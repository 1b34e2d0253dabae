"""What every family's subcommands share: JSON output and input, runner options, traces.

* ``--json`` output: :func:`dump_json` (one line of strict JSON; non-finite numbers as
  ``null``, file names as strict UTF-8);
* JSON input files: :func:`read_json` (size limit, strict and finite JSON, the file and
  field named in every error), :func:`looks_like_json`, :func:`swf_input`;
* the ``argparse`` types every command uses alike: :func:`seed`, :func:`jobs`,
  :func:`executor`;
* the ``reproduce`` experiments: :func:`add_runner_options`, :func:`run_experiment`,
  :func:`report_fidelity`, and the traces folder (:func:`data_folder`, :func:`data_file`).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.errors import ParseError

#: a lone surrogate: a byte of a file name that is not UTF-8 (Python keeps byte ``0xff`` as
#: ``\udcff``, PEP 383), or one that a JSON input spelt as ``\ud800``
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def utf8_text(text: str) -> str:
    r"""Return ``text`` as strict UTF-8 text, every lone surrogate written as an escape.

    Each byte of a file name that is not UTF-8 (kept by Python as a lone surrogate,
    ``\udcff``) becomes the four characters ``\xff``, any other lone surrogate the six
    characters ``\ud800``; text without them is returned as it is. A strict JSON parser
    refuses a lone surrogate, so every ``--json`` output goes through this
    (:func:`dump_json`).

    Parameters
    ----------
    text : str
        A string, e.g. a file name from the command line.

    Returns
    -------
    str
        The same string with every lone surrogate written as a backslash escape.

    Examples
    --------
    >>> print(utf8_text(b"t\xff.swf".decode("utf-8", "surrogateescape")))
    t\xff.swf
    """
    return text if text.isascii() else _SURROGATE.sub(_escape_surrogate, text)


def utf8_strings(o: Any) -> Any:
    """Return ``o`` with every string in it, dict keys included, made strict UTF-8.

    Each string goes through :func:`utf8_text`: for the JSON files commands write (an
    extracted workload names its trace), as :func:`dump_json` does for ``--json``.

    Parameters
    ----------
    o : object
        A JSON-ready value: dicts, lists, tuples (become lists), strings, numbers, ...

    Returns
    -------
    object
        The same value, each string escaped where needed.

    Examples
    --------
    >>> utf8_strings({"source": "t.swf", "n": [1, "a"]})
    {'source': 't.swf', 'n': [1, 'a']}
    """
    if isinstance(o, str):
        return utf8_text(o)
    if isinstance(o, dict):
        return {utf8_text(k) if isinstance(k, str) else k: utf8_strings(v)
                for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [utf8_strings(v) for v in o]
    return o


def _clean(o: Any) -> Any:
    """``o`` with numpy values as Python ones, every non-finite float as ``None`` and every
    string strict UTF-8 (:func:`utf8_text`)."""
    if isinstance(o, np.ndarray):
        o = o.tolist()
    elif isinstance(o, (np.floating, np.integer, np.bool_)):
        o = o.item()
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, str):
        return utf8_text(o)
    if isinstance(o, dict):
        return {utf8_text(k) if isinstance(k, str) else k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def dump_json(obj: Any) -> str:
    """Return ``obj`` as one line of strict JSON.

    numpy arrays and scalars become lists and numbers, every non-finite float (``nan``,
    ``inf``, inside arrays too) becomes ``null``, because JSON has neither ``NaN`` nor
    ``Infinity``, and every string is strict UTF-8: a byte of a file name that is not UTF-8
    is written as the text ``\\xff`` (:func:`utf8_text`), never as a lone surrogate, which
    strict parsers refuse.

    Parameters
    ----------
    obj : object
        What a command prints under ``--json``: dicts, lists, tuples, strings, numbers,
        booleans, ``None``, numpy arrays and numpy scalars, nested at will (tuples become
        lists).

    Returns
    -------
    str
        One line of JSON, no trailing newline, that a strict parser accepts.

    Raises
    ------
    TypeError
        ``obj`` holds something else (a set, a dataclass, a Path): a bug in the caller.

    Examples
    --------
    >>> dump_json({"x": np.array([1.0, np.inf, np.nan]), "n": np.int64(2)})
    '{"x": [1.0, null, null], "n": 2}'
    """
    def default(o: Any) -> Any:
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    # allow_nan=False: a non-finite float that escaped _clean is an error, never "NaN"
    return json.dumps(_clean(obj), default=default, allow_nan=False)


def read_json(path: str) -> Any:
    """Read the JSON file ``path``, hardened against hostile files (every family's readers use it).

    A file that cannot be read, is larger than the JSON limit (refused from its size before
    it is read: :func:`lpsched.core.inputs.max_json_bytes`, 256 MiB unless
    ``$LPSCHED_MAX_JSON_BYTES`` says otherwise), is not UTF-8, is not JSON, is nested too
    deeply, or holds ``NaN``/``Infinity`` or a number outside the float range raises
    :class:`~lpsched.errors.ParseError` naming the file and the offending field
    (:func:`lpsched.bags.io.parse_json`). A pipe or FIFO is read too (up to the limit).

    Parameters
    ----------
    path : str
        The JSON file (an instance, a platform, a Batsim workload, a result file), or a
        pipe.

    Returns
    -------
    object
        The decoded document: a dict, list, str, int, float (always finite), bool or
        ``None``.

    Raises
    ------
    ParseError
        The file cannot be read, is too large, or is not strict, finite, UTF-8 JSON.
    """
    from lpsched.bags.io import parse_json
    from lpsched.core.inputs import max_json_bytes, read_input

    return parse_json(read_input(path, max_json_bytes(), "JSON file"), str(path))


def looks_like_json(path: str | Path) -> bool:
    """Tell whether the file ``path`` looks like JSON rather than an SWF trace.

    It does when it is named ``.json``, or its first character after blanks (and a
    byte-order mark) is ``{`` or ``[``. An unreadable file does not.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    bool
        ``True`` for a JSON file (a Batsim workload, an instance).

    Examples
    --------
    >>> looks_like_json("workload.json")
    True
    """
    from lpsched.core.inputs import peek

    if str(path).lower().endswith(".json"):
        return True
    with contextlib.suppress(OSError, ParseError):  # a pipe: the first bytes it had
        return peek(path, 64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"["))
    return False


@contextlib.contextmanager
def swf_input(path: str, command: str) -> Iterator[None]:
    """Reword the parse error of an SWF reader given a JSON file, naming what reads JSON.

    Around the reading of the SWF trace ``path`` by ``command`` (``lpsched tasks``): a
    :class:`~lpsched.errors.ParseError` on a file that looks like JSON
    (:func:`looks_like_json`) becomes one saying so, rather than the SWF parser's
    ``expected 18 fields, found 1``; the commands that read Batsim workloads are named.

    Parameters
    ----------
    path : str
        The trace.
    command : str
        The command reading it, for the message.

    Yields
    ------
    None
        Control to the block that reads ``path``; a ``ParseError`` it raises passes
        through this context manager.

    Raises
    ------
    ParseError
        The error of the block, reworded when ``path`` looks like JSON.
    """
    try:
        yield
    except ParseError as exc:
        if not looks_like_json(path):
            raise
        name = Path(path).name
        how = (f"(lpsched convert {path} -o {name[:-5] or 'trace'}.swf makes an SWF trace of "
               "one)" if name.lower().endswith(".json") else "named .json")
        raise ParseError(path, f"looks like a Batsim (JSON) workload, not an SWF trace: "
                         f"{command} reads SWF traces (.swf, .swf.gz); lpsched batch, "
                         f"swf-info and convert read Batsim workloads {how}") from exc


def seed(text: str) -> int:
    """Read a ``--seed`` or ``--first-seed`` value: a whole number >= 0 (an ``argparse`` type).

    numpy's generators refuse negative seeds; a bad one is a usage error, exit 2.

    Parameters
    ----------
    text : str
        The option's value as typed on the command line (decimal digits, optionally
        signed).

    Returns
    -------
    int
        The seed of the random generator (of the first instance, for ``--first-seed``).

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not a whole number or is negative; ``argparse`` reports it as a usage
        error.

    Examples
    --------
    >>> seed("7")
    7
    """
    return _whole_at_least(text, 0)


def jobs(text: str) -> int:
    """Read a ``--jobs`` value: a whole number >= 1 (an ``argparse`` type).

    0 or a negative count is a usage error, exit 2, in every experiment.

    Parameters
    ----------
    text : str
        The option's value as typed on the command line.

    Returns
    -------
    int
        The number of local worker processes under ``--executor local`` (1, the
        option's default, runs the cells in this process, without a pool).

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not a whole number or is below 1; ``argparse`` reports it as a usage
        error.

    Examples
    --------
    >>> jobs("4")
    4
    """
    return _whole_at_least(text, 1)


def _whole_at_least(text: str, least: int) -> int:
    """``text`` as a whole number >= ``least``; an ``argparse`` usage error otherwise."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: must be a whole number >= {least}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value}: must be a whole number >= {least}")
    return value


def executor(text: str) -> str:
    """Read an ``--executor`` value: ``local`` or ``dask://HOST:PORT`` (an ``argparse`` type).

    The host and the port are checked by :func:`lpsched.core.runner.parse_executor`;
    anything else is a usage error, exit 2, before any work.

    Parameters
    ----------
    text : str
        The option's value as typed on the command line.

    Returns
    -------
    str
        ``text`` itself, unchanged once it parses (the runner parses it again).

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is neither ``local`` nor ``dask://HOST:PORT`` with a host and a port;
        the message is that of :func:`lpsched.core.runner.parse_executor`.

    Examples
    --------
    >>> executor("dask://127.0.0.1:8786")
    'dask://127.0.0.1:8786'
    """
    import argparse

    from lpsched.core.runner import parse_executor
    from lpsched.errors import LpschedError

    try:
        parse_executor(text)
    except LpschedError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_runner_options(parser: Any, out_help: str) -> None:
    """Add the options every ``lpsched reproduce`` experiment shares to its parser.

    The options of the resumable runner of :mod:`lpsched.core.runner`: ``--jobs`` (local
    worker processes), ``--executor`` (``local`` or ``dask://HOST:PORT``), ``--out`` (the
    folder of the result store and the tables; created if missing), ``--quiet`` (no
    progress bar) and ``--json`` (one JSON value on stdout).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The experiment's subparser; ``--json`` is added only when it has none yet (some
        experiments add their own first).
    out_help : str
        The help text of ``--out`` (its default is ``results``, relative to the working
        folder), naming what the experiment writes there.
    """
    parser.add_argument("--jobs", type=jobs, default=1,
                        help="local worker processes (a whole number >= 1)")
    parser.add_argument("--executor", default="local", type=executor,
                        help="'local' or 'dask://HOST:PORT'")
    parser.add_argument("--out", default="results", help=out_help)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    if not any("--json" in a.option_strings for a in parser._actions):
        parser.add_argument("--json", action="store_true",
                            help="one JSON value on stdout, the seed-vs-ours table under "
                            "'vs_seed' and printed on stderr (what every reproduction but "
                            "cbs3m prints anyway; cbs3m prints text tables without it)")


#: while ``lpsched reproduce all`` gathers the experiments' plans, the list they go to:
#: :func:`run_experiment` then appends its plan and raises :class:`PlanCollected` instead
#: of running it (``None``: run as usual)
PLANS: list[Any] | None = None


class PlanCollected(Exception):
    """Raised by :func:`run_experiment` once it has recorded its plan in :data:`PLANS`."""


def run_experiment(name: str, cells: Sequence[Any], fn: Callable[[Any], list[dict[str, Any]]],
                   folder: Path, args: Any, schema: Mapping[str, str] | None = None,
                   group: Callable[[Any], Any] | None = None,
                   cost: Callable[[Any], float] | None = None,
                   ) -> tuple[list[dict[str, Any]], int, float]:
    """Run the ``cells`` of experiment ``name`` through the resumable runner.

    The rows go to ``folder/<name>.sqlite`` (its table ``name``, typed after ``schema``
    when given: :mod:`lpsched.core.store`); the options are those of
    :func:`add_runner_options`.

    Parameters
    ----------
    name : str
        The experiment: the store's file and table, the progress label.
    cells : sequence
        The cells to compute (those already stored are skipped).
    fn : callable
        ``fn(cell)`` returns the cell's rows.
    folder : Path
        The ``--out`` folder.
    args : argparse.Namespace
        The parsed ``--jobs``, ``--executor`` and ``--quiet``.
    schema : mapping, optional
        Column types of the rows.
    group : callable, optional
        Cells with one key run together on one worker (:func:`lpsched.core.run_cells`).
    cost : callable, optional
        A cell's estimated work, so that the progress line estimates the time left by
        work instead of by cell count.

    Returns
    -------
    rows : list of dict
        The stored rows of these cells (checked against ``schema`` when given).
    computed : int
        How many cells were computed now.
    seconds : float
        The wall time of the run.
    """
    import time

    from lpsched.core import ResultStore, run_cells

    store = ResultStore(Path(folder) / f"{name}.sqlite")
    if PLANS is not None:  # `reproduce all` gathers the plans and runs them together
        from lpsched.core.runner import Plan

        PLANS.append(Plan(name, list(cells), fn, store, group, schema, cost))
        raise PlanCollected(name)
    t0 = time.perf_counter()
    ran = run_cells(name, cells, fn, store, executor=args.executor, jobs=args.jobs,
                    progress=not args.quiet, group=group, schema=schema, cost=cost)
    return store.rows_of(name, cells, schema), ran, time.perf_counter() - t0



def report_fidelity(table: Any, folder: str | Path, *, json_mode: bool = False,
                    stream: Any = None) -> Path:
    """End a ``reproduce`` run with its seed-vs-ours table (:mod:`lpsched.core.fidelity`).

    Write ``folder/<experiment>_vs_seed.csv`` atomically and print the table and its
    one-line summary, on stdout, or on stderr under ``--json`` (whose stdout must stay one
    JSON value: put ``table.to_dict()`` in it under ``"vs_seed"``).

    Parameters
    ----------
    table : FidelityTable
        The experiment's table (:class:`lpsched.core.fidelity.FidelityTable`); its
        ``experiment`` names the file.
    folder : str or Path
        The ``--out`` folder; it must exist (the experiment's store is already there).
    json_mode : bool
        Whether the command runs under ``--json``: the table then goes to stderr, so that
        stdout stays one JSON value (default ``False``: stdout).
    stream : file object, optional
        Where to print instead (a test's buffer); ``None`` (the default) picks stdout or
        stderr after ``json_mode``.

    Returns
    -------
    Path
        ``folder/<experiment>_vs_seed.csv``, the file just written (replaced when it was
        there).

    Raises
    ------
    LpschedError
        The CSV cannot be written (:func:`lpsched.cli.outputs.atomic_output`).
    """
    import sys

    from lpsched.cli.outputs import atomic_output

    path = Path(folder) / table.filename
    with atomic_output(path, "w", newline="") as fh:
        fh.write(table.csv_text())
    out = stream if stream is not None else (sys.stderr if json_mode else sys.stdout)
    print(f"\n{table.format()}\n{table.summary()} (written to {path})", file=out)
    return path


#: where the seeds' traces are looked for when ``--data`` is not given, in order
DATA_FALLBACKS = ("../shared/data", "shared/data")
DATA_HELP = ("the folder of the seeds' traces (default: $LPSCHED_DATA, else ../shared/data "
             "from the working folder)")


def data_folder(explicit: str | None) -> Path | None:
    """Return the traces folder of every ``reproduce``, or ``None`` when none exists.

    ``--data`` when given (it must be a folder), else ``$LPSCHED_DATA``, else
    ``../shared/data`` or ``shared/data`` from the working folder; absolute (cells carry
    trace paths).

    Parameters
    ----------
    explicit : str or None
        The ``--data`` option; ``None`` or ``""`` (not given) falls back to
        ``$LPSCHED_DATA`` and then to :data:`DATA_FALLBACKS`, relative to the working
        folder.

    Returns
    -------
    Path or None
        The folder, resolved to an absolute path; ``None`` when neither ``--data`` nor
        ``$LPSCHED_DATA`` is given and no fallback folder exists (the caller decides
        what that means: :func:`data_file` raises).

    Raises
    ------
    ParseError
        ``explicit`` (or ``$LPSCHED_DATA`` when set) is not a folder.
    """
    import os

    if explicit:
        if not Path(explicit).is_dir():
            raise ParseError(explicit, "--data: not a folder")
        return Path(explicit).resolve()
    env = os.environ.get("LPSCHED_DATA")
    if env:
        if not Path(env).is_dir():
            raise ParseError(env, "$LPSCHED_DATA: not a folder")
        return Path(env).resolve()
    for folder in DATA_FALLBACKS:
        if Path(folder).is_dir():
            return Path(folder).resolve()
    return None


def data_file(explicit: str | None, name: str) -> str:
    """Return the path of the trace ``name`` in :func:`data_folder`.

    A :class:`ParseError` names where it was looked for when it is not there.

    Parameters
    ----------
    explicit : str or None
        The ``--data`` option, as for :func:`data_folder`.
    name : str
        The trace's file name in that folder (e.g. ``LPC-EGEE-2004-1.2-cln.swf.gz``).

    Returns
    -------
    str
        The absolute path of the trace.

    Raises
    ------
    ParseError
        No traces folder was found, or ``name`` is not in it (the message suggests
        ``--trace FILE`` or ``--data DIR``); also as for :func:`data_folder`.
    """
    folder = data_folder(explicit)
    if folder is None or not (folder / name).exists():
        where = folder or "$LPSCHED_DATA or ../shared/data"
        raise ParseError(name, f"trace not found in {where}: give --trace FILE or --data DIR")
    return str(folder / name)
