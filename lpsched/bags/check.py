"""An independent check of a max-stretch plan against every constraint of (K) or (K1).

:func:`check_plan` does not reuse the LP builder: it recomputes ``MS*`` from the closed form,
the deadlines from the stretch, the windows from the epoch *values*, and the buffers from the
cumulative amounts, then verifies seed 003 constraints (3)–(11), (10-b) for one-port, and
optionally the memory bound of §3.1.3, each with a relative tolerance. Use it on any plan —
from this package, from another solver, or edited by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.steady_state import dedicated_makespans
from lpsched.bags.stretch_results import StretchPlan
from lpsched.core import tolerances
from lpsched.errors import InvalidPlanError, ParseError


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
        """Raise :class:`~lpsched.errors.InvalidPlanError` listing every violation unless ``ok``."""
        if not self.ok:
            raise InvalidPlanError("plan violates " + "; ".join(self.violations))


@dataclass(frozen=True)
class _Arrays:
    """A plan's arrays as floats, with the recomputed deadlines and the scales of the checks."""

    comm: np.ndarray  # (n, p, J) tasks sent
    comp: np.ndarray  # (n, p, J) tasks computed
    buffers: np.ndarray  # (n, p, E) buffers at the epochs
    epochs: np.ndarray  # (E,)
    start: np.ndarray  # (n,) window starts
    deadlines: np.ndarray  # (n,) from the stretch, eq. (2)
    initial: np.ndarray  # (n, p) buffers at the window starts (B̂)
    remaining: np.ndarray  # (n,) tasks at the master at the window starts
    tasks: np.ndarray  # (n,) scale of the per-application checks
    scale_t: float  # largest MS*: scale of the time checks
    tol: float

    @property
    def ttol(self) -> float:
        """The tolerance in seconds."""
        return self.tol * self.scale_t


def check_plan(inst: Instance, plan: StretchPlan, tol: float = tolerances.PLAN_CHECK,
               memory: np.ndarray | None = None) -> PlanCheck:
    """Verify ``plan`` against the constraints of (K1) (one-port) or (K) (multiport).

    Violations are measured relative to the natural scale of each constraint (tasks of the
    application, interval length, largest ``MS*``) and reported when above ``tol``.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> from lpsched.bags.maxstretch import max_stretch
    >>> inst = random_bags(3, 2, seed=0)
    >>> plan = max_stretch(inst).plan
    >>> check = check_plan(inst, plan)
    >>> check.ok, check.violations
    (True, [])

    A plan that computes only half of what it sends leaves data in the buffers:

    >>> from dataclasses import replace
    >>> bad = check_plan(inst, replace(plan, comp=plan.comp * 0.5))
    >>> bad.ok, sorted(bad.worst)
    (False, ['buffer conservation (7)', 'empty buffers at the deadline (6)'])
    """
    out = PlanCheck()
    apps = np.asarray(plan.apps, int)
    comm, comp, buffers = (np.asarray(a, float) for a in (plan.comm, plan.comp, plan.buffers))
    t = np.asarray(plan.epochs, float)
    _check_shapes(out, comm, comp, buffers, apps.size, inst.p, t.size)
    if not out.ok:
        return out
    ms = dedicated_makespans(inst)[apps]
    scale_t = float(ms.max())
    length = np.diff(t)
    out.add("epochs sorted", -length / scale_t - tol, "interval")
    deadlines = inst.release[apps] + plan.stretch * ms
    out.add("deadlines (2)", np.abs(deadlines - plan.deadlines) / scale_t - tol, "app")
    initial = np.asarray(plan.buffered, float)
    remaining = np.asarray(plan.remaining, float)
    a = _Arrays(comm, comp, buffers, t, np.asarray(plan.start, float), deadlines, initial,
                remaining, np.maximum(1.0, remaining + initial.sum(axis=1)), scale_t, tol)
    _check_amounts(out, a)
    active, recomputed = _check_buffers(out, a)
    _check_capacities(out, a, inst, apps, plan.port, length)
    if memory is not None:
        mem = np.asarray(memory, float)
        used = np.einsum("kue,k->ue", np.where(active[:, None, :], recomputed, 0.0),
                         inst.size[apps])
        out.add("buffer memory (§3.1.3)", (used - mem[:, None]) / mem[:, None] - tol,
                "(worker, epoch)")
    return out


