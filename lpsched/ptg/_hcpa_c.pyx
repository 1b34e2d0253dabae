# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The literal improved-HCPA loop of :mod:`lpsched.ptg.hcpa_literal` compiled (optional).

The same loop as :func:`lpsched.ptg.hcpa_literal.literal_alloc_python`, statement for
statement: the same jumps, the same bottom levels recomputed on the same ancestors in the
same (decreasing index) order, the same walk, the same tie rules (lowest index; the first
largest successor), the same area (an exact-rounded sum, CPython's ``math.fsum``
algorithm) and the same floating-point expressions in the same order. Built with
``-ffp-contract=off`` (no fused multiply-add), every double operation is the one Python
does, so every allocation is the Python loop's, bit for bit (tests/ptg/test_hcpa_compiled.py
compares both). The Python loop stays the reference and the fallback
(``LPSCHED_PURE_PYTHON=1``).
"""

from libc.math cimport ceil, fabs, sqrt, INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

ctypedef long long i64


cdef inline bint _finite(double x) noexcept nogil:
    return x - x == 0.0


cdef double _fsum(const double *x, Py_ssize_t n, double *part) noexcept nogil:
    """CPython's ``math.fsum`` (Shewchuk's partials, then the half-even fix-up) on ``n``
    finite doubles; ``part`` holds at least ``n + 1`` doubles. Correctly rounded, so the
    value is ``math.fsum``'s."""
    cdef Py_ssize_t i, j, k, m = 0
    cdef double xi, y, t, hi, yr, lo = 0.0
    for k in range(n):
        xi = x[k]
        i = 0
        for j in range(m):
            y = part[j]
            if fabs(xi) < fabs(y):
                t = xi
                xi = y
                y = t
            hi = xi + y
            yr = hi - xi
            lo = y - yr
            if lo != 0.0:
                part[i] = lo
                i += 1
            xi = hi
        m = i
        if xi != 0.0:
            part[m] = xi
            m += 1
    hi = 0.0
    if m > 0:
        m -= 1
        hi = part[m]
        while m > 0:
            xi = hi
            m -= 1
            y = part[m]
            hi = xi + y
            yr = hi - xi
            lo = y - yr
            if lo != 0.0:
                break
        if m > 0 and ((lo < 0.0 and part[m - 1] < 0.0) or (lo > 0.0 and part[m - 1] > 0.0)):
            y = lo * 2.0
            xi = hi + y
            yr = xi - hi
            if y == yr:
                hi = xi
    return hi


cdef class LiteralGraph:
    """One graph as the compiled loop reads it: sequential times, ``α``, real tasks,
    sources, every successor list sorted (the walk's order) and every task's proper
    ancestors in decreasing index order, with the loop's work arrays."""

    cdef Py_ssize_t n, nsrc
    cdef double *t1
    cdef double *al
    cdef char *real
    cdef int *src
    cdef int *wptr
    cdef int *widx
    cdef int *aptr
    cdef int *anc
    # work arrays of one run
    cdef i64 *p
    cdef i64 *cap
    cdef char *haskey
    cdef int *nxt
    cdef double *tt
    cdef double *prod
    cdef double *key
    cdef double *bl
    cdef double *bl2
    cdef double *part

    def __cinit__(self) -> None:
        self.n = 0
        self.t1 = self.al = self.tt = self.prod = self.key = self.bl = self.bl2 = NULL
        self.part = NULL
        self.real = self.haskey = NULL
        self.src = self.wptr = self.widx = self.aptr = self.anc = self.nxt = NULL
        self.p = self.cap = NULL

    def __dealloc__(self) -> None:
        free(self.t1)
        free(self.al)
        free(self.real)
        free(self.src)
        free(self.wptr)
        free(self.widx)
        free(self.aptr)
        free(self.anc)
        free(self.p)
        free(self.cap)
        free(self.haskey)
        free(self.nxt)
        free(self.tt)
        free(self.prod)
        free(self.key)
        free(self.bl)
        free(self.bl2)
        free(self.part)


cdef void *_alloc(Py_ssize_t count, size_t size) except NULL:
    cdef void *ptr = malloc(max(count, 1) * size)
    if ptr == NULL:
        raise MemoryError()
    return ptr


