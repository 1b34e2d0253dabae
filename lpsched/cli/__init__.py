"""The ``lpsched`` command: one module per family's subcommands, assembled here.

A command line that names one command builds only that family's commands (:data:`COMMANDS`,
:func:`parse_command_line`: ``lpsched batch`` imports neither the other families' command
modules nor what they import, which keeps its start-up short); so does ``reproduce
<experiment>`` (:data:`EXPERIMENTS`: only its family's ``reproduce`` experiments, decision
690); ``--help``, ``reproduce --help``, ``reproduce all`` and every usage error are read by
the whole parser (:func:`build_parser`), so what a user sees is the same either way
(decision 434).

Exit status and what reaches stderr (:func:`main`):

* ``0`` success; ``1`` a solver that cannot answer, a violated guarantee or a failed check;
  ``2`` bad input: a bad file, instance, option or result store
  (:class:`~lpsched.errors.InvalidInstanceError`, :class:`~lpsched.errors.ParseError` and
  its :class:`~lpsched.errors.StoreError`, a plain :class:`~lpsched.errors.LpschedError`),
  and the Python errors that only bad input causes once inside a command: a
  ``RecursionError`` (nesting too deep), ``UnicodeDecodeError`` (a file that is not UTF-8),
  ``OverflowError`` (a number outside the float range), ``MemoryError`` (an input too
  large) and ``OSError`` (a file that cannot be read or written). An output that cannot
  be written (a full disk or ``/dev/full``, a file size limit, a symbolic link that loops:
  :mod:`lpsched.cli.outputs`) is ``2`` whichever command and writer met it, and so is a
  JSON input larger than ``$LPSCHED_MAX_JSON_BYTES`` (:mod:`lpsched.core.inputs`).
* ``3`` an internal error: any other exception is a bug of lpsched, not the user's
  mistake. It prints ``lpsched: internal error: <type>: <message> (please report ...)``
  rather than a traceback, so it is never mistaken for bad input (2) nor hidden; set
  ``LPSCHED_DEBUG=1`` to get the full traceback instead.
* ``130`` interrupted (Ctrl-C): ``lpsched: interrupted``; ``143`` terminated (``SIGTERM``,
  turned into an exception so the command unwinds): ``lpsched: terminated``. Either way no
  temporary output file is left behind and the old file is kept.
* ``141`` standard output closed by its reader (``lpsched ... | head -1``, also for
  ``--help`` and ``--version``): the command stops at once, prints nothing more, never a
  traceback; 141 is what a shell reports for a command that a closed pipe stops (128 +
  ``SIGPIPE``), so ``set -o pipefail`` scripts see that the output was cut. Files the
  command had still to write are not written.

Every exception that ends a command prints exactly one line on stderr (``lpsched: error:
...``, the internal-error line or ``lpsched: interrupted``), never a traceback; a usage
error (an unknown option, a value of the wrong type) is one line too, ending with the
``--help`` to read (exit 2).

Warnings (numpy ``RuntimeWarning`` such as overflow, scipy, lpsched's own
:class:`~lpsched.errors.LpschedWarning`, anything issued through :mod:`warnings` while a
command runs, also in ``reproduce``'s worker processes) are captured, never printed as they
happen. After a command that exits with 0 they are summed up on stderr (also after
``--json``: stdout stays one JSON value), each different warning (category and message) in
full, once, with its count:

* when every warning says the same, one line: ``lpsched: note: 12 numerical warnings
  (first: overflow encountered in multiply)``;
* otherwise a line counting them all, then one line per different warning, in the order
  first met::

      lpsched: note: 3 warnings:
      lpsched: note: - t.swf: header MaxProcs given again with another value (...) (2 times)
      lpsched: note: - overflow encountered in multiply

  at most :data:`SHOWN_WARNINGS` different ones (a flood of distinct messages ends with one
  line counting the rest), each message on one line, cut only beyond
  :data:`WARNING_CHARS` characters. A warning of a worker process counts once per batch of
  cells it occurred in.

After any other exit status only the error line is printed. Running Python with explicit
warning options (``-W ...`` or ``PYTHONWARNINGS``) turns the capture off, so those options
keep their meaning.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from importlib import import_module
from typing import Any, NoReturn

from lpsched import __version__
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError

#: exit status of an unexpected exception (a bug), distinct from bad input (2)
INTERNAL_ERROR = 3


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (exit 2) in the form of every other error of
    the command, the option first: ``lpsched: error: --time-limit invalid float value:
    'abc' (see lpsched solve --help for usage)``. Subcommand parsers are made of the same
    class."""

    def error(self, message: str) -> NoReturn:
        text = _one_line(message)
        named = re.match(r"argument (\S+): (.*)", text)
        if named:
            text = f"{named.group(1)} {named.group(2)}"
        self.exit(2, f"lpsched: error: {text} (see {self.prog} --help for usage)\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        """argparse's, without its silence on a failed write: help into a closed pipe
        ends as every other output does (:func:`main`: exit 141)."""
        if message:
            (file or sys.stderr).write(message)


def _root(cls: type[_Parser]) -> tuple[_Parser, Any]:
    """The ``lpsched`` parser without its subcommands (the global options) and the action
    the subcommands are added to."""
    from lpsched.core.inputs import MAX_JSON_BYTES, MAX_JSON_ENV

    parser = cls(
        prog="lpsched", description="Scheduling on parallel and distributed platforms with "
        "linear programming and approximation algorithms.",
        epilog="Inputs may be pipes or FIFOs (lpsched swf-info <(zcat t.swf.gz), "
        f"/dev/stdin). A JSON input is read whole: one larger than {MAX_JSON_BYTES:,} bytes "
        f"(256 MiB) is refused before it is read, exit 2; the environment variable "
        f"{MAX_JSON_ENV} sets another limit, in bytes. Exit status: 0 success, 1 a solver "
        "that cannot answer or a failed check, 2 bad input or an output that cannot be "
        "written, 3 an internal error, 130 interrupted, 141 standard output closed by its "
        "reader (| head), 143 terminated (SIGTERM).")
    parser.add_argument("--version", action="version", version=f"lpsched {__version__}",
                        help="print the version (with --verbose: Python and dependencies)")
    parser.add_argument("--solver-log", metavar="FILE", help="append the solver's log to "
                        "FILE ('-': stderr); by default solvers print nothing")
    parser.add_argument("--verbose", action="store_true",
                        help="the solver's log on stderr (the same as --solver-log -)")
    return parser, parser.add_subparsers(dest="command", required=True)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Build the whole ``lpsched`` parser; each family adds its own subcommands.

    Given the command line ``argv``, the ``ptg`` subcommands are only built when it names
    ``ptg`` (their option choices import networkx; ``lpsched --help`` lists ``ptg`` all the
    same).

    Parameters
    ----------
    argv : sequence of str, optional
        The command line to be parsed, without the program name; only used to decide
        whether the ``ptg`` subcommands are built in full (when it contains ``ptg``).
        ``None`` (the default) builds them all, as the documentation does.

    Returns
    -------
    argparse.ArgumentParser
        The ``lpsched`` parser (usage errors on one line, exit 2): global options
        ``--version``, ``--solver-log`` and ``--verbose``, a required subcommand, and
        under ``reproduce`` one subcommand per experiment; each subcommand's parsed
        arguments carry ``func``, the function that runs it.
    """
    parser, sub = _root(_Parser)

    from lpsched.cli import approx, bags, batch, campaigns, ptg, report, reproduce_all, tasks

    bags.add_model_commands(sub)
    rep_sub = _reproduce(sub)
    bags.add_reproduce(rep_sub)
    batch.add_reproduce(rep_sub)
    tasks.add_reproduce(rep_sub)
    campaigns.add_reproduce(rep_sub)
    ptg.add_reproduce(rep_sub)
    reproduce_all.add_reproduce(rep_sub)
    bags.add_output_commands(sub)
    approx.add_commands(sub)
    batch.add_commands(sub)
    tasks.add_commands(sub)
    campaigns.add_commands(sub)
    ptg.add_commands(sub, full=argv is None or "ptg" in argv)
    report.add_commands(sub)
    bags.add_info_commands(sub)
    from lpsched.cli.reference import complete_help

    complete_help(parser)
    return parser


def _reproduce(sub: Any) -> Any:
    """Add the ``reproduce`` command to the top-level subparsers ``sub``; returns the
    subparsers its experiments are added to."""
    rep = sub.add_parser("reproduce", help="reproduce a seed's experiment (resumable)")
    return rep.add_subparsers(dest="experiment", required=True)


#: ``reproduce`` experiment -> the family module of ``lpsched.cli`` whose ``add_reproduce``
#: adds it (with its family's other experiments): ``reproduce <experiment>`` builds only
#: that family's (decision 690); ``reproduce all`` and the rest are read by the whole parser
#: (tests/cli/test_reproduce_startup.py checks this table against it)
EXPERIMENTS = {"cbs3m": "bags", "contiguity": "batch", "platform-level": "batch",
               "topology-aware": "batch", "redirection": "tasks", "faircamp": "campaigns",
               "ostrich": "campaigns", "ptg": "ptg"}


#: top-level command -> (family module of ``lpsched.cli``, the function of it that adds
#: the command), in ``lpsched --help``'s order; ``reproduce`` is built by
#: :func:`build_parser` alone (tests/cli/test_startup.py checks this table against it)
COMMANDS = {
    **dict.fromkeys(("generate", "solve", "throughput", "check", "simulate"),
                    ("bags", "add_model_commands")),
    **dict.fromkeys(("plot", "schedule", "export"), ("bags", "add_output_commands")),
    **dict.fromkeys(("approx", "check-ratios"), ("approx", "add_commands")),
    **dict.fromkeys(("swf-info", "batch", "convert"), ("batch", "add_commands")),
    **dict.fromkeys(("tasks", "online"), ("tasks", "add_commands")),
    "campaigns": ("campaigns", "add_commands"),
    "ptg": ("ptg", "add_commands"),
    "report": ("report", "add_commands"),
    **dict.fromkeys(("policies", "demo"), ("bags", "add_info_commands")),
}


class _Reduced(_Parser):
    """The parser of one command (:func:`_command_parser`): a usage error raises
    :class:`_Retry` instead of printing, so that the whole parser reports it."""

    def error(self, message: str) -> NoReturn:
        raise _Retry(message)


class _Retry(Exception):
    """A usage error in the one-command parser: parse again with the whole one."""


def _command_words(argv: Sequence[str]) -> list[str]:
    """``argv`` from its first word that is not a global option: the words before it are
    only ``--verbose``, ``--solver-log FILE`` or ``--solver-log=FILE`` (spelt in full);
    ``[]`` when there is no such word (``--solver-log`` without its file, no command)."""
    k = 0
    while k < len(argv):
        word = argv[k]
        if word == "--solver-log":
            k += 2
        elif word == "--verbose" or word.startswith("--solver-log="):
            k += 1
        else:
            return list(argv[k:])
    return []


def _command_name(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names when the words before it are only ``--verbose``,
    ``--solver-log FILE`` or ``--solver-log=FILE`` (spelt in full) and it is one of
    :data:`COMMANDS`; ``None`` otherwise (any other line, an abbreviated or unknown option
    first, ``--help``, ``reproduce``: the whole parser reads it)."""
    words = _command_words(argv)
    return words[0] if words and words[0] in COMMANDS else None


def _experiment_name(argv: Sequence[str]) -> str | None:
    """The experiment of a ``reproduce <experiment>`` line, one of :data:`EXPERIMENTS`,
    global options before ``reproduce`` read as :func:`_command_name` reads them; ``None``
    for any other line (``reproduce --help``, ``reproduce all``, an unknown experiment)."""
    words = _command_words(argv)
    if len(words) >= 2 and words[0] == "reproduce" and words[1] in EXPERIMENTS:
        return words[1]
    return None


def _command_parser(argv: Sequence[str]) -> argparse.ArgumentParser | None:
    """The parser of the one command ``argv`` names (its family's module alone is imported,
    for a short start-up), the same global options and the same subparser, options and help
    as :func:`build_parser`'s; for ``reproduce <experiment>``, the ``reproduce`` command
    with only the experiments of that experiment's family (:data:`EXPERIMENTS`); ``None``
    when ``argv`` names neither a command of :data:`COMMANDS` nor such an experiment."""
    name = _command_name(argv)
    experiment = None if name is not None else _experiment_name(argv)
    if experiment is not None:
        parser, sub = _root(_Reduced)
        import_module(f"lpsched.cli.{EXPERIMENTS[experiment]}").add_reproduce(_reproduce(sub))
        from lpsched.cli.reference import complete_help

        complete_help(parser)
        return parser
    if name is None:
        return None
    module, adder = COMMANDS[name]
    parser, sub = _root(_Reduced)
    add = getattr(import_module(f"lpsched.cli.{module}"), adder)
    if module == "ptg":
        add(sub, full=True)
    else:
        add(sub)
    from lpsched.cli.reference import complete_help

    complete_help(parser)
    return parser


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv`` as :func:`build_parser`'s parser does, building only the parser of the
    command it names.

    The other families' modules are not imported; a usage error, ``--help`` and every
    other line go to the whole parser, so their output is the same.

    Parameters
    ----------
    argv : sequence of str
        The arguments, without the program name.

    Returns
    -------
    argparse.Namespace
        The parsed arguments, ``func`` the function that runs the command.

    Raises
    ------
    SystemExit
        From ``argparse``: ``--help`` (status 0), ``--version``, a usage error (status 2,
        its one line printed by the whole parser).

    Notes
    -----
    Decision 434: ``lpsched batch`` imports neither the other families' command modules nor
    what they import.
    """
    parser = _command_parser(argv)
    if parser is not None:
        try:
            return parser.parse_args(argv)
        except _Retry:
            pass
    return build_parser(argv).parse_args(argv)


def __getattr__(name: str) -> Any:
    """The family modules (``lpsched.cli.batch``...) as attributes, imported on first use
    (PEP 562): the CLI imports only the module of the command it runs."""
    if name in {module for module, _ in COMMANDS.values()} | {"common", "outputs",
                                                                "reference"}:
        return import_module(f"lpsched.cli.{name}")
    raise AttributeError(f"module 'lpsched.cli' has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """The ``lpsched`` command: parse ``argv`` (default ``sys.argv[1:]``), run the
    subcommand and return its exit status (module doc: 0, 1, 2, 3, 130, 141 or 143).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments, without the program name (``["solve", "inst.json"]``); ``None``
        (the default) reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 success, 1 a solver that cannot answer or a failed check, 2
        bad input or an output that cannot be written, 3 an internal error, 130
        interrupted, 141 standard output closed by its reader, 143 terminated
        (``SIGTERM``); every error has printed its one line on stderr.

    Raises
    ------
    SystemExit
        From ``argparse``: ``--help`` (status 0) and a usage error (status 2, its one
        line already printed); also ``--version`` when given with other arguments.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    _one_blas_thread()
    previous = _terminate_on_sigterm()
    try:
        try:
            code = _main(argv)
        except SystemExit:  # --help, a usage error: what argparse printed must go out
            _flush_stdout()
            raise
        _flush_stdout()
        return code
    except BrokenPipeError:  # e.g. `lpsched ... | head`: stop at once, quietly
        return _stdout_closed()
    except KeyboardInterrupt:  # outside a command (while parsing, importing)
        return _fail("interrupted", 130)
    except _Terminated:
        return _fail("terminated", TERMINATED)
    finally:
        outputs = sys.modules.get("lpsched.cli.outputs")
        if outputs is not None:  # the temporaries of a write an exception interrupted
            outputs.remove_temporaries()
        _restore_sigterm(previous)


#: the compiled modules (optional at install, each with its Python loop as the reference),
#: as ``--version --verbose`` names them: the FCFS/EASY kernel first (decision 443)
COMPILED = (("lpsched-batch-kernel", "lpsched.batch._line_c"),
            ("lpsched-batch-mask", "lpsched.batch._mask_c"),
            ("lpsched-batch-plan", "lpsched.batch._plan_c"),
            ("lpsched-batch-jobs-csv", "lpsched.batch._rows_c"),
            ("lpsched-tasks-simulator", "lpsched.tasks._online_c"),
            ("lpsched-tasks-max-flow", "lpsched.tasks._flow_c"),
            ("lpsched-ptg-hcpa", "lpsched.ptg._hcpa_c"),
            ("lpsched-ptg-backfill", "lpsched.ptg._backfill_c"),
            ("lpsched-swf-parse", "lpsched.core._swf_c"))


def _kernels_report() -> str:
    """One line per compiled module: ``compiled``, or ``python`` and why (the extension not
    built, or ``LPSCHED_PURE_PYTHON`` set)."""
    import importlib

    from lpsched.core.kernels import kernel_state

    lines = []
    for label, name in COMPILED:
        try:
            module = importlib.import_module(name)
        except ImportError:
            module = None
        lines.append(f"{label} {kernel_state(module, name)}")
    return "\n".join(lines)


def _main(argv: list[str]) -> int:
    """:func:`main` once the process is set up: ``--version``, or parse and run."""
    if "--version" in argv and set(argv) <= {"--version", "--verbose"}:
        from lpsched.core.versions import versions_report

        if "--verbose" not in argv:
            print(f"lpsched {__version__}")
            return 0
        print(versions_report() + "\n" + _kernels_report())
        return 0
    args = parse_command_line(argv)
    if args.solver_log or args.verbose:
        code = _solver_log(args)
        if code:
            return code
    summary = _WarningSummary()
    with summary.capture():
        code = _run(args.func, args)
    if code == 0 and summary.count and not sys.stderr.closed:
        print("\n".join(summary.lines()), file=sys.stderr)
    return code


def _solver_log(args: argparse.Namespace) -> int:
    """Send the solver's log where ``--solver-log`` / ``--verbose`` say; 2 (its error line
    printed) when the log file cannot be written, else 0."""
    from lpsched.solvers.console import STDERR, set_solver_log

    target = args.solver_log or STDERR
    if target != STDERR:
        try:
            _check_solver_log(target, args)
        except LpschedError as exc:
            return _fail(f"error: {exc}", 2)
        try:
            with open(target, "a"):
                pass
        except OSError as exc:
            return _fail(f"error: cannot write the solver log {target}: {exc.strerror}", 2)
    set_solver_log(target)
    return 0


#: exit status after ``SIGTERM`` (128 + 15, what a shell reports for a terminated command)
TERMINATED = 143
#: exit status when standard output's reader went away (128 + 13, ``SIGPIPE``)
STDOUT_CLOSED = 141


class _Terminated(BaseException):
    """Raised by the ``SIGTERM`` handler of :func:`main`: like ``KeyboardInterrupt``, it
    unwinds the command, so every ``finally`` and context manager runs (a temporary
    output file is removed), and no ``except Exception`` of a command can swallow it."""


def _terminate_on_sigterm() -> Any:
    """Turn ``SIGTERM`` into :class:`_Terminated` in this process (a worker process forked
    from it dies of the signal, as by default); returns the previous handler (``None``: not
    installed, off the main thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    pid = os.getpid()

    def on_sigterm(signum: int, frame: Any) -> None:
        if os.getpid() != pid:  # a forked worker: die of the signal, as by default
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise _Terminated

    return signal.signal(signal.SIGTERM, on_sigterm)


def _restore_sigterm(previous: Any) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _flush_stdout() -> None:
    """Flush stdout inside :func:`main`, so that a closed pipe is met here (exit 141)
    rather than at the interpreter's exit (a message ``Exception ignored ...``)."""
    if not sys.stdout.closed:
        sys.stdout.flush()


def _stdout_closed() -> int:
    """The reader of stdout went away: point stdout at ``/dev/null`` (what is still buffered
    is dropped there, not reported at exit) and return :data:`STDOUT_CLOSED`."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return STDOUT_CLOSED


#: the BLAS libraries numpy may load and the variable each reads for its thread count
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: every variable by which a user may set BLAS threads (OpenBLAS also reads
#: ``GOTO_NUM_THREADS`` and ``OMP_NUM_THREADS``, MKL ``OMP_NUM_THREADS``): when any is set,
#: the CLI sets none (the user's choice stands)
USER_THREADS = (*BLAS_THREADS, "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread() -> None:
    """One BLAS thread unless the user chose otherwise (decision 436): OpenBLAS starts a
    thread per core when numpy is imported, 0.03 s of CPU for every command on this
    2-core machine, and no command of lpsched multiplies matrices large enough to use
    them. Only before numpy is imported (a command line, not a library caller that has
    loaded it already); when the user set any of :data:`USER_THREADS`, nothing is set."""
    if "numpy" not in sys.modules and not any(name in os.environ for name in USER_THREADS):
        for name in BLAS_THREADS:
            os.environ[name] = "1"


def _check_solver_log(target: str, args: argparse.Namespace) -> None:
    """Refuse a ``--solver-log`` file that is one of the files the command names (an input
    the log would be appended to, or an output that would replace the log): every string
    argument is compared as a path (:func:`lpsched.cli.outputs.check_not_input`)."""
    from lpsched.cli.outputs import check_not_input

    named: list[str] = []
    for dest, value in vars(args).items():
        if dest in ("solver_log", "func"):
            continue
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, (str, os.PathLike)) and str(v) not in ("", "-"):
                named.append(str(v))
    check_not_input(target, "--solver-log", named)


def _run(func: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run one command; every exception becomes one stderr line and an exit status."""
    try:
        return int(func(args))
    except (InvalidInstanceError, ParseError) as exc:
        return _fail(f"error: {exc}", 2)
    except LpschedError as exc:
        return _fail(f"error: {exc}", 2 if type(exc) is LpschedError else 1)
    except BrokenPipeError as exc:
        if exc.filename is not None:  # a file or FIFO the command writes, not stdout
            return _fail(f"error: {_bad_input(exc)}", 2)
        raise  # stdout closed: main() stops quietly (exit 141)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except _Terminated:
        return _fail("terminated", TERMINATED)
    except (RecursionError, UnicodeDecodeError, OverflowError, MemoryError, OSError) as exc:
        return _fail(f"error: {_bad_input(exc)}", 2)
    except Exception as exc:  # a bug: one line, a distinct status, the traceback on demand
        if os.environ.get("LPSCHED_DEBUG", "") not in ("", "0"):
            raise
        return _fail(f"internal error: {type(exc).__name__}: {_one_line(str(exc))} (please "
                     "report it; LPSCHED_DEBUG=1 shows the traceback)", INTERNAL_ERROR)


def _fail(message: str, code: int) -> int:
    print(f"lpsched: {message}", file=sys.stderr)
    return code


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bad_input(exc: BaseException) -> str:
    """The line for a Python error that bad input causes (module doc)."""
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return (f"an input file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                f"offset {exc.start})" if exc.start < len(exc.object) else
                "an input file is not UTF-8 text")
    if isinstance(exc, OverflowError):
        return f"a number is outside the float range ({_one_line(str(exc))})"
    if isinstance(exc, MemoryError):
        return "out of memory: the input is too large"
    assert isinstance(exc, OSError)
    what = exc.strerror or _one_line(str(exc)) or type(exc).__name__
    return f"{exc.filename}: {what}" if exc.filename is not None else what


#: the different warnings a command's summary prints in full; further ones are counted
SHOWN_WARNINGS = 10
#: the longest warning message printed (characters): a bound for the values of a hostile
#: file that a message quotes, far above any message lpsched or its libraries write
WARNING_CHARS = 2000


class _WarningSummary:
    """The warnings issued while a command runs (module doc): how many, whether all are
    numerical (``RuntimeWarning``), and each different one (category and message) with its
    count, the first :data:`SHOWN_WARNINGS` of them; the others are only counted."""

    def __init__(self) -> None:
        self.count = 0
        self.numerical = True
        self.kept: dict[tuple[type[Warning], str], int] = {}
        self.rest = 0

    @contextlib.contextmanager
    def capture(self) -> Iterator[None]:
        with warnings.catch_warnings():
            if not sys.warnoptions:
                warnings.simplefilter("always")
                warnings.showwarning = self.record
            yield

    def record(self, message: Any, category: type[Warning], filename: str, lineno: int,
               file: Any = None, line: Any = None) -> None:
        self.count += 1
        self.numerical &= issubclass(category, RuntimeWarning)
        key = (category, _one_line(str(message), WARNING_CHARS) or category.__name__)
        if key in self.kept:
            self.kept[key] += 1
        elif len(self.kept) < SHOWN_WARNINGS:
            self.kept[key] = 1
        else:
            self.rest += 1

    def lines(self) -> list[str]:
        """The summary: one line when every warning says the same, else a line per
        different warning after a first line that counts them all."""
        kind = "numerical warning" if self.numerical else "warning"
        plural = "" if self.count == 1 else "s"
        if len(self.kept) == 1 and not self.rest:
            text = next(iter(self.kept))[1]
            return [f"lpsched: note: {self.count} {kind}{plural} (first: {text})"]
        lines = [f"lpsched: note: {self.count} {kind}{plural}:"]
        lines += [f"lpsched: note: - {text}" + (f" ({n} times)" if n > 1 else "")
                  for (_, text), n in self.kept.items()]
        if self.rest:
            lines.append(f"lpsched: note: - and {self.rest} more, of other kinds (the first "
                         f"{SHOWN_WARNINGS} different warnings are shown)")
        return lines


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