def _check_shapes(out: PlanCheck, comm: np.ndarray, comp: np.ndarray, buffers: np.ndarray,
                  n: int, p: int, e: int) -> None:
    """Amounts ``(n, p, E-1)`` and buffers ``(n, p, E)`` for ``E`` epochs."""
    for name, arr, shape in (("comm", comm, (n, p, e - 1)), ("comp", comp, (n, p, e - 1)),
                             ("buffers", buffers, (n, p, e))):
        if arr.shape != shape:
            out.ok = False
            out.violations.append(f"{name} has shape {arr.shape}, expected {shape}")


def _check_amounts(out: PlanCheck, a: _Arrays) -> None:
    """No activity outside ``[start_k, d_k]``, (11) non-negative amounts, (3) all tasks sent."""
    t, tol, ttol, tasks = a.epochs, a.tol, a.ttol, a.tasks
    inside = ((t[None, :-1] >= a.start[:, None] - ttol)
              & (t[None, 1:] <= a.deadlines[:, None] + ttol))
    outside = ~inside[:, None, :]
    out.add("window (no activity outside [r_k, d_k])",
            np.where(outside, np.maximum(a.comm, a.comp), 0.0) / tasks[:, None, None] - tol,
            "(app, worker, interval)")
    out.add("non-negative amounts (11)",
            -np.minimum(a.comm, a.comp) / tasks[:, None, None] - tol, "(app, worker, interval)")
    out.add("all tasks sent (3)", np.abs(a.comm.sum(axis=(1, 2)) - a.remaining) / tasks - tol,
            "app")


def _check_buffers(out: PlanCheck, a: _Arrays) -> tuple[np.ndarray, np.ndarray]:
    """Buffers recomputed from the amounts: ``B(t_e) = B̂ + Σ_{j<e} (sent - computed)``,
    counted from each window's first epoch; (4) non-negative, (7) equal to the plan's,
    (5) initial state, (6) empty at ``d_k``. Returns the (app, epoch) mask of the windows
    and the recomputed buffers ``(n, p, E)``."""
    n, p = a.comm.shape[:2]  # (len(apps), inst.p): checked by _check_shapes
    tol, tasks = a.tol, a.tasks
    first = np.argmax(a.epochs[None, :] >= a.start[:, None] - a.ttol, axis=1)
    flow = np.concatenate([np.zeros((n, p, 1)), np.cumsum(a.comm - a.comp, axis=2)], axis=2)
    recomputed = a.initial[:, :, None] + flow
    active = np.arange(a.epochs.size)[None, :] >= first[:, None]
    out.add("non-negative buffers (4)", np.where(active[:, None, :], -recomputed, 0.0)
            / tasks[:, None, None] - tol, "(app, worker, epoch)")
    out.add("buffer conservation (7)", np.where(active[:, None, :],
            np.abs(recomputed - a.buffers), 0.0) / tasks[:, None, None] - tol,
            "(app, worker, epoch)")
    out.add("initial buffers (5)", np.abs(a.buffers[np.arange(n), :, first] - a.initial)
            / tasks[:, None] - tol, "(app, worker)")
    out.add("empty buffers at the deadline (6)", np.abs(recomputed[:, :, -1])
            / tasks[:, None] - tol, "(app, worker)")
    return active, recomputed


def _check_capacities(out: PlanCheck, a: _Arrays, inst: Instance, apps: np.ndarray,
                      port: str, length: np.ndarray) -> None:
    """(8) CPUs, (9) links, and the master: (10-b) one-port or (10) bounded multiport."""
    tol, scale_t = a.tol, a.scale_t
    cap = length + a.ttol
    cpu = np.einsum("kuj,ku->uj", a.comp, np.asarray(inst.comp_time)[apps])
    out.add("CPU capacity (8)", (cpu - cap[None, :]) / scale_t - tol, "(worker, interval)")
    link = np.einsum("kuj,ku->uj", a.comm, np.asarray(inst.comm_time)[apps])
    out.add("link capacity (9)", (link - cap[None, :]) / scale_t - tol, "(worker, interval)")
    if port == "one-port":
        out.add("one-port master (10-b)", (link.sum(axis=0) - cap) / scale_t - tol, "interval")
    elif np.isfinite(inst.platform.master_bandwidth):
        volume = np.einsum("kuj,k->j", a.comm, inst.size[apps]) / inst.platform.master_bandwidth
        out.add("master bandwidth (10)", (volume - cap) / scale_t - tol, "interval")