def prepare(list real, list sources, list t1, list al, list walk, list preds):
    """The :class:`LiteralGraph` of one graph.

    Parameters
    ----------
    real, sources, t1, al, walk : list
        :attr:`lpsched.ptg.model.Dag.plain`: real (not dummy) tasks, the sources (sorted),
        sequential times (s), ``α`` and every successor list sorted.
    preds : list of list of int
        The predecessors of every task.

    Returns
    -------
    LiteralGraph
        What :func:`literal_alloc` and :func:`literal_allocs` read.
    """
    cdef LiteralGraph g = LiteralGraph()
    cdef Py_ssize_t n = len(t1), v, k, e = 0, top, total = 0
    cdef int u, w
    g.n = n
    g.nsrc = len(sources)
    g.t1 = <double*>_alloc(n, sizeof(double))
    g.al = <double*>_alloc(n, sizeof(double))
    g.real = <char*>_alloc(n, sizeof(char))
    g.src = <int*>_alloc(g.nsrc, sizeof(int))
    g.wptr = <int*>_alloc(n + 1, sizeof(int))
    for v in range(n):
        g.t1[v] = t1[v]
        g.al[v] = al[v]
        g.real[v] = 1 if real[v] else 0
        e += len(walk[v])
    for k in range(g.nsrc):
        g.src[k] = sources[k]
    g.widx = <int*>_alloc(e, sizeof(int))
    e = 0
    for v in range(n):
        g.wptr[v] = e
        for w in walk[v]:
            g.widx[e] = w
            e += 1
    g.wptr[n] = e
    # proper ancestors of every task, decreasing index (a depth-first search on preds)
    cdef char *seen = <char*>_alloc(n, sizeof(char))
    cdef int *stack = <int*>_alloc(n, sizeof(int))
    cdef list ancestors = []
    try:
        for v in range(n):
            for k in range(n):
                seen[k] = 0
            top = 0
            for u in preds[v]:
                if not seen[u]:
                    seen[u] = 1
                    stack[top] = u
                    top += 1
            while top:
                top -= 1
                for u in preds[stack[top]]:
                    if not seen[u]:
                        seen[u] = 1
                        stack[top] = u
                        top += 1
            found = [k for k in range(n - 1, -1, -1) if seen[k]]
            total += len(found)
            ancestors.append(found)
    finally:
        free(seen)
        free(stack)
    g.aptr = <int*>_alloc(n + 1, sizeof(int))
    g.anc = <int*>_alloc(total, sizeof(int))
    e = 0
    for v in range(n):
        g.aptr[v] = e
        for u in ancestors[v]:
            g.anc[e] = u
            e += 1
    g.aptr[n] = e
    g.p = <i64*>_alloc(n, sizeof(i64))
    g.cap = <i64*>_alloc(n, sizeof(i64))
    g.haskey = <char*>_alloc(n, sizeof(char))
    g.nxt = <int*>_alloc(n, sizeof(int))
    g.tt = <double*>_alloc(n, sizeof(double))
    g.prod = <double*>_alloc(n, sizeof(double))
    g.key = <double*>_alloc(n, sizeof(double))
    g.bl = <double*>_alloc(n, sizeof(double))
    g.bl2 = <double*>_alloc(n, sizeof(double))
    g.part = <double*>_alloc(n + 1, sizeof(double))
    return g


cdef inline bint _holds(i64 q, double t, double a, double base_l, double base_a, i64 b,
                        double grow, double other) noexcept nogil:
    cdef double tq = t * (a + (1.0 - a) / <double>q)
    cdef double lq = base_l + tq
    return lq * <double>b <= (base_a + <double>q * tq) * grow or not lq > other


