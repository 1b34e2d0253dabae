"""Hypothesis strategies, one per problem family.

Each strategy draws an instance that passes its family's own input checks (the
constructors run them), with the edge cases of the family mixed in: equal lengths, zero
times where the model allows them (identical and CPU+GPU tasks), tiny values, one machine,
one worker, a job as wide as a cluster or as long as all the others together. Times are
mostly small whole numbers, so hypothesis shrinks a failure to a readable instance (and
the moldable MIP, which needs whole numbers, can solve it).

* :func:`identical_jobs` → :class:`~lpsched.testing.instances.IdenticalJobs`
* :func:`hybrid_tasks` → :class:`~lpsched.testing.instances.HybridTasks`
* :func:`rigid_jobs` → :class:`~lpsched.testing.instances.RigidJobs`
* :func:`moldable_jobs` → :class:`~lpsched.testing.instances.MoldableJobs`
* :func:`star_instances` → :class:`lpsched.bags.Instance` (seed 003)
* :func:`online_tasks` → :class:`lpsched.tasks.instance.TaskInstance` (seed 000 ch. 3)
* :func:`campaign_workloads` → :class:`lpsched.campaigns.instance.Workload` (seed 002)
* :func:`ptg_scenarios` → :class:`lpsched.ptg.problem.Problem` (seed 004)

Every drawn instance is also remembered for the plugin's ``--lpsched-examples`` (the last
one drawn in a failing test is written to a file).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from lpsched.bags import Application, Instance, StarPlatform
from lpsched.bags.platform import Port
from lpsched.campaigns.instance import Workload
from lpsched.ptg.problem import Problem
from lpsched.tasks.instance import TaskInstance
from lpsched.testing import record
from lpsched.testing.instances import HybridTasks, IdenticalJobs, MoldableJobs, RigidJobs

__all__ = ["campaign_workloads", "hybrid_tasks", "identical_jobs", "moldable_jobs",
           "online_tasks", "ptg_scenarios", "rigid_jobs", "star_instances"]

#: Tiny but valid processing times (far above ``approx.certified.TIME_MIN``).
TINY = (1e-6, 1e-3)


def _time(max_time: int, zero: bool) -> st.SearchStrategy[float]:
    """Mostly whole numbers 1..max_time; sometimes 0 (when allowed), a tiny or a real value."""
    whole = st.integers(1, max_time).map(float)
    other = [st.sampled_from(TINY), st.floats(0.5, float(max_time), allow_nan=False,
                                              allow_infinity=False).map(lambda x: round(x, 3))]
    if zero:
        other.append(st.just(0.0))
    return st.one_of(whole, *other)


def _times(draw: Any, max_jobs: int, max_time: int, zero: bool) -> list[float]:
    """A list of times, either all equal (an edge case of every family) or independent."""
    n = draw(st.integers(1, max_jobs))
    if draw(st.integers(0, 5)) == 0:  # all equal lengths
        return [draw(_time(max_time, zero))] * n
    return draw(st.lists(_time(max_time, zero), min_size=n, max_size=n))


def _remember(inst: Any) -> Any:
    record.drawn(inst)
    return inst


def _check_sizes(max_jobs: int, max_machines: int) -> None:
    from lpsched.errors import InvalidInstanceError

    if max_jobs < 1:
        raise InvalidInstanceError("max_jobs", max_jobs, "must be >= 1")
    if max_machines < 1:
        raise InvalidInstanceError("max_machines", max_machines, "must be >= 1")


def _tight(m: int, max_jobs: int) -> list[list[float]]:
    """The classical tight instances on ``m`` machines that fit in ``max_jobs`` jobs
    (:func:`lpsched.approx.ratios.graham_tight`, :func:`~lpsched.approx.ratios.lpt_tight`)."""
    from lpsched.approx.ratios import graham_tight, lpt_tight

    found = [family(m)[0].tolist() for family in (lpt_tight, graham_tight) if m >= 2]
    return [t for t in found if len(t) <= max_jobs]


def identical_jobs(max_jobs: int = 10, max_machines: int = 3, max_time: int = 20, *,
                   min_machines: int = 1, edge_cases: bool = True, tight: bool = True,
                   ) -> st.SearchStrategy[IdenticalJobs]:
    """Instances of P||Cmax: 1 to ``max_jobs`` jobs on ``min_machines`` to ``max_machines``
    machines.

    Times are whole numbers 1 to ``max_time``. With ``edge_cases`` (default) they are
    sometimes 0, tiny (1e-6, 1e-3) or real, one draw in six has equal lengths and one in
    six adds a job as long as all the others together. With ``tight`` (default) one draw
    in eight is a classical tight instance (Graham's list-scheduling family, the LPT
    family ``2m−1, 2m−1, ..., m+1, m+1, m, m, m``) when it fits in ``max_jobs``, so a false
    claim about LPT or list scheduling is caught quickly; pass ``tight=False`` to let the
    search find such instances by itself.

    Parameters
    ----------
    max_jobs : int
        The most jobs drawn (>= 1; default 10).
    max_machines : int
        The most machines (>= 1; default 3).
    max_time : int
        The largest whole-number processing time (default 20).
    min_machines : int
        The fewest machines (default 1).
    edge_cases : bool
        Draw zero, tiny, real, equal and dominating times too (default ``True``).
    tight : bool
        Draw the classical tight instances too (default ``True``).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of IdenticalJobs
        Instances with ``times`` (numpy array) and ``machines``.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(identical_jobs(max_jobs=4))
    ... def test(inst):
    ...     assert 1 <= inst.times.size <= 4 and inst.machines >= 1
    >>> test()
    """
    _check_sizes(max_jobs, max_machines)

    @st.composite
    def draw_one(draw: Any) -> IdenticalJobs:
        m = draw(st.integers(min_machines, max_machines))
        known = _tight(m, max_jobs) if tight else []
        if known and draw(st.integers(0, 7)) == 0:
            return IdenticalJobs(draw(st.sampled_from(known)), m)
        if not edge_cases:
            n = draw(st.integers(1, max_jobs))
            return IdenticalJobs(draw(st.lists(st.integers(1, max_time).map(float),
                                               min_size=n, max_size=n)), m)
        times = _times(draw, max_jobs, max_time, zero=True)
        if len(times) < max_jobs and draw(st.integers(0, 5)) == 0:
            times.append(float(sum(times)) or 1.0)  # one job as long as the rest
        return IdenticalJobs(np.asarray(times, dtype=float), m)

    return draw_one().map(_remember)


def hybrid_tasks(max_tasks: int = 8, max_cpus: int = 2, max_gpus: int = 2,
                 max_time: int = 20) -> st.SearchStrategy[HybridTasks]:
    """CPU+GPU instances (seed 000 ch. 2): 1 to ``max_tasks`` tasks, 1 to ``max_cpus`` CPUs,
    1 to ``max_gpus`` GPUs.

    GPU times are drawn independently of CPU times (accelerated, slowed down, equal);
    zero times occur on either side (the model allows them).

    Parameters
    ----------
    max_tasks : int
        The most tasks (>= 1; default 8).
    max_cpus : int
        The most CPUs (default 2).
    max_gpus : int
        The most GPUs (default 2).
    max_time : int
        The largest whole-number time on either side (default 20).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of HybridTasks
        Instances with ``cpu_times``, ``gpu_times``, ``cpus`` and ``gpus``.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(hybrid_tasks(max_tasks=3))
    ... def test(inst):
    ...     assert inst.cpu_times.size == inst.gpu_times.size <= 3
    >>> test()
    """
    _check_sizes(max_tasks, min(max_cpus, max_gpus))

    @st.composite
    def draw_one(draw: Any) -> HybridTasks:
        cpu = _times(draw, max_tasks, max_time, zero=True)
        gpu = draw(st.lists(_time(max_time, zero=True), min_size=len(cpu), max_size=len(cpu)))
        if draw(st.integers(0, 4)) == 0:
            gpu = list(cpu)  # no acceleration at all
        return HybridTasks(np.asarray(cpu, dtype=float), np.asarray(gpu, dtype=float),
                           draw(st.integers(1, max_cpus)),
                           draw(st.integers(1, max_gpus)))

    return draw_one().map(_remember)


def rigid_jobs(max_jobs: int = 6, max_clusters: int = 2, max_cluster_size: int = 4,
               max_time: int = 20, local: bool | None = None,
               ) -> st.SearchStrategy[RigidJobs]:
    """Rigid jobs on ``k`` clusters of ``ℓ`` processors in a line (seed 000 ch. 4): every
    job contiguous, and with ``local`` inside one cluster (``None``: both drawn).

    Sizes are 1..ℓ; one draw in five holds a job as wide as a cluster (as large as the
    machine when there is one cluster). Times are positive.

    Parameters
    ----------
    max_jobs : int
        The most jobs (>= 1; default 6).
    max_clusters : int
        The most clusters k (default 2).
    max_cluster_size : int
        The most processors per cluster ℓ (default 4).
    max_time : int
        The largest processing time (default 20).
    local : bool or None
        Require locality (``True``), contiguity only (``False``), or draw it (``None``,
        default).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of RigidJobs
        Instances with ``times``, ``sizes``, ``clusters``, ``cluster_size`` and ``local``.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(rigid_jobs())
    ... def test(inst):
    ...     assert (inst.sizes <= inst.cluster_size).all()
    >>> test()
    """
    _check_sizes(max_jobs, min(max_clusters, max_cluster_size))

    @st.composite
    def draw_one(draw: Any) -> RigidJobs:
        ell = draw(st.integers(1, max_cluster_size))
        times = _times(draw, max_jobs, max_time, zero=False)
        sizes = draw(st.lists(st.integers(1, ell), min_size=len(times), max_size=len(times)))
        if draw(st.integers(0, 4)) == 0:
            sizes[draw(st.integers(0, len(sizes) - 1))] = ell  # as wide as a cluster
        loc = draw(st.booleans()) if local is None else local
        return RigidJobs(np.asarray(times, dtype=float), np.asarray(sizes),
                         draw(st.integers(1, max_clusters)), ell, loc)

    return draw_one().map(_remember)


def _monotonic_row(draw: Any, m: int, max_time: int, integral: bool) -> list[float]:
    """``T(1) >= T(2) >= ...`` with ``p·T(p)`` non-decreasing: each ``T(p)`` is drawn in
    ``[(p−1)·T(p−1)/p, T(p−1)]`` (rounded up to a whole number when ``integral``)."""
    first = draw(st.integers(1, max_time)) if integral else draw(_time(max_time, zero=False))
    row = [float(first)]
    kind = draw(st.sampled_from(["random", "sequential", "linear"]))
    for p in range(2, m + 1):
        hi = row[-1]
        lo = (p - 1) * hi / p
        if integral:
            lo = float(np.ceil(lo - 1e-9))
        if kind == "sequential":  # no speed-up at all
            row.append(hi)
        elif kind == "linear":  # perfect speed-up (as close as whole numbers allow)
            row.append(lo)
        elif integral:
            row.append(float(draw(st.integers(int(lo), int(hi)))))
        else:
            row.append(round(draw(st.floats(lo, hi)), 6) if lo < hi else hi)
            row[-1] = min(max(row[-1], lo), hi)
    return row


def moldable_jobs(max_jobs: int = 4, max_processors: int = 3, max_time: int = 12,
                  integral: bool = True) -> st.SearchStrategy[MoldableJobs]:
    """Draw monotonic moldable jobs (seed 004 §5) as :class:`MoldableJobs`.

    1 to ``max_jobs`` rows of ``T(1), ..., T(m)``, ``m`` in 1 to ``max_processors``, time
    non-increasing and work non-decreasing as :func:`lpsched.approx.moldable.check_table`
    requires.

    Rows are sequential (no speed-up), linear (perfect speed-up) or random; with
    ``integral`` (default) every time is a whole number, as the exact time-indexed MIP
    needs.

    Parameters
    ----------
    max_jobs : int
        The most jobs (>= 1; default 4).
    max_processors : int
        The most processors m (default 3).
    max_time : int
        The largest sequential time T(1) (default 12).
    integral : bool
        Whole-number times only (default ``True``).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of MoldableJobs
        Instances with ``times`` (shape ``(n, m)``) and ``processors``.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(moldable_jobs())
    ... def test(inst):
    ...     assert (inst.times[:, 1:] <= inst.times[:, :-1]).all()
    >>> test()
    """
    _check_sizes(max_jobs, max_processors)

    @st.composite
    def draw_one(draw: Any) -> MoldableJobs:
        m = draw(st.integers(1, max_processors))
        n = draw(st.integers(1, max_jobs))
        rows = [_monotonic_row(draw, m, max_time, integral) for _ in range(n)]
        if n > 1 and draw(st.integers(0, 5)) == 0:
            rows = [rows[0]] * n  # identical jobs
        return MoldableJobs(np.asarray(rows, dtype=float), m)

    return draw_one().map(_remember)


_PORTS: tuple[Port, ...] = ("one-port", "multiport")
_SPEEDS = ("related", "unrelated")


def _positive(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.one_of(st.integers(int(np.ceil(lo)), int(hi)).map(float),
                     st.floats(lo, hi).map(lambda x: round(x, 3)))


def star_instances(max_apps: int = 4, max_workers: int = 3, port: Port | None = None,
                   speeds: str | None = None, bounded: bool | None = None,
                   max_tasks: int = 20) -> st.SearchStrategy[Instance]:
    """Bags of tasks on a star platform (seed 003): 1 to ``max_apps`` applications,
    1 to ``max_workers`` workers.

    ``port`` is ``"one-port"``, ``"multiport"`` (bounded multiport) or ``None`` (both);
    ``speeds`` ``"related"`` (one speed per worker), ``"unrelated"`` (one per application
    and worker) or ``None`` (both); ``bounded`` gives the multiport master a finite
    bandwidth (``None``: drawn). Numbers stay within four orders of magnitude so every LP
    is well conditioned: speeds and bandwidths in [0.5, 5], work and data per task in
    [0.5, 5] or tiny (1e-3: computation or communication negligible), releases in [0, 20]
    and all 0 in one draw in four.

    Parameters
    ----------
    max_apps : int
        The most applications (>= 1; default 4).
    max_workers : int
        The most workers (>= 1; default 3).
    port : str or None
        ``"one-port"``, ``"multiport"`` or ``None`` (drawn; default).
    speeds : str or None
        ``"related"``, ``"unrelated"`` or ``None`` (drawn; default).
    bounded : bool or None
        Give a multiport master a finite bandwidth (``None``: drawn; default).
    max_tasks : int
        The most tasks per application (default 20).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of Instance
        Star-platform instances.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1, or an unknown ``port`` or ``speeds``.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(star_instances(port="one-port"))
    ... def test(inst):
    ...     assert inst.platform.port == "one-port" and 1 <= inst.n <= 4
    >>> test()
    """
    from lpsched.errors import InvalidInstanceError

    _check_sizes(max_apps, max_workers)
    if port is not None and port not in _PORTS:
        raise InvalidInstanceError("port", port, f"must be one of {_PORTS} or None")
    if speeds is not None and speeds not in _SPEEDS:
        raise InvalidInstanceError("speeds", speeds, f"must be one of {_SPEEDS} or None")

    @st.composite
    def draw_one(draw: Any) -> Instance:
        n = draw(st.integers(1, max_apps))
        p = draw(st.integers(1, max_workers))
        kind = speeds or draw(st.sampled_from(_SPEEDS))
        shape = (n, p) if kind == "unrelated" else (p,)
        speed = np.array(draw(st.lists(_positive(0.5, 5.0), min_size=int(np.prod(shape)),
                                       max_size=int(np.prod(shape))))).reshape(shape)
        bws = draw(st.lists(_positive(0.5, 5.0), min_size=p, max_size=p))
        model = port or draw(st.sampled_from(_PORTS))
        bw = None
        if model == "multiport" and (draw(st.booleans()) if bounded is None else bounded):
            bw = draw(_positive(0.5, 10.0))
        same = draw(st.integers(0, 3)) == 0
        small = st.one_of(_positive(0.5, 5.0), st.just(1e-3))  # tiny: negligible work/data
        apps = [Application(0.0 if same else draw(_positive(0.0, 20.0)),
                            draw(st.integers(1, max_tasks)), draw(small), draw(small))
                for _ in range(n)]
        return Instance(StarPlatform(speed, bws, math.inf if bw is None else bw, model),
                        tuple(apps))

    return draw_one().map(_remember)


def online_tasks(max_tasks: int = 8, max_processors: int = 3, max_time: int = 20, *,
                 edge_cases: bool = True) -> st.SearchStrategy[TaskInstance]:
    """Draw online sequential tasks (seed 000 ch. 3) as a
    :class:`~lpsched.tasks.instance.TaskInstance`.

    1 to ``max_tasks`` tasks ``(release, p)`` on 1 to ``max_processors`` identical
    processors (the file ``lpsched online`` reads).

    Processing times are whole numbers 1 to ``max_time``; releases whole numbers
    0 to ``2·max_time``. With ``edge_cases`` (default) times are sometimes 0, tiny or real,
    one draw in six has equal lengths, one in four releases every task at 0 (a burst: the
    online policies' tie rules decide), and one in six adds a task as long as all the
    others together (a heavy task, what redirection is for).

    Parameters
    ----------
    max_tasks : int
        The most tasks (>= 1; default 8).
    max_processors : int
        The most processors (>= 1; default 3).
    max_time : int
        The largest whole-number processing time (default 20).
    edge_cases : bool
        Draw zero, tiny and real times, bursts and heavy tasks too (default ``True``).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of TaskInstance
        Online task instances.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(online_tasks(max_tasks=4))
    ... def test(inst):
    ...     assert 1 <= inst.n <= 4 and inst.processors >= 1
    >>> test()
    """
    _check_sizes(max_tasks, max_processors)

    @st.composite
    def draw_one(draw: Any) -> TaskInstance:
        m = draw(st.integers(1, max_processors))
        if edge_cases:
            p = _times(draw, max_tasks, max_time, zero=True)
            if len(p) < max_tasks and draw(st.integers(0, 5)) == 0:
                p.append(float(sum(p)) or 1.0)
        else:
            n = draw(st.integers(1, max_tasks))
            p = draw(st.lists(st.integers(1, max_time).map(float), min_size=n, max_size=n))
        if edge_cases and draw(st.integers(0, 3)) == 0:
            release = [0.0] * len(p)
        else:
            release = draw(st.lists(st.integers(0, 2 * max_time).map(float),
                                    min_size=len(p), max_size=len(p)))
        return TaskInstance(m, release, p)

    return draw_one().map(_remember)


def campaign_workloads(max_users: int = 3, max_campaigns: int = 3, max_jobs: int = 4,
                       max_processors: int = 4, max_time: int = 20, *,
                       parallel: bool | None = None) -> st.SearchStrategy[Workload]:
    """Draw campaign workloads (seed 002) as a :class:`~lpsched.campaigns.instance.Workload`.

    1 to ``max_users`` users, each with 1 to ``max_campaigns`` campaigns of 1 to
    ``max_jobs`` jobs on 1 to ``max_processors`` processors (the file ``lpsched campaigns
    run`` reads).

    Job lengths are whole numbers 1 to ``max_time`` (sometimes tiny or equal); campaigns are
    closed-loop (a user submits the next one when the previous completes, after a think
    time) or, one draw in two, open-loop with whole-number submission times. With
    ``parallel=None`` (default) one draw in three has parallel jobs (``q`` up to the
    machine, a job as wide as the machine included); ``False``/``True`` force it.

    Parameters
    ----------
    max_users : int
        The most users (default 3).
    max_campaigns : int
        The most campaigns per user (default 3).
    max_jobs : int
        The most jobs per campaign (>= 1; default 4).
    max_processors : int
        The most processors (>= 1; default 4).
    max_time : int
        The largest whole-number job length (s; default 20).
    parallel : bool or None
        Force parallel jobs (``True``), sequential ones (``False``), or draw (``None``,
        default).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of Workload
        Validated campaign workloads.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(campaign_workloads(max_users=2))
    ... def test(w):
    ...     assert 1 <= w.campaigns and w.processors >= 1
    >>> test()
    """
    from lpsched.campaigns.instance import make_workload

    _check_sizes(max_jobs, max_processors)

    @st.composite
    def draw_one(draw: Any) -> Workload:
        m = draw(st.integers(1, max_processors))
        wide = parallel if parallel is not None else draw(st.integers(0, 2)) == 0
        users = draw(st.integers(1, max_users))
        open_loop = draw(st.booleans())
        campaigns = []
        for u in range(users):
            for _ in range(draw(st.integers(1, max_campaigns))):
                p = [max(x, 1e-3) for x in _times(draw, max_jobs, max_time, zero=False)]
                q = [draw(st.integers(1, m)) if wide else 1 for _ in p]
                camp: dict[str, Any] = {"user": u, "jobs": [{"p": a, "q": b}
                                                            for a, b in zip(p, q, strict=True)],
                                        "think": float(draw(st.integers(0, 3)))}
                camp["submit"] = float(draw(st.integers(0, 4 * max_time))) if open_loop \
                    else None
                campaigns.append(camp)
        return make_workload(m, campaigns)

    return draw_one().map(_remember)


def ptg_scenarios(max_ptgs: int = 3, max_tasks: int = 5, max_processors: int = 8, *,
                  max_work: int = 20) -> st.SearchStrategy[Problem]:
    """Draw multiple parallel task graphs on one cluster (seed 004) as a
    :class:`~lpsched.ptg.problem.Problem`.

    1 to ``max_ptgs`` random DAGs of 1 to ``max_tasks`` moldable Amdahl tasks (work whole
    numbers of Gflop 1 to ``max_work``, ``α`` in {0, 0.1, 0.5, 1} and other values of
    [0, 1]) on a cluster of 1 to ``max_processors`` processors at 1 Gflop/s: what the 19
    algorithms and :func:`lpsched.ptg.bounds.lower_bounds` take. Edges go from lower to
    higher task index (a DAG); chains, forks and independent tasks all occur.

    Parameters
    ----------
    max_ptgs : int
        The most task graphs (default 3).
    max_tasks : int
        The most tasks per graph (>= 1; default 5).
    max_processors : int
        The most processors of the cluster (>= 1; default 8).
    max_work : int
        The largest work of a task, in Gflop (default 20).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of Problem
        The graphs ``g0, g1, ...`` on a cluster ``"test"`` of 1 Gflop/s processors.

    Raises
    ------
    InvalidInstanceError
        A maximum size below 1.

    Examples
    --------
    >>> from hypothesis import given
    >>> @given(ptg_scenarios(max_ptgs=2, max_tasks=3))
    ... def test(pb):
    ...     assert 1 <= pb.N <= 2 and pb.P >= 1
    >>> test()
    """
    from lpsched.ptg.model import Cluster, make_ptg

    _check_sizes(max_tasks, max_processors)
    alphas = st.one_of(st.sampled_from([0.0, 0.1, 0.5, 1.0]),
                       st.floats(0.0, 1.0).map(lambda a: round(a, 3)))

    @st.composite
    def one_ptg(draw: Any, k: int) -> Any:
        n = draw(st.integers(1, max_tasks))
        ids = [f"t{i}" for i in range(n)]
        work = [float(draw(st.integers(1, max_work))) * 1e9 for _ in ids]
        alpha = [draw(alphas) for _ in ids]
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
        chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) \
            if pairs else []
        return make_ptg(ids, work, alpha, [(ids[a], ids[b]) for a, b in chosen], name=f"g{k}")

    @st.composite
    def draw_one(draw: Any) -> Problem:
        cluster = Cluster("test", draw(st.integers(1, max_processors)), 1e9)
        graphs = [draw(one_ptg(k)) for k in range(draw(st.integers(1, max_ptgs)))]
        return Problem(graphs, cluster)

    return draw_one().map(_remember)
