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


def reconstruct_op_ac(inst: Instance, plan: StretchPlan) -> Reconstruction:
    """Theorem 6(b): an OP-AC schedule from a point of (K1) (module doc)."""
    if plan.port != "one-port" or plan.t_new is not None:
        raise LpschedError("the OP-AC construction needs an offline one-port plan")
    apps = np.asarray(plan.apps, int)
    if not np.array_equal(apps, np.arange(inst.n)):
        raise LpschedError("the plan must cover every application of the instance")
    n, p = inst.n, inst.p
    comm_t = np.asarray(inst.comm_time)
    comp_t = np.asarray(inst.comp_time)
    t = np.asarray(plan.epochs, float)
    am, ac = np.asarray(plan.comm), np.asarray(plan.comp)
    tasks = inst.tasks.astype(int)

    # -- the base schedule (steps 1-3), interval by interval -------------------------------
    sends: list[list[list[tuple[float, float]]]] = [[[] for _ in range(p)] for _ in range(n)]
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

    records: list[tuple[int, int, float, float, float, float]] = []
    leftover_recv: list[list[list[tuple[float, float]]]] = [[[] for _ in range(p)]
                                                            for _ in range(n)]
    for k in range(n):
        for u in range(p):
            recv = sends[k][u]
            st = slots[k][u]
            done = max(len(st) - 1, 0)  # slot 1 stays idle: shift by one
            for m in range(done):
                s0, s1 = recv[m]
                start = st[m + 1]
                if start < s1 - 1e-9 * max(1.0, abs(s1)):
                    raise LpschedError(f"Theorem 6 construction: task {m} of application {k} "
                                       f"on worker {u} computed before it arrived")
                records.append((k, u, s0, s1, start, start + comp_t[k, u]))
            leftover_recv[k][u] = recv[done:]

    # -- tails at the deadlines (step 4), shifting what follows ---------------------------
    order = np.lexsort((np.arange(n), plan.deadlines))
    planned = am.sum(axis=2)
    base = np.array(records, dtype=float).reshape(-1, 6)
    shift_at: list[tuple[float, float]] = []  # (base time, pause length)
    tail_rows: list[tuple[int, int, float, float, float, float]] = []
    tails = np.zeros(n)
    for k in order:
        d = float(plan.deadlines[k])
        sent_k = sum(len(sends[k][u]) for u in range(p))
        extra = _largest_remainder(tasks[k] - sent_k,
                                   planned[k] - np.array([len(sends[k][u]) for u in range(p)]))
        offset = sum(length for at, length in shift_at if _after(d, at))
        now = d + offset  # the tail starts at d_k in the shifted timeline
        port = now
        arrivals: list[list[tuple[float, float]]] = [[] for _ in range(p)]
        for u in range(p):
            for _ in range(int(extra[u])):
                arrivals[u].append((port, port + comm_t[k, u]))
                port += comm_t[k, u]
        end = port
        for u in range(p):
            free = now
            waiting = [(s0 + moved, s1 + moved) for s0, s1 in leftover_recv[k][u]
                       for moved in [sum(ln for at, ln in shift_at if _after(s0, at))]]
            # received before d_k first, then the tail's own sends as they arrive
            for s0, s1 in [*waiting, *arrivals[u]]:
                start = max(free, s1)
                tail_rows.append((k, u, s0, s1, start, start + comp_t[k, u]))
                free = start + comp_t[k, u]
            end = max(end, free)
        tails[k] = end - now
        shift_at.append((d, tails[k]))

    def delay(start: np.ndarray) -> np.ndarray:
        """Total pause inserted before an item that starts at ``start`` in the base
        schedule (items never straddle an epoch, so an item moves as a whole)."""
        out = np.zeros_like(start)
        for at, length in shift_at:
            out += np.where(_after(start, at), length, 0.0)
        return out

    if base.size:
        send_delay, comp_delay = delay(base[:, 2]), delay(base[:, 4])
        base[:, 2:4] += send_delay[:, None]
        base[:, 4:6] += comp_delay[:, None]
    allrows = np.concatenate([base, np.array(tail_rows, dtype=float).reshape(-1, 6)])
    sched = Schedule(allrows[:, 0].astype(int), allrows[:, 1].astype(int), allrows[:, 2],
                     allrows[:, 3], allrows[:, 4], allrows[:, 5],
                     meta={"construction": "theorem-6-op-ac", "stretch": plan.stretch})
    completion = sched.completion(n)
    lateness = completion - plan.deadlines
    per_app = ((2 * n - 1) * comm_t.sum(axis=1) + (4 * n - 1) * comp_t.max(axis=1))
    bound = np.array([per_app[plan.deadlines <= plan.deadlines[k] * (1 + 1e-12)].sum()
                      for k in range(n)])
    tail_sum = np.array([tails[plan.deadlines <= plan.deadlines[k] * (1 + 1e-12)].sum()
                         for k in range(n)])
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
    tasks = inst.tasks.astype(int)
    sent_cum = np.concatenate([np.zeros((n, p, 1)), np.cumsum(am, axis=2)], axis=2)
    comp_cum = np.concatenate([np.zeros((n, p, 1)), np.cumsum(ac, axis=2)], axis=2)
    whole = np.floor(sent_cum[:, :, -1] + 1e-9).astype(int)

    # computation slots (atomic) in every interval, by S_1D^{-2} on each worker
    slots: list[list[list[float]]] = [[[] for _ in range(p)] for _ in range(n)]
    if computation == "atomic":
        for j in range(t.size - 1):
            length = t[j + 1] - t[j]
            if length <= 0:
                continue
            _place_slots(slots, t, j, np.floor(ac[:, :, j] + 1e-9).astype(int), ac[:, :, j],
                         comp_t)

    base: list[tuple[int, int, float, float, float, float]] = []
    leftover: list[list[list[tuple[float, float]]]] = [[[] for _ in range(p)] for _ in range(n)]
    for k in range(n):
        for u in range(p):
            f, g = sent_cum[k, u], comp_cum[k, u]
            windows = [(_last_at_most(f, t, m - 1), _first_at_least(f, t, m))
                       for m in range(1, whole[k, u] + 1)]
            if computation == "atomic":
                done = max(len(slots[k][u]) - 1, 0)
                starts = slots[k][u][1:]
                ends = [s + comp_t[k, u] for s in starts]
            else:
                done = max(int(np.floor(g[-1] + 1e-9)) - 1, 0)
                starts = [_last_at_most(g, t, i) for i in range(1, done + 1)]
                ends = [_first_at_least(g, t, i + 1) for i in range(1, done + 1)]
            for m in range(done):
                s0, s1 = windows[m]
                if starts[m] < s1 - 1e-9 * max(1.0, abs(s1)):
                    raise LpschedError(f"{'Theorem 4' if computation == 'atomic' else 'Theorem 3'}"
                                       f" construction: task {m} of application {k} on worker "
                                       f"{u} computed before it arrived")
                base.append((k, u, s0, s1, starts[m], ends[m]))
            leftover[k][u] = windows[done:]

    comm_pauses: list[tuple[float, float]] = []
    comp_pauses: list[list[tuple[float, float]]] = [[] for _ in range(p)]
    tail_rows: list[tuple[int, int, float, float, float, float]] = []
    extra_time = np.zeros(n)
    worker_tail = np.zeros((n, p))
    for k in np.lexsort((np.arange(n), plan.deadlines)):
        d = float(plan.deadlines[k])
        extra = _largest_remainder(tasks[k] - int(whole[k].sum()),
                                   sent_cum[k, :, -1] - whole[k])
        port = d + sum(ln for at, ln in comm_pauses if _after(d, at))
        arrivals: list[list[tuple[float, float]]] = [[] for _ in range(p)]
        for u in range(p):
            for _ in range(int(extra[u])):
                dur = inst.size[k] / link_rate[u]
                arrivals[u].append((port, port + dur))
                port += dur
        pause = port - (d + sum(ln for at, ln in comm_pauses if _after(d, at)))
        extra_time[k] = pause
        for u in range(p):
            start0 = d + sum(ln for at, ln in comp_pauses[u] if _after(d, at))
            free = start0
            moved = [(a + sum(ln for at, ln in comm_pauses if _after(a, at)),
                      b + sum(ln for at, ln in comm_pauses if b > at + 1e-9 * max(1.0, at)))
                     for a, b in leftover[k][u]]
            for a, b in [*moved, *arrivals[u]]:
                begin = max(free, b)
                tail_rows.append((k, u, a, b, begin, begin + comp_t[k, u]))
                free = begin + comp_t[k, u]
            worker_tail[k, u] = max(pause, free - start0)
            comp_pauses[u].append((d, worker_tail[k, u]))
        comm_pauses.append((d, pause))

    rows = np.array(base, dtype=float).reshape(-1, 6)
    if rows.size:
        a, b, s, e = rows[:, 2].copy(), rows[:, 3].copy(), rows[:, 4].copy(), rows[:, 5].copy()
        for at, ln in comm_pauses:
            rows[:, 2] += np.where(_after(a, at), ln, 0.0)
            rows[:, 3] += np.where(b > at + 1e-9 * max(1.0, at), ln, 0.0)
        for u in range(p):
            mine = rows[:, 1] == u
            for at, ln in comp_pauses[u]:
                rows[:, 4] += np.where(mine & _after(s, at), ln, 0.0)
                rows[:, 5] += np.where(mine & (e > at + 1e-9 * max(1.0, at)), ln, 0.0)
    allrows = np.concatenate([rows, np.array(tail_rows, dtype=float).reshape(-1, 6)])
    sched = Schedule(allrows[:, 0].astype(int), allrows[:, 1].astype(int), allrows[:, 2],
                     allrows[:, 3], allrows[:, 4], allrows[:, 5],
                     meta={"construction": f"theorem-{4 if computation == 'atomic' else 3}",
                           "computation": computation, "stretch": plan.stretch})
    completion = sched.completion(n)
    lateness = completion - plan.deadlines
    envelope = (inst.size[:, None] / link_rate[None, :]).sum(axis=1) + comp_t.max(axis=1)
    earlier = plan.deadlines[None, :] <= plan.deadlines[:, None] * (1 + 1e-12)
    if computation == "atomic":
        bound = np.full(n, float((2 * n * comp_t).sum(axis=0).max()) + envelope.sum())
    else:
        bound = (earlier @ comp_t).max(axis=1) + earlier @ envelope
    tails = (earlier @ worker_tail).max(axis=1)
    return Reconstruction(sched, np.asarray(plan.deadlines), completion, lateness, bound,
                          tails)
