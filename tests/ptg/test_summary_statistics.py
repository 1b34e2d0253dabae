"""The summary's own median and quantile are numpy's, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lpsched.ptg.reproduce import _median, _quantile

SPECIAL = [0.0, -0.0, 1.0, 3.3, 1e308, -1e308, math.inf, -math.inf, 5e-324]


def _arrays(seed: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for it in range(count):
        n = int(rng.integers(1, 40))
        kind = it % 4
        if kind == 0:
            a = rng.normal(0, 1, n)
        elif kind == 1:
            a = rng.integers(0, 5, n).astype(float)
        elif kind == 2:
            a = rng.choice(SPECIAL, n)
        else:
            a = np.exp(rng.normal(0, 5, n))
        if it % 37 == 0:
            a[rng.integers(0, n)] = np.nan
        out.append(a)
    return [*out, np.zeros(0), np.array([2, 1, 3])]


def _same(a: float, b: float) -> bool:
    return (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b)


@pytest.mark.parametrize("seed", range(3))
def test_quantile_is_numpys(seed: int) -> None:
    with np.errstate(all="ignore"):
        for a in _arrays(seed, 3000):
            for q in (0.0, 0.25, 0.5, 0.75, 1.0, 0.025, 0.975):
                if a.size == 0:
                    with pytest.raises(IndexError):
                        np.quantile(a, q)
                    with pytest.raises(IndexError):
                        _quantile(a, q)
                    continue
                assert _same(_quantile(a, q), float(np.quantile(a, q))), (a, q)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("seed", range(3))
def test_median_is_numpys(seed: int) -> None:
    with np.errstate(all="ignore"):
        for a in _arrays(seed, 3000):
            assert _same(_median(a), float(np.median(a))), a
