"""From a fluid plan of (K1) to a concrete one-port atomic schedule: Theorem 6(b) of seed 003
(§3.3.4, [L540–L597]), with the 1-D load-balancing schedules of §3.2.

For each plan interval ``[t_j, t_{j+1}]`` in time order:

1. **sends**: ``n^comm_{u,j,k} = ⌊A_{M→u}^(k)(j)⌋`` whole tasks, ordered on the master port
   by ``S_1D`` (the port is the resource; flow ``(u, k)`` has item time ``δ_k/b_u`` and share
   ``A_{M→u}^(k)(j)·δ_k/b_u/Δ_j``, which sum to at most 1 by (10-b)), back to back from
   ``t_j``; by Lemma 1 the ``q``-th send of a flow ends by ``t_j + q·Δ_j/A_{M→u}^(k)(j)``;
2. **computations**: ``n^comp_{u,j,k} = min(⌊A_u^(k)(j)⌋, n^comm_{u,j,k} + backlog)`` slots,
   the last ones of the interval, placed by ``S_1D^{-2}`` on each worker (shares
   ``A_u^(k)(j)·w_k/s_u/Δ_j``, at most 1 in total by (8));
3. **shift by one** per (worker, application): its first slot stays idle and slot ``m+1``
   computes the ``m``-th task it received (validity: spec §5.6 derives
   ``(n − D − i)/A_M + i/A_C <= 1``; it is also asserted here at run time);
4. **tails** (at each deadline ``d_k``, in increasing order): the tasks of ``A_k`` never sent
   (at most one per interval per worker; given to the workers by largest remainder of their
   planned totals) are sent serially, and every task of ``A_k`` received but not computed is
   computed at full speed; everything the base schedule does after ``d_k`` is shifted by the
   tail's length.

Guarantee (Theorem 6, with the sum over workers running to ``p``, decision A3): the lateness
of ``A_k`` is at most ``Σ_{l: d_l <= d_k} [Σ_u (2n−1)·δ_l/b_u + max_u (4n−1)·w_l/s_u]``;
:class:`Reconstruction` reports this bound and the tighter one of the tails actually built.
Complexity O(N log n) for N tasks, plus O(J·p) bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.loadbalance import s1d, s1d_reversed
from lpsched.bags.maxstretch import StretchPlan
from lpsched.bags.schedule import Schedule
from lpsched.errors import LpschedError


@dataclass(frozen=True)
class Reconstruction:
    """The schedule, the plan's deadlines, and per application: completion, lateness,
    Theorem 6's bound and the sum of the tails that could delay it."""

    schedule: Schedule
    deadlines: np.ndarray
    completion: np.ndarray
    lateness: np.ndarray
    bound: np.ndarray
    tails: np.ndarray


def _after(time: np.ndarray | float, at: float) -> np.ndarray | bool:
    """``time >= at`` up to rounding: epochs and deadlines are computed separately, so an
    item that starts "at" a deadline may differ from it by a few ulps."""
    return time >= at - 1e-9 * max(1.0, abs(at))


def _largest_remainder(total: int, weights: np.ndarray) -> np.ndarray:
    """``total`` whole units split like ``weights`` (largest remainders; ties: lower index)."""
    w = np.clip(weights, 0.0, None)
    if total <= 0:
        return np.zeros(w.size, int)
    share = total * w / w.sum() if w.sum() > 0 else np.full(w.size, total / w.size)
    out = np.floor(share).astype(int)
    rest = share - out
    for u in np.lexsort((np.arange(w.size), -rest))[: total - out.sum()]:
        out[u] += 1
    return out


