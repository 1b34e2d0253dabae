"""Seed 003's headlines that do not come back: which value of the one unstated parameter
that moves each would give the seed's number (a calibration finding, no fitting).

For each setting (link bandwidth before slowdowns, the greedy switch rule, DD's request
rule, the arrival reading) the script runs the seed's 18 policies on the same instances
(``lpsched.bags.reproduce.cell``, nothing stored) and prints, per headline:

- greedy: Table 4's SPT/SRPT/SWRPT-MCT and FIFO-RR averages (seed 1.93/1.86/1.86, 16.7);
- leaders: the best average of Tables 6 and 7 and CBS3M's margin over the best other
  (the seed: CBS3M-EDF-offline leads both);
- sum-stretch: best of SRPT/SWRPT-MCT minus best CBS3M (the seed: below 0 [003 L884]);
- crossover: sum-flow, best CBS3M minus the better of SRPT/SWRPT-MCT on the light and the
  heavy half of the loads (the seed: below 0 light, above 0 heavy);
- MPI: the experiments where the best CBS3M is lower than every other Table 3 algorithm
  by more than 0.05 (the seed: 8 of 10 [003 L863]).

Reduced sizes (the default 6 simgrid instances, 10 mpi experiments): a finding to say
which way a parameter moves a headline, with its paired standard error, not a
reproduction. ``python benchmarks/bags_headlines.py [--instances N] [--mpi N]``.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from lpsched.bags import fidelity as fid
from lpsched.bags import reproduce as rep
from lpsched.bags.policies import policy_names

TEXT = "dd_request=idle;switch=dispatch"
REGISTERED = "dd_request=received;switch=complete"
#: (label, profile, base bandwidth B/s, reading, arrivals)
SETTINGS = (
    ("simgrid 10 Mbit/s (text), registered reading", "simgrid", 1.25e6, REGISTERED, "absolute"),
    ("simgrid 25 Mbit/s, registered reading", "simgrid", 3.125e6, REGISTERED, "absolute"),
    ("simgrid 100 Mbit/s (default), registered reading", "simgrid", 12.5e6, REGISTERED,
     "absolute"),
    ("simgrid 100 Mbit/s, DD idle, switch dispatch", "simgrid", 12.5e6, TEXT, "absolute"),
    ("simgrid 100 Mbit/s, inter-arrival dates", "simgrid", 12.5e6, REGISTERED,
     "interarrival"),
    ("simgrid 10 Mbit/s (text), inter-arrival dates", "simgrid", 1.25e6, REGISTERED,
     "interarrival"),
    ("simgrid 400 Mbit/s, registered reading", "simgrid", 5e7, REGISTERED, "absolute"),
    ("simgrid 1 Gbit/s, registered reading", "simgrid", 1.25e8, REGISTERED, "absolute"),
    ("mpi 10 Mbit/s (text, default)", "mpi", 1.25e6, REGISTERED, "absolute"),
    ("mpi 25 Mbit/s", "mpi", 3.125e6, REGISTERED, "absolute"),
    ("mpi 50 Mbit/s", "mpi", 6.25e6, REGISTERED, "absolute"),
    ("mpi 100 Mbit/s", "mpi", 12.5e6, REGISTERED, "absolute"),
    ("mpi 10 Mbit/s (text), inter-arrival dates", "mpi", 1.25e6, REGISTERED, "interarrival"),
)
CBS3M = fid._CBS3M
OTHERS = tuple(p for p in policy_names() if p not in CBS3M)


def run(profile: str, base: float, reading: str, arrivals: str, n: int) -> list[dict[str, Any]]:
    """The stored rows one ``reproduce cbs3m`` run of this setting would hold.

    Parameters
    ----------
    profile, reading, arrivals : str
        The cell key's elements.
    base : float
        The link bandwidth before slowdowns, bytes/s.
    n : int
        Instances (seeds 0..n-1).

    Returns
    -------
    list of dict
    """
    rows = []
    for key in rep.cells(n, profile, 0, base_bandwidth=base, greedy_reading=reading,
                         arrivals=arrivals):
        rows += rep.cell(key)
    return rows


def _se(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def headlines(stats: fid.Stats, profile: str) -> list[str]:
    """The headline numbers of one run, one line each.

    Parameters
    ----------
    stats : lpsched.bags.fidelity.Stats
        The run's values.
    profile : str
        ``simgrid`` or ``mpi``.

    Returns
    -------
    list of str
    """
    if profile == "mpi":
        far, wins = fid.far_wins(stats)
        return [f"  MPI: best CBS3M far better (> {fid.FAR}) in {far} of {stats.n}, lower in "
                f"{wins} (seed: 8 of 10)"]
    m = "max_stretch"
    out = ["  greedy (Table 4 avg): " + ", ".join(
        f"{p} {stats.mean(m, p):.3f}" for p in ("spt-mct", "srpt-mct", "swrpt-mct", "fifo-rr"))
        + "  (seed 1.928, 1.861, 1.857, 16.689)"]
    for metric, table in (("makespan", 6), ("max_flow", 7)):
        best_c = fid.group_best(stats, metric, CBS3M)
        best_o = fid.group_best(stats, metric, OTHERS)
        mean, se, _ = fid._paired(stats, metric, best_c or "", best_o or "")
        out.append(f"  Table {table} leader: CBS3M {best_c} {stats.mean(metric, best_c or ''):.4f}"
                   f" vs {best_o} {stats.mean(metric, best_o or ''):.4f}; difference "
                   f"{mean:+.4f} (se {_se(se)}) (seed: CBS3M leads)")
    best_c = fid.group_best(stats, "sum_stretch", CBS3M) or ""
    best_g = fid.group_best(stats, "sum_stretch", ("srpt-mct", "swrpt-mct")) or ""
    mean, se, _ = fid._paired(stats, "sum_stretch", best_g, best_c)
    out.append(f"  sum-stretch: {best_g} minus {best_c} {mean:+.4f} (se {_se(se)}) (seed: < 0, "
               "1.038 - 1.201)")
    c = fid.group_best(stats, "sum_flow", CBS3M) or ""
    g = fid.group_best(stats, "sum_flow", ("srpt-mct", "swrpt-mct")) or ""
    (lo, lo_se), (hi, hi_se) = fid.crossover(stats, c, g)
    out.append(f"  sum-flow crossover: {c} minus {g}: light {lo:+.4f} (se {_se(lo_se)}), "
               f"heavy {hi:+.4f} (se {_se(hi_se)}) (seed: < 0 light, > 0 heavy); loads "
               f"{np.min(stats.load):.3g}-{np.max(stats.load):.3g}")
    return out


def main() -> None:
    """Run every setting and print its headlines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=6)
    parser.add_argument("--mpi", type=int, default=10)
    parser.add_argument("--only", default="", help="only the settings whose label has this")
    parser.add_argument("--skip", default="", help="leave out the settings whose label has "
                        "any of these comma-separated words")
    args = parser.parse_args()
    for label, profile, base, reading, arrivals in SETTINGS:
        if args.only not in label or any(w and w in label for w in args.skip.split(",")):
            continue
        n = args.mpi if profile == "mpi" else args.instances
        t0 = time.process_time()
        stats = fid.stats_of(run(profile, base, reading, arrivals, n))
        print(f"{label}: {stats.n} instances, {time.process_time() - t0:.0f} s CPU")
        for line in headlines(stats, profile):
            print(line, flush=True)


if __name__ == "__main__":
    main()
