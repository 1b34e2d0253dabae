"""Shared helpers of the PTG tests."""

from __future__ import annotations

import numpy as np

from lpsched.ptg.model import PTG, Cluster, make_ptg

SPEED = 1e9  # flop/s: work = seconds * SPEED


def chain_fork(spec: dict[str, tuple[float, float]], edges: list[tuple[str, str]],
               name: str = "g") -> PTG:
    """A PTG from ``{id: (seconds on one processor, alpha)}`` at :data:`SPEED`."""
    ids = list(spec)
    return make_ptg(ids, [spec[i][0] * SPEED for i in ids], [spec[i][1] for i in ids], edges,
                    name)


def small_cluster(p: int) -> Cluster:
    return Cluster(f"c{p}", p, SPEED)


def random_problem_ptgs(seed: int, count: int) -> list[PTG]:
    from lpsched.ptg.generators import fft_ptg, random_ptg, strassen_ptg

    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        kind = rng.integers(0, 3)
        if kind == 0:
            out.append(random_ptg(int(rng.integers(3, 12)), float(rng.choice([0.2, 0.5, 0.8])),
                                  float(rng.choice([0.2, 0.8])), 0.5, int(rng.integers(1, 4)),
                                  seed=int(rng.integers(1 << 30)), name=f"r{k}"))
        elif kind == 1:
            out.append(fft_ptg(int(rng.choice([2, 4])), seed=int(rng.integers(1 << 30)),
                               name=f"f{k}"))
        else:
            out.append(strassen_ptg(seed=int(rng.integers(1 << 30)), name=f"s{k}"))
    return out