def _place_slots(slots: list[list[list[float]]], t: np.ndarray, j: int, count: np.ndarray,
                 amount: np.ndarray, comp_t: np.ndarray) -> None:
    """Computation slots of interval ``j`` on every worker: the last ``count[k, u]`` tasks
    of the fluid schedule, right-packed by ``S_1D^{-2}`` (Lemma 2); appends their starts."""
    length = t[j + 1] - t[j]
    for u in range(count.shape[1]):
        ks = np.flatnonzero(count[:, u] > 0)
        if not ks.size:
            continue
        share = amount[ks, u] * comp_t[ks, u] / length
        place = s1d_reversed(t[j + 1], share / max(1.0, share.sum()), comp_t[ks, u],
                             count[ks, u])
        for f, start in zip(place.app, place.start, strict=True):
            slots[ks[f]][u].append(float(start))


#: One task of a schedule: ``(app, worker, send_start, send_end, start, end)``.
_Row = tuple[int, int, float, float, float, float]
#: Per application and worker: the ``(send_start, send_end)`` windows of some of its tasks.
_Windows = list[list[list[tuple[float, float]]]]


def _check_arrival(start: float, arrival: float, theorem: str, m: int, k: int, u: int) -> None:
    """Raise if task ``m`` of ``A_k`` starts computing on worker ``u`` before it arrived."""
    if start < arrival - 1e-9 * max(1.0, abs(arrival)):
        raise LpschedError(f"{theorem} construction: task {m} of application {k} on worker "
                           f"{u} computed before it arrived")


def _serial_sends(extra: np.ndarray, duration: np.ndarray, port: float,
                  ) -> tuple[list[list[tuple[float, float]]], float]:
    """``extra[u]`` whole tasks sent one after the other from ``port``, worker by worker,
    each taking ``duration[u]``: their send windows and when the port is free again."""
    arrivals: list[list[tuple[float, float]]] = [[] for _ in range(extra.size)]
    for u in range(extra.size):
        for _ in range(int(extra[u])):
            arrivals[u].append((port, port + duration[u]))
            port += duration[u]
    return arrivals, port


def _serial_computations(rows: list[_Row], k: int, u: int, items: list[tuple[float, float]],
                         free: float, comp: float) -> float:
    """Tasks of ``A_k`` with send windows ``items`` computed in order at full speed on worker
    ``u`` from ``free``, each once arrived; appends their rows, returns when ``u`` is free."""
    for s0, s1 in items:
        start = max(free, s1)
        rows.append((k, u, s0, s1, start, start + comp))
        free = start + comp
    return free


def _assemble(base: np.ndarray, tail_rows: list[_Row], meta: dict[str, object]) -> Schedule:
    """The :class:`Schedule` of the (shifted) base rows followed by the tail rows."""
    allrows = np.concatenate([base, np.array(tail_rows, dtype=float).reshape(-1, 6)])
    return Schedule(allrows[:, 0].astype(int), allrows[:, 1].astype(int), allrows[:, 2],
                    allrows[:, 3], allrows[:, 4], allrows[:, 5], meta=meta)


# -- one-port: Theorem 6(b) (OP-AC) ---------------------------------------------------------
def _op_base_plan(t: np.ndarray, am: np.ndarray, ac: np.ndarray, comm_t: np.ndarray,
                  comp_t: np.ndarray) -> tuple[_Windows, list[list[list[float]]]]:
    """Steps 1-2, interval by interval: the send windows of every flow (``S_1D`` on the
    master port) and the computation slot starts on every worker (``S_1D^{-2}``)."""
    n, p = comp_t.shape
    sends: _Windows = [[[] for _ in range(p)] for _ in range(n)]
    slots: list[list[list[float]]] = [[[] for _ in range(p)] for _ in range(n)]
    backlog = np.zeros((n, p), int)
    for j in range(t.size - 1):
        length = t[j + 1] - t[j]
        if length <= 0:
            continue
        n_comm = np.floor(am[:, :, j] + 1e-9).astype(int)
        flows = np.argwhere(n_comm > 0)
        if flows.size:
            k, u = flows[:, 0], flows[:, 1]
            share = am[k, u, j] * comm_t[k, u] / length
            place = s1d(t[j], share / max(1.0, share.sum()), comm_t[k, u], n_comm[k, u])
            for f, start, end in zip(place.app, place.start, place.end, strict=True):
                sends[k[f]][u[f]].append((float(start), float(end)))
        n_comp = np.minimum(np.floor(ac[:, :, j] + 1e-9).astype(int), n_comm + backlog)
        backlog += n_comm - n_comp
        _place_slots(slots, t, j, n_comp, ac[:, :, j], comp_t)
    return sends, slots


