"""A declarative linear program: named variable blocks and vectorized sparse constraints.

``LinearProgram`` is data, not a solver. Builders (``lpsched.models.*``) describe a model with
numpy arrays — a variable *block* is an n-d array of column indices, a constraint *block* is a
batch of rows given as COO triplets — and emitters turn that one description into a HiGHS
model (one ``passModel`` call), a ``pulp.LpProblem``, or an LP/MPS file. No Python object is
created per term.

Example
-------
>>> import numpy as np
>>> lp = LinearProgram("toy", sense="max")
>>> x = lp.add_variables("x", (2,), upper=[4.0, np.inf])
>>> lp.set_objective(x, [1.0, 2.0])
>>> rows = lp.add_constraints("cap", rows=[0, 0], cols=x, vals=[1.0, 1.0], upper=6.0)
>>> lp.num_cols, lp.num_rows, lp.num_nonzeros
(2, 1, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from lpsched.errors import LpschedError
from lpsched.models.csc import CscArrays


class _ScipySparse:
    """``scipy.sparse``, imported at the first attribute read: only :attr:`LinearProgram.
    matrix` needs it (HiGHS and the residual checks read :attr:`LinearProgram.csc`), so a
    command that solves LPs does not pay scipy's import (about 0.15 s of CPU; even finding
    the submodule imports the ``scipy`` package, 0.02 s), and the annotations naming it
    still resolve at run time."""

    def __getattr__(self, name: str) -> Any:
        import scipy.sparse

        return getattr(scipy.sparse, name)


if TYPE_CHECKING:
    import scipy.sparse as sp
else:
    sp = _ScipySparse()

INF = np.inf


@dataclass(frozen=True)
class Block:
    """A named range of columns or rows: ``indices`` has the block's shape."""

    name: str
    start: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of columns (or rows) of the block, the product of its shape."""
        return math.prod(self.shape)  # a tuple of ints: no numpy call on the hot path

    @property
    def stop(self) -> int:
        """One past the block's last index: ``start + size``."""
        return self.start + self.size

    def indices(self) -> np.ndarray:
        """The global indices of the block, reshaped to its shape.

        Returns
        -------
        numpy.ndarray
            int, of shape ``shape``: ``start, start + 1, ...`` in C order.
        """
        return np.arange(self.start, self.stop).reshape(self.shape)


def _broadcast(value: ArrayLike, size: int, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float).ravel()
    if arr.size == 1:
        return np.full(size, float(arr[0]))
    if arr.size != size:
        raise LpschedError(f"{what}: expected {size} values, got {arr.size}")
    return arr.copy()


