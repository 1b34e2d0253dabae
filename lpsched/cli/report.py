"""``lpsched report``: one reproduction report per seed from the result stores of any run.

Each store is a ``<experiment>.sqlite`` that ``lpsched reproduce <experiment> --out DIR``
wrote (any number of them, one per experiment, at any run size); the pages
(``seed000.html`` ... ``seed004.html``, the same as Markdown, and ``index.html``) and the
figures they show (``seed<NNN>/*.png``) are written to ``--out``
(:func:`lpsched.report.build_report`). Each page opens with its tally: the validation rows
per verdict at the size run, calibration rows apart.
"""

from __future__ import annotations

import argparse
from typing import Any

from lpsched.cli.common import dump_json

__all__ = ["add_commands"]


def _cmd_report(args: argparse.Namespace) -> int:
    from lpsched.cli.outputs import check_output_folder
    from lpsched.report import build_report
    from lpsched.report.page import TALLY

    folder = check_output_folder(args.out, "--out")
    report = build_report(args.stores, folder)
    if args.json:
        print(dump_json({"pages": [str(p) for p in report.pages],
                         "tallies": report.tallies}))
        return 0
    print("seed  " + "  ".join(TALLY))
    for seed, counts in report.tallies.items():
        print(f"{seed}   " + "  ".join(str(counts[k]).rjust(len(k)) for k in TALLY))
    print(f"pages in {folder}: " + ", ".join(p.name for p in report.pages
                                             if p.suffix == ".html"))
    return 0


def add_commands(sub: Any) -> None:
    """Add ``lpsched report`` to the command line.

    Parameters
    ----------
    sub : argparse subparsers action
        The ``lpsched`` command's subcommands.
    """
    rep = sub.add_parser("report", help="one reproduction report per seed (HTML and "
                         "Markdown) from the stores of any reproductions run")
    rep.add_argument("stores", nargs="+", metavar="STORE",
                     help="result stores written by lpsched reproduce (<experiment>.sqlite)")
    rep.add_argument("--out", required=True, help="folder of the pages and their figures "
                     "(created if missing)")
    rep.add_argument("--json", action="store_true", help="one JSON value on stdout: the "
                     "pages written and each seed's tally")
    rep.set_defaults(func=_cmd_report)
