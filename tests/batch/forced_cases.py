"""The forced-allocation cases whose start times ``tests/batch/data/forced_starts.json`` pins:
conservative backfilling with ``cont-ff`` / ``loc`` (and ``basic`` as a control) on
512-processor CEA-Curie instances (ch. 4's offline draw and an online window) and on
KTH-SP2 (100 processors, clusters of 10), online and offline, under the three
fixed-reservation compressions. The fixture holds the start times of the pass that
searches the plan for every waiting job (with decision 265's re-plan from the next end);
the pass that takes only the turns that can change the plan (decision 266) must give them
again. ``python -m tests.batch.forced_cases --write`` writes it."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from tests.shared_data import shared_file

FIXTURE = Path(__file__).resolve().parent / "data" / "forced_starts.json"
CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
COMPRESSIONS = ("textbook", "reassign", "none")
ALLOCS = ("basic", "cont-ff", "loc")


def start_hash(start: np.ndarray) -> str:
    """sha256 of the start times rounded to 1e-6 s (little-endian float64)."""
    rounded = np.ascontiguousarray(np.round(start, 6), dtype="<f8")
    return hashlib.sha256(rounded.tobytes()).hexdigest()


def instances() -> dict[str, tuple[object, int]]:
    """name -> (workload, cluster size); the calling test is skipped when a trace is absent."""
    from lpsched.batch.reproduce import contiguity_instance
    from lpsched.core.swf import read_swf, to_workload

    out: dict[str, tuple[object, int]] = {}
    for seed in (0, 3):
        out[f"curie-offline-{seed}"] = (contiguity_instance(str(shared_file(CURIE)), seed,
                                                            300, 512), 16)
    curie = to_workload(read_swf(shared_file(CURIE)), processors=512)
    keep = slice(5000, 5400)
    sub = curie.submit[keep]
    out["curie-online-5000"] = (replace(curie, job=curie.job[keep], submit=sub - sub.min(),
                                        run=curie.run[keep], size=curie.size[keep],
                                        estimate=curie.estimate[keep]), 16)
    kth = to_workload(read_swf(shared_file(KTH)))
    keep = slice(0, 300)
    online = replace(kth, job=kth.job[keep], submit=kth.submit[keep], run=kth.run[keep],
                     size=kth.size[keep], estimate=kth.estimate[keep])
    out["kth-online-300"] = (online, 10)
    out["kth-offline-300"] = (replace(online, submit=np.zeros(300)), 10)
    return out


def run_case(work: object, cluster: int, alloc: str, compression: str) -> np.ndarray:
    from lpsched.batch.simulator import simulate_batch, validate_batch

    sched, _ = simulate_batch(work, "conservative", alloc=alloc,  # type: ignore[arg-type]
                              cluster_size=cluster, compression=compression)
    validate_batch(work, sched, int(work.processors), cluster_size=cluster,  # type: ignore
                   forced=alloc)
    return sched.start


def compute() -> dict[str, str]:
    out = {}
    for name, (work, cluster) in instances().items():
        for alloc in ALLOCS:
            for comp in COMPRESSIONS:
                out[f"{name}/{alloc}/{comp}"] = start_hash(run_case(work, cluster, alloc,
                                                                    comp))
    return out


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