def _op_shift_by_one(sends: _Windows, slots: list[list[list[float]]], comp_t: np.ndarray,
                     ) -> tuple[list[_Row], _Windows]:
    """Step 3: slot ``m+1`` of each (application, worker) computes its ``m``-th received
    task (checked); returns those rows and the received tasks left for the tails."""
    n, p = comp_t.shape
    records: list[_Row] = []
    leftover_recv: _Windows = [[[] for _ in range(p)] for _ in range(n)]
    for k in range(n):
        for u in range(p):
            recv = sends[k][u]
            st = slots[k][u]
            done = max(len(st) - 1, 0)  # slot 1 stays idle: shift by one
            for m in range(done):
                s0, s1 = recv[m]
                start = st[m + 1]
                _check_arrival(start, s1, "Theorem 6", m, k, u)
                records.append((k, u, s0, s1, start, start + comp_t[k, u]))
            leftover_recv[k][u] = recv[done:]
    return records, leftover_recv


def _op_tails(inst: Instance, plan: StretchPlan, sends: _Windows, leftover_recv: _Windows,
              ) -> tuple[list[tuple[float, float]], list[_Row], np.ndarray]:
    """Step 4, deadline by deadline: the serial sends of the tasks never sent and the
    full-speed computation of the received ones, in the shifted timeline. Returns the pauses
    ``(base time, length)``, the tail rows and each tail's length."""
    n, p = inst.n, inst.p
    comm_t, comp_t = np.asarray(inst.comm_time), np.asarray(inst.comp_time)
    tasks = inst.tasks.astype(int)
    planned = np.asarray(plan.comm).sum(axis=2)
    shift_at: list[tuple[float, float]] = []  # (base time, pause length)
    tail_rows: list[_Row] = []
    tails = np.zeros(n)
    for k in np.lexsort((np.arange(n), plan.deadlines)):
        d = float(plan.deadlines[k])
        sent_k = sum(len(sends[k][u]) for u in range(p))
        extra = _largest_remainder(tasks[k] - sent_k,
                                   planned[k] - np.array([len(sends[k][u]) for u in range(p)]))
        offset = sum(length for at, length in shift_at if _after(d, at))
        now = d + offset  # the tail starts at d_k in the shifted timeline
        arrivals, end = _serial_sends(extra, comm_t[k], now)
        for u in range(p):
            waiting = [(s0 + moved, s1 + moved) for s0, s1 in leftover_recv[k][u]
                       for moved in [sum(ln for at, ln in shift_at if _after(s0, at))]]
            # received before d_k first, then the tail's own sends as they arrive
            free = _serial_computations(tail_rows, k, u, [*waiting, *arrivals[u]], now,
                                        comp_t[k, u])
            end = max(end, free)
        tails[k] = end - now
        shift_at.append((d, tails[k]))
    return shift_at, tail_rows, tails


def _delay(start: np.ndarray, shift_at: list[tuple[float, float]]) -> np.ndarray:
    """Total pause inserted before an item that starts at ``start`` in the base schedule
    (items never straddle an epoch, so an item moves as a whole)."""
    out = np.zeros_like(start)
    for at, length in shift_at:
        out += np.where(_after(start, at), length, 0.0)
    return out


def _op_shift_base(records: list[_Row], shift_at: list[tuple[float, float]]) -> np.ndarray:
    """The base rows, each send and computation moved by the pauses inserted before it."""
    base = np.array(records, dtype=float).reshape(-1, 6)
    if base.size:
        send_delay, comp_delay = _delay(base[:, 2], shift_at), _delay(base[:, 4], shift_at)
        base[:, 2:4] += send_delay[:, None]
        base[:, 4:6] += comp_delay[:, None]
    return base


