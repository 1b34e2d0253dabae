# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Conservative backfilling's plan compiled (optional): :class:`lpsched.batch.plan.Profile`
on growable C arrays.

The same plan as the Python class (``free[i]`` processors on ``[times[i], times[i+1])``,
the last to infinity) and the same answers, bit for bit: every method makes the Python
method's comparisons and float operations in the same order (``at + length``, ``1e-9 *
max(1, |want|)``, ``want - tol``; :meth:`earlier_fit`'s ``1e-9 * want``), built with
``-ffp-contract=off`` (no fused multiply-add), so every double is the one numpy or Python
computes. Where the Python class makes several numpy passes (two searches and a copy per
edit, a mask, an ``argmax`` and a vectorised search per fit, a running minimum and a
search per table), this one makes one loop over the few hundred breakpoints: at that size
numpy's call overhead, not the passes, was the cost. tests/batch/test_plan_kernel.py
compares both classes on random edit sequences; the Python class stays the reference and
the fallback (``LPSCHED_PURE_PYTHON=1``).
"""

from libc.math cimport INFINITY, fabs
from libc.stdlib cimport free as c_free, malloc, realloc
from libc.string cimport memcpy, memmove

import numpy as np

from lpsched.errors import InvalidInstanceError

ctypedef long long i64

cdef str _NEVER = "no time ever has enough processors"
cdef object _NO_BEST = np.zeros(1, dtype=np.int64)


cdef inline Py_ssize_t _right(const double *a, Py_ssize_t n, double v) noexcept nogil:
    """``searchsorted(a[:n], v, side="right")``: the first index with ``a[i] > v``."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t _left(const double *a, Py_ssize_t n, double v) noexcept nogil:
    """``searchsorted(a[:n], v, side="left")``: the first index with ``a[i] >= v``."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline double _tol(double want) noexcept nogil:
    """``1e-9 * max(1.0, abs(want))`` (Python's ``max``: 1.0 unless ``|want|`` is larger)."""
    cdef double w = fabs(want)
    return 1e-9 * (w if w > 1.0 else 1.0)


cdef class Profile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i+1])``, the last to
    infinity; C arrays, each method one loop (see the module's docstring)."""

    cdef double *t
    cdef i64 *f
    cdef Py_ssize_t n, cap
    cdef i64 *scratch
    cdef Py_ssize_t scap
    # the arrays reassign's test reads (bound per call by ``_keys``)
    cdef const i64[::1] rv, sv, bv
    cdef const double[::1] rsv, lv

    def __cinit__(self, now, free_now):
        self.cap = 64
        self.t = <double*>malloc(self.cap * sizeof(double))
        self.f = <i64*>malloc(self.cap * sizeof(i64))
        self.scap = 0
        self.scratch = NULL
        if self.t == NULL or self.f == NULL:
            raise MemoryError()
        self.t[0] = float(now)  # the Python class's conversions
        self.f[0] = int(free_now)
        self.n = 1

    def __dealloc__(self):
        c_free(self.t)
        c_free(self.f)
        c_free(self.scratch)

    cdef int _grow(self, Py_ssize_t want) except -1:
        cdef Py_ssize_t cap = self.cap
        cdef double *t
        cdef i64 *f
        if want <= cap:
            return 0
        while cap < want:
            cap *= 2
        t = <double*>realloc(self.t, cap * sizeof(double))
        if t == NULL:
            raise MemoryError()
        self.t = t
        f = <i64*>realloc(self.f, cap * sizeof(i64))
        if f == NULL:
            raise MemoryError()
        self.f = f
        self.cap = cap
        return 0

    cdef i64 *_buffer(self, Py_ssize_t want) except NULL:
        cdef i64 *s
        if want > self.scap:
            s = <i64*>realloc(self.scratch, max(want, 64) * sizeof(i64))
            if s == NULL:
                raise MemoryError()
            self.scratch = s
            self.scap = max(want, 64)
        return self.scratch

    cdef int _load(self, const double[::1] times, const i64[::1] free) except -1:
        cdef Py_ssize_t k, n = times.shape[0]
        self._grow(max(n, 1))
        for k in range(n):
            self.t[k] = times[k]
            self.f[k] = free[k]
        self.n = n
        return 0

    @classmethod
    def from_arrays(cls, times, free):
        """The plan of breakpoints ``times`` (s, increasing) and free counts ``free``.

        Parameters
        ----------
        times : numpy.ndarray
            Breakpoint times (float, at least one).
        free : numpy.ndarray
            Free processors from each (int).

        Returns
        -------
        Profile
            That plan.
        """
        t = np.ascontiguousarray(times, dtype=np.float64)
        f = np.ascontiguousarray(free, dtype=np.int64)
        if t.shape[0] < 1 or f.shape[0] != t.shape[0]:
            raise ValueError("a plan needs as many free counts as breakpoints, at least one")
        prof = cls(float(t[0]), int(f[0]))
        (<Profile>prof)._load(t, f)
        return prof

    @classmethod
    def from_releases(cls, now, free_now, ends, sizes):
        """The profile where ``sizes[i]`` processors come back at ``max(ends[i], now)``
        (the Python class's numpy steps, then copied in).

        Parameters
        ----------
        now : float
            The profile's start (s).
        free_now : int
            Processors free at ``now``.
        ends : numpy.ndarray
            Estimated ends (s) of the running jobs.
        sizes : numpy.ndarray
            Their processors.

        Returns
        -------
        Profile
            Free processors from ``now`` on, growing at each release.
        """
        times = np.array([float(now)])
        free = np.array([int(free_now)], dtype=np.int64)
        if ends.size:
            at = np.maximum(ends, now)
            rel, inv = np.unique(at, return_inverse=True)
            gained = np.cumsum(np.bincount(inv, weights=sizes, minlength=rel.size))
            gained = gained.astype(np.int64)
            if rel[0] == now:
                free[0] += gained[0]
                rel, gained = rel[1:], gained[1:]
            times = np.concatenate([times, rel])
            free = np.concatenate([free, free_now + gained])
        return cls.from_arrays(times, free)

    def __reduce__(self):
        return (_rebuild, (self.times, self.free))

    @property
    def times(self):
        """numpy.ndarray: a copy of the breakpoint times (s)."""
        out = np.empty(self.n, dtype=np.float64)
        cdef double[::1] v = out
        if self.n:
            memcpy(&v[0], self.t, self.n * sizeof(double))
        return out

    @property
    def free(self):
        """numpy.ndarray: a copy of the free processors from each breakpoint (int64)."""
        out = np.empty(self.n, dtype=np.int64)
        cdef i64[::1] v = out
        if self.n:
            memcpy(&v[0], self.f, self.n * sizeof(i64))
        return out

    cdef Py_ssize_t _insert_after(self, Py_ssize_t i, double at) except -1:
        """Insert a breakpoint at ``at`` after index ``i``, with ``free[i]``; its index."""
        cdef Py_ssize_t k = i + 1, rest = self.n - k
        self._grow(self.n + 1)
        if rest > 0:
            memmove(self.t + k + 1, self.t + k, rest * sizeof(double))
            memmove(self.f + k + 1, self.f + k, rest * sizeof(i64))
        self.t[k] = at
        self.f[k] = self.f[i]
        self.n += 1
        return k

    cpdef add(self, double start, double end, i64 delta):
        """``delta`` more free processors during ``[start, end)`` (clipped to the profile's
        start; ``end`` may be infinite).

        Parameters
        ----------
        start, end : float
            The interval (s); ``end`` may be ``inf``.
        delta : int
            Processors added to the free count there (negative: taken).
        """
        cdef Py_ssize_t i, k, a, b
        cdef double first = self.t[0]
        if start < first:
            start = first
        if not end > start:
            return
        i = _right(self.t, self.n, start) - 1
        a = i if self.t[i] == start else self._insert_after(i, start)
        if not end < INFINITY:
            b = self.n
        else:
            k = _right(self.t, self.n, end) - 1
            b = k if self.t[k] == end else self._insert_after(k, end)
        for k in range(a, b):
            self.f[k] += delta

    def reserve(self, double start, double length, i64 size):
        """Take ``size`` processors during ``[start, start + length)``.

        Parameters
        ----------
        start : float
            The reservation's start (s).
        length : float
            Its length (s).
        size : int
            Its processors.
        """
        self.add(start, start + length, -size)

    def trim(self, double now):
        """Forget the past and merge the breakpoints that change nothing (as the Python
        class: the merge only past 64 breakpoints).

        Parameters
        ----------
        now : float
            The new start of the profile (s), at least its current start.
        """
        cdef Py_ssize_t i = _right(self.t, self.n, now) - 1, k, w
        if i > 0 or self.t[0] < now:
            if i > 0:
                memmove(self.t, self.t + i, (self.n - i) * sizeof(double))
                memmove(self.f, self.f + i, (self.n - i) * sizeof(i64))
                self.n -= i
            self.t[0] = now
        if self.n > 64:
            w = 1
            for k in range(1, self.n):
                if self.f[k] != self.f[k - 1]:
                    self.t[w] = self.t[k]
                    self.f[w] = self.f[k]
                    w += 1
            self.n = w

    cdef double _fit(self, Py_ssize_t lo, double first_time, i64 size, double length,
                     bint *found) noexcept:
        """The start of the first run of breakpoints from ``lo`` with ``size`` free that
        lasts ``length`` (breakpoint ``lo`` read at ``first_time``); ``found`` false when
        none does."""
        cdef Py_ssize_t k = lo, n = self.n
        cdef double at, want, end
        found[0] = False
        while k < n:
            while k < n and not self.f[k] >= size:
                k += 1
            if k == n:
                return INFINITY
            at = first_time if k == lo else self.t[k]
            k += 1
            while k < n and self.f[k] >= size:
                k += 1
            end = self.t[k] if k < n else INFINITY
            want = at + length
            if end >= want - _tol(want):
                found[0] = True
                return at
        return INFINITY

    def earliest(self, size, double length, after=None):
        """Find the earliest start where ``size`` processors stay free for ``length``.

        Parameters
        ----------
        size : int
            Processors wanted.
        length : float
            For how long (s).
        after : float, optional
            No earlier than this (s); default the profile's start.

        Returns
        -------
        float
            The earliest start (s); :class:`~lpsched.errors.InvalidInstanceError` when no time
            ever has ``size`` free for ``length``.
        """
        cdef i64 need = size
        cdef Py_ssize_t lo = 0
        cdef double first = self.t[0], aft
        cdef bint found
        cdef double at
        if after is not None:
            aft = after
            if aft > first:
                lo = _right(self.t, self.n, aft) - 1
                first = aft
        at = self._fit(lo, first, need, length, &found)
        if not found:
            raise InvalidInstanceError("size", size, _NEVER)
        return at

    def earlier_fit(self, i64 size, double length, double rs, double re):
        """The start of the first fitting run before ``rs`` for a job holding ``[rs, re)``,
        its own slot let go virtually, else ``inf`` (the Python :func:`_earlier_fit`).

        Parameters
        ----------
        size : int
            The job's processors.
        length : float
            Its estimate (s).
        rs, re : float
            Its reserved slot (s), ``times[0] <= rs < re``.

        Returns
        -------
        float
            The earlier start (s), or ``inf``.
        """
        cdef Py_ssize_t hi, a, k, m, src
        cdef bint inserted
        cdef double start = INFINITY, tk, want
        cdef i64 fk, before
        if not rs <= re:  # outside the callers' precondition: no breakpoint to read
            raise IndexError(f"the slot [{rs}, {re}) ends before it starts")
        hi, a = _left(self.t, self.n, re), _left(self.t, self.n, rs)
        inserted = a == hi or self.t[a] != rs
        if inserted:
            if a > 0:
                before = self.f[a - 1]
            elif hi > 0:  # Python's ``fl[-1]``
                before = self.f[hi - 1]
            else:
                raise IndexError("list index out of range")
        m = hi + 1 if inserted else hi
        for k in range(m):
            if k < a:
                tk, fk = self.t[k], self.f[k]
            elif inserted:
                if k == a:
                    tk, fk = rs, before + size
                else:
                    src = k - 1
                    tk, fk = self.t[src], self.f[src] + size
            else:
                tk, fk = self.t[k], self.f[k] + size
            if fk >= size:
                if start == INFINITY:
                    start = tk
                    if start >= rs:
                        return INFINITY
            elif start != INFINITY:
                want = start + length
                if tk >= want - (1e-9 * want if want > 1.0 else 1e-9):
                    return start
                start = INFINITY
        return start

    cdef Py_ssize_t _least_run(self, i64 least_size) noexcept:
        """How many breakpoints :meth:`held_until` reads: up to the first with fewer than
        ``least_size`` free (that one included)."""
        cdef Py_ssize_t k
        for k in range(self.n):
            if self.f[k] < least_size:
                return k + 1
        return self.n

    cdef object _held(self, const i64[::1] sizes, i64 least_size):
        cdef Py_ssize_t m = self._least_run(least_size), k, j, lo, hi, mid
        cdef i64 *least = self._buffer(m)
        cdef i64 run = self.f[0], s
        cdef Py_ssize_t count = sizes.shape[0], n = self.n
        out = np.empty(count, dtype=np.float64)
        cdef double[::1] h = out
        for k in range(m):
            if self.f[k] < run:
                run = self.f[k]
            least[k] = run
        for j in range(count):
            s = sizes[j]
            lo, hi = 0, m  # the entries with ``least >= s``: a prefix (least falls)
            while lo < hi:
                mid = (lo + hi) >> 1
                if least[mid] >= s:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == 0:
                h[j] = -INFINITY
            elif lo < n:
                h[j] = self.t[lo]
            else:
                h[j] = INFINITY
        return out

    def held_until(self, i64 top, i64 least_size=0):
        """Tabulate, per size ``s = 0..top``, when the free count first drops below ``s``
        (the Python class's table).

        Parameters
        ----------
        top : int
            The largest size asked about.
        least_size : int
            The smallest size asked about (entries below it may be wrong; default 0).

        Returns
        -------
        numpy.ndarray
            float, ``top + 1`` entries (seconds, ``-inf`` at the start, ``inf`` if never).
        """
        return self._held(np.arange(top + 1, dtype=np.int64), least_size)

    def held_for(self, sizes):
        """Give :meth:`held_until`'s entries at ``sizes`` only.

        Parameters
        ----------
        sizes : numpy.ndarray
            Job sizes (int, non-negative, at least one).

        Returns
        -------
        numpy.ndarray
            float, one per size.
        """
        cdef const i64[::1] sv = _sizes(sizes)
        cdef Py_ssize_t j
        cdef i64 least
        if sv.shape[0] == 0:
            raise ValueError("zero-size array to reduction operation minimum which has no "
                             "identity")
        least = sv[0]
        for j in range(1, sv.shape[0]):
            if sv[j] < least:
                least = sv[j]
        return self._held(sv, least)

    def reached_at(self, sizes):
        """Give, per size, the breakpoint time where the free count first reaches it.

        Parameters
        ----------
        sizes : numpy.ndarray
            Job sizes (int, non-negative).

        Returns
        -------
        numpy.ndarray
            float, one per size (``-inf`` at the start, ``inf`` if never).
        """
        cdef const i64[::1] sv = _sizes(sizes)
        cdef Py_ssize_t n = self.n, k, j, lo, hi, mid, count = sv.shape[0]
        cdef i64 *most = self._buffer(n)
        cdef i64 run = self.f[0], s, top = 0
        for j in range(count):
            if sv[j] < 0:  # outside the callers' precondition (the Python table's index)
                raise IndexError(f"size {sv[j]} is negative")
        out = np.empty(count, dtype=np.float64)
        cdef double[::1] t = out
        for k in range(n):
            if self.f[k] > run:
                run = self.f[k]
            most[k] = run
        for j in range(count):
            if sv[j] > top:
                top = sv[j]
        for j in range(count):
            s = sv[j]
            if s < 0 and top + 1 < count:  # the Python class's table, indexed by ``s``
                s = top + 1 + s
                if s < 0:
                    raise IndexError(f"index {sv[j]} is out of bounds for axis 0 with "
                                     f"size {top + 1}")
            lo, hi = 0, n  # the entries with ``most < s``: a prefix (most grows)
            while lo < hi:
                mid = (lo + hi) >> 1
                if most[mid] < s:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == 0:
                t[j] = -INFINITY
            elif lo < n:
                t[j] = self.t[lo]
            else:
                t[j] = INFINITY
        return out

    def reassign_test(self, ok, rs, size, until, double now):
        """Reassign's test of the plan on the jobs ``ok`` lets through, in place (the
        Python class's method: ``ok[i]`` stays true when ``rs[i] > now`` and ``until[i]``
        is at most :meth:`held_until`'s entry at ``size[i]``), one loop.

        Parameters
        ----------
        ok : numpy.ndarray
            bool, one per job (narrowed in place).
        rs : numpy.ndarray
            Their slot starts (s).
        size : numpy.ndarray
            Their sizes (int).
        until : numpy.ndarray
            The times (s) their processors must stay free until.
        now : float
            The current time (s).
        """
        cdef unsigned char[::1] okv
        cdef const double[::1] rsv, unv
        cdef const i64[::1] sv
        try:
            if ok.dtype != np.bool_:
                raise TypeError("not bool")
            okv = ok.view(np.uint8)
            rsv, sv, unv = rs, size, until
        except (ValueError, TypeError, AttributeError):  # other layouts: the numpy steps
            from lpsched.batch.plan import PythonProfile
            PythonProfile.reassign_test(self, ok, rs, size, until, now)
            return
        cdef Py_ssize_t count = okv.shape[0], j, m, lo, hi, mid, k, n = self.n
        cdef bint any_ok = False
        cdef i64 least = 0, s, run
        cdef i64 *low
        cdef double h
        if rsv.shape[0] < count or sv.shape[0] < count or unv.shape[0] < count:
            raise IndexError("reassign_test: fewer slots, sizes or ends than jobs")
        for j in range(count):
            if okv[j]:
                if not any_ok or sv[j] < least:
                    least = sv[j]
                any_ok = True
        if not any_ok:
            return
        m = self._least_run(least)
        low = self._buffer(m)
        run = self.f[0]
        for k in range(m):
            if self.f[k] < run:
                run = self.f[k]
            low[k] = run
        for j in range(count):
            if not okv[j]:
                continue
            s = sv[j]
            lo, hi = 0, m
            while lo < hi:
                mid = (lo + hi) >> 1
                if low[mid] >= s:
                    lo = mid + 1
                else:
                    hi = mid
            h = -INFINITY if lo == 0 else (self.t[lo] if lo < n else INFINITY)
            okv[j] = rsv[j] > now and unv[j] <= h

    cdef int _keys(self, ranks, resv_r, size_r, len_r, best, i64 cluster) except -1:
        """Bind the arrays :meth:`reassign_scan` and :meth:`reassign_next` read (1), or
        say they are not all contiguous of the right dtypes (0: the numpy steps)."""
        try:
            self.rv, self.rsv, self.sv, self.lv = ranks, resv_r, size_r, len_r
            self.bv = best if best is not None else _NO_BEST
        except (ValueError, TypeError):
            return 0
        cdef Py_ssize_t rows = self.rsv.shape[0]
        if self.sv.shape[0] < rows or self.lv.shape[0] < rows:
            raise IndexError("reassign: fewer sizes or estimates than slots")
        if best is not None and (cluster <= 0 or self.bv.shape[0] == 0):
            raise IndexError("reassign: no cluster table")
        return 1

    cdef inline int _test(self, Py_ssize_t p, double now, i64 cap, bint table, i64 cluster,
                          Py_ssize_t *b) except -1:
        """Reassign's test of position ``p`` (1 let through, 0 not), the running minimum of
        the free counts built in ``scratch`` up to ``b[0]`` entries (deeper if needed)."""
        cdef i64 r = self.rv[p], s, need, nb
        cdef Py_ssize_t lo, hi, mid, n = self.n, k
        cdef double h, rs, ends, until, length, w
        cdef i64 *low = self.scratch
        if r < 0 or r >= self.rsv.shape[0]:
            raise IndexError("reassign: a rank past the slots")
        s = self.sv[r]
        if s > cap:
            return 0
        if table:  # ``loc``: the ``ceil(size / cluster)`` fullest clusters hold ``size``
            nb = self.bv.shape[0]
            need = (s + cluster - 1) // cluster if s >= 0 else -((-s) // cluster)
            if need > nb - 1:
                need = nb - 1
            if need < 0:
                need += nb  # numpy's index from the end
                if need < 0:
                    raise IndexError("reassign: a size before the cluster table")
            if not self.bv[need] >= s:
                return 0
        rs = self.rsv[r]
        if not rs > now:
            return 0
        length = self.lv[r]
        if not (length >= 0.0 or length != length):  # np.maximum(length, 0.0)
            length = 0.0
        ends = now + length
        w = fabs(ends)
        if not (w >= 1.0 or w != w):  # np.maximum(1.0, |ends|), NaN kept
            w = 1.0
        ends = ends - 1e-9 * w
        until = rs if (rs <= ends or rs != rs) else ends  # np.minimum(rs, ends)
        # the first breakpoint where the running minimum falls below ``s``: in the prefix
        # built so far, or where building it further first does
        k = b[0]
        if k > 0 and low[k - 1] < s:
            lo, hi = 0, k
            while lo < hi:
                mid = (lo + hi) >> 1
                if low[mid] >= s:
                    lo = mid + 1
                else:
                    hi = mid
        else:
            while k < n and (k == 0 or low[k - 1] >= s):
                if k == 0 or self.f[k] < low[k - 1]:
                    low[k] = self.f[k]
                else:
                    low[k] = low[k - 1]
                k += 1
            b[0] = k
            lo = k - 1 if low[k - 1] < s else k
        h = -INFINITY if lo == 0 else (self.t[lo] if lo < n else INFINITY)
        return 1 if until <= h else 0

    def reassign_scan(self, ranks, resv_r, size_r, len_r, double now, Py_ssize_t start,
                      i64 cap, best=None, i64 cluster=1):
        """Reassign's whole test of the waiting jobs ``ranks[start:]`` (the Python class's
        method: the free processors' answer ``size <= cap`` and, given ``best``, the
        fullest clusters'; the slot after ``now``; the plan held up to the earlier of the
        slot and ``now + estimate`` less :meth:`earliest`'s tolerance), one loop; the
        positions it lets through.

        Parameters
        ----------
        ranks : numpy.ndarray
            The waiting jobs' ranks (int64), in queue order.
        resv_r, size_r, len_r : numpy.ndarray
            Slot start (s), size and estimate (s) per rank.
        now : float
            The current time (s).
        start : int
            The first position tested.
        cap : int
            The largest size the free processors may allow.
        best : numpy.ndarray, optional
            ``loc``: the free processors of the ``k`` fullest clusters, ``k = 0, 1, ...``
            (int64).
        cluster : int
            ``loc``'s cluster size.

        Returns
        -------
        list of int
            The positions (increasing) that may move.
        """
        if not self._keys(ranks, resv_r, size_r, len_r, best, cluster):
            from lpsched.batch.plan import PythonProfile
            return PythonProfile.reassign_scan(self, ranks, resv_r, size_r, len_r, now,
                                               start, cap, best, cluster)
        cdef Py_ssize_t p, b = 0, count = self.rv.shape[0]
        cdef bint table = best is not None
        self._buffer(self.n)
        out = []
        for p in range(max(start, 0), count):
            if self._test(p, now, cap, table, cluster, &b):
                out.append(p)
        return out

    def reassign_next(self, ranks, resv_r, size_r, len_r, double now, Py_ssize_t start,
                      Py_ssize_t stop, i64 cap, best=None, i64 cluster=1):
        """The first position of ``[start, stop)`` that :meth:`reassign_scan` lets through,
        else ``stop``: the jobs after it are not read, and the running minimum of the
        free counts is built only as deep as the sizes read need.

        Parameters
        ----------
        ranks : numpy.ndarray
            The waiting jobs' ranks (int64), in queue order.
        resv_r, size_r, len_r : numpy.ndarray
            Slot start (s), size and estimate (s) per rank.
        now : float
            The current time (s).
        start, stop : int
            The positions read.
        cap : int
            The largest size the free processors may allow.
        best : numpy.ndarray, optional
            As for :meth:`reassign_scan`.
        cluster : int
            ``loc``'s cluster size.

        Returns
        -------
        int
            The first position let through, or ``stop``.
        """
        if not self._keys(ranks, resv_r, size_r, len_r, best, cluster):
            from lpsched.batch.plan import PythonProfile
            return PythonProfile.reassign_next(self, ranks, resv_r, size_r, len_r, now,
                                               start, stop, cap, best, cluster)
        cdef Py_ssize_t p, b = 0
        cdef bint table = best is not None
        if stop > self.rv.shape[0]:
            raise IndexError("reassign_next: fewer ranks than positions")
        self._buffer(self.n)
        for p in range(max(start, 0), stop):
            if self._test(p, now, cap, table, cluster, &b):
                return p
        return stop


cdef const i64[::1] _sizes(sizes) except *:
    """``sizes`` as contiguous int64 (a view when it already is)."""
    try:
        return sizes
    except (ValueError, TypeError):
        return np.ascontiguousarray(sizes, dtype=np.int64)


def _rebuild(times, free):
    """Unpickle a :class:`Profile` (its breakpoints and free counts)."""
    return Profile.from_arrays(times, free)
