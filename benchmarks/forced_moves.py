"""How much work conservative backfilling's compression rule itself asks for (decision
382): on the first N jobs of a trace, the re-insertions tried and the reservations that
actually moved under ``textbook`` compression, and the turns and the jobs started early
under ``reassign``, counted by wrapping the simulator's methods (the schedule is the
simulator's own: the start-time hash is printed as in ``bench_batch_forced.py``).

    python benchmarks/forced_moves.py KTH-SP2-1996-2.1-cln.swf.gz cont-ff textbook \\
        offline 250 500 1000 2000

A moved reservation is a change of the plan that the rule requires and that later tries
read, so any implementation of the rule does at least one step per move: when the moves
grow as N^2, no index makes the rule near-linear. Each line gives N, CPU seconds, the
tries and the moves, and the slope of log(moves) on log(N) from the previous line.
Needs ../shared/data."""

from __future__ import annotations

import argparse
import hashlib
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch import simulator
from lpsched.batch.simulator import simulate_batch
from lpsched.core.swf import read_swf, to_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def counting(name: str, counts: dict[str, int]) -> None:
    """Wrap ``_BatchSim.<name>`` so that each call and each moved result is counted."""
    inner = getattr(simulator._BatchSim, name)

    def wrapped(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        out = inner(self, *args, **kwargs)
        counts["tries"] += 1
        moved = out[0] if isinstance(out, tuple) else bool(out)
        counts["moves"] += int(moved)
        return out

    setattr(simulator._BatchSim, name, wrapped)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("alloc")
    ap.add_argument("compression", choices=("textbook", "reassign"))
    ap.add_argument("mode", choices=("online", "offline"))
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--processors", type=int)
    ap.add_argument("--cluster-size", type=int, default=10)
    args = ap.parse_args()
    counts = {"tries": 0, "moves": 0}
    counting("reinsert" if args.compression == "textbook" else "turn", counts)
    work = to_workload(read_swf(DATA / args.trace), processors=args.processors)
    prev: tuple[int, int] | None = None
    print("| N | CPU (s) | tries | moves | moves slope | start-time hash |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        n = work.jobs if n <= 0 or n > work.jobs else n
        k = slice(0, n)
        w = replace(work, job=work.job[k], submit=np.zeros(n) if args.mode == "offline"
                    else work.submit[k], run=work.run[k], size=work.size[k],
                    estimate=work.estimate[k])
        counts.update(tries=0, moves=0)
        c0 = time.process_time()
        sched, _ = simulate_batch(w, "conservative", alloc=args.alloc,
                                  cluster_size=args.cluster_size,
                                  compression=args.compression)
        cpu = time.process_time() - c0
        slope = "" if prev is None or not prev[1] or not counts["moves"] else \
            f"{math.log(counts['moves'] / prev[1]) / math.log(n / prev[0]):.2f}"
        digest = hashlib.sha256(np.round(sched.start, 6).tobytes()).hexdigest()[:12]
        print(f"| {n:,} | {cpu:.2f} | {counts['tries']:,} | {counts['moves']:,} | {slope} "
              f"| {digest} |", flush=True)
        prev = (n, counts["moves"])


if __name__ == "__main__":
    main()