cdef i64 _jump_end(i64 q1, i64 cap, double t, double a, double base_l, double base_a,
                   i64 b, double grow, double other, double monotone) noexcept nogil:
    """:func:`lpsched.ptg.hcpa_literal._jump_end`, the same expressions."""
    cdef i64 q
    cdef double est, d, c, ta, bb, disc, root, ce
    if a < monotone or not t > 0.0:
        q = q1
        while q < cap and not _holds(q, t, a, base_l, base_a, b, grow, other):
            q += 1
        return q
    est = <double>cap
    d = (other - base_l) / t - a
    if d > 0.0:
        ce = (1.0 - a) / d
        if ce < est:
            est = ce
    c = t * (1.0 - a)
    ta = t * a
    bb = base_a + c - <double>b * (base_l + ta)
    disc = sqrt(bb * bb + 4.0 * ta * <double>b * c)
    if bb > 0.0:
        root = 2.0 * <double>b * c / (bb + disc)
    else:
        root = (disc - bb) / (2.0 * ta)
    if root < est:
        est = root
    if _finite(est):
        ce = ceil(est)
        q = q1 if ce < <double>q1 else <i64>ce
        if cap < q:
            q = cap
    else:
        q = cap
    while q < cap and not _holds(q, t, a, base_l, base_a, b, grow, other):
        q += 1
    while q > q1 and _holds(q - 1, t, a, base_l, base_a, b, grow, other):
        q -= 1
    return q


cdef inline double _succ_max(const double *lv, const int *widx, int lo, int hi) noexcept nogil:
    cdef double m = lv[widx[lo]]
    cdef int j
    for j in range(lo + 1, hi):
        if lv[widx[j]] > m:
            m = lv[widx[j]]
    return m


cdef void _run(LiteralGraph g, i64 b, double grow, double monotone) noexcept nogil:
    """The loop on ``g`` with the caps in ``g.cap`` and stopping budget ``b``; the
    allocation in ``g.p``."""
    cdef Py_ssize_t n = g.n, k
    cdef int v, u, w, j, lo, hi, best, x, single
    cdef i64 q0, q, cv
    cdef double L, area, kv, kk, t, a, tq0, base_l, base_a, tq, lq, other, tv, m
    cdef double *t1 = g.t1
    cdef double *al = g.al
    cdef double *tt = g.tt
    cdef double *bl = g.bl
    cdef double *bl2 = g.bl2
    cdef double *key = g.key
    cdef i64 *p = g.p
    cdef i64 *cap = g.cap
    cdef int *nxt = g.nxt
    cdef int *wptr = g.wptr
    cdef int *widx = g.widx
    for v in range(n):
        p[v] = 1 if g.real[v] else 0
        tt[v] = t1[v] * (al[v] + (1.0 - al[v]) / 1.0) if g.real[v] else 0.0
        g.prod[v] = <double>p[v] * tt[v]
        g.haskey[v] = g.real[v] and p[v] < cap[v]
        key[v] = t1[v] * (al[v] + (1.0 - al[v]) / <double>(p[v] + 1)) / <double>(p[v] + 1)
    for v in range(n - 1, -1, -1):  # the bottom levels, reverse topological order
        lo, hi = wptr[v], wptr[v + 1]
        if hi > lo:
            bl[v] = tt[v] + (bl[widx[lo]] if hi - lo == 1 else _succ_max(bl, widx, lo, hi))
        else:
            bl[v] = tt[v]
    for v in range(n):  # the walk's next task: the first largest successor
        lo, hi = wptr[v], wptr[v + 1]
        if hi == lo:
            nxt[v] = -1
        else:
            best = widx[lo]
            for j in range(lo + 1, hi):
                if bl[widx[j]] > bl[best]:
                    best = widx[j]
            nxt[v] = best
    single = g.src[0] if g.nsrc == 1 else -1
    while True:
        if single >= 0:
            u = single
        else:
            u = g.src[0]
            for k in range(1, g.nsrc):
                if bl[g.src[k]] > bl[u]:
                    u = g.src[k]
        L = bl[u]
        area = _fsum(g.prod, n, g.part)
        if L * <double>b <= area * grow:
            break
        v = -1
        kv = 0.0
        while u >= 0:
            if g.haskey[u]:
                kk = key[u]
                if v < 0 or kk < kv or (kk == kv and u < v):
                    v = u
                    kv = kk
            u = nxt[u]
        if v < 0:
            break  # saturation: every critical-path task is at its cap
        q0, t, a, tq0 = p[v], t1[v], al[v], tt[v]
        base_l = L - tq0
        base_a = area - <double>q0 * tq0
        q = q0 + 1
        cv = cap[v]
        if q < cv:
            tq = t * (a + (1.0 - a) / <double>q)
            lq = base_l + tq
            if lq * <double>b > (base_a + <double>q * tq) * grow:
                memcpy(bl2, bl, n * sizeof(double))
                bl2[v] = -INFINITY
                for j in range(g.aptr[v], g.aptr[v + 1]):
                    w = g.anc[j]
                    lo, hi = wptr[w], wptr[w + 1]
                    bl2[w] = tt[w] + (bl2[widx[lo]] if hi - lo == 1
                                      else _succ_max(bl2, widx, lo, hi))
                other = -INFINITY
                for k in range(g.nsrc):
                    x = g.src[k]
                    if x != v and bl2[x] > other:
                        other = bl2[x]
                if lq > other:
                    q = _jump_end(q + 1, cv, t, a, base_l, base_a, b, grow, other, monotone)
        p[v] = q
        tv = t * (a + (1.0 - a) / <double>q)
        tt[v] = tv
        g.prod[v] = <double>q * tv
        if q < cv:
            key[v] = t * (a + (1.0 - a) / <double>(q + 1)) / <double>(q + 1)
        else:
            g.haskey[v] = 0
        lo, hi = wptr[v], wptr[v + 1]
        if hi == lo:
            bl[v] = tv
        else:
            bl[v] = tv + (bl[widx[lo]] if hi - lo == 1 else _succ_max(bl, widx, lo, hi))
        for j in range(g.aptr[v], g.aptr[v + 1]):
            w = g.anc[j]
            lo, hi = wptr[w], wptr[w + 1]
            if hi - lo == 1:
                bl[w] = tt[w] + bl[widx[lo]]
            else:
                best = widx[lo]
                m = bl[best]
                for x in range(lo + 1, hi):
                    if bl[widx[x]] > m:
                        m = bl[widx[x]]
                        best = widx[x]
                bl[w] = tt[w] + m
                nxt[w] = best