#: The array fields of a plan file and their shapes, in terms of ``n`` (applications of
#: the plan), ``p`` (workers) and ``E`` (epochs).
_PLAN_ARRAYS = (("epochs", ("E",)), ("deadlines", ("n",)), ("start", ("n",)),
                ("remaining", ("n",)), ("buffered", ("n", "p")),
                ("comm", ("n", "p", "E-1")), ("comp", ("n", "p", "E-1")),
                ("buffers", ("n", "p", "E")))


def _plan_numbers(name: str, value: Any, path: str) -> np.ndarray:
    """``value`` as a float array: nested lists of finite numbers only (no booleans, no
    text, no ragged rows); a :class:`~lpsched.errors.ParseError` names the field."""
    try:
        arr = np.asarray(value, dtype=object)
    except ValueError:
        raise ParseError(path, f"plan field {name!r}: rows of unequal lengths") from None
    flat = arr.reshape(-1)
    bad = [x for x in flat if isinstance(x, bool) or not isinstance(x, (int, float))]
    if bad:
        raise ParseError(path, f"plan field {name!r}: {bad[0]!r} is not a number")
    try:
        out = np.asarray(value, dtype=float)
    except OverflowError:
        raise ParseError(path, f"plan field {name!r}: a number outside the float "
                         "range") from None
    if not np.isfinite(out).all():
        raise ParseError(path, f"plan field {name!r}: every number must be finite")
    return out


def plan_from_dict(data: Any, inst: Instance, path: str) -> StretchPlan:
    """Read a plan (the ``plan`` object of ``lpsched solve --json --plan``, or the object
    itself) for the instance ``inst``, checking every field before :func:`check_plan`
    reads it: numbers only (no booleans or text), finite, arrays of the shapes the plan's
    ``apps``, the instance's workers and the plan's ``epochs`` imply, ``apps`` distinct
    whole numbers indexing ``inst``'s applications, ``port`` one of the two models.

    Raises :class:`~lpsched.errors.ParseError` naming ``path`` and the field.
    """
    raw = data.get("plan", data) if isinstance(data, dict) else data
    if not isinstance(raw, dict):
        raise ParseError(path, "not a plan (run 'lpsched solve --json --plan')")
    fields = ["stretch", "apps", "port", *(name for name, _ in _PLAN_ARRAYS)]
    missing = [f for f in fields if f not in raw]
    if missing:
        raise ParseError(path, f"not a plan (run 'lpsched solve --json --plan'): field "
                         f"{missing[0]!r} missing")
    apps = _plan_numbers("apps", raw["apps"], path)
    whole = apps.ndim == 1 and (apps == np.floor(apps)).all()
    if not whole or ((apps < 0) | (apps >= inst.n)).any() or np.unique(apps).size != apps.size:
        raise ParseError(path, f"plan field 'apps': must be distinct whole numbers from 0 to "
                         f"{inst.n - 1} (the instance's applications)")
    arrays = {name: _plan_numbers(name, raw[name], path) for name, _ in _PLAN_ARRAYS}
    dims = {"n": apps.size, "p": inst.p, "E": arrays["epochs"].size,
            "E-1": arrays["epochs"].size - 1}
    for name, shape in _PLAN_ARRAYS:
        want = tuple(dims[d] for d in shape)
        if arrays[name].shape != want:
            raise ParseError(path, f"plan field {name!r}: shape {arrays[name].shape}, "
                             f"expected {want} for this instance")
    stretch = _plan_numbers("stretch", raw["stretch"], path)
    if stretch.ndim:
        raise ParseError(path, "plan field 'stretch': must be one number")
    if raw["port"] not in ("one-port", "multiport"):
        raise ParseError(path, "plan field 'port': must be 'one-port' or 'multiport'")
    t_new = raw.get("t_new")
    if t_new is not None and _plan_numbers("t_new", t_new, path).ndim:
        raise ParseError(path, "plan field 't_new': must be one number or null")
    return StretchPlan(stretch=float(stretch), **arrays, apps=apps.astype(int),
                       port=raw["port"], t_new=None if t_new is None else float(t_new))
