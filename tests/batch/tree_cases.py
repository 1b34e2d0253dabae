"""The tree-allocator cases whose schedules ``tests/batch/data/tree_schedules.json`` pins.

Reduced cells of the seeds' own settings: the first 3,000 jobs of a Curie ch. 5 instance
(Table 5.2: 3 weeks, 80,640 processors on the fat tree 16,4,...; conservative, reassign,
quadratic penalty 2) under the seven allocators, a 1-week KTH instance on its tree, and the
first 2,000 jobs of LLNL Thunder, SDSC Blue and HPC2N under FCFS/EASY with basic,
contiguous and quasi-contiguous (10-40 %) at speed-ups 0 and 15 %. Each case is pinned by
a hash of every start time, end time, failure and processor id (in order). The fixture
holds the schedules of the simulator that computed every rule from the whole free mask,
which the kept per-cluster counts and installed-only runs (decisions 460-464) must give
again; ``python -m tests.batch.tree_cases --write`` writes it. The calling tests skip
without ``../shared/data``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tests.shared_data import shared_file

FIXTURE = Path(__file__).resolve().parent / "data" / "tree_schedules.json"
CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
SEED001 = ("LLNL-Thunder-2007-1.1-cln.swf.gz", "SDSC-BLUE-2000-4.1-cln.swf.gz",
           "HPC2N-2002-2.1-cln.swf.gz")
CH5_JOBS, S001_JOBS = 3000, 2000


def schedule_hash(sched: Any) -> str:
    """sha256 of start and end times (rounded to 1e-6 s), the failures and every job's
    processor ids in the order the simulator gave them."""
    h = hashlib.sha256()
    for a in (sched.start, sched.end):
        h.update(np.ascontiguousarray(np.round(a, 6), dtype="<f8").tobytes())
    h.update(np.asarray(sched.failed, bool).tobytes())
    for p in sched.procs:
        h.update(np.ascontiguousarray(p, dtype="<i8").tobytes())
        h.update(b"|")
    return h.hexdigest()


def ch5_cases() -> list[str]:
    """Names of the ch. 5 cases: ``curie/ALLOC`` and ``kth/ALLOC``."""
    from lpsched.batch.reproduce import PLATFORM_ALLOCS
    return [f"{p}/{a}" for p in ("curie", "kth") for a in PLATFORM_ALLOCS]


def s001_cases() -> list[str]:
    """Names of the seed 001 cases: ``TRACE/POLICY/ALLOC/QCT/SPEEDUP``."""
    from lpsched.batch.reproduce import TOPO_ALLOCS
    out = []
    for t in SEED001:
        for policy in ("fcfs", "easy"):
            for alloc, qct in TOPO_ALLOCS:
                for s in ((0.0,) if alloc == "basic" else (0.0, 15.0)):
                    out.append(f"{t}/{policy}/{alloc}/{qct}/{s}")
    return out


_WORK: dict[str, Any] = {}


def ch5_run(name: str) -> Any:
    """The schedule of one ch. 5 case (``platform_cell``'s call, reduced)."""
    from lpsched.batch.reproduce import (
        CH5_DEFAULTS,
        period_instance,
        platform_cells,
        subset,
    )
    from lpsched.batch.simulator import simulate_batch
    from lpsched.batch.topology import parse_topology

    plat, alloc = name.split("/")
    trace = str(shared_file(CURIE if plat == "curie" else KTH))
    if plat not in _WORK:
        cell = platform_cells(trace, instances=1)[0]
        work = period_instance(trace, 0, cell[2], cell[7], CH5_DEFAULTS["estimate"])
        if plat == "curie":
            work = subset(work, np.arange(CH5_JOBS))
        _WORK[plat] = (work, cell[3])
    work, spec = _WORK[plat]
    topo = parse_topology(spec, int(work.processors))
    sched, _ = simulate_batch(work, "conservative", alloc=alloc, topology=topo,
                              penalty=("quadratic", 2.0), compression="reassign")
    return sched


def s001_run(name: str) -> Any:
    """The schedule of one seed 001 case (``topology_cell``'s call, reduced)."""
    from lpsched.batch.reproduce import kary_for, load_trace, subset
    from lpsched.batch.simulator import simulate_batch

    trace, policy, alloc, qct, s = name.split("/")
    if trace not in _WORK:
        work = load_trace(str(shared_file(trace)), None)
        _WORK[trace] = subset(work, np.arange(S001_JOBS))
    work = _WORK[trace]
    topo = kary_for(int(work.processors or work.size.max()), 4)
    sched, _ = simulate_batch(work, policy, alloc=alloc, topology=topo, qct=int(qct),
                              speedup=float(s))
    return sched


def compute() -> dict[str, str]:
    """Every case's hash (the fixture's content)."""
    out = {n: schedule_hash(ch5_run(n)) for n in ch5_cases()}
    out.update({n: schedule_hash(s001_run(n)) for n in s001_cases()})
    return out


def present() -> None:
    """Skip the calling test unless every trace of the cases is in the shared folder."""
    for name in (CURIE, KTH, *SEED001):
        shared_file(name)


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
