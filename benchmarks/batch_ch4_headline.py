"""Seed 000 ch. 4's forced contiguous headline, "under two percents of difference in
average" [000 L2950–L2951], against each parameter that moves it: a calibration finding,
no new fitting (decision 524).

    python benchmarks/batch_ch4_headline.py [--instances 64] [--only jobs,machine]

Each sweep moves ONE parameter from the reproduction's setting (300 Curie jobs drawn at
random, all at 0, estimates = real run times, 512 processors, conservative backfilling
with the seed's reassignment, the count-profile planner, every status kept) and prints
the mean makespan deviation of forced contiguous (``cont-ff``, Algorithm 3) from basic,
with its standard error over the instances (seeds 0 .. n − 1, the same instances for
every value): which value, if any, brings it under 2 %, and the text's word on that
parameter:

* ``jobs`` — jobs per instance (stated: 300 [L2906]; "instances for higher number of jobs
  lead to similar results" [L2907]);
* ``machine`` — processors (stated: 512, "the worst performances for our algorithms"
  among 64–1000 [L2896–L2898]);
* ``planner`` — how conservative backfilling plans: counts on a profile (lpsched's
  default) or Algorithm 1's time slices of processor sets [L2759–L2786] (decision 274 (h));
* ``status`` — which jobs the trace keeps (unstated for ch. 4 [L2903–L2906]);
* ``estimates`` — what the scheduler plans with (stated: real run times [L2881]);
* ``trace`` — CEA-Curie (presented), METACENTRUM and RICC ("very similar results"
  [L2929–L2931]).

A reduced run (64 instances of the seed's 512 by default), said in every line printed.
Needs ../shared/data.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch.allocation import slice_plan
from lpsched.batch.reproduce import load_trace, subset
from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.simulator import simulate_batch
from lpsched.core.fidelity import mean_and_se

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TRACES = {"curie": "CEA-Curie-2011-2.1-cln.swf.gz", "metacentrum": "METACENTRUM-2009-2.swf.gz",
          "ricc": "RICC-2010-2.swf.gz"}
BASE = {"jobs": 300, "machine": 512, "planner": "profile", "status": None,
        "estimates": "runtime", "trace": "curie"}
SWEEPS: dict[str, tuple[object, ...]] = {
    "jobs": (100, 200, 300, 500, 1000),
    "machine": (64, 128, 256, 512, 1000),
    "planner": ("profile", "slices"),
    "status": (None, "completed"),
    "estimates": ("runtime", "requested"),
    "trace": ("curie", "metacentrum", "ricc"),
}


def makespan(setting: dict, seed: int, alloc: str) -> float:
    """The makespan of one instance under one allocator.

    Parameters
    ----------
    setting : dict
        :data:`BASE` with one parameter moved.
    seed : int
        The instance's seed (the draw of its jobs).
    alloc : str
        ``basic`` or ``cont-ff``.

    Returns
    -------
    float
        The time the last job ends (s).
    """
    m = int(setting["machine"])
    estimate = "runtime" if setting["estimates"] == "runtime" else "requested"
    work = load_trace(str(DATA / TRACES[str(setting["trace"])]), setting["status"], estimate)
    fit = np.flatnonzero(work.size <= m)
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(fit, size=min(int(setting["jobs"]), fit.size), replace=False))
    inst = replace(subset(work, keep, offline=True), processors=m)
    if setting["planner"] == "slices":
        start, procs = slice_plan(inst.run, inst.size, m, alloc, 16)
        sched = BatchSchedule(start=start, end=start + inst.run, procs=procs)
    else:
        sched, _ = simulate_batch(inst, "conservative", alloc=alloc, cluster_size=16,
                                  compression="reassign")
    return float(sched.end.max())


def sweep(name: str, instances: int) -> None:
    """Print forced contiguous's mean deviation for each value of one parameter.

    Parameters
    ----------
    name : str
        A key of :data:`SWEEPS`.
    instances : int
        Instances per value.
    """
    for value in SWEEPS[name]:
        setting = {**BASE, name: value}
        if name == "trace" and not (DATA / TRACES[str(value)]).exists():
            print(f"{name}={value}: trace not in {DATA}", flush=True)
            continue
        t0 = time.perf_counter()
        dev = [100 * (makespan(setting, s, "cont-ff") / makespan(setting, s, "basic") - 1)
               for s in range(instances)]
        mean, se = mean_and_se(dev)
        within = 100 * float(np.mean(np.abs(dev) < 2))
        print(f"{name}={value}: forced contiguous {mean:+.2f} % ± {se or 0:.2f} (SE) over "
              f"{instances} of the seed's 512 instances; within 2 %: {within:.0f} % of "
              f"instances; {time.perf_counter() - t0:.0f} s", flush=True)


def main() -> None:
    """Run the sweeps named by ``--only`` (default all)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--only", default=",".join(SWEEPS))
    args = ap.parse_args()
    if not (DATA / TRACES["curie"]).exists():
        sys.exit(f"{DATA / TRACES['curie']} is absent")
    for name in args.only.split(","):
        print(f"\n== {name} (the others at the reproduction's setting: {BASE})", flush=True)
        sweep(name, args.instances)


if __name__ == "__main__":
    main()