class LinearProgram:
    """A linear program as data: bounded variables, bounded rows and a linear objective.

    Variables ``lower <= x <= upper``, rows ``row_lower <= A x <= row_upper``, objective
    ``c·x`` (minimised or maximised, ``sense``). Build with :meth:`add_variables`,
    :meth:`add_constraints` and :meth:`set_objective`; read with :attr:`matrix` (CSC),
    :meth:`variable_block`, :meth:`split_columns`; solve or emit with
    :class:`lpsched.solvers.highs.HighsModel` (one ``passModel`` call),
    :func:`lpsched.solvers.solve`, :func:`lpsched.solvers.pulp.to_pulp` or
    :func:`lpsched.solvers.write_model` (LP/MPS files).

    Parameters
    ----------
    name : str
        The model's name (in solver messages and written files), default ``"lp"``.
    sense : {"min", "max"}
        Minimise (default) or maximise the objective.
    """

    def __init__(self, name: str = "lp", sense: str = "min") -> None:
        if sense not in ("min", "max"):
            raise LpschedError(f"sense must be 'min' or 'max', got {sense!r}")
        self.name = name
        self.sense = sense
        self.variables: dict[str, Block] = {}
        self.constraints: dict[str, Block] = {}
        self._col_lower: list[np.ndarray] = []
        self._col_upper: list[np.ndarray] = []
        self._integer: list[np.ndarray] = []
        self._row_lower: list[np.ndarray] = []
        self._row_upper: list[np.ndarray] = []
        self._rows: list[np.ndarray] = []
        self._cols: list[np.ndarray] = []
        self._vals: list[np.ndarray] = []
        self._cost_cols: list[np.ndarray] = []
        self._cost_vals: list[np.ndarray] = []
        self.num_cols = 0
        self.num_rows = 0
        self.objective_offset = 0.0
        self._cache: dict[str, Any] = {}

    # -- building -------------------------------------------------------------------------
    def add_variables(
        self,
        name: str,
        shape: int | tuple[int, ...],
        lower: ArrayLike = 0.0,
        upper: ArrayLike = INF,
        integer: bool = False,
    ) -> np.ndarray:
        """Add a block of ``prod(shape)`` columns; return their indices with that shape.

        ``integer=True`` makes the block integral (the model becomes a MIP for HiGHS).

        Parameters
        ----------
        name : str
            The block's name (unique among the variable blocks), e.g. ``"rho"``.
        shape : int or tuple of int
            The block's shape, e.g. ``(n, p)``.
        lower : array_like
            The columns' lower bounds: one value for all, or ``prod(shape)`` values in C order
            (default 0).
        upper : array_like
            The columns' upper bounds, likewise (default ``inf``).
        integer : bool
            Make every column of the block integral (default ``False``).

        Returns
        -------
        numpy.ndarray
            int, of shape ``shape``: the global column indices.

        Raises
        ------
        LpschedError
            A block of that name exists, or bounds of the wrong size.
        """
        if name in self.variables:
            raise LpschedError(f"variable block {name!r} already exists")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        block = Block(name, self.num_cols, shape)
        self.variables[name] = block
        self._col_lower.append(_broadcast(lower, block.size, f"{name}.lower"))
        self._col_upper.append(_broadcast(upper, block.size, f"{name}.upper"))
        self._integer.append(np.full(block.size, bool(integer)))
        self.num_cols = block.stop
        self._cache.clear()
        return block.indices()

    def add_constraints(
        self,
        name: str,
        rows: ArrayLike,
        cols: ArrayLike,
        vals: ArrayLike,
        lower: ArrayLike = -INF,
        upper: ArrayLike = INF,
        num_rows: int | None = None,
    ) -> np.ndarray:
        """Add a block of rows given as COO triplets with *local* row numbers.

        ``rows``, ``cols``, ``vals`` broadcast against each other; the block has
        ``num_rows`` rows (default ``max(rows)+1``). Duplicate (row, col) pairs are summed.

        Parameters
        ----------
        name : str
            The block's name (unique among the constraint blocks).
        rows : array_like
            The local row (0 to ``num_rows − 1``) of each coefficient.
        cols : array_like
            The global column index of each coefficient (from :meth:`add_variables`).
        vals : array_like
            The coefficients, finite.
        lower : array_like
            The rows' lower bounds: one value for all or one per row (default ``-inf``).
        upper : array_like
            The rows' upper bounds, likewise (default ``inf``).
        num_rows : int or None
            The block's number of rows; ``None`` (default): ``max(rows) + 1``.

        Returns
        -------
        numpy.ndarray
            int, shape ``(num_rows,)``: the global row indices.

        Raises
        ------
        LpschedError
            A block of that name exists, a row or column index out of range, a coefficient that
            is not finite, or bounds of the wrong size.
        """
        if name in self.constraints:
            raise LpschedError(f"constraint block {name!r} already exists")
        r, c, v = np.broadcast_arrays(
            np.asarray(rows, dtype=np.int64),
            np.asarray(cols, dtype=np.int64),
            np.asarray(vals, dtype=float),
        )
        r, c, v = r.ravel(), c.ravel(), v.ravel()
        m = int(r.max()) + 1 if num_rows is None and r.size else int(num_rows or 0)
        if r.size and (r.min() < 0 or r.max() >= m):
            raise LpschedError(f"{name}: local row index outside [0, {m})")
        if c.size and (c.min() < 0 or c.max() >= self.num_cols):
            raise LpschedError(f"{name}: column index outside [0, {self.num_cols})")
        if not np.isfinite(v).all():
            raise LpschedError(f"{name}: non-finite coefficient")
        block = Block(name, self.num_rows, (m,))
        self.constraints[name] = block
        self._rows.append(r + block.start)
        self._cols.append(c)
        self._vals.append(v)
        self._row_lower.append(_broadcast(lower, m, f"{name}.lower"))
        self._row_upper.append(_broadcast(upper, m, f"{name}.upper"))
        self.num_rows = block.stop
        self._cache.clear()
        return block.indices()

    def set_objective(self, cols: ArrayLike, coefs: ArrayLike, offset: float = 0.0) -> None:
        """Replace the objective by ``sum(coefs * x[cols]) + offset`` (duplicates summed).

        Parameters
        ----------
        cols : array_like
            Global column indices.
        coefs : array_like
            Their costs, broadcast against ``cols``.
        offset : float
            A constant added to the objective (default 0).
        """
        c, v = np.broadcast_arrays(np.asarray(cols, dtype=np.int64), np.asarray(coefs, float))
        self._cost_cols = [c.ravel()]
        self._cost_vals = [v.ravel()]
        self.objective_offset = float(offset)
        # the cache holds the constraint matrix only, which the objective does not change

    def set_col_bounds(self, cols: ArrayLike, lower: ArrayLike, upper: ArrayLike) -> None:
        """Change the bounds of columns ``cols`` (global indices).

        Parameters
        ----------
        cols : array_like
            Global column indices.
        lower : array_like
            Their new lower bounds (broadcast against ``cols``).
        upper : array_like
            Their new upper bounds.
        """
        self._col_lower[:] = [self.col_lower]
        self._col_upper[:] = [self.col_upper]
        self._col_lower[0][np.asarray(cols, np.int64)] = lower
        self._col_upper[0][np.asarray(cols, np.int64)] = upper

    def set_row_bounds(self, rows: ArrayLike, lower: ArrayLike, upper: ArrayLike) -> None:
        """Change the bounds of rows ``rows`` (global indices).

        Parameters
        ----------
        rows : array_like
            Global row indices.
        lower : array_like
            Their new lower bounds (broadcast against ``rows``).
        upper : array_like
            Their new upper bounds.
        """
        self._row_lower[:] = [self.row_lower]
        self._row_upper[:] = [self.row_upper]
        self._row_lower[0][np.asarray(rows, np.int64)] = lower
        self._row_upper[0][np.asarray(rows, np.int64)] = upper

    # -- reading --------------------------------------------------------------------------
    def _cat(self, parts: list[np.ndarray], dtype: type = float) -> np.ndarray:
        """The blocks' arrays as one; the list is consolidated in place so the next read is
        free. The result is the model's own array: read it, do not modify it."""
        if not parts:
            return np.zeros(0, dtype)
        if len(parts) > 1:
            parts[:] = [np.concatenate(parts)]
        return parts[0].astype(dtype, copy=False)

    @property
    def col_lower(self) -> np.ndarray:
        """Lower bound of every column (length ``num_cols``)."""
        return self._cat(self._col_lower)

    @property
    def col_upper(self) -> np.ndarray:
        """Upper bound of every column (length ``num_cols``; ``inf`` when unbounded)."""
        return self._cat(self._col_upper)

    @property
    def row_lower(self) -> np.ndarray:
        """Lower bound of every row (length ``num_rows``; ``-inf`` when unbounded)."""
        return self._cat(self._row_lower)

    @property
    def row_upper(self) -> np.ndarray:
        """Upper bound of every row (length ``num_rows``; ``inf`` when unbounded)."""
        return self._cat(self._row_upper)

    @property
    def integrality(self) -> np.ndarray:
        """Boolean mask of the integral columns."""
        return self._cat(self._integer, bool)

    @property
    def is_mip(self) -> bool:
        """Whether some column is integral (the model is then a MIP)."""
        return bool(self.integrality.any())

    @property
    def cost(self) -> np.ndarray:
        """The dense objective vector ``c`` (length ``num_cols``)."""
        out = np.zeros(self.num_cols)
        if self._cost_cols:
            np.add.at(out, self._cost_cols[0], self._cost_vals[0])
        return out

    @property
    def csc(self) -> CscArrays:
        """The constraint matrix ``A`` as canonical CSC arrays (duplicates summed), cached;
        built with numpy alone, so that loading a model into HiGHS does not import scipy."""
        if "csc" not in self._cache:
            self._cache["csc"] = CscArrays.from_triplets(
                self._cat(self._rows, np.int64), self._cat(self._cols, np.int64),
                self._cat(self._vals), (self.num_rows, self.num_cols))
        return self._cache["csc"]

    @property
    def matrix(self) -> sp.csc_matrix:
        """The constraint matrix ``A`` as a ``scipy.sparse.csc_matrix`` (duplicates summed),
        cached; the arrays of :attr:`csc`, copied."""
        if "A" not in self._cache:
            a = self.csc
            self._cache["A"] = sp.csc_matrix(
                (a.data.copy(), a.indices.copy(), a.indptr.copy()), shape=a.shape)
        return self._cache["A"]

    @property
    def num_nonzeros(self) -> int:
        """Nonzeros of the constraint matrix :attr:`matrix` (duplicate entries summed)."""
        return self.csc.nnz

    def variable_block(self, name: str) -> Block:
        """The variable :class:`Block` named ``name`` (``KeyError`` if there is none).

        Parameters
        ----------
        name : str
            The block's name as given to :meth:`add_variables`.

        Returns
        -------
        Block
            Its name, first column and shape.
        """
        return self.variables[name]

    def split_columns(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a full column vector into ``{block name: array of the block's shape}``.

        Parameters
        ----------
        x : numpy.ndarray
            One value per column, shape ``(num_cols,)`` (e.g. a solution's primal values).

        Returns
        -------
        dict of str to numpy.ndarray
            Per variable block, its values with the block's shape.
        """
        return {b.name: np.asarray(x[b.start:b.stop]).reshape(b.shape)
                for b in self.variables.values()}

    def split_rows(self, y: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a full row vector (duals, activities) into ``{constraint block: array}``.

        Parameters
        ----------
        y : numpy.ndarray
            One value per row, shape ``(num_rows,)``.

        Returns
        -------
        dict of str to numpy.ndarray
            Per constraint block, its values, shape ``(rows of the block,)``.
        """
        return {b.name: np.asarray(y[b.start:b.stop]) for b in self.constraints.values()}

    def column_names(self) -> list[str]:
        """Readable names ``block_i_j_...`` (the block name, then its indices joined by ``_``;
        the bare block name for a scalar block) for every column (for PuLP and LP files).

        Returns
        -------
        list of str
            ``num_cols`` names, in column order.
        """
        names: list[str] = []
        for b in self.variables.values():
            for idx in np.ndindex(*b.shape):
                names.append(f"{b.name}_" + "_".join(map(str, idx)) if idx else b.name)
        return names

    def row_names(self) -> list[str]:
        """Readable names ``block_i`` for every row, in order (for PuLP and LP files).

        Returns
        -------
        list of str
            ``num_rows`` names.
        """
        names: list[str] = []
        for b in self.constraints.values():
            names.extend(f"{b.name}_{i}" for i in range(b.size))
        return names

    def residuals(self, x: np.ndarray) -> dict[str, float]:
        """Largest violation of column bounds and of row bounds at ``x`` (0 when feasible).

        Parameters
        ----------
        x : numpy.ndarray
            A point, one value per column.

        Returns
        -------
        dict of str to float
            ``{"rows": ..., "columns": ...}``, absolute violations (>= 0).
        """
        x = np.asarray(x, float)
        ax = self.csc.matvec(x)
        row = np.maximum(self.row_lower - ax, ax - self.row_upper)
        col = np.maximum(self.col_lower - x, x - self.col_upper)
        return {
            "rows": float(np.max(row, initial=0.0)),
            "columns": float(np.max(col, initial=0.0)),
        }

    def __repr__(self) -> str:
        return (f"LinearProgram({self.name!r}, {self.sense}, cols={self.num_cols}, "
                f"rows={self.num_rows}, nnz={self.num_nonzeros})")
