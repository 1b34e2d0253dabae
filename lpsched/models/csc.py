"""The compressed sparse column arrays of a constraint matrix, built with numpy alone.

A :class:`~lpsched.models.program.LinearProgram` hands HiGHS its matrix as CSC arrays and
checks every answer against it. Building those arrays with numpy (a stable sort and one
``reduceat``) gives the arrays ``scipy.sparse.csc_matrix`` gives, duplicates summed to
the same doubles, without importing scipy: about 0.15 s of CPU that a small command (one
scenario, one instance) would otherwise spend on scipy's import alone.

Example
-------
>>> a = CscArrays.from_triplets([0, 1, 0], [1, 0, 1], [1.0, 2.0, 3.0], (2, 2))
>>> a.indptr.tolist(), a.indices.tolist(), a.data.tolist()
([0, 1, 2], [1, 0], [2.0, 4.0])
>>> a.matvec(np.array([1.0, 10.0])).tolist()
[40.0, 2.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

_INT32_MAX = np.iinfo(np.int32).max


@dataclass(frozen=True)
class CscArrays:
    """A matrix in canonical CSC form: columns in order, rows sorted, duplicates summed.

    Parameters
    ----------
    shape : tuple of int
        ``(rows, columns)``.
    indptr : numpy.ndarray
        ``columns + 1`` offsets into ``indices`` and ``data``.
    indices : numpy.ndarray
        The row of every stored entry, increasing within a column.
    data : numpy.ndarray
        The value of every stored entry (``float64``; explicit zeros are kept, as scipy
        keeps them).
    """

    shape: tuple[int, int]
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self.data.size)

    @classmethod
    def from_triplets(cls, rows: ArrayLike, cols: ArrayLike, vals: ArrayLike,
                      shape: tuple[int, int]) -> CscArrays:
        """The canonical CSC arrays of the COO triplets ``(rows, cols, vals)``.

        Parameters
        ----------
        rows, cols : array_like
            Row and column of every entry (integers, in range).
        vals : array_like
            Its value; entries at the same position are summed.
        shape : tuple of int
            ``(rows, columns)`` of the matrix.

        Returns
        -------
        CscArrays
            The arrays ``scipy.sparse.csc_matrix((vals, (rows, cols)), shape)`` holds after
            ``sum_duplicates()``: the same index dtype (``int32`` while it fits) and the
            same values bit for bit.

        Notes
        -----
        scipy sums the entries of one position in an unspecified order (an unstable sort
        of each column). Two finite entries give the same sum in either order, so up to
        two per position are summed here; a position with three or more entries, where the
        order can change the last bit, or duplicates among values that are not finite
        (two NaNs keep the payload of whichever comes first), are left to scipy itself.
        The values are taken as ``float64``, as a :class:`LinearProgram` stores them.
        Sorting is ``O(nnz log nnz)``.

        Raises
        ------
        ValueError
            Arrays of different lengths, or an entry outside ``shape`` (as scipy).
        """
        r = np.asarray(rows, dtype=np.int64).ravel()
        c = np.asarray(cols, dtype=np.int64).ravel()
        v = np.asarray(vals, dtype=np.float64).ravel()
        m, n = int(shape[0]), int(shape[1])
        if r.size != c.size or r.size != v.size:
            raise ValueError(f"{r.size} rows, {c.size} columns and {v.size} values")
        if r.size and (r.min() < 0 or r.max() >= m or c.min() < 0 or c.max() >= n):
            raise ValueError(f"an entry lies outside the {m} x {n} matrix")
        index = np.int32 if max(r.size, m, n) <= _INT32_MAX else np.int64
        order = np.lexsort((r, c))
        given = (r, c, v)
        r, c, v = r[order], c[order], v[order]
        if r.size > 1:
            first = np.empty(r.size, dtype=bool)
            first[0] = True
            np.not_equal(r[1:], r[:-1], out=first[1:])
            first[1:] |= c[1:] != c[:-1]
            if not first.all():
                starts = np.flatnonzero(first)
                if np.diff(starts, append=r.size).max() > 2 or not np.isfinite(v).all():
                    return cls._from_scipy(*given, (m, n))
                with np.errstate(over="ignore"):  # scipy's sum is silent too
                    r, c, v = r[starts], c[starts], np.add.reduceat(v, starts)
        indptr = np.zeros(n + 1, dtype=index)
        np.cumsum(np.bincount(c, minlength=n), out=indptr[1:])
        return cls((m, n), indptr, r.astype(index), v)

    @classmethod
    def _from_scipy(cls, r: np.ndarray, c: np.ndarray, v: np.ndarray,
                    shape: tuple[int, int]) -> CscArrays:
        """The arrays scipy builds from the triplets as given (its own order of
        summation), where that order can matter: three or more entries at one position,
        or duplicates among values that are not finite."""
        import scipy.sparse as sp

        a = sp.csc_matrix((v, (r, c)), shape=shape)
        a.sum_duplicates()
        a.sort_indices()
        return cls(shape, a.indptr, a.indices, a.data)

    def matvec(self, x: np.ndarray) -> np.ndarray:
        """The product ``A @ x``, summed in the order scipy's CSC product sums it.

        Parameters
        ----------
        x : numpy.ndarray
            One value per column.

        Returns
        -------
        numpy.ndarray
            One value per row (``float64``): each row's products added column by column,
            as ``scipy.sparse.csc_matrix @ x`` adds them (a NaN's sign and payload aside).

        Raises
        ------
        ValueError
            ``x`` is not one value per column (as scipy).
        """
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.shape[1],):
            raise ValueError(f"a point of shape {x.shape} for a matrix of {self.shape[1]} "
                             "columns")
        col = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))
        with np.errstate(over="ignore", invalid="ignore"):  # scipy's product is silent too
            products = self.data * x[col]
        out = np.bincount(self.indices, weights=products, minlength=self.shape[0])
        return out.astype(np.float64, copy=False)  # no entry: bincount gives integers
