# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The batch simulator's free processors and allocation rules compiled (optional).

:class:`Mask` holds the machine's free state the way :class:`lpsched.batch.simulator._BatchSim`
keeps it on its mask path (every case but ``basic`` on a line): the boolean mask, the free
count of each bucket of ``BLOCK`` ids and, for the cluster and tree rules, of each cluster.
It shares those numpy arrays with the simulator (it edits them in place), takes and gives a
job's ids, and chooses them under every rule of :func:`lpsched.batch.allocation.allocate`,
statement for statement the Python rule: the same order of clusters, blocks and runs, the
same ties, integers only (no float is computed here). The Python functions stay the
reference and the fallback (``LPSCHED_PURE_PYTHON=1``); tests/batch/test_mask_kernel.py
compares both.
"""

from libc.stdlib cimport qsort

import numpy as np

ctypedef long long i64

# the rules, in the order of lpsched.batch.allocation.ALLOCATORS
cdef enum:
    BASIC = 0
    BECONT = 1
    CONT = 2
    BECONT_FF = 3
    CONT_FF = 4
    BELOC = 5
    LOC = 6
    BEPLAT = 7
    PLAT = 8
    CONTIGUOUS = 9
    QUASI = 10
    MAXLEVELS = 64

RULES = ("basic", "becont", "cont", "becont-ff", "cont-ff", "beloc", "loc", "beplat",
         "plat", "contiguous", "quasi-contiguous")

ctypedef struct Key:
    i64 neg
    i64 idx


cdef int _cmp_key(const void *a, const void *b) noexcept nogil:
    cdef const Key *x = <const Key*>a
    cdef const Key *y = <const Key*>b
    if x.neg != y.neg:
        return -1 if x.neg < y.neg else 1
    return (x.idx > y.idx) - (x.idx < y.idx)


cdef class Mask:
    """The free state of a machine and its allocation rule.

    Parameters
    ----------
    free : numpy.ndarray
        The free mask (bool), edited in place.
    counts : numpy.ndarray
        int64, the free count of each bucket of ``block`` ids, edited in place.
    clusters : numpy.ndarray or None
        int64, the free count of each cluster, edited in place (the cluster and tree rules).
    rule : str
        The allocation rule (:data:`lpsched.batch.allocation.ALLOCATORS`).
    machine : int
        The installed processors: the run rules read ``free[:machine]``.
    cluster_size : int
        Processors per cluster (0 when the rule reads none).
    block_sizes : tuple of int
        The tree's block sizes per level (empty on a line).
    qct : int
        The quasi-contiguity threshold (percent).
    block : int
        Ids per bucket of ``counts``.
    """

    cdef unsigned char[::1] fr
    cdef i64[::1] cnt
    cdef i64[::1] clu
    cdef bint has_clu
    cdef Py_ssize_t n, nalloc, cl, nclu, blk
    cdef int rule, levels, qct
    cdef i64 bs[MAXLEVELS]
    cdef i64[::1] lc
    cdef i64[::1] hist
    cdef i64[::1] order
    cdef object args, mask

    def __init__(self, free, counts, clusters, str rule, Py_ssize_t machine,
                 Py_ssize_t cluster_size, tuple block_sizes, int qct, Py_ssize_t block):
        cdef Py_ssize_t i
        self.args = (rule, machine, cluster_size, block_sizes, qct, block)
        self.mask = free
        self.fr = free.view(np.uint8)
        self.cnt = counts
        self.has_clu = clusters is not None
        self.clu = clusters if clusters is not None else np.zeros(1, np.int64)
        self.n = free.shape[0]
        self.rule = RULES.index(rule)
        self.nalloc = machine if self.rule in (BECONT, CONT, BECONT_FF, CONT_FF) else self.n
        self.cl = cluster_size
        self.nclu = self.clu.shape[0] if self.has_clu else 0
        self.blk = block
        if len(block_sizes) > MAXLEVELS:
            raise ValueError(f"at most {MAXLEVELS} levels")
        self.levels = len(block_sizes)
        for i in range(self.levels):
            self.bs[i] = block_sizes[i]
        self.qct = qct
        self.lc = np.zeros(max(self.nclu, 1), np.int64)
        self.hist = np.zeros(cluster_size + 2, np.int64)
        self.order = np.zeros(max(self.nclu, 1), np.int64)

    @property
    def free(self):
        """The free mask (bool, shared with the caller)."""
        return self.mask

    def copy(self):
        """A :class:`Mask` of the same rule on copies of the mask and counts.

        Returns
        -------
        Mask
            Independent of this one (a trial of other free processors).
        """
        return Mask(self.mask.copy(), np.asarray(self.cnt).copy(),
                    np.asarray(self.clu).copy() if self.has_clu else None, *self.args)

    def victims(self, list ids_of, Py_ssize_t size, i64 total):
        """``_BatchSim.victims_for``'s two searches, on this mask in place (restored): the
        rule on the free ids with every victim's, then the shortest prefix of victims
        whose ids let the rule place ``size`` (not for the run rules, which read runs).

        Parameters
        ----------
        ids_of : list of numpy.ndarray
            int32, each victim's ids (busy now), latest started first.
        size : int
            The head's processors.
        total : int
            The free count now.

        Returns
        -------
        tuple of (int, numpy.ndarray) or None
            The prefix length and the placement on its ids, or ``None`` when every
            victim's ids do not suffice.
        """
        cdef Py_ssize_t n, k, count = len(ids_of)
        cdef i64 run = total
        for k in range(count):
            self.give(ids_of[k])
            run += len(ids_of[k])
        found = self.allocate(size, run)
        for k in range(count):
            self.take(ids_of[k])
        if found is None:
            return None
        place, run, n = None, total, 0
        try:
            while place is None:  # ends at the latest when every victim is in
                self.give(ids_of[n])
                run += len(ids_of[n])
                n += 1
                place = self.allocate(size, run)
        finally:
            for k in range(n):
                self.take(ids_of[k])
        return n, place

    def take(self, const int[::1] ids):
        """Mark ``ids`` busy in the mask and the counts.

        Parameters
        ----------
        ids : numpy.ndarray
            int32, distinct free ids.
        """
        cdef Py_ssize_t k, i
        for k in range(ids.shape[0]):  # checked first: a refused call changes nothing
            i = ids[k]
            if i < 0 or i >= self.n or not self.fr[i]:
                raise ValueError(f"id {i} is not a free processor of the mask")
        for k in range(ids.shape[0]):
            i = ids[k]
            self.fr[i] = 0
            self.cnt[i // self.blk] -= 1
            if self.has_clu:
                self.clu[i // self.cl] -= 1

    def give(self, const int[::1] ids):
        """Mark ``ids`` free again in the mask and the counts.

        Parameters
        ----------
        ids : numpy.ndarray
            int32, distinct busy ids.
        """
        cdef Py_ssize_t k, i
        for k in range(ids.shape[0]):  # checked first: a refused call changes nothing
            i = ids[k]
            if i < 0 or i >= self.n or self.fr[i]:
                raise ValueError(f"id {i} is not a busy processor of the mask")
        for k in range(ids.shape[0]):
            i = ids[k]
            self.fr[i] = 1
            self.cnt[i // self.blk] += 1
            if self.has_clu:
                self.clu[i // self.cl] += 1

    def begin(self, Py_ssize_t size, i64 total, starts=None, lengths=None):
        """Choose ``size`` ids under the rule and take them.

        Parameters
        ----------
        size : int
            The job's processors.
        total : int
            The free count of the mask.
        starts, lengths : numpy.ndarray, optional
            int64, the free runs (the run rules).

        Returns
        -------
        numpy.ndarray or None
            int32, the ids taken, or ``None`` when the rule cannot place the job now.
        """
        ids = self.allocate(size, total, starts, lengths)
        if ids is not None:
            self.take(ids)
        return ids

    def allocate(self, Py_ssize_t size, i64 total, starts=None, lengths=None):
        """Choose ``size`` ids under the rule, as :func:`lpsched.batch.allocation.allocate`.

        Parameters
        ----------
        size : int
            The job's processors.
        total : int
            The free count of the mask.
        starts, lengths : numpy.ndarray, optional
            int64, the free runs (the run rules).

        Returns
        -------
        numpy.ndarray or None
            int32, the ids chosen, or ``None`` when the rule cannot place the job now.
        """
        cdef int[::1] o
        cdef Py_ssize_t got
        cdef int rule = self.rule
        if total < size:
            return None
        out = np.empty(size, np.int32)
        if size == 0:
            return out
        o = out
        if rule == BASIC:
            got = self._lowest(o, size)
        elif rule == BEPLAT or rule == PLAT:
            got = self._plat(o, size)
        elif rule == CONTIGUOUS or rule == QUASI:
            got = self._contiguous(o, size)
        elif rule == BELOC or rule == LOC:
            got = self._local(o, size)
        else:
            if starts is None:  # the runs of the free ids the run rules read
                from lpsched.batch.allocation import free_blocks

                starts, lengths = free_blocks(self.mask[:self.nalloc])
            got = self._runs(o, size, starts, lengths)
        if got < 0:
            return None
        if got != size:  # only when ``total`` overstates the free processors
            raise ValueError(f"total = {total} free processors, but the rule found {got} "
                             f"for a job of {size}")
        return out

    cdef Py_ssize_t _scan(self, int[::1] o, Py_ssize_t k, Py_ssize_t lo, Py_ssize_t hi,
                          Py_ssize_t need):
        """The free ids of ``[lo, hi)`` in increasing order into ``o[k:]``, until ``need``."""
        cdef Py_ssize_t i
        if hi > self.n:
            hi = self.n
        i = lo
        while i < hi and k < need:
            if self.fr[i]:
                o[k] = <int>i
                k += 1
            i += 1
        return k

    cdef Py_ssize_t _lowest(self, int[::1] o, Py_ssize_t size):
        """``basic``: the ``size`` lowest free ids, busy buckets skipped."""
        cdef Py_ssize_t b, k = 0
        cdef Py_ssize_t nb = self.cnt.shape[0]
        b = 0
        while b < nb and k < size:
            if self.cnt[b]:
                k = self._scan(o, k, b * self.blk, (b + 1) * self.blk, size)
            b += 1
        return k

    cdef void _sort_clusters(self, Py_ssize_t c0, Py_ssize_t nc):
        """``order[:nc]``: clusters ``c0 .. c0+nc-1`` by decreasing free count, ties lower
        index (numpy's stable argsort of the negated counts), by a counting sort."""
        cdef Py_ssize_t c, v, acc, cl = self.cl
        cdef i64[::1] hist = self.hist
        for v in range(cl + 2):
            hist[v] = 0
        for c in range(c0, c0 + nc):
            hist[cl - self.clu[c] + 1] += 1
        acc = 0
        for v in range(cl + 2):
            acc += hist[v]
            hist[v] = acc
        for c in range(c0, c0 + nc):
            v = cl - self.clu[c]
            self.order[hist[v]] = c
            hist[v] += 1

    cdef Py_ssize_t _by_clusters(self, int[::1] o, Py_ssize_t c0, Py_ssize_t nc,
                                 Py_ssize_t size, bint sorted_):
        """``size`` free ids of clusters ``c0 ..`` by decreasing free count (ties lower),
        increasing inside each (``_take_by_clusters``)."""
        cdef Py_ssize_t t, c, k = 0, cl = self.cl
        if not sorted_:
            self._sort_clusters(c0, nc)
        t = 0
        while k < size and t < nc:
            c = self.order[t]
            k = self._scan(o, k, c * cl, (c + 1) * cl, size)
            t += 1
        return k

    cdef i64 _block_count(self, Py_ssize_t b, Py_ssize_t per):
        """The free count of block ``b`` of ``per`` clusters."""
        cdef Py_ssize_t c
        cdef i64 s = 0
        for c in range(b * per, (b + 1) * per):
            s += self.clu[c]
        return s

    cdef int _min_level(self, Py_ssize_t size):
        cdef int li
        for li in range(self.levels):
            if self.bs[li] >= size:
                return li
        return self.levels - 1

    cdef Py_ssize_t _plat(self, int[::1] o, Py_ssize_t size):
        """``beplat`` / ``plat``: the first block (levels bottom-up) holding ``size`` free
        processors, its clusters by decreasing free count."""
        cdef int li, lmin = self._min_level(size)
        cdef int top = self.levels if self.rule == BEPLAT else lmin + 1
        cdef Py_ssize_t b, nb, per
        for li in range(lmin, top):
            per = self.bs[li] // self.cl
            nb = self.nclu // per
            for b in range(nb):
                if self._block_count(b, per) >= size:
                    return self._by_clusters(o, b * per, per, size, False)
        return -1

    cdef Py_ssize_t _contiguous(self, int[::1] o, Py_ssize_t size):
        """``contiguous`` / ``quasi-contiguous`` (the module doc of allocation.py)."""
        cdef int lmin = self._min_level(size)
        cdef Py_ssize_t per = self.bs[lmin] // self.cl
        cdef Py_ssize_t nb = self.nclu // per, b, c, p, pper, s, t, k, best
        cdef i64 bsz = self.bs[lmin], allowed, ps
        cdef i64[::1] lc = self.lc
        for b in range(nb):
            lc[b] = self._block_count(b, per)
            if lc[b] >= size:
                return self._scan(o, 0, b * bsz, (b + 1) * bsz, size)
        if self.rule == CONTIGUOUS or lmin == self.levels - 1:
            return -1
        allowed = (self.qct * size + 99) // 100
        if allowed == 0:
            return -1
        pper = self.bs[lmin + 1] // bsz
        best = -1
        for p in range(nb // pper):
            ps = 0
            for c in range(p * pper, (p + 1) * pper):
                ps += lc[c]
            if ps < size:
                continue
            for c in range(p * pper, (p + 1) * pper):
                if size - lc[c] <= allowed and (best < 0 or lc[c] > lc[best]):
                    best = c
        if best < 0:
            return -1
        k = self._scan(o, 0, best * bsz, (best + 1) * bsz, size)
        p = best // pper
        # the siblings by decreasing free count, ties lower index (an insertion sort: a
        # parent has few children)
        t = 0
        for c in range(p * pper, (p + 1) * pper):
            if c == best:
                continue
            s = t
            while s > 0 and (lc[self.order[s - 1]] < lc[c]):
                self.order[s] = self.order[s - 1]
                s -= 1
            self.order[s] = c
            t += 1
        for s in range(t):
            if k >= size:
                break
            c = self.order[s]
            k = self._scan(o, k, c * bsz, (c + 1) * bsz, size)
        return k

    cdef Py_ssize_t _local(self, int[::1] o, Py_ssize_t size):
        """``beloc`` / ``loc``: clusters by decreasing free count; ``loc`` only the
        ``⌈size/ℓ⌉`` fullest, refusing when they are too few."""
        cdef Py_ssize_t t, need
        cdef i64 s = 0
        self._sort_clusters(0, self.nclu)
        if self.rule == LOC:
            need = (size + self.cl - 1) // self.cl
            if need > self.nclu:
                need = self.nclu
            for t in range(need):
                s += self.clu[self.order[t]]
            if s < size:
                return -1
        return self._by_clusters(o, 0, self.nclu, size, True)

    cdef Py_ssize_t _runs(self, int[::1] o, Py_ssize_t size, starts, lengths):
        """The run rules on the free runs ``starts``/``lengths``."""
        cdef const i64[:] st = starts
        cdef const i64[:] ln = lengths
        cdef Py_ssize_t r, nr = st.shape[0], best, k, i
        cdef int rule = self.rule
        if rule == BECONT_FF or rule == CONT_FF:
            for r in range(nr):
                if ln[r] >= size:
                    for i in range(size):
                        o[i] = <int>(st[r] + i)
                    return size
            if rule == CONT_FF:
                return -1
            return self._lowest(o, size)
        if nr == 0:  # unreachable: a free id makes a run
            return -1
        if rule == CONT:
            best = 0
            for r in range(1, nr):
                if ln[r] > ln[best]:
                    best = r
            if ln[best] < size:
                return -1
            for i in range(size):
                o[i] = <int>(st[best] + i)
            return size
        return self._becont(o, size, st, ln)

    cdef Py_ssize_t _becont(self, int[::1] o, Py_ssize_t size, const i64[:] st,
                            const i64[:] ln):
        """``becont``: the runs by decreasing length (ties lower start) until ``size``."""
        cdef Py_ssize_t r, nr = st.shape[0], k = 0, i
        keys = np.empty(nr * 2, np.int64)
        cdef i64[::1] kv = keys
        for r in range(nr):
            kv[2 * r] = -ln[r]
            kv[2 * r + 1] = r
        qsort(&kv[0], nr, sizeof(Key), _cmp_key)
        for r in range(nr):
            i = st[kv[2 * r + 1]]
            while k < size and i < st[kv[2 * r + 1]] + ln[kv[2 * r + 1]]:
                o[k] = <int>i
                k += 1
                i += 1
            if k >= size:
                break
        return k


def backfill_candidates(list queue, Py_ssize_t lo, const i64[::1] sizes,
                        const double[::1] est, double now, double bound, i64 extra,
                        i64 nfree, refused):
    """The queue positions from ``lo`` that may backfill, as
    ``_BatchSim.backfill_candidates`` (the same tests, the same float sum).

    Parameters
    ----------
    queue : list of int
        The waiting jobs in queue order.
    lo : int
        The first position read.
    sizes : numpy.ndarray
        int64, every job's processors.
    est : numpy.ndarray
        float64, every job's estimate (s).
    now, bound : float
        The current time and the shadow time's bound (s).
    extra : int
        The processors the head leaves free at the shadow time.
    nfree : int
        The free processors now.
    refused : set of int or None
        The sizes the rule refused on the current free processors.

    Returns
    -------
    list of int
        The positions, increasing: at most ``nfree`` wide, of no refused size, ending by
        ``bound`` or within ``extra``.
    """
    cdef Py_ssize_t k, j, n = len(queue)
    cdef i64 size
    out = []
    for k in range(lo, n):
        j = <Py_ssize_t>queue[k]
        size = sizes[j]
        if size > nfree:
            continue
        if not (now + est[j] <= bound or size <= extra):
            continue
        if refused is not None and size in refused:
            continue
        out.append(k)
    return out