def literal_alloc(LiteralGraph g, i64 budget, const i64[::1] limit, i64 stop_budget,
                  double grow, double monotone):
    """The literal allocation with budget ``budget``, per-task caps ``min(budget, limit)``
    and the stopping test on ``stop_budget`` processors.

    Parameters
    ----------
    g : LiteralGraph
        The graph (:func:`prepare`).
    budget : int
        ``Pb``: no task gets more processors.
    limit : numpy.ndarray of int64
        A cap per task.
    stop_budget : int
        The processors ``T_A`` is averaged over.
    grow : float
        ``1 + TOL``, the stopping test's tolerance.
    monotone : float
        ``MONOTONE_ALPHA``: below it a jump's end is scanned.

    Returns
    -------
    numpy.ndarray
        The allocation (int64, 0 for dummies).
    """
    cdef Py_ssize_t v, n = g.n
    if limit.shape[0] != n:
        raise ValueError(f"limit has {limit.shape[0]} entries for {n} tasks")
    for v in range(n):
        g.cap[v] = budget if limit[v] > budget else limit[v]
    _run(g, stop_budget, grow, monotone)
    out = np.empty(n, dtype=np.int64)
    cdef i64[::1] o = out
    for v in range(n):
        o[v] = g.p[v]
    return out


def literal_allocs(LiteralGraph g, i64 first, i64 last, const unsigned char[::1] one,
                   double grow, double monotone):
    """The literal allocations of every budget ``b = first..last``: caps ``b`` (1 for the
    tasks ``one`` marks, those of ``α = 1``), the stopping test on ``b``.

    Parameters
    ----------
    g : LiteralGraph
        The graph (:func:`prepare`).
    first, last : int
        The budgets, ``1 <= first <= last``.
    one : numpy.ndarray of uint8
        1 for the tasks capped at one processor.
    grow : float
        ``1 + TOL``.
    monotone : float
        ``MONOTONE_ALPHA``.

    Returns
    -------
    numpy.ndarray
        Shape ``(last − first + 1, n)``, row ``b − first`` the allocation of budget ``b``.
    """
    cdef Py_ssize_t v, n = g.n
    cdef i64 b
    if one.shape[0] != n:
        raise ValueError(f"one has {one.shape[0]} entries for {n} tasks")
    out = np.empty((max(last - first + 1, 0), n), dtype=np.int64)
    cdef i64[:, ::1] o = out
    for b in range(first, last + 1):
        for v in range(n):
            g.cap[v] = 1 if one[v] else b
        _run(g, b, grow, monotone)
        for v in range(n):
            o[b - first, v] = g.p[v]
    return out
