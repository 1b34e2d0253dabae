"""The ``lpsched`` command: one module per family's subcommands, assembled here.

User mistakes (bad files, bad instances, bad options) print one line and exit with status 2;
a solver that cannot answer exits with status 1. No tracebacks for either.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lpsched import __version__
from lpsched.cli import approx, bags, batch
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; each family adds its own subcommands."""
    parser = argparse.ArgumentParser(
        prog="lpsched", description="Scheduling on parallel and distributed platforms with "
        "linear programming and approximation algorithms.")
    parser.add_argument("--version", action="version", version=f"lpsched {__version__}",
                        help="print the version (with --verbose: Python and dependencies)")
    parser.add_argument("--solver-log", metavar="FILE", help="append the solver's log to "
                        "FILE ('-': stderr); by default solvers print nothing")
    parser.add_argument("--verbose", action="store_true",
                        help="the solver's log on stderr (the same as --solver-log -)")
    sub = parser.add_subparsers(dest="command", required=True)

    bags.add_model_commands(sub)
    rep = sub.add_parser("reproduce", help="reproduce a seed's experiment (resumable)")
    rep_sub = rep.add_subparsers(dest="experiment", required=True)
    bags.add_reproduce(rep_sub)
    batch.add_reproduce(rep_sub)
    bags.add_output_commands(sub)
    approx.add_commands(sub)
    batch.add_commands(sub)
    bags.add_info_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--version" in argv and set(argv) <= {"--version", "--verbose"}:
        from lpsched.core.versions import versions_report

        print(versions_report() if "--verbose" in argv else f"lpsched {__version__}")
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.solver_log or args.verbose:
        from lpsched.solvers.console import STDERR, set_solver_log

        target = args.solver_log or STDERR
        if target != STDERR:
            try:
                with open(target, "a"):
                    pass
            except OSError as exc:
                print(f"lpsched: error: cannot write the solver log {target}: "
                      f"{exc.strerror}", file=sys.stderr)
                return 2
        set_solver_log(target)
    try:
        return int(args.func(args))
    except (InvalidInstanceError, ParseError) as exc:
        print(f"lpsched: error: {exc}", file=sys.stderr)
        return 2
    except LpschedError as exc:
        user = type(exc) is LpschedError
        print(f"lpsched: error: {exc}", file=sys.stderr)
        return 2 if user else 1
    except BrokenPipeError:  # e.g. `lpsched ... | head`: stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
