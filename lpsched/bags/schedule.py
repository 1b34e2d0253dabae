"""Concrete schedules on a star platform, their independent validation and their metrics.

One representation for every producer (LP reconstruction, simulator, heuristics): task ``i``
of application ``app[i]`` is sent by the master to worker ``worker[i]`` during
``[send_start[i], send_end[i]]`` and computed there during ``[start[i], end[i]]``.

:func:`validate` knows nothing of who produced a schedule; it checks the rules of seed 003
§2.1 under the one-port or bounded-multiport model with atomic computation and raises
:class:`~lpsched.errors.InvalidScheduleError` with the first violation:

``counts``
    every task of every application executed exactly once;
``release``
    no send starts before its application's release date;
``transfer``
    a send lasts at least ``δ/b_u`` (exactly that under one-port);
``duration``
    a computation lasts exactly ``w/s_u`` (atomic, no preemption);
``data``
    a computation starts only once its data has arrived;
``worker``
    a worker computes one task at a time;
``one-port``
    the master sends one message at a time;
``link`` / ``master``
    bounded multiport: the transfers, each inside its window ``[send_start, send_end]`` at
    any rate, fit ``b_u`` on each link and ``BW`` at the master (preemptive window test);
``bound``
    no objective below a proven bound: every application's flow is at least its dedicated
    makespan ``MS*`` (stretch >= 1: ``ρ*`` bounds the rate of any schedule, seed 003 §3.1),
    and the max-stretch is at least ``stretch_bound`` when the caller gives one (the LP
    optimum ``S*``); a schedule that beats a bound was computed with lost precision
    (release dates of 1e19 s once gave flows of 0, "valid").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.steady_state import dedicated_makespans
from lpsched.core import tolerances
from lpsched.errors import InvalidScheduleError

#: Relative tolerance of the time comparisons in :func:`validate`.
TIME_TOL = 1e-9


@dataclass(frozen=True)
class Schedule:
    """Arrays of equal length, one entry per task (see module doc); ``meta`` is free-form."""

    app: np.ndarray
    worker: np.ndarray
    send_start: np.ndarray
    send_end: np.ndarray
    start: np.ndarray
    end: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        arrays = {name: np.asarray(getattr(self, name)) for name in
                  ("app", "worker", "send_start", "send_end", "start", "end")}
        sizes = {a.shape for a in arrays.values()}
        if len(sizes) != 1 or next(iter(sizes)).__len__() != 1:
            raise InvalidScheduleError("shape", f"arrays must be 1-D of one length, got {sizes}")
        for name, arr in arrays.items():
            kind = int if name in ("app", "worker") else float
            object.__setattr__(self, name, arr.astype(kind, copy=False))

    @property
    def size(self) -> int:
        """Number of tasks the schedule holds (the length of every array)."""
        return int(self.app.size)

    def completion(self, n: int) -> np.ndarray:
        """``C_k``: end of the last computation of each application (``nan`` if none).

        Parameters
        ----------
        n : int
            The number of applications of the instance (the length of the result).

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``, C_k in seconds (the schedule's time base).
        """
        out = np.full(n, np.nan)
        if self.size:
            np.fmax.at(out, self.app, self.end)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the six per-task arrays as lists, ``meta`` left out (the ``schedule``
        object of ``lpsched schedule --json --schedule``).

        Returns
        -------
        dict of str to list
            ``app``, ``worker``, ``send_start``, ``send_end``, ``start`` and ``end``, one entry
            per task.
        """
        return {name: getattr(self, name).tolist() for name in
                ("app", "worker", "send_start", "send_end", "start", "end")}

    def to_frame(self) -> Any:
        """The schedule as a pandas DataFrame, one row per task (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            Rows in the schedule's order; columns:

            ``task`` (int)
                Position of the task in the schedule's arrays.
            ``app`` (int)
                Its application ``k``.
            ``worker`` (int)
                The worker ``u`` that computes it.
            ``send_start``, ``send_end`` (s)
                The master's send to ``u`` (seed 003 §2.1).
            ``start``, ``end`` (s)
                Its computation on ``u``.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> from lpsched.bags.policies import get_policy
        >>> from lpsched.bags.simulator import simulate
        >>> inst = random_bags(3, 2, seed=0)
        >>> sched = simulate(inst, get_policy("fifo-mct")).schedule
        >>> tasks = sched.to_frame()
        >>> list(tasks.columns)
        ['task', 'app', 'worker', 'send_start', 'send_end', 'start', 'end']
        >>> len(tasks) == sched.size == int(inst.tasks.sum())
        True
        >>> tasks.groupby("app")["end"].max().tolist() == sched.completion(inst.n).tolist()
        True
        """
        from lpsched.core.frames import frame

        return frame({"task": np.arange(self.size), "app": self.app, "worker": self.worker,
                      "send_start": self.send_start, "send_end": self.send_end,
                      "start": self.start, "end": self.end}, "Schedule.to_frame()")


def _scale(inst: Instance, dates: bool = True) -> float:
    """The absolute time tolerance: ``TIME_TOL`` times the largest time a schedule of
    ``inst`` can reach without idling (releases, then every task's computation and
    communication, and every transfer through a bounded master link), so that float
    rounding of simulated times is never read as a broken rule."""
    work = float((inst.tasks[:, None] * (inst.comp_time + inst.comm_time)).sum())
    bw = inst.platform.master_bandwidth
    if math.isfinite(bw):
        work += float((inst.tasks * inst.size).sum() / bw)
    return TIME_TOL * max(1.0, (float(np.abs(inst.release).max()) if dates else 0.0) + work)


def _first(mask: np.ndarray) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def _fail(rule: str, mask: np.ndarray, message: str, order: np.ndarray | None = None) -> None:
    i = _first(mask)
    if i is not None:
        task = int(order[i]) if order is not None else i
        raise InvalidScheduleError(rule, f"task {task}: {message}", task)


def validate(inst: Instance, sched: Schedule, port: str | None = None,
             computation: str = "atomic", stretch_bound: float | None = None) -> None:
    """Raise :class:`InvalidScheduleError` at the first broken rule (module doc), else return.

    ``stretch_bound`` (optional) is a proven lower bound on the max-stretch (e.g. the LP
    optimum of :func:`~lpsched.bags.maxstretch.max_stretch`): a schedule below it by more
    than the checks' tolerance breaks the rule ``bound``, as does any application whose
    flow is below its ``MS*``.
    ``port`` overrides the instance's communication model. ``computation="fluid"`` accepts
    time-shared computations (BMP-FC): each task's computation window is at least
    ``w/s_u`` long and, on every worker, the windows pass the preemptive window test at
    speed 1. Multiport transfers must pass that test on each link (speed ``b_u``) and at the
    master (``BW``) — exact for each resource; together they are the conditions on a tree
    of capacities. O(N log N) for the atomic one-port rules, O(N²) for window tests.

    Parameters
    ----------
    inst : Instance
        The instance the schedule is for.
    sched : Schedule
        The schedule, one row per task.
    port : str or None
        ``"one-port"`` or ``"multiport"``; ``None`` (default): the instance's.
    computation : str
        ``"atomic"`` (default: a task computes without interruption, one at a time per
        worker) or ``"fluid"`` (time-shared computations, BMP-FC).
    stretch_bound : float or None
        A proven lower bound on the max-stretch; ``None`` (default): only each stretch >= 1
        is checked.

    Raises
    ------
    InvalidScheduleError
        At the first broken rule (its name and the task or resource), or an unknown
        ``computation``.
    """
    if computation not in ("atomic", "fluid"):
        raise InvalidScheduleError("shape", f"unknown computation model {computation!r}")
    port = port or inst.platform.port
    _validate_rules(inst, sched, port, computation)
    _check_bounds(inst, sched, port, stretch_bound)


def _check_bounds(inst: Instance, sched: Schedule, port: str,
                  stretch_bound: float | None) -> None:
    """The rule ``bound`` (module doc): flows of at least ``MS*`` (within the time
    tolerance and :data:`~lpsched.core.tolerances.PLAN_CHECK` of ``MS*``), and a
    max-stretch of at least ``stretch_bound`` (within ``PLAN_CHECK``)."""
    ms = dedicated_makespans(inst, port)
    done = sched.completion(inst.n)
    flow = done - inst.release
    # the rules' slack on durations (not on dates: a date of 1e19 s must not hide a flow)
    # and a few roundings of the completion date
    rounding = 4 * np.spacing(np.abs(done))
    coarse = rounding > tolerances.PLAN_CHECK * ms
    if coarse.any():
        k = int(np.argmax(coarse))
        raise InvalidScheduleError(
            "bound", f"application {k} completes at {float(done[k]):.6g} s, a date whose "
            f"floats are {float(rounding[k] / 4):.3g} s apart: its flow cannot be told to "
            f"{tolerances.PLAN_CHECK:g} of its MS* = {float(ms[k]):.6g} s (count times from "
            "the first release: lpsched.bags.io.fit_time_origin)")
    slack = _scale(inst, dates=False) + rounding
    short = flow < ms * (1 - tolerances.PLAN_CHECK) - slack
    if short.any():
        k = int(np.argmax(short))
        raise InvalidScheduleError(
            "bound", f"application {k} completes {float(flow[k]):.6g} s after its release, "
            f"below its dedicated makespan MS* = {float(ms[k]):.6g} s, which no schedule can "
            "beat (times computed with lost precision?)")
    if stretch_bound is not None and math.isfinite(stretch_bound):
        top = float((flow / ms).max())
        if top < stretch_bound * (1 - tolerances.PLAN_CHECK):
            raise InvalidScheduleError(
                "bound", f"max-stretch {top:.9g} is below the proven lower bound "
                f"{stretch_bound:.9g} (times computed with lost precision?)")


def _validate_rules(inst: Instance, sched: Schedule, port: str, computation: str) -> None:
    """Every rule of the module doc but ``bound``."""
    tol = _scale(inst)
    n, p = inst.n, inst.p
    app, w = sched.app, sched.worker
    if sched.size and ((app < 0).any() or (app >= n).any() or (w < 0).any() or (w >= p).any()):
        raise InvalidScheduleError("shape", "application or worker index out of range")
    times = np.stack([sched.send_start, sched.send_end, sched.start, sched.end])
    if not np.isfinite(times).all():
        raise InvalidScheduleError("shape", "times must be finite")
    counts = np.bincount(app, minlength=n)
    bad = counts != inst.tasks.astype(int)
    if bad.any():
        k = int(np.argmax(bad))
        raise InvalidScheduleError("counts", f"application {k} has {counts[k]} tasks executed, "
                                   f"expected {int(inst.tasks[k])}")
    _fail("release", sched.send_start < inst.release[app] - tol, "sent before its release")
    comm = np.asarray(inst.comm_time)[app, w]
    comp = np.asarray(inst.comp_time)[app, w]
    length = sched.send_end - sched.send_start
    if port == "one-port":
        _fail("transfer", np.abs(length - comm) > tol + TIME_TOL * comm,
              "a one-port send lasts exactly δ/b_u")
    else:
        _fail("transfer", length < comm - tol - TIME_TOL * comm, "sent faster than its link")
    span = sched.end - sched.start
    if computation == "atomic":
        _fail("duration", np.abs(span - comp) > tol + TIME_TOL * comp,
              "an atomic computation lasts exactly w/s_u")
    else:
        _fail("duration", span < comp - tol - TIME_TOL * comp, "computed faster than w/s_u")
    _fail("data", sched.start < sched.send_end - tol, "computed before its data arrived")
    if computation == "atomic":
        order = np.lexsort((sched.end, sched.start, w))  # ties: the shorter first
        same = w[order][1:] == w[order][:-1]
        overlap = sched.start[order][1:] < sched.end[order][:-1] - tol
        _fail("worker", same & overlap, "its worker is still computing another task",
              order[1:])
    else:
        for u in range(p):
            mine = np.flatnonzero(w == u)
            _window(mine, sched.start[mine], sched.end[mine], comp[mine], 1.0, tol, "worker",
                    f"worker {u} cannot share its CPU among these computations")
    if port == "one-port":
        # ties broken by the end: a send of (nearly) zero length at the instant a long one
        # starts is not "during" it (links of 1e30 B/s)
        order = np.lexsort((sched.send_end, sched.send_start))
        _fail("one-port", sched.send_start[order][1:] < sched.send_end[order][:-1] - tol,
              "the master is still sending another message", order[1:])
        return
    size = inst.size[app]
    for u in range(p):
        mine = np.flatnonzero(w == u)
        _window(mine, sched.send_start[mine], sched.send_end[mine], size[mine],
                float(inst.platform.bandwidths[u]), tol, "link",
                f"link {u} cannot carry these transfers within their windows")
    if np.isfinite(inst.platform.master_bandwidth):
        _window(np.arange(sched.size), sched.send_start, sched.send_end, size,
                float(inst.platform.master_bandwidth), tol, "master",
                "the master's bandwidth cannot carry these transfers")
        _links_and_master(inst, sched, size)


def _links_and_master(inst: Instance, sched: Schedule, size: np.ndarray) -> None:
    """Links and master together (a tree of capacities): the transfers fit iff a flow over
    the elementary intervals between window ends carries every byte — one LP, always
    feasible, maximising the bytes carried.

    Bytes are counted in units of the largest transfer, so that HiGHS' absolute tolerances
    mean the same on every instance (in bytes, presolve could end with an "unknown" status
    on intervals of 1e-12 s); if HiGHS still cannot answer, the LP is solved again without
    presolve.
    """
    from lpsched.models.program import LinearProgram
    from lpsched.solvers.highs import HighsModel
    from lpsched.solvers.solution import Status

    ends = np.unique(np.concatenate([sched.send_start, sched.send_end]))
    lo = np.searchsorted(ends, sched.send_start)
    hi = np.searchsorted(ends, sched.send_end)
    count = hi - lo
    task = np.repeat(np.arange(sched.size), count)
    first = np.repeat(np.cumsum(count) - count, count)
    piece = lo[task] + np.arange(task.size) - first
    unit = float(size.max()) if size.size and size.max() > 0 else 1.0
    lp = LinearProgram("multiport_check", sense="max")
    x = lp.add_variables("bytes", task.size)
    lp.add_constraints("task", task, x, 1.0, upper=size / unit, num_rows=sched.size)
    link_row = sched.worker[task] * (ends.size - 1) + piece
    caps = (inst.platform.bandwidths[:, None] * np.diff(ends)[None, :]).ravel() / unit
    lp.add_constraints("link", link_row, x, 1.0, upper=caps, num_rows=caps.size)
    lp.add_constraints("master", piece, x, 1.0,
                       upper=inst.platform.master_bandwidth * np.diff(ends) / unit,
                       num_rows=ends.size - 1)
    lp.set_objective(x, 1.0)
    sol = HighsModel(lp).solve()
    if sol.status is not Status.OPTIMAL:
        sol = HighsModel(lp, presolve="off").solve()
    sol.require_optimal("multiport schedule check")
    missing = (size.sum() / unit - sol.objective) * unit
    if missing > 1e-9 * max(1.0, size.sum()):
        carried = np.bincount(task, weights=sol.values["bytes"], minlength=sched.size) * unit
        i = int(np.argmax(size - carried))
        raise InvalidScheduleError("master", f"task {i}: links and master together cannot "
                                   f"carry the transfers ({missing:.6g} bytes short)", i)


def _window(ids: np.ndarray, release: np.ndarray, deadline: np.ndarray, amount: np.ndarray,
            speed: float, tol: float, rule: str, message: str) -> None:
    """Preemptive window test of one resource: for every release ``s`` and deadline ``e``,
    the items inside ``[s, e]`` need at most ``speed·(e − s)``."""
    if ids.size == 0:
        return
    order = np.argsort(deadline, kind="stable")
    d, r, a, who = deadline[order], release[order], amount[order], ids[order]
    for s in np.unique(r):
        load = np.cumsum(np.where(r >= s - tol, a, 0.0))
        over = (load > speed * (d - s) * (1 + 1e-9) + speed * tol) & (d > s)
        if over.any():
            i = int(np.argmax(over))
            raise InvalidScheduleError(rule, f"task {int(who[i])}: {message} "
                                       f"(window [{s:.6g}, {d[i]:.6g}])", int(who[i]))


@dataclass(frozen=True)
class Metrics:
    """Per-application completion, flow and stretch, and the five objectives of seed 003
    Tables 4–8 (stretch relative to ``MS*`` of the port model)."""

    completion: np.ndarray
    flow: np.ndarray
    stretch: np.ndarray
    max_stretch: float
    sum_stretch: float
    makespan: float
    max_flow: float
    sum_flow: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the five objectives and the per-application ``stretch`` list; merged
        into the output of ``lpsched schedule --json``, each policy's row of ``lpsched simulate``
        (without ``stretch``) and the rows of :mod:`lpsched.bags.reproduce`.

        Returns
        -------
        dict
            ``max_stretch``, ``sum_stretch``, ``makespan``, ``max_flow``, ``sum_flow`` (floats, in
            seconds for the flows and makespan) and ``stretch`` (a list, one per application).
        """
        return {"max_stretch": self.max_stretch, "sum_stretch": self.sum_stretch,
                "makespan": self.makespan, "max_flow": self.max_flow,
                "sum_flow": self.sum_flow, "stretch": self.stretch.tolist()}

    def to_frame(self) -> Any:
        """The per-application metrics as a pandas DataFrame, one row per application
        (``pip install 'lpsched[pandas]'`` when pandas is missing); the five objectives are
        the columns' ``max``/``sum`` (``makespan``: ``completion.max()`` plus the instance's
        time origin).

        Returns
        -------
        pandas.DataFrame
            Columns:

            ``app`` (int)
                Application index ``k``.
            ``completion`` (s)
                ``C_k``, end of its last computation (times counted as the schedule's).
            ``flow`` (s)
                ``C_k − r_k``.
            ``stretch`` (1)
                ``(C_k − r_k)/MS*_k``.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> from lpsched.bags.policies import get_policy
        >>> from lpsched.bags.schedule import metrics
        >>> from lpsched.bags.simulator import simulate
        >>> inst = random_bags(3, 2, seed=0)
        >>> m = metrics(inst, simulate(inst, get_policy("fifo-mct")).schedule)
        >>> apps = m.to_frame()
        >>> list(apps.columns)
        ['app', 'completion', 'flow', 'stretch']
        >>> float(apps["stretch"].max()) == m.max_stretch
        True
        """
        from lpsched.core.frames import frame

        return frame({"app": np.arange(len(self.completion)), "completion": self.completion,
                      "flow": self.flow, "stretch": self.stretch}, "Metrics.to_frame()")


def metrics(inst: Instance, sched: Schedule, port: str | None = None) -> Metrics:
    """Stretch ``(C_k − r_k)/MS*_k`` with ``MS*`` of ``port`` (default: the platform's),
    flow ``C_k − r_k``, makespan ``max C_k`` (absolute time, decision A30: the instance's
    :attr:`~lpsched.bags.instance.Instance.origin` added back to times counted from the
    first release).

    Parameters
    ----------
    inst : Instance
        The instance the schedule is for.
    sched : Schedule
        The schedule, one row per task.
    port : str or None
        The model whose ``MS*`` defines the stretch; ``None`` (default): the platform's.

    Returns
    -------
    Metrics
        Per application the completion, flow and stretch; the max and sum of the stretches
        and flows, and the makespan.
    """
    completion = sched.completion(inst.n)
    flow = completion - inst.release
    stretch = flow / dedicated_makespans(inst, port)
    return Metrics(completion, flow, stretch, float(stretch.max()), float(stretch.sum()),
                   float(completion.max()) + inst.origin, float(flow.max()), float(flow.sum()))
