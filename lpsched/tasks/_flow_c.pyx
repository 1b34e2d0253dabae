# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The maximum flow of the exact lower bounds' deadline test compiled (optional).

Dinic's algorithm (levels by breadth-first search, blocking flows by depth-first search with
a current arc per node) on whole-number capacities: the value of a maximum flow is unique,
so it is the value ``scipy.sparse.csgraph.maximum_flow`` gives on the same graph (parallel
edges count as one edge of their summed capacity there, as two here: the same value).
Integers only. :func:`lpsched.tasks.bounds.flow_feasible` uses it when it is built (scipy's
then is not imported); scipy's stays the reference and the fallback
(``LPSCHED_PURE_PYTHON=1``); tests/tasks/test_flow_kernel.py compares both.
"""

from libc.stdlib cimport free, malloc

ctypedef long long i64


cdef i64 _push(int v, int sink, i64 f, int *to, i64 *cap, int *adj, int *first,
               int *it, int *level) noexcept:
    cdef int e, u
    cdef i64 d
    if v == sink:
        return f
    while it[v] < first[v + 1]:
        e = adj[it[v]]
        u = to[e]
        if cap[e] > 0 and level[u] == level[v] + 1:
            d = _push(u, sink, f if f < cap[e] else cap[e], to, cap, adj, first, it, level)
            if d > 0:
                cap[e] -= d
                cap[e ^ 1] += d
                return d
        it[v] += 1
    return 0


def max_flow(int nodes, const i64[::1] rows, const i64[::1] cols, const i64[::1] caps,
             int source, int sink) -> int:
    """The value of a maximum flow from ``source`` to ``sink``.

    Parameters
    ----------
    nodes : int
        Nodes ``0 .. nodes - 1``.
    rows, cols, caps : int64 arrays
        Edge ``e`` goes from ``rows[e]`` to ``cols[e]`` with capacity ``caps[e] >= 0``.
    source, sink : int
        The two ends.

    Returns
    -------
    int
        The flow's value.
    """
    cdef Py_ssize_t m = rows.shape[0], e
    if cols.shape[0] != m or caps.shape[0] != m:
        raise ValueError(f"{m} edge tails, {cols.shape[0]} heads, {caps.shape[0]} capacities")
    if nodes < 1 or not (0 <= source < nodes and 0 <= sink < nodes):
        raise ValueError(f"source {source} and sink {sink} must be nodes of 0..{nodes - 1}")
    if m > (1 << 29):  # the arcs are counted in C ints
        raise ValueError(f"{m} edges: at most 2^29")
    for e in range(m):
        if not (0 <= rows[e] < nodes and 0 <= cols[e] < nodes) or caps[e] < 0:
            raise ValueError(f"edge {e}: ({rows[e]}, {cols[e]}, {caps[e]}) is not an edge "
                             f"of nodes 0..{nodes - 1} with a capacity >= 0")
    cdef int *to = <int *> malloc(2 * m * sizeof(int) + 1)
    cdef i64 *cap = <i64 *> malloc(2 * m * sizeof(i64) + 1)
    cdef int *adj = <int *> malloc(2 * m * sizeof(int) + 1)
    cdef int *first = <int *> malloc((nodes + 2) * sizeof(int))
    cdef int *fill = <int *> malloc((nodes + 1) * sizeof(int))
    cdef int *it = <int *> malloc((nodes + 1) * sizeof(int))
    cdef int *level = <int *> malloc((nodes + 1) * sizeof(int))
    cdef int *queue = <int *> malloc((nodes + 1) * sizeof(int))
    cdef int v, u, head, tail, k
    cdef i64 total = 0, f, big = (<i64> 1) << 62
    try:
        if (to == NULL or cap == NULL or adj == NULL or first == NULL or fill == NULL
                or it == NULL or level == NULL or queue == NULL):
            raise MemoryError()
        for v in range(nodes + 2):
            first[v] = 0
        for e in range(m):
            to[2 * e], cap[2 * e] = <int> cols[e], caps[e]
            to[2 * e + 1], cap[2 * e + 1] = <int> rows[e], 0
            first[rows[e] + 1] += 1
            first[cols[e] + 1] += 1
        for v in range(nodes):
            first[v + 1] += first[v]
        for v in range(nodes):
            fill[v] = first[v]
        for e in range(m):
            adj[fill[rows[e]]] = <int> (2 * e)
            fill[rows[e]] += 1
            adj[fill[cols[e]]] = <int> (2 * e + 1)
            fill[cols[e]] += 1
        if source == sink:
            return 0
        while True:
            for v in range(nodes):
                level[v] = -1
            level[source] = 0
            queue[0] = source
            head, tail = 0, 1
            while head < tail:
                v = queue[head]
                head += 1
                for k in range(first[v], first[v + 1]):
                    e = adj[k]
                    u = to[e]
                    if cap[e] > 0 and level[u] < 0:
                        level[u] = level[v] + 1
                        queue[tail] = u
                        tail += 1
            if level[sink] < 0:
                return total
            for v in range(nodes):
                it[v] = first[v]
            while True:
                f = _push(source, sink, big, to, cap, adj, first, it, level)
                if f == 0:
                    break
                total += f
    finally:
        free(to)
        free(cap)
        free(adj)
        free(first)
        free(fill)
        free(it)
        free(level)
        free(queue)
