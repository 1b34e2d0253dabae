"""The schedule of a task simulation as execution pieces, its independent validation and
the chapter's metrics (seed 000 §3.2).

A piece is ``(task, processor, start, end, kind)`` with ``kind`` one of :data:`COMPLETE`
(the piece that finishes the task), :data:`PREEMPTED` (SRPT/GSRPT: the task resumes later
with its remaining time) or :data:`INTERRUPTED` (RD: the task restarts from zero on the
dedicated pool). :func:`validate_schedule` rebuilds everything from the pieces and the
instance; it shares no code with the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.errors import InvalidScheduleError
from lpsched.tasks.instance import BOUND_B, TIME_RESOLUTION, TaskInstance

COMPLETE, PREEMPTED, INTERRUPTED = 0, 1, 2
#: relative time tolerance of the validator (times are sums of floats)
TIME_TOL = 1e-9
#: relative slack under a proven lower bound still accepted (the bounds' own rounding)
BOUND_RTOL = 1e-7


@dataclass(frozen=True)
class TaskSchedule:
    """The schedule of one simulation: its execution pieces and what the policy allows.

    The pieces are parallel arrays (module doc); the pools are the main processors
    ``[0, main)`` and the dedicated ones ``[main, processors)``; ``preemptive``,
    ``migratory`` and ``restarts`` say what the policy may do (the validator holds it to
    them). ``completion[j]`` is the end of task ``j``'s last piece. The schedule does not
    keep its instance: :meth:`to_frame` takes it for the per-task flows and stretches, and
    :meth:`OnlineResult.to_frame <lpsched.tasks.simulator.OnlineResult.to_frame>`, which
    keeps it, gives them without an argument.
    """

    task: np.ndarray
    proc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    completion: np.ndarray
    processors: int
    main: int
    policy: str
    preemptive: bool = False
    migratory: bool = False
    restarts: bool = False
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def pieces(self) -> int:
        """Number of pieces (the length of the parallel arrays)."""
        return int(self.task.size)

    def to_frame(self, per: str = "piece", inst: TaskInstance | None = None,
                 bound: float = BOUND_B) -> Any:
        """The schedule as a pandas DataFrame (``pip install 'lpsched[pandas]'`` when pandas
        is missing).

        Parameters
        ----------
        per : {"piece", "task"}
            ``"piece"`` (default): one row per execution piece, in the schedule's order;
            ``"task"``: one row per task.
        inst : TaskInstance, optional
            The simulated instance; with ``per="task"`` it adds each task's release, length,
            flow and bounded stretch (seed 000 §3.2, :func:`metrics` per task).
        bound : float
            ``B`` of the bounded stretch (s), default :data:`~lpsched.tasks.instance.BOUND_B`.

        Returns
        -------
        pandas.DataFrame
            Per piece: ``task`` (int), ``proc`` (int, processor; ``>= main`` is the
            dedicated pool), ``start``, ``end`` (s), ``kind`` (str: ``"complete"``,
            ``"preempted"`` or ``"interrupted"``, see the module doc), ``dedicated`` (bool,
            the piece ran on the dedicated pool).
            Per task: ``task`` (int), ``completion`` (s, end of its last piece), ``pieces``
            (int), ``proc`` (int, processor of the piece that completes it); with ``inst``
            also ``release``, ``p`` (s), ``flow`` (s, ``C_j − r_j``) and ``stretch`` (1,
            ``F_j / max(p_j, B)``), whose max, sum and L2 norm are :func:`metrics`.

        Raises
        ------
        ValueError
            ``per`` is neither ``"piece"`` nor ``"task"``, or ``inst`` has another number
            of tasks.

        Examples
        --------
        >>> from lpsched.tasks.instance import TaskInstance
        >>> from lpsched.tasks.policies import get_policy
        >>> from lpsched.tasks.simulator import simulate
        >>> inst = TaskInstance(1, [0.0, 1.0], [4.0, 1.0])
        >>> sched = simulate(inst, get_policy("srpt"))
        >>> sched.to_frame()[["task", "start", "end", "kind"]]
           task  start  end       kind
        0     0    0.0  1.0  preempted
        1     1    1.0  2.0   complete
        2     0    2.0  5.0   complete
        >>> sched.to_frame(per="task", inst=inst)[["task", "completion", "flow", "stretch"]]
           task  completion  flow  stretch
        0     0         5.0   5.0      0.5
        1     1         2.0   1.0      0.1
        """
        from lpsched.core.frames import frame

        kinds = np.array(["complete", "preempted", "interrupted"])
        if per == "piece":
            return frame({"task": self.task, "proc": self.proc, "start": self.start,
                          "end": self.end, "kind": kinds[np.asarray(self.kind, int)],
                          "dedicated": np.asarray(self.proc) >= self.main},
                         "TaskSchedule.to_frame()")
        if per != "task":
            raise ValueError(f"per={per!r}: TaskSchedule.to_frame() gives one row per "
                             "'piece' or per 'task'")
        n = len(self.completion)
        done = np.asarray(self.kind) == COMPLETE
        proc = np.full(n, -1)
        proc[np.asarray(self.task)[done]] = np.asarray(self.proc)[done]
        columns: dict[str, Any] = {
            "task": np.arange(n), "completion": np.asarray(self.completion, float),
            "pieces": np.bincount(np.asarray(self.task, int), minlength=n), "proc": proc}
        if inst is not None:
            if inst.n != n:
                raise ValueError(f"the instance has {inst.n} tasks, the schedule {n}")
            flow = columns["completion"] - inst.release
            columns.update(release=inst.release, p=inst.p, flow=flow,
                           stretch=flow / inst.weights(bound))
        return frame(columns, "TaskSchedule.to_frame(per='task')")


def _fail(rule: str, message: str, task: int | None = None) -> None:
    raise InvalidScheduleError(rule, message, task)


def _tol(inst: TaskInstance, sched: TaskSchedule) -> float:
    scale = max(1.0, float(sched.end.max(initial=0.0)), float(inst.p.max()))
    return TIME_TOL * scale


def validate_schedule(inst: TaskInstance, sched: TaskSchedule) -> None:
    """Check a schedule independently of the simulator that made it (seed 000 ch. 3, §3.2).

    Raise :class:`~lpsched.errors.InvalidScheduleError` at the first violation of:
    processors in range; no piece before its task's release; no two pieces
    overlapping on a processor nor of one task; each task gets exactly ``p_j`` of work (one
    complete piece of length ``p_j`` for a non-preemptive policy, preceded at most by one
    interrupted piece on the main pool when the policy restarts, the complete piece then on
    the dedicated pool, which takes no other task; pieces summing to ``p_j`` on one
    processor — any when migratory — for a preemptive one); the completion time is the end
    of the last piece.

    Parameters
    ----------
    inst : TaskInstance
        The instance scheduled.
    sched : TaskSchedule
        Its schedule (pieces and completion times).
    """
    tol = _tol(inst, sched)
    t, q, s, e = sched.task, sched.proc, sched.start, sched.end
    if t.size == 0 or t.min() < 0 or t.max() >= inst.n:
        _fail("tasks", "a piece names a task outside the instance")
    last = float(np.abs(e).max(initial=0.0))
    if not np.spacing(last) <= TIME_RESOLUTION:  # decision 286
        _fail("time-resolution", f"the schedule reaches {last:.4g} s after the first "
              f"release, where floats are {np.spacing(last):.3g} s apart: durations are "
              f"not kept to {TIME_RESOLUTION:g} s")
    if q.min() < 0 or q.max() >= sched.processors or sched.processors != inst.processors:
        _fail("processors", f"a piece runs outside processors 0..{inst.processors - 1}")
    bad = np.flatnonzero(e < s - tol)
    if bad.size:
        _fail("duration", f"piece {bad[0]} ends before it starts", int(t[bad[0]]))
    bad = np.flatnonzero(s < inst.release[t] - tol)
    if bad.size:
        j = int(t[bad[0]])
        _fail("release", f"task {j} starts at {s[bad[0]]} before its release "
              f"{inst.release[j]}", j)
    _no_overlap(q, s, e, t, tol, "processor-overlap", "on processor")
    _no_overlap(t, s, e, t, tol, "task-overlap", "of task")
    _work(inst, sched, tol)


def _no_overlap(key: np.ndarray, s: np.ndarray, e: np.ndarray, t: np.ndarray, tol: float,
                rule: str, what: str) -> None:
    order = np.lexsort((e, s, key))
    same = key[order][1:] == key[order][:-1]
    clash = same & (s[order][1:] < e[order][:-1] - tol)
    if clash.any():
        i = int(np.argmax(clash))
        a, b = order[i], order[i + 1]
        _fail(rule, f"pieces {a} and {b} {what} {key[a]} overlap: [{s[a]}, {e[a]}] and "
              f"[{s[b]}, {e[b]}]", int(t[b]))


def _work(inst: TaskInstance, sched: TaskSchedule, tol: float) -> None:
    t, e, k = sched.task, sched.end, sched.kind
    n = inst.n
    done = np.bincount(t[k == COMPLETE], minlength=n)
    if (done != 1).any():
        j = int(np.argmax(done != 1))
        _fail("completion", f"task {j} has {done[j]} complete pieces (expected 1)", j)
    last_end = np.full(n, -np.inf)
    np.maximum.at(last_end, t, e)
    finish = np.zeros(n)
    finish[t[k == COMPLETE]] = e[k == COMPLETE]
    if not np.allclose(finish, last_end, rtol=0, atol=tol):
        j = int(np.argmax(~np.isclose(finish, last_end, rtol=0, atol=tol)))
        _fail("completion", f"task {j} runs after its complete piece", j)
    if not np.allclose(sched.completion, finish, rtol=0, atol=tol):
        j = int(np.argmax(~np.isclose(sched.completion, finish, rtol=0, atol=tol)))
        _fail("completion", f"task {j}: reported completion {sched.completion[j]}, pieces "
              f"end at {finish[j]}", j)
    if sched.preemptive:
        _preemptive_work(inst, sched, tol)
    else:
        _restart_work(inst, sched, tol)


def _preemptive_work(inst: TaskInstance, sched: TaskSchedule, tol: float) -> None:
    t, q, s, e, k = sched.task, sched.proc, sched.start, sched.end, sched.kind
    if (k == INTERRUPTED).any():
        _fail("restart", "a preemptive policy never restarts a task")
    work = np.bincount(t, weights=e - s, minlength=inst.n)
    bad = np.flatnonzero(np.abs(work - inst.p) > tol)
    if bad.size:
        j = int(bad[0])
        _fail("work", f"task {j} gets {work[j]} of work, needs {inst.p[j]}", j)
    if not sched.migratory:
        first = np.full(inst.n, -1)
        first[t[::-1]] = q[::-1]
        moved = np.flatnonzero(q != first[t])
        if moved.size:
            j = int(t[moved[0]])
            _fail("migration", f"task {j} runs on two processors", j)


def _restart_work(inst: TaskInstance, sched: TaskSchedule, tol: float) -> None:
    t, q, s, e, k = sched.task, sched.proc, sched.start, sched.end, sched.kind
    if (k == PREEMPTED).any():
        j = int(t[np.argmax(k == PREEMPTED)])
        _fail("preemption", f"task {j} is preempted by a non-preemptive policy", j)
    full = k == COMPLETE
    bad = np.flatnonzero(full & (np.abs((e - s) - inst.p[t]) > tol))
    if bad.size:
        j = int(t[bad[0]])
        _fail("work", f"task {j} runs {e[bad[0]] - s[bad[0]]}, needs {inst.p[j]}", j)
    cut = np.flatnonzero(k == INTERRUPTED)
    if cut.size and not sched.restarts:
        _fail("restart", f"task {int(t[cut[0]])} is interrupted by a policy without "
              "redirection", int(t[cut[0]]))
    if np.bincount(t[cut], minlength=inst.n).max(initial=0) > 1:
        _fail("restart", "a task is interrupted twice (a redirected task is never "
              "redirected again)")
    on_main = q[cut] < sched.main
    if not on_main.all():
        _fail("restart", "an interrupted piece runs on the dedicated pool",
              int(t[cut[~on_main][0]]))
    restart_at = np.full(inst.n, -np.inf)
    restart_at[t[cut]] = e[cut]
    # seed L1319–1321: the dedicated pool "will be only used by the heavy tasks"
    stray = np.flatnonzero((q >= sched.main) & ~np.isfinite(restart_at[t]))
    if sched.restarts and stray.size:
        j = int(t[stray[0]])
        _fail("restart", f"task {j} runs on the dedicated pool without being interrupted", j)
    redone = np.flatnonzero(full & np.isfinite(restart_at[t]))
    if redone.size and (q[redone] < sched.main).any():
        _fail("restart", "a redirected task restarts on the main pool",
              int(t[redone[q[redone] < sched.main][0]]))
    if redone.size and (s[redone] < restart_at[t[redone]] - tol).any():
        _fail("restart", "a redirected task restarts before its interruption")


def check_bounds(values: dict[str, Any], bounds: dict[str, Any]) -> None:
    """Refuse a schedule whose objective lies below a proven lower bound.

    The objectives are seed 000 §3.2's, the bounds those of
    :func:`lpsched.tasks.bounds.lower_bounds` (as objects or as their ``to_dict()``): a
    schedule cannot beat a proof, so one of the two is wrong.

    Parameters
    ----------
    values : dict
        The schedule's objectives (:func:`metrics`).
    bounds : dict
        Objective name to bound (``value`` and ``bound``, its kind).

    Raises
    ------
    InvalidScheduleError
        ``lower-bound``, naming the objective, its value, the bound and its kind, when the
        objective is below ``value * (1 - BOUND_RTOL)``.
    """
    for key, bound in bounds.items():
        b = bound if isinstance(bound, dict) else bound.to_dict()
        lb, value = b.get("value"), values.get(key)
        if lb is None or value is None or not np.isfinite(lb):
            continue
        if value < lb * (1 - BOUND_RTOL) if lb > 0 else value < lb:
            _fail("lower-bound", f"{key} = {value:.10g} is below its proven lower bound "
                  f"{lb:.10g} ({b.get('bound')}): the schedule or the bound is wrong")


def metrics(inst: TaskInstance, completion: np.ndarray, bound: float = BOUND_B,
            ) -> dict[str, float]:
    """Measure the six objectives of seed 000 §3.2 from the completion times.

    The max, sum and L2 norm of the bounded stretch ``F_j / max(p_j, B)`` and of the flow
    ``F_j = C_j − r_j``.

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    completion : numpy.ndarray
        Completion time of every task (s), shape ``(n,)``.
    bound : float
        The stretch's constant ``B`` (s; default :data:`~lpsched.tasks.instance.BOUND_B`).

    Returns
    -------
    dict of str to float
        ``max_stretch``, ``sum_stretch``, ``l2_stretch`` (no unit), ``max_flow``,
        ``sum_flow``, ``l2_flow`` (seconds).
    """
    flow = np.asarray(completion, float) - inst.release
    stretch = flow / inst.weights(bound)
    return {"max_stretch": float(stretch.max()), "sum_stretch": float(stretch.sum()),
            "l2_stretch": float(np.sqrt(np.square(stretch).sum())),
            "max_flow": float(flow.max()), "sum_flow": float(flow.sum()),
            "l2_flow": float(np.sqrt(np.square(flow).sum()))}


def schedule_counts(sched: TaskSchedule) -> dict[str, float | None]:
    """Count what the policy did: preemptions, interruptions, redirections, wasted work.

    The figures of seed 000 §3.4.3's redirection and §3.5.2's discussion.

    Parameters
    ----------
    sched : TaskSchedule
        The schedule.

    Returns
    -------
    dict
        ``preemptions``, ``interruptions`` (pieces of each kind), ``redirections`` (tasks
        completed on the dedicated pool), ``wasted_work`` (seconds of interrupted pieces)
        and ``dedicated_utilisation`` (busy time over ``m_d`` x the span from the first
        piece to the last completion; ``None`` without a dedicated pool).
    """
    k, q = sched.kind, sched.proc
    dur = sched.end - sched.start
    dedicated = q >= sched.main
    md = sched.processors - sched.main
    span = float(sched.end.max() - sched.start.min()) if sched.pieces else 0.0
    util = float(dur[dedicated].sum()) / (md * span) if md and span > 0 else None
    return {"preemptions": int((k == PREEMPTED).sum()),
            "interruptions": int((k == INTERRUPTED).sum()),
            "redirections": int((dedicated & (k == COMPLETE)).sum()),
            "wasted_work": float(dur[k == INTERRUPTED].sum()),
            "dedicated_utilisation": util}