def _op_bounds(inst: Instance, deadlines: np.ndarray, tails: np.ndarray,
               ) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 6's bound and the sum of the tails built, over the deadlines up to ``d_k``."""
    n = inst.n
    comm_t, comp_t = np.asarray(inst.comm_time), np.asarray(inst.comp_time)
    per_app = ((2 * n - 1) * comm_t.sum(axis=1) + (4 * n - 1) * comp_t.max(axis=1))
    bound = np.array([per_app[deadlines <= deadlines[k] * (1 + 1e-12)].sum()
                      for k in range(n)])
    tail_sum = np.array([tails[deadlines <= deadlines[k] * (1 + 1e-12)].sum()
                         for k in range(n)])
    return bound, tail_sum


def reconstruct_op_ac(inst: Instance, plan: StretchPlan) -> Reconstruction:
    """Theorem 6(b): an OP-AC schedule from a point of (K1) (module doc).

    Parameters
    ----------
    inst : Instance
        The instance the plan was computed for.
    plan : StretchPlan
        An offline one-port plan (a point of (K1)) covering every application, e.g.
        ``max_stretch(inst).plan`` for a one-port instance.

    Returns
    -------
    Reconstruction
        The concrete schedule and, per application, the plan's deadline, the completion
        time, the lateness (completion − deadline), Theorem 6's bound on the lateness and
        the sum of the tails.

    Raises
    ------
    LpschedError
        The plan is not an offline one-port plan or does not cover every
        application of ``inst``.
    """
    if plan.port != "one-port" or plan.t_new is not None:
        raise LpschedError("the OP-AC construction needs an offline one-port plan")
    apps = np.asarray(plan.apps, int)
    if not np.array_equal(apps, np.arange(inst.n)):
        raise LpschedError("the plan must cover every application of the instance")
    sends, slots = _op_base_plan(np.asarray(plan.epochs, float), np.asarray(plan.comm),
                                 np.asarray(plan.comp), np.asarray(inst.comm_time),
                                 np.asarray(inst.comp_time))
    records, leftover_recv = _op_shift_by_one(sends, slots, np.asarray(inst.comp_time))
    shift_at, tail_rows, tails = _op_tails(inst, plan, sends, leftover_recv)
    sched = _assemble(_op_shift_base(records, shift_at), tail_rows,
                      {"construction": "theorem-6-op-ac", "stretch": plan.stretch})
    completion = sched.completion(inst.n)
    lateness = completion - plan.deadlines
    bound, tail_sum = _op_bounds(inst, plan.deadlines, tails)
    return Reconstruction(sched, np.asarray(plan.deadlines), completion, lateness, bound,
                          tail_sum)


# -- bounded multiport: Theorems 3 (BMP-FC) and 4 (BMP-AC) -----------------------------------
#: Cumulative amounts within this many tasks of a whole number count as reaching it (the
#: plan's sums are exact only up to the LP tolerance).
_AMOUNT_TOL = 1e-9


def _crossing(cum: np.ndarray, t: np.ndarray, v: float, last: bool) -> float:
    """For a piecewise-linear non-decreasing ``cum`` (values at epochs ``t``): the last time
    it is ``<= v`` (``last=True``) or the first time it reaches ``v``."""
    if last:
        j = int(np.searchsorted(cum, v + _AMOUNT_TOL, side="right"))
    else:
        j = int(np.searchsorted(cum, v - _AMOUNT_TOL, side="left"))
    if j >= cum.size:
        return float(t[-1])
    if j == 0:
        return float(t[0])
    frac = (v - cum[j - 1]) / (cum[j] - cum[j - 1])
    return float(t[j - 1] + min(max(frac, 0.0), 1.0) * (t[j] - t[j - 1]))


def _last_at_most(cum: np.ndarray, t: np.ndarray, v: float) -> float:
    return _crossing(cum, t, v, last=True)


