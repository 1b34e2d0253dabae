"""An independent check of a max-stretch plan against every constraint of (K) or (K1).

:func:`check_plan` does not reuse the LP builder: it recomputes ``MS*`` from the closed form,
the deadlines from the stretch, the windows from the epoch *values*, and the buffers from the
cumulative amounts, then verifies seed 003 constraints (3)–(11), (10-b) for one-port, and
optionally the memory bound of §3.1.3, each with a relative tolerance. Use it on any plan —
from this package, from another solver, or edited by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import StretchPlan
from lpsched.bags.steady_state import dedicated_makespans
from lpsched.core import tolerances
from lpsched.errors import InvalidPlanError


@dataclass
class PlanCheck:
    """The verdict: ``ok`` and, per violated constraint, its largest violation and where."""

    ok: bool = True
    violations: list[str] = field(default_factory=list)
    worst: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, excess: np.ndarray, where: str) -> None:
        """Record constraint ``name`` if any entry of ``excess`` (scaled violation) is > 0."""
        excess = np.asarray(excess, float)
        if excess.size == 0 or not (excess > 0).any():
            return
        idx = np.unravel_index(int(np.argmax(excess)), excess.shape)
        self.ok = False
        self.worst[name] = float(excess[idx])
        self.violations.append(f"{name} violated at {where}={tuple(int(i) for i in idx)} "
                               f"by {float(excess[idx]):.3g}")

    def raise_if_invalid(self) -> None:
        if not self.ok:
            raise InvalidPlanError("plan violates " + "; ".join(self.violations))


def check_plan(inst: Instance, plan: StretchPlan, tol: float = tolerances.PLAN_CHECK,
               memory: np.ndarray | None = None) -> PlanCheck:
    """Verify ``plan`` against the constraints of (K1) (one-port) or (K) (multiport).

    Violations are measured relative to the natural scale of each constraint (tasks of the
    application, interval length, largest ``MS*``) and reported when above ``tol``.

    >>> from lpsched.bags import random_bags
    >>> from lpsched.bags.maxstretch import max_stretch
    >>> inst = random_bags(3, 2, seed=0)
    >>> check_plan(inst, max_stretch(inst).plan).ok
    True
    """
    out = PlanCheck()
    apps = np.asarray(plan.apps, int)
    n, p = apps.size, inst.p
    comm, comp, buffers = (np.asarray(a, float) for a in (plan.comm, plan.comp, plan.buffers))
    t = np.asarray(plan.epochs, float)
    e = t.size
    for name, arr, shape in (("comm", comm, (n, p, e - 1)), ("comp", comp, (n, p, e - 1)),
                             ("buffers", buffers, (n, p, e))):
        if arr.shape != shape:
            out.ok = False
            out.violations.append(f"{name} has shape {arr.shape}, expected {shape}")
    if not out.ok:
        return out
    ms = dedicated_makespans(inst)[apps]
    release = inst.release[apps]
    scale_t = float(ms.max())
    ttol = tol * scale_t
    length = np.diff(t)
    out.add("epochs sorted", -length / scale_t - tol, "interval")
    deadlines = release + plan.stretch * ms
    out.add("deadlines (2)", np.abs(deadlines - plan.deadlines) / scale_t - tol, "app")
    start = np.asarray(plan.start, float)
    initial = np.asarray(plan.buffered, float)
    remaining = np.asarray(plan.remaining, float)
    tasks = np.maximum(1.0, remaining + initial.sum(axis=1))

    inside = (t[None, :-1] >= start[:, None] - ttol) & (t[None, 1:] <= deadlines[:, None] + ttol)
    outside = ~inside[:, None, :]
    out.add("window (no activity outside [r_k, d_k])",
            np.where(outside, np.maximum(comm, comp), 0.0) / tasks[:, None, None] - tol,
            "(app, worker, interval)")
    out.add("non-negative amounts (11)",
            -np.minimum(comm, comp) / tasks[:, None, None] - tol, "(app, worker, interval)")
    out.add("all tasks sent (3)", np.abs(comm.sum(axis=(1, 2)) - remaining) / tasks - tol, "app")

    # Buffers recomputed from the amounts: B(t_e) = B̂ + Σ_{j<e} (sent - computed), counted from
    # each window's first epoch; (4) non-negative, (5) initial state, (6) empty at d_k.
    first = np.argmax(t[None, :] >= start[:, None] - ttol, axis=1)
    flow = np.concatenate([np.zeros((n, p, 1)), np.cumsum(comm - comp, axis=2)], axis=2)
    recomputed = initial[:, :, None] + flow
    active = np.arange(e)[None, :] >= first[:, None]
    out.add("non-negative buffers (4)", np.where(active[:, None, :], -recomputed, 0.0)
            / tasks[:, None, None] - tol, "(app, worker, epoch)")
    out.add("buffer conservation (7)", np.where(active[:, None, :],
            np.abs(recomputed - buffers), 0.0) / tasks[:, None, None] - tol,
            "(app, worker, epoch)")
    out.add("initial buffers (5)", np.abs(buffers[np.arange(n), :, first] - initial)
            / tasks[:, None] - tol, "(app, worker)")
    out.add("empty buffers at the deadline (6)", np.abs(recomputed[:, :, -1])
            / tasks[:, None] - tol, "(app, worker)")

    comp_time = np.asarray(inst.comp_time)[apps]
    comm_time = np.asarray(inst.comm_time)[apps]
    cap = length + ttol
    cpu = np.einsum("kuj,ku->uj", comp, comp_time)
    out.add("CPU capacity (8)", (cpu - cap[None, :]) / scale_t - tol, "(worker, interval)")
    link = np.einsum("kuj,ku->uj", comm, comm_time)
    out.add("link capacity (9)", (link - cap[None, :]) / scale_t - tol, "(worker, interval)")
    if plan.port == "one-port":
        out.add("one-port master (10-b)", (link.sum(axis=0) - cap) / scale_t - tol, "interval")
    elif np.isfinite(inst.platform.master_bandwidth):
        volume = np.einsum("kuj,k->j", comm, inst.size[apps]) / inst.platform.master_bandwidth
        out.add("master bandwidth (10)", (volume - cap) / scale_t - tol, "interval")
    if memory is not None:
        mem = np.asarray(memory, float)
        used = np.einsum("kue,k->ue", np.where(active[:, None, :], recomputed, 0.0),
                         inst.size[apps])
        out.add("buffer memory (§3.1.3)", (used - mem[:, None]) / mem[:, None] - tol,
                "(worker, epoch)")
    return out
