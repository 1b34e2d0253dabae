# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""BACKFILL of :mod:`lpsched.ptg.mapping` compiled (optional).

The same loop as :func:`lpsched.ptg.mapping.backfill_python`, statement for statement: the
tasks in the mapping order, the same earliest start, the same candidate instants (the
earliest start and the ends strictly between it and the task's start, sorted, equal values
once), the same overlap test with the same floating-point expressions
(``t + d − ε·max(1, t)`` and ``t + ε·max(1, t)``), the same processor choice (the task's own
free processors first, then the lowest free others, sorted). Built with
``-ffp-contract=off`` (no fused multiply-add), every double operation is the one numpy does,
so every schedule is the Python loop's, bit for bit (tests/ptg/test_backfill_compiled.py
compares both). The Python loop stays the reference and the fallback
(``LPSCHED_PURE_PYTHON=1``).
"""

from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memset

import numpy as np

ctypedef long long i64


cdef int _cmp(const void *a, const void *b) noexcept nogil:
    cdef double x = (<const double*>a)[0]
    cdef double y = (<const double*>b)[0]
    return (x > y) - (x < y)


cdef void *_alloc(Py_ssize_t count, size_t size) except NULL:
    cdef void *ptr = malloc(max(count, 1) * size)
    if ptr == NULL:
        raise MemoryError()
    return ptr


def backfill(double[::1] start, double[::1] end, const i64[::1] alloc,
             const i64[::1] order, const i64[::1] pptr, const i64[::1] pidx,
             unsigned char[:, ::1] member, double eps):
    """BACKFILL in place on ``start``, ``end`` and ``member``; the tasks moved.

    Parameters
    ----------
    start, end : numpy.ndarray of float64
        The schedule's times (s), changed in place.
    alloc : numpy.ndarray of int64
        Processors per task (0 for dummies).
    order : numpy.ndarray of int64
        The mapping order, the order tasks are reconsidered in.
    pptr, pidx : numpy.ndarray of int64
        The predecessors of task ``v``: ``pidx[pptr[v]:pptr[v + 1]]``.
    member : numpy.ndarray of uint8, shape (n, P)
        1 where a task holds a processor, changed in place.
    eps : float
        The relative tolerance of :mod:`lpsched.ptg.mapping` (``_EPS``).

    Returns
    -------
    list of int
        The tasks given new processors (their rows of ``member`` are the new sets).
    """
    cdef Py_ssize_t n = start.shape[0], P = member.shape[1]
    cdef Py_ssize_t k, j, w, m, c, nc, nbusy, need, got, nw, x
    cdef i64 v
    cdef double est, t, lo, hi, d, s, reach
    cdef double *cands = <double*>_alloc(n + 1, sizeof(double))
    cdef double *dur = <double*>_alloc(n, sizeof(double))
    cdef unsigned char *mine = <unsigned char*>_alloc(P, sizeof(unsigned char))
    cdef unsigned char *busy = <unsigned char*>_alloc(P, sizeof(unsigned char))
    cdef unsigned char *sel = <unsigned char*>_alloc(P, sizeof(unsigned char))
    # each task's processors (the rows of ``member`` as lists) and the tasks that may
    # overlap a candidate window of the task at hand
    cdef int *ids = <int*>_alloc(n * P, sizeof(int))
    cdef Py_ssize_t *cnt = <Py_ssize_t*>_alloc(n, sizeof(Py_ssize_t))
    cdef Py_ssize_t *near = <Py_ssize_t*>_alloc(n, sizeof(Py_ssize_t))
    moved = []
    try:
        for k in range(n):
            dur[k] = end[k] - start[k]
            cnt[k] = 0
            for j in range(P):
                if member[k, j]:
                    ids[k * P + cnt[k]] = <int>j
                    cnt[k] += 1
        for k in range(order.shape[0]):
            v = order[k]
            est = 0.0
            if pptr[v + 1] > pptr[v]:
                est = end[pidx[pptr[v]]]
                for j in range(pptr[v] + 1, pptr[v + 1]):
                    if end[pidx[j]] > est:
                        est = end[pidx[j]]
            if alloc[v] == 0:
                start[v] = est
                end[v] = est
                continue
            s = start[v]
            if est >= s - eps * (s if s > 1.0 else 1.0):
                continue
            memcpy(mine, &member[v, 0], P)
            memset(&member[v, 0], 0, P)
            cands[0] = est
            nc = 1
            for w in range(n):
                if end[w] > est and end[w] < s:
                    cands[nc] = end[w]
                    nc += 1
            qsort(cands, nc, sizeof(double), _cmp)
            m = 0
            for c in range(nc):  # equal values once (numpy.unique)
                if m == 0 or cands[c] != cands[m - 1]:
                    cands[m] = cands[c]
                    m += 1
            d = dur[v]
            need = alloc[v]
            # every candidate t is in [est, s): its window's tests ``start < t + d − ε·…``
            # and ``end > t + ε·…`` imply ``start < s + d`` and ``end > est``
            reach = s + d
            nw = 0
            for w in range(n):
                if w != v and start[w] < reach and end[w] > est:
                    near[nw] = w
                    nw += 1
            for c in range(m):
                t = cands[c]
                lo = t + d - eps * (t if t > 1.0 else 1.0)
                hi = t + eps * (t if t > 1.0 else 1.0)
                memset(busy, 0, P)
                nbusy = 0
                for x in range(nw):
                    w = near[x]
                    if start[w] < lo and end[w] > hi:
                        for j in range(cnt[w]):
                            if not busy[ids[w * P + j]]:
                                busy[ids[w * P + j]] = 1
                                nbusy += 1
                        if P - nbusy < need:
                            break  # this instant cannot hold the task
                if P - nbusy >= need:
                    got = 0
                    memset(sel, 0, P)
                    for j in range(P):  # its own free processors first, lowest first
                        if got < need and not busy[j] and mine[j]:
                            sel[j] = 1
                            got += 1
                    for j in range(P):  # then the lowest free others
                        if got >= need:
                            break
                        if not busy[j] and not mine[j]:
                            sel[j] = 1
                            got += 1
                    memcpy(mine, sel, P)
                    start[v] = t
                    end[v] = t + d
                    moved.append(v)
                    break
            memcpy(&member[v, 0], mine, P)
            cnt[v] = 0
            for j in range(P):
                if mine[j]:
                    ids[v * P + cnt[v]] = <int>j
                    cnt[v] += 1
    finally:
        free(cands)
        free(dur)
        free(mine)
        free(busy)
        free(sel)
        free(ids)
        free(cnt)
        free(near)
    return moved