def _first_at_least(cum: np.ndarray, t: np.ndarray, v: float) -> float:
    return _crossing(cum, t, v, last=False)


def _atomic_slots(t: np.ndarray, ac: np.ndarray, comp_t: np.ndarray,
                  ) -> list[list[list[float]]]:
    """Theorem 4's computation slots: in every interval, the plan's whole tasks placed by
    ``S_1D^{-2}`` on each worker; their starts per (application, worker)."""
    n, p = comp_t.shape
    slots: list[list[list[float]]] = [[[] for _ in range(p)] for _ in range(n)]
    for j in range(t.size - 1):
        length = t[j + 1] - t[j]
        if length <= 0:
            continue
        _place_slots(slots, t, j, np.floor(ac[:, :, j] + 1e-9).astype(int), ac[:, :, j],
                     comp_t)
    return slots


def _bmp_computations(slots: list[float] | None, g: np.ndarray, t: np.ndarray, comp: float,
                      ) -> tuple[int, list[float], list[float]]:
    """Shift by one on one (application, worker): how many tasks the base schedule
    computes, with their start and end times. Atomic (``slots`` given): slot ``m+1``
    computes task ``m``; fluid: task ``i`` runs while the plan's cumulative computed amount
    ``g`` goes from ``i`` to ``i+1``."""
    if slots is not None:
        done = max(len(slots) - 1, 0)
        starts = slots[1:]
        ends = [s + comp for s in starts]
    else:
        done = max(int(np.floor(g[-1] + 1e-9)) - 1, 0)
        starts = [_last_at_most(g, t, i) for i in range(1, done + 1)]
        ends = [_first_at_least(g, t, i + 1) for i in range(1, done + 1)]
    return done, starts, ends


def _bmp_base(t: np.ndarray, sent_cum: np.ndarray, comp_cum: np.ndarray, whole: np.ndarray,
              slots: list[list[list[float]]] | None, comp_t: np.ndarray,
              ) -> tuple[list[_Row], _Windows]:
    """The base schedule: task ``m`` of flow ``(u, k)`` travels while ``sent_cum`` goes
    from ``m−1`` to ``m`` and is computed shifted by one (checked). Returns its rows and the
    send windows of the tasks received but not computed, left for the tails."""
    n, p = comp_t.shape
    theorem = "Theorem 4" if slots is not None else "Theorem 3"
    base: list[_Row] = []
    leftover: _Windows = [[[] for _ in range(p)] for _ in range(n)]
    for k in range(n):
        for u in range(p):
            f = sent_cum[k, u]
            windows = [(_last_at_most(f, t, m - 1), _first_at_least(f, t, m))
                       for m in range(1, whole[k, u] + 1)]
            done, starts, ends = _bmp_computations(None if slots is None else slots[k][u],
                                                   comp_cum[k, u], t, comp_t[k, u])
            for m in range(done):
                s0, s1 = windows[m]
                _check_arrival(starts[m], s1, theorem, m, k, u)
                base.append((k, u, s0, s1, starts[m], ends[m]))
            leftover[k][u] = windows[done:]
    return base, leftover


