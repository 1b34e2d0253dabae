"""How many of a folder's Batsim workloads ``lpsched batch`` runs, and why the others do not.

Usage::

    python benchmarks/bench_batsim_workloads.py FOLDER [--platform FILE] [--lenient]

Every ``FOLDER/**/*.json`` is read with :func:`lpsched.batch.batsim.load_jobs` and, when it
reads, simulated with EASY backfilling on its ``nb_res`` (or the platform's compute hosts,
:func:`lpsched.batch.batsim.read_platform`). One line per workload (``run``, or the first
error line), then the counts. The workloads are not in the repository: fetch Batsim
(github.com/oar-team/batsim, ``workloads/``). Decisions 365-369 say how each profile type
is read.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from lpsched.batch.batsim import load_jobs
from lpsched.batch.simulator import simulate_batch, validate_batch
from lpsched.errors import LpschedError


def run_one(path: Path, platform: str | None, lenient: bool) -> tuple[str, str]:
    """Read and simulate one workload.

    Parameters
    ----------
    path : Path
        A Batsim workload (``.json``).
    platform : str, optional
        A platform file (``--platform``).
    lenient : bool
        Skip the malformed jobs and the profile types not simulated.

    Returns
    -------
    tuple of (str, str)
        ``("run", summary)`` or ``("refused", the error line)``.
    """
    try:
        loaded = load_jobs(path, lenient=lenient, platform=platform)
        work = loaded.work.require_jobs()
        if work.processors is None:
            return "refused", "nb_res is missing (and no --platform)"
        sched, _ = simulate_batch(work, "easy")
        validate_batch(work, sched, int(work.processors))
    except LpschedError as exc:
        return "refused", str(exc).splitlines()[0]
    dropped = sum(work.dropped.values())
    return "run", (f"{work.jobs} jobs run, {dropped} dropped of {work.records} "
                   f"{dict(work.dropped) if dropped else ''}"
                   + (f" approximated {loaded.approximated}" if loaded.approximated else ""))


def main(argv: list[str] | None = None) -> int:
    """Report every workload of the folder and the counts.

    Parameters
    ----------
    argv : list of str, optional
        The command line (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status, 0.
    """
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--platform", default=None)
    parser.add_argument("--lenient", action="store_true")
    args = parser.parse_args(argv)
    files = sorted(Path(args.folder).glob("**/*.json"))
    counts: Counter[str] = Counter()
    why: Counter[str] = Counter()
    for path in files:
        status, text = run_one(path, args.platform, args.lenient)
        counts[status] += 1
        if status == "refused":
            why[_kind(text)] += 1
        print(f"{status:8s} {path.relative_to(args.folder)}: {text}")
    print(f"\n{counts['run']} of {len(files)} run; refused: {dict(why) or 0}")
    return 0


def _kind(text: str) -> str:
    """A refusal's class, for the counts."""
    for key, label in (("does not simulate", "profile type not simulated"),
                       ("describes", "profile size is not res"),
                       ("id must be", "job id"), ("no job", "no job left")):
        if key in text:
            return label
    return "other"


if __name__ == "__main__":
    sys.exit(main())
