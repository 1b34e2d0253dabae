# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The event loop of :class:`lpsched.tasks.simulator._Sim` compiled (optional).

Statement for statement the Python simulator: the same event heap order ``(time, priority,
sequence)``, the same queues ordered by ``(key, task)``, the same ΔF sums (the Fenwick rows
of a rank added from the rank down, as ``numpy.add.reduce`` over axis 0 adds them; the side
array's sums in its order, as ``numpy.bincount`` does), the same float operations in the
same order. Every heap here orders a total order (sequence numbers and task indices are
unique), so its pops are those of :mod:`heapq`. The Python class stays the reference and
the fallback (``LPSCHED_PURE_PYTHON=1``); tests/tasks/test_online_kernel.py compares both.
"""

from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc, qsort, realloc

import numpy as np

ctypedef long long i64

cdef enum:
    COMPLETE_EV = 0
    ARRIVALS_EV = 1
    SETTLE_EV = 2
    KIND_COMPLETE = 0
    KIND_PREEMPTED = 1
    KIND_INTERRUPTED = 2
    RD_NONE = 0
    RD_THRESHOLD = 1
    RD_RANDOM = 2


ctypedef struct Event:
    double t
    int prio
    i64 seq
    int action
    int arg


ctypedef struct KHeap:
    double *key
    int *id
    int size
    int cap


cdef inline bint ev_less(Event *a, Event *b) noexcept nogil:
    if a.t != b.t:
        return a.t < b.t
    if a.prio != b.prio:
        return a.prio < b.prio
    return a.seq < b.seq


cdef void *_grow(void *p, size_t nbytes) except NULL:
    """``realloc`` that keeps ``p`` (still owned by the caller) and raises when it fails."""
    cdef void *q = realloc(p, nbytes)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline bint k_less(double ka, int ia, double kb, int ib) noexcept nogil:
    if ka != kb:
        return ka < kb
    return ia < ib


cdef int kh_push(KHeap *h, double key, int j) except -1:
    cdef int pos, parent
    cdef int cap
    if h.size == h.cap:
        cap = 2 * h.cap if h.cap else 4
        h.key = <double *> _grow(h.key, cap * sizeof(double))
        h.id = <int *> _grow(h.id, cap * sizeof(int))
        h.cap = cap
    pos = h.size
    h.size += 1
    while pos > 0:
        parent = (pos - 1) >> 1
        if k_less(key, j, h.key[parent], h.id[parent]):
            h.key[pos] = h.key[parent]
            h.id[pos] = h.id[parent]
            pos = parent
        else:
            break
    h.key[pos] = key
    h.id[pos] = j
    return 0


cdef int kh_pop(KHeap *h) noexcept nogil:
    """Remove the least item; its task index."""
    cdef int top = h.id[0]
    cdef int n, pos, child
    cdef double key
    cdef int j
    h.size -= 1
    n = h.size
    if n == 0:
        return top
    key = h.key[n]
    j = h.id[n]
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and k_less(h.key[child + 1], h.id[child + 1], h.key[child],
                                    h.id[child]):
            child += 1
        if k_less(h.key[child], h.id[child], key, j):
            h.key[pos] = h.key[child]
            h.id[pos] = h.id[child]
            pos = child
        else:
            break
    h.key[pos] = key
    h.id[pos] = j
    return top


cdef int cmp_int(const void *a, const void *b) noexcept nogil:
    cdef int x = (<int *> a)[0]
    cdef int y = (<int *> b)[0]
    return (x > y) - (x < y)


cdef class Sim:
    """One run of one policy on one instance, the tasks renumbered in arrival order."""

    cdef int n, m, main, md, npools, nranks, steps
    cdef bint dispatch, by_release, preemptive
    cdef int redirect
    cdef double tau, b, c, pmax, now
    cdef object rng
    cdef double[::1] r, p, rem, completion, end, start_at
    cdef i64[::1] rank
    cdef int[::1] running, count
    cdef i64[::1] live
    cdef int at_limit
    # events
    cdef Event *heap
    cdef int hsize, hcap
    cdef i64 seq
    cdef bint settle_pending
    cdef int next_arrival
    cdef public i64 processed
    # pieces
    cdef double *pieces
    cdef i64 npieces, pcap
    # queues
    cdef KHeap *dq
    cdef KHeap cq[2]
    cdef KHeap idle[2]
    cdef int dirty_pool[2]
    cdef int *dirty
    cdef char *is_dirty
    cdef int ndirty
    # ΔF
    cdef int lo_[2]
    cdef int hi_[2]
    cdef double *tree[2]
    cdef double *qcount[2]
    cdef double *work
    # partials
    cdef int *pproc
    cdef double *prem
    cdef int *ptask
    cdef int psize
    cdef int *slot

    def __cinit__(self, double[::1] r, double[::1] p, i64[::1] rank, int nranks, int m,
                  int md, bint dispatch, bint by_release, bint preemptive, int redirect,
                  double tau, double b, double c, object rng):
        cdef int k, n = r.shape[0], width
        cdef size_t rows, cells
        self.n, self.m, self.md = n, m, md
        self.main = m - md
        self.npools = 2 if md else 1
        self.lo_[0], self.hi_[0] = 0, self.main
        self.lo_[1], self.hi_[1] = self.main, m
        self.dispatch, self.by_release, self.preemptive = dispatch, by_release, preemptive
        self.redirect, self.tau, self.b, self.c, self.rng = redirect, tau, b, c, rng
        self.pmax = -INFINITY
        self.now = 0.0
        self.r, self.p, self.rank, self.nranks = r, p, rank, nranks
        self.rem = np.array(p, dtype=np.float64)
        self.completion = np.full(n, np.nan)
        self.end = np.full(m, -INFINITY)
        self.start_at = np.zeros(m)
        self.running = np.full(m, -1, dtype=np.intc)
        self.count = np.zeros(m, dtype=np.intc)
        self.live = np.full(m, -1, dtype=np.int64)
        self.at_limit = m if tau - 1 == 0 else 0
        self.hcap = 64
        self.heap = <Event *> malloc(self.hcap * sizeof(Event))
        self.pcap = 64
        self.pieces = <double *> malloc(self.pcap * 5 * sizeof(double))
        self.dirty = <int *> malloc((m + 1) * sizeof(int))
        self.is_dirty = <char *> malloc(m + 1)
        self.dq = <KHeap *> malloc(m * sizeof(KHeap))
        self.slot = <int *> malloc((n + 1) * sizeof(int))
        self.pproc = <int *> malloc(16 * sizeof(int))
        self.prem = <double *> malloc(16 * sizeof(double))
        self.ptask = <int *> malloc(16 * sizeof(int))
        self.work = <double *> malloc((5 * m + 2) * sizeof(double))
        if (self.heap == NULL or self.pieces == NULL or self.dirty == NULL
                or self.is_dirty == NULL or self.dq == NULL or self.slot == NULL
                or self.pproc == NULL or self.prem == NULL or self.ptask == NULL
                or self.work == NULL):
            raise MemoryError()
        for k in range(m):
            self.dq[k].key, self.dq[k].id, self.dq[k].size, self.dq[k].cap = NULL, NULL, 0, 0
            self.is_dirty[k] = 0
        for k in range(n):
            self.slot[k] = -1
        for k in range(2):
            self.cq[k].key, self.cq[k].id, self.cq[k].size, self.cq[k].cap = NULL, NULL, 0, 0
            self.idle[k].key, self.idle[k].id = NULL, NULL
            self.idle[k].size, self.idle[k].cap = 0, 0
            self.dirty_pool[k] = 0
            self.tree[k], self.qcount[k] = NULL, NULL
        if dispatch:
            for k in range(self.npools):
                width = self.hi_[k] - self.lo_[k]
                # the trees' cells counted in size_t (an int product wraps past 2^31), zeroed
                # by calloc (+0.0, the Python path's np.zeros)
                rows = <size_t>(nranks + 1) * 2
                cells = rows * <size_t>width
                if width and cells // <size_t>width != rows:
                    raise MemoryError()
                self.tree[k] = <double *> calloc(cells if cells else 1, sizeof(double))
                self.qcount[k] = <double *> calloc(width if width else 1, sizeof(double))
                if self.tree[k] == NULL or self.qcount[k] == NULL:
                    raise MemoryError()
        else:
            for k in range(self.npools):
                for width in range(self.lo_[k], self.hi_[k]):
                    kh_push(&self.idle[k], <double> width, width)

    def __dealloc__(self):
        cdef int k
        free(self.heap)
        free(self.pieces)
        free(self.dirty)
        free(self.is_dirty)
        if self.dq != NULL:
            for k in range(self.m):
                free(self.dq[k].key)
                free(self.dq[k].id)
        free(self.dq)
        free(self.slot)
        free(self.pproc)
        free(self.prem)
        free(self.ptask)
        free(self.work)
        for k in range(2):
            free(self.cq[k].key)
            free(self.cq[k].id)
            free(self.idle[k].key)
            free(self.idle[k].id)
            free(self.tree[k])
            free(self.qcount[k])

    # -- the event heap -------------------------------------------------------------------
    cdef i64 at(self, double t, int prio, int action, int arg) except -1:
        cdef int pos, parent
        cdef Event ev
        if self.hsize == self.hcap:
            self.heap = <Event *> _grow(self.heap, 2 * self.hcap * sizeof(Event))
            self.hcap *= 2
        ev.t, ev.prio, ev.seq, ev.action, ev.arg = t, prio, self.seq, action, arg
        self.seq += 1
        pos = self.hsize
        self.hsize += 1
        while pos > 0:
            parent = (pos - 1) >> 1
            if ev_less(&ev, &self.heap[parent]):
                self.heap[pos] = self.heap[parent]
                pos = parent
            else:
                break
        self.heap[pos] = ev
        return ev.seq

    cdef Event pop(self) noexcept:
        cdef Event top = self.heap[0]
        cdef Event last
        cdef int n, pos, child
        self.hsize -= 1
        n = self.hsize
        if n == 0:
            return top
        last = self.heap[n]
        pos = 0
        while True:
            child = 2 * pos + 1
            if child >= n:
                break
            if child + 1 < n and ev_less(&self.heap[child + 1], &self.heap[child]):
                child += 1
            if ev_less(&self.heap[child], &last):
                self.heap[pos] = self.heap[child]
                pos = child
            else:
                break
        self.heap[pos] = last
        return top

    def run(self) -> None:
        """Run every event; ``processed`` counts those that fired."""
        cdef Event ev
        cdef i64 processed = 0
        self.at(self.r[0], 1, ARRIVALS_EV, 0)
        while self.hsize:
            ev = self.pop()
            if ev.action == COMPLETE_EV:
                if self.live[ev.arg] != ev.seq:
                    continue
                self.now = ev.t
                self.complete(ev.arg)
            elif ev.action == ARRIVALS_EV:
                self.now = ev.t
                self.arrivals()
            else:
                self.now = ev.t
                self.settle()
            processed += 1
        self.processed = processed

    cdef int arrivals(self) except -1:
        cdef int j = self.next_arrival
        cdef double now = self.now
        while j < self.n and self.r[j] == now:
            self.arrive(j)
            j += 1
        self.next_arrival = j
        if j < self.n:
            self.at(self.r[j], 1, ARRIVALS_EV, 0)
        return 0

    cdef int ensure_settle(self) except -1:
        if not self.settle_pending:
            self.settle_pending = True
            self.at(self.now, 2, SETTLE_EV, 0)
        return 0

    cdef int settle(self) except -1:
        cdef int pool, i, j, k
        self.settle_pending = False
        if not self.dispatch:
            for pool in range(2):
                if not self.dirty_pool[pool]:
                    continue
                while self.idle[pool].size and self.cq[pool].size:
                    i = kh_pop(&self.idle[pool])
                    j = kh_pop(&self.cq[pool])
                    self.start(j, i)
            self.dirty_pool[0] = self.dirty_pool[1] = 0
            return 0
        qsort(self.dirty, self.ndirty, sizeof(int), cmp_int)
        for k in range(self.ndirty):
            i = self.dirty[k]
            self.is_dirty[i] = 0
            if self.running[i] < 0 and self.dq[i].size:
                j = kh_pop(&self.dq[i])
                self.dequeue(j, i)
                self.start(j, i)
        self.ndirty = 0
        return 0

    cdef inline void mark(self, int i) noexcept:
        if not self.is_dirty[i]:
            self.is_dirty[i] = 1
            self.dirty[self.ndirty] = i
            self.ndirty += 1

    cdef int start(self, int j, int i) except -1:
        cdef double now = self.now
        cdef double end
        self.running[i] = j
        self.start_at[i] = now
        self.set_count(i, 0)
        end = now + self.rem[j]
        self.end[i] = end
        self.live[i] = self.at(end, 0, COMPLETE_EV, i)
        return 0

    cdef int stop(self, int i, int kind) except -1:
        cdef int j = self.running[i]
        cdef double *row
        if self.npieces == self.pcap:
            self.pieces = <double *> _grow(self.pieces, 2 * self.pcap * 5 * sizeof(double))
            self.pcap *= 2
        row = self.pieces + 5 * self.npieces
        row[0], row[1], row[2], row[3], row[4] = j, i, self.start_at[i], self.now, kind
        self.npieces += 1
        self.running[i] = -1
        self.end[i] = -INFINITY
        self.live[i] = -1
        return j

    cdef int complete(self, int i) except -1:
        cdef int j = self.stop(i, KIND_COMPLETE)
        self.completion[j] = self.now
        self.release_proc(i)
        return 0

    cdef int release_proc(self, int i) except -1:
        cdef int pool
        if not self.dispatch:
            pool = 0 if i < self.main else 1
            kh_push(&self.idle[pool], <double> i, i)
            self.dirty_pool[pool] = 1
        else:
            self.mark(i)
        self.ensure_settle()
        return 0

    cdef int preempt(self, int i) except -1:
        cdef double rem = self.end[i] - self.now
        cdef int j = self.stop(i, KIND_PREEMPTED)
        self.rem[j] = rem
        if not self.dispatch:
            kh_push(&self.cq[0], rem, j)
        else:
            kh_push(&self.dq[i], rem, j)
            self.partial_add(j, i, rem)
        self.release_proc(i)
        return 0

    cdef int interrupt(self, int i) except -1:
        cdef int j = self.stop(i, KIND_INTERRUPTED)
        self.rem[j] = self.p[j]
        self.release_proc(i)
        self.to_dedicated(j)
        return 0

    cdef int to_dedicated(self, int j) except -1:
        cdef int i
        if not self.dispatch:
            kh_push(&self.cq[1], self.p[j], j)
            self.dirty_pool[1] = 1
        else:
            i = self.dispatch_to(1, j, False)
            self.enqueue(j, i)
        self.ensure_settle()
        return 0

    cdef int set_count(self, int i, int value) except -1:
        cdef double limit = self.tau - 1
        self.at_limit += (value == limit) - (self.count[i] == limit)
        self.count[i] = value
        return 0

    # -- arrivals --------------------------------------------------------------------------
    cdef int arrive(self, int j) except -1:
        cdef double pj = self.p[j]
        if self.redirect == RD_RANDOM:
            if pj > self.pmax:
                self.pmax = pj
            if pj >= self.b * self.pmax and <double> self.rng.random() <= self.c:
                self.to_dedicated(j)
                return 0
        if not self.dispatch:
            self.arrive_common(j, pj)
        else:
            self.arrive_dispatch(j, pj)
        return 0

    cdef int arrive_common(self, int j, double pj) except -1:
        cdef int waiting = self.cq[0].size
        cdef int i, k
        cdef double best
        kh_push(&self.cq[0], self.r[j] if self.by_release else pj, j)
        self.dirty_pool[0] = 1
        self.ensure_settle()
        if self.idle[0].size > waiting:
            return 0
        if not (self.preemptive or self.redirect == RD_THRESHOLD):
            return 0
        i = 0
        best = self.end[0]
        for k in range(1, self.main):
            if self.end[k] > best:
                best = self.end[k]
                i = k
        if pj < self.end[i] - self.now:
            if self.preemptive:
                self.preempt(i)
            else:
                self.set_count(i, self.count[i] + 1)
                if self.count[i] >= self.tau:
                    self.interrupt(i)
        return 0

    cdef int arrive_dispatch(self, int j, double pj) except -1:
        cdef int i = self.dispatch_to(0, j, True)
        if self.running[i] >= 0 and pj < self.end[i] - self.now:
            if self.preemptive:
                self.preempt(i)
            elif self.redirect == RD_THRESHOLD:
                self.set_count(i, self.count[i] + 1)
                if self.count[i] >= self.tau:
                    self.interrupt(i)
        self.enqueue(j, i)
        self.ensure_settle()
        return 0

    # -- the side array of preempted tasks and tasks on idle processors ------------------
    cdef int partial_add(self, int j, int proc, double rem) except -1:
        cdef int s = self.psize
        cdef int cap
        if s >= 16 and (s & (s - 1)) == 0:
            cap = 2 * s
            self.pproc = <int *> _grow(self.pproc, cap * sizeof(int))
            self.prem = <double *> _grow(self.prem, cap * sizeof(double))
            self.ptask = <int *> _grow(self.ptask, cap * sizeof(int))
        self.pproc[s], self.prem[s], self.ptask[s] = proc, rem, j
        self.slot[j] = s
        self.psize += 1
        return 0

    cdef void partial_remove(self, int j) noexcept:
        cdef int s = self.slot[j]
        cdef int last = self.psize - 1
        cdef int moved
        self.slot[j] = -1
        if s != last:
            moved = self.ptask[last]
            self.pproc[s], self.prem[s], self.ptask[s] = (self.pproc[last], self.prem[last],
                                                         moved)
            self.slot[moved] = s
        self.psize = last

    # -- the ΔF queues ---------------------------------------------------------------------
    cdef void fen_update(self, int pool, i64 rank, int col, double value, int sign) noexcept:
        cdef int width = self.hi_[pool] - self.lo_[pool]
        cdef i64 stride = 2 * width
        cdef double add = sign * value
        cdef double *tree = self.tree[pool]
        cdef i64 i = rank, k
        while i <= self.nranks:
            k = i * stride + 2 * col
            tree[k] += add
            tree[k + 1] += sign
            i += i & -i

    cdef int enqueue(self, int j, int i) except -1:
        cdef int pool, lo
        kh_push(&self.dq[i], self.p[j], j)
        self.mark(i)
        if self.running[i] < 0 and self.dq[i].size == 1:
            self.partial_add(j, i, self.p[j])
            return 0
        pool = 0 if i < self.main else 1
        lo = self.lo_[pool]
        self.fen_update(pool, self.rank[j], i - lo, self.p[j], 1)
        self.qcount[pool][i - lo] += 1
        return 0

    cdef int dequeue(self, int j, int i) except -1:
        cdef int pool, lo
        if self.slot[j] >= 0:
            self.partial_remove(j)
            return 0
        pool = 0 if i < self.main else 1
        lo = self.lo_[pool]
        self.qcount[pool][i - lo] -= 1
        self.fen_update(pool, self.rank[j], i - lo, self.p[j], -1)
        return 0

    cdef int dispatch_to(self, int pool, int j, bint exceptions) except -1:
        cdef int lo = self.lo_[pool], hi = self.hi_[pool]
        cdef int width = hi - lo
        cdef i64 stride = 2 * width
        cdef double pj = self.p[j]
        cdef double *tree = self.tree[pool]
        cdef double *qcount = self.qcount[pool]
        cdef double *tot = self.work  # per column: sum (2k) and count (2k + 1) of rank <= p_j
        cdef double *row
        cdef i64 node = self.rank[j]
        cdef int k, s, col, best = 0
        cdef bint parts = self.psize > 0, redirect_check
        cdef double s_le, c_gt, qc, rem, delta, best_delta = 0.0, limit = self.tau - 1
        cdef double now = self.now
        cdef double *psum = self.work + 2 * width
        cdef double *ple = psum + width
        cdef double *pgt = ple + width
        row = tree + node * stride
        for k in range(2 * width):
            tot[k] = row[k]
        node -= node & -node
        while node > 0:
            row = tree + node * stride
            for k in range(2 * width):
                tot[k] += row[k]
            node -= node & -node
        if parts:
            # the side array per column, in its order (numpy.bincount's): the sum and count
            # of the remaining times <= p_j, the count of those > p_j
            for col in range(width):
                psum[col] = 0.0
                ple[col] = 0.0
                pgt[col] = 0.0
            for s in range(self.psize):
                col = self.pproc[s] - lo
                if 0 <= col < width:
                    if self.prem[s] <= pj:
                        psum[col] += self.prem[s]
                        ple[col] += 1
                    else:
                        pgt[col] += 1
        redirect_check = (exceptions and not self.preemptive and self.redirect == RD_THRESHOLD
                          and self.at_limit)
        for col in range(width):
            s_le = tot[2 * col]
            qc = qcount[col]
            c_gt = qc - tot[2 * col + 1]
            if parts:
                s_le = s_le + psum[col]
                c_gt = c_gt + pgt[col]
                qc = qc + ple[col] + pgt[col]
            rem = self.end[lo + col] - now
            if rem < 0.0:
                rem = 0.0
            delta = rem + s_le + pj + pj * c_gt
            if exceptions and self.preemptive:
                if pj < rem:
                    delta = pj + pj * (c_gt + 1)
            elif redirect_check:
                if pj < rem and self.count[lo + col] == limit:
                    delta = s_le + pj + pj * c_gt - qc * rem
            if col == 0 or delta < best_delta:
                best_delta = delta
                best = col
        return lo + best

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """The pieces ``(task, proc, start, end, kind)`` as a float array and the
        completion times (in arrival order)."""
        cdef i64 k
        out = np.empty((self.npieces, 5))
        cdef double[:, ::1] view = out
        for k in range(self.npieces):
            view[k, 0] = self.pieces[5 * k]
            view[k, 1] = self.pieces[5 * k + 1]
            view[k, 2] = self.pieces[5 * k + 2]
            view[k, 3] = self.pieces[5 * k + 3]
            view[k, 4] = self.pieces[5 * k + 4]
        return out, np.asarray(self.completion)