def _bmp_tails(inst: Instance, plan: StretchPlan, sent_cum: np.ndarray, whole: np.ndarray,
               leftover: _Windows, link_rate: np.ndarray,
               ) -> tuple[list[tuple[float, float]], list[list[tuple[float, float]]],
                          list[_Row], np.ndarray]:
    """At each deadline ``d_k``: the unsent whole tasks of ``A_k`` sent serially at
    ``min(b_u, BW)`` (pausing the communications), then its leftover tasks computed at full
    speed on each worker (pausing that worker's computations). Returns the communication
    pauses, each worker's computation pauses (``(base time, length)``), the tail rows and the
    tail length per (application, worker)."""
    n, p = inst.n, inst.p
    comp_t = np.asarray(inst.comp_time)
    tasks = inst.tasks.astype(int)
    comm_pauses: list[tuple[float, float]] = []
    comp_pauses: list[list[tuple[float, float]]] = [[] for _ in range(p)]
    tail_rows: list[_Row] = []
    worker_tail = np.zeros((n, p))
    for k in np.lexsort((np.arange(n), plan.deadlines)):
        d = float(plan.deadlines[k])
        extra = _largest_remainder(tasks[k] - int(whole[k].sum()),
                                   sent_cum[k, :, -1] - whole[k])
        port0 = d + sum(ln for at, ln in comm_pauses if _after(d, at))
        arrivals, port = _serial_sends(extra, inst.size[k] / link_rate, port0)
        pause = port - port0
        for u in range(p):
            start0 = d + sum(ln for at, ln in comp_pauses[u] if _after(d, at))
            moved = [(a + sum(ln for at, ln in comm_pauses if _after(a, at)),
                      b + sum(ln for at, ln in comm_pauses if b > at + 1e-9 * max(1.0, at)))
                     for a, b in leftover[k][u]]
            free = _serial_computations(tail_rows, k, u, [*moved, *arrivals[u]], start0,
                                        comp_t[k, u])
            worker_tail[k, u] = max(pause, free - start0)
            comp_pauses[u].append((d, worker_tail[k, u]))
        comm_pauses.append((d, pause))
    return comm_pauses, comp_pauses, tail_rows, worker_tail


def _bmp_shift_base(base: list[_Row], comm_pauses: list[tuple[float, float]],
                    comp_pauses: list[list[tuple[float, float]]]) -> np.ndarray:
    """The base rows moved by the pauses before them: sends by the communication pauses,
    computations by their worker's computation pauses. An item whose start moves has its
    end moved too: "at a pause" is decided up to a tolerance relative to the pause's time
    (``1e-9·at``), which can exceed a whole task's duration late in a long schedule (a
    master link of 0.1 B/s puts deadlines near 5e10 s), and must never move a start
    without its end."""
    rows = np.array(base, dtype=float).reshape(-1, 6)
    if rows.size:
        a, b, s, e = rows[:, 2].copy(), rows[:, 3].copy(), rows[:, 4].copy(), rows[:, 5].copy()
        for at, ln in comm_pauses:
            moved = _after(a, at)
            rows[:, 2] += np.where(moved, ln, 0.0)
            rows[:, 3] += np.where(moved | (b > at + 1e-9 * max(1.0, at)), ln, 0.0)
        for u in range(len(comp_pauses)):
            mine = rows[:, 1] == u
            for at, ln in comp_pauses[u]:
                moved = mine & _after(s, at)
                rows[:, 4] += np.where(moved, ln, 0.0)
                rows[:, 5] += np.where(moved | (mine & (e > at + 1e-9 * max(1.0, at))), ln,
                                       0.0)
    return rows


