"""The CSC arrays built with numpy alone: the arrays and products scipy gives, bit for bit,
and a model solved by HiGHS without importing scipy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.models.csc import CscArrays
from lpsched.models.program import LinearProgram


def _scipy(rows, cols, vals, shape):
    a = sp.csc_matrix((np.asarray(vals, float), (np.asarray(rows, np.int64),
                                                 np.asarray(cols, np.int64))), shape=shape)
    a.sum_duplicates()
    a.sort_indices()
    return a


def _assert_same(ours: CscArrays, theirs) -> None:
    assert ours.shape == theirs.shape
    for mine, other in ((ours.indptr, theirs.indptr), (ours.indices, theirs.indices),
                        (ours.data, theirs.data)):
        assert mine.dtype == other.dtype
        assert mine.tobytes() == other.tobytes()


@st.composite
def triplets(draw, most_per_position: int):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    k = draw(st.integers(0, 30))
    rows = draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    seen: dict[tuple[int, int], int] = {}
    kept = []
    for r, c in zip(rows, cols, strict=True):
        if seen.get((r, c), 0) < most_per_position:
            seen[(r, c)] = seen.get((r, c), 0) + 1
            kept.append((r, c))
    vals = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False) | st.sampled_from(
        [0.0, -0.0, 0.1, 0.2, 0.3, 1e-17]), min_size=len(kept), max_size=len(kept)))
    r = [p[0] for p in kept]
    c = [p[1] for p in kept]
    return r, c, vals, (m, n)


@settings(max_examples=300, deadline=None)
@given(triplets(most_per_position=2))
def test_up_to_two_entries_a_position_give_scipys_arrays(t) -> None:
    rows, cols, vals, shape = t
    _assert_same(CscArrays.from_triplets(rows, cols, vals, shape), _scipy(*t))


@settings(max_examples=200, deadline=None)
@given(triplets(most_per_position=5))
def test_more_entries_a_position_give_scipys_arrays(t) -> None:
    rows, cols, vals, shape = t
    _assert_same(CscArrays.from_triplets(rows, cols, vals, shape), _scipy(*t))


@settings(max_examples=200, deadline=None)
@given(triplets(most_per_position=3), st.data())
def test_the_product_is_scipys_bit_for_bit(t, data) -> None:
    rows, cols, vals, shape = t
    x = np.array(data.draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False),
                                    min_size=shape[1], max_size=shape[1])))
    ours = CscArrays.from_triplets(rows, cols, vals, shape).matvec(x)
    theirs = _scipy(*t) @ x
    assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


def test_three_entries_of_one_position_are_summed_in_scipys_order() -> None:
    """0.1 + 0.2 + 0.3 depends on the order: the answer is scipy's own."""
    rows, cols, vals = [0, 0, 0, 1], [0, 0, 0, 0], [0.1, 0.2, 0.3, 1.0]
    ours = CscArrays.from_triplets(rows, cols, vals, (2, 1))
    _assert_same(ours, _scipy(rows, cols, vals, (2, 1)))


def test_the_public_matrix_holds_the_same_arrays_as_a_copy() -> None:
    lp = LinearProgram("t")
    x = lp.add_variables("x", 3)
    lp.add_constraints("c", [0, 1, 0, 0], [x[0], x[1], x[2], x[0]], [1.0, 2.0, 3.0, 4.0],
                       upper=1.0, num_rows=2)
    a = lp.matrix
    assert isinstance(a, sp.csc_matrix)
    assert a.data.tolist() == lp.csc.data.tolist() == [5.0, 2.0, 3.0]
    a.data[0] = 99.0
    assert lp.csc.data[0] == 5.0
    assert lp.num_nonzeros == 3


def test_a_model_is_loaded_solved_and_checked_without_scipy() -> None:
    """Loading a model into HiGHS and checking its answer read the numpy arrays only:
    scipy's import is about 0.15 s of CPU that small commands would pay for nothing."""
    code = (
        "import sys\n"
        "from lpsched.models.program import LinearProgram\n"
        "from lpsched.solvers.highs import HighsModel\n"
        "lp = LinearProgram('t', sense='max')\n"
        "x = lp.add_variables('x', 2, upper=1.0)\n"
        "lp.add_constraints('s', [0, 0], x, [1.0, 1.0], upper=1.5, num_rows=1)\n"
        "lp.set_objective(x, [1.0, 2.0])\n"
        "sol = HighsModel(lp).solve()\n"
        "print(sol.objective, sol.residual, 'scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["2.5", "0.0", "False"], out.stdout + out.stderr


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 2)])
def test_empty_matrices(shape) -> None:
    _assert_same(CscArrays.from_triplets([], [], [], shape), _scipy([], [], [], shape))


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 2), (3, 2)])
def test_the_product_of_a_matrix_without_entries_is_float(shape) -> None:
    x = np.ones(shape[1])
    ours = CscArrays.from_triplets([], [], [], shape).matvec(x)
    theirs = _scipy([], [], [], shape) @ x
    assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("vals", [[np.nan, -np.nan], [np.inf, -np.inf], [np.inf, np.nan],
                                  [1e308, 1e308]])
def test_duplicates_that_are_not_finite_are_scipys(vals) -> None:
    t = ([0, 0, 1], [0, 0, 0], [*vals, 1.0], (2, 1))
    _assert_same(CscArrays.from_triplets(*t), _scipy(*t))


@pytest.mark.parametrize(("m", "dtype"), [(2**31 - 1, np.int32), (2**31, np.int64)])
def test_the_index_dtype_switches_where_scipys_does(m, dtype) -> None:
    t = ([0, m - 1, m - 1], [0, 1, 1], [1.0, 2.0, 3.0], (m, 2))
    ours, theirs = CscArrays.from_triplets(*t), _scipy(*t)
    assert ours.indptr.dtype == ours.indices.dtype == theirs.indptr.dtype == dtype
    _assert_same(ours, theirs)


@pytest.mark.parametrize(("rows", "cols"), [([2], [0]), ([-1], [0]), ([0], [3]), ([0, 1], [0])])
def test_entries_outside_the_matrix_are_refused(rows, cols) -> None:
    with pytest.raises(ValueError):
        CscArrays.from_triplets(rows, cols, [1.0] * len(rows), (2, 3))


def test_a_point_of_the_wrong_length_is_refused() -> None:
    lp = LinearProgram("t")
    x = lp.add_variables("x", 2)
    lp.add_constraints("c", [0], [x[0]], [1.0], upper=1.0, num_rows=1)
    with pytest.raises(ValueError, match="2 columns"):
        lp.residuals([5.0])