def _bmp_bounds(inst: Instance, deadlines: np.ndarray, link_rate: np.ndarray,
                worker_tail: np.ndarray, computation: str) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 4's (atomic) or 3's (fluid) bound plus the envelope of the extra sends, and
    the largest per-worker sum of the tails built, over the deadlines up to ``d_k``."""
    n = inst.n
    comp_t = np.asarray(inst.comp_time)
    envelope = (inst.size[:, None] / link_rate[None, :]).sum(axis=1) + comp_t.max(axis=1)
    earlier = deadlines[None, :] <= deadlines[:, None] * (1 + 1e-12)
    if computation == "atomic":
        bound = np.full(n, float((2 * n * comp_t).sum(axis=0).max()) + envelope.sum())
    else:
        bound = (earlier @ comp_t).max(axis=1) + earlier @ envelope
    return bound, (earlier @ worker_tail).max(axis=1)


def reconstruct_bmp(inst: Instance, plan: StretchPlan, computation: str = "atomic",
                    ) -> Reconstruction:
    """A bounded-multiport schedule from a point of (K): Theorem 4 (BMP-AC,
    ``computation="atomic"``) or Theorem 3 (BMP-FC, ``computation="fluid"``), seed 003
    §3.3.1–3.3.2 [L455–L508].

    Communications follow the fluid plan unchanged: task ``m`` of flow ``(u, k)`` travels
    while its cumulative amount goes from ``m−1`` to ``m``. Computations are shifted by one
    task per (worker, application): atomic — whole tasks of each interval placed by
    ``S_1D^{-2}`` (Theorem 4), the first slot idle; fluid — task ``i`` computed at the plan's
    rates while the plan computes task ``i+1`` (Theorem 3). At each deadline ``d_k`` the
    leftover tasks of ``A_k`` are computed at full speed on each worker, shifting later
    computations on that worker. Plans whose per-worker totals are fractional leave whole
    tasks unsent (spec §5.7, decision A5): they are sent at ``d_k`` one at a time at
    ``min(b_u, BW)`` (largest remainders), pausing the communications for that long.

    Bound reported: Theorem 4's ``max_u 2n·Σ_l w_l/s_u`` (atomic) or Theorem 3's
    ``max_u Σ_{l: d_l <= d_k} w_l/s_u`` (fluid), plus the envelope
    ``Σ_l [Σ_u δ_l/min(b_u, BW) + max_u w_l/s_u]`` of those extra sends.

    Parameters
    ----------
    inst : Instance
        The instance the plan was computed for.
    plan : StretchPlan
        An offline bounded-multiport plan (a point of (K)) covering every application, e.g.
        ``max_stretch(inst).plan`` for a multiport instance.
    computation : str
        ``"atomic"`` (default): whole tasks, Theorem 4 (BMP-AC); ``"fluid"``: divisible
        computations, Theorem 3 (BMP-FC).

    Returns
    -------
    Reconstruction
        The concrete schedule and, per application, the plan's deadline, the completion
        time, the lateness (completion − deadline), the bound of Theorem 4 or 3 (plus the
        envelope of the extra sends) and the sum of the tails.

    Raises
    ------
    LpschedError
        The plan is not an offline multiport plan, does not cover every application,
        or ``computation`` is unknown.
    """
    if plan.port != "multiport" or plan.t_new is not None:
        raise LpschedError("the BMP constructions need an offline bounded-multiport plan")
    if computation not in ("atomic", "fluid"):
        raise LpschedError(f"unknown computation model {computation!r}")
    n, p = inst.n, inst.p
    if not np.array_equal(np.asarray(plan.apps, int), np.arange(n)):
        raise LpschedError("the plan must cover every application of the instance")
    comp_t = np.asarray(inst.comp_time)
    link_rate = np.minimum(inst.platform.bandwidths, inst.platform.master_bandwidth)
    t = np.asarray(plan.epochs, float)
    am, ac = np.asarray(plan.comm), np.asarray(plan.comp)
    sent_cum = np.concatenate([np.zeros((n, p, 1)), np.cumsum(am, axis=2)], axis=2)
    comp_cum = np.concatenate([np.zeros((n, p, 1)), np.cumsum(ac, axis=2)], axis=2)
    whole = np.floor(sent_cum[:, :, -1] + 1e-9).astype(int)
    slots = _atomic_slots(t, ac, comp_t) if computation == "atomic" else None
    base, leftover = _bmp_base(t, sent_cum, comp_cum, whole, slots, comp_t)
    comm_pauses, comp_pauses, tail_rows, worker_tail = _bmp_tails(inst, plan, sent_cum, whole,
                                                                  leftover, link_rate)
    sched = _assemble(_bmp_shift_base(base, comm_pauses, comp_pauses), tail_rows,
                      {"construction": f"theorem-{4 if computation == 'atomic' else 3}",
                       "computation": computation, "stretch": plan.stretch})
    completion = sched.completion(n)
    lateness = completion - plan.deadlines
    bound, tails = _bmp_bounds(inst, plan.deadlines, link_rate, worker_tail, computation)
    return Reconstruction(sched, np.asarray(plan.deadlines), completion, lateness, bound,
                          tails)
