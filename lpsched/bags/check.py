"""An independent check of a max-stretch plan against every constraint of (K) or (K1).

:func:`check_plan` does not reuse the LP builder: it recomputes ``MS*`` from the closed form,
the deadlines from the stretch, the windows from the epoch *values*, and the buffers from the
cumulative amounts, then verifies seed 003 constraints (3)–(11), (10-b) for one-port, and
optionally the memory bound of §3.1.3, each with a relative tolerance. Use it on any plan —
from this package, from another solver, or edited by hand.

**One model.** The capacities and ``MS*`` (hence the deadlines) are both taken from the
model checked: the instance's port model, or the ``port`` argument (``lpsched check
--port``). A plan whose own ``port`` names another model is reported (``port model``), never
silently checked under its own model.

**Tolerances per application** (spec §11 invariant 12). Each violation is measured against
the scale of the constraint it breaks: tasks of the application for amounts and buffers,
that application's ``MS*`` for its deadline and its window, and for a capacity in interval
``j`` the larger of ``Δ_j`` and the smallest ``MS*`` among the applications that use the
resource in ``j`` (an application active in ``j`` has ``Δ_j <= S·MS*``, so its slack is
relative to its own scale, never to the largest application's). Times also get the float
resolution of their own values (a few ulps), nothing more.

:func:`check_summary` verifies the fields a ``solve --json --plan`` file states beside its
plan (``stretch``, ``deadlines``, ``MS*``...) against that plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import StretchPlan
from lpsched.bags.steady_state import dedicated_makespans, dedicated_throughputs
from lpsched.core import tolerances
from lpsched.errors import InvalidPlanError, ParseError

#: Float resolution of an absolute time ``t``: ``ULPS * eps * |t|`` seconds (the epochs and
#: deadlines of a plan are computed as ``origin + scale * (α·S + β)``, a few roundings).
ULPS = 8.0
_EPS = float(np.finfo(float).eps)
#: Absolute precision of the capacity rows of a plan from the max-stretch LPs, as a fraction
#: of the largest ``MS*``: the LPs measure time in units of it
#: (:mod:`lpsched.bags.maxstretch.buffer_model`) and HiGHS holds rows to
#: :data:`~lpsched.core.tolerances.LP_FEASIBILITY` of its scaled model (residuals up to
#: 1.3e-9 of it seen on skewed instances), so a plan cannot be verified below this.
LP_RESOLUTION = 10 * tolerances.LP_FEASIBILITY
#: The name of each port model's polyhedron (seed 003 §3.3–§3.4).
_LP = {"one-port": "(K1)", "multiport": "(K)"}


@dataclass
class PlanCheck:
    """The verdict: ``ok`` and, per violated constraint, its largest violation and where
    (``worst``: the violation over the tolerance, relative to the constraint's scale;
    ``inf`` for a violation that is not a number, e.g. ``port model``), and ``notes``."""

    ok: bool = True
    violations: list[str] = field(default_factory=list)
    worst: dict[str, float] = field(default_factory=dict)
    #: What holds only to a coarser precision than ``tol`` without being a violation
    #: (a capacity within the LPs' resolution, :data:`LP_RESOLUTION`).
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, excess: np.ndarray, where: str) -> None:
        """Record constraint ``name`` if any entry of ``excess`` (scaled violation) is > 0.

        Parameters
        ----------
        name : str
            The constraint's name as reported (e.g. ``"window start (r_k, or t_new
            online)"``), the key of ``worst``.
        excess : numpy.ndarray
            The violation of each instance of the constraint, over the tolerance and relative to
            its scale (any shape); only positive entries are violations.
        where : str
            The names of ``excess``'s axes, printed with the index of the largest entry (e.g.
            ``"app"``).
        """
        excess = np.asarray(excess, float)
        if excess.size == 0 or not (excess > 0).any():
            return
        idx = np.unravel_index(int(np.argmax(excess)), excess.shape)
        self.ok = False
        self.worst[name] = float(excess[idx])
        self.violations.append(f"{name} violated at {where}={tuple(int(i) for i in idx)} "
                               f"by {float(excess[idx]):.3g}")

    def fail(self, name: str, message: str) -> None:
        """Record a violation that is not a number (a model or a field that disagrees):
        ``message`` is the whole line, ``worst[name]`` is ``inf``.

        Parameters
        ----------
        name : str
            The check that failed, the key of ``worst``.
        message : str
            The whole line added to ``violations``.
        """
        self.ok = False
        self.worst[name] = float("inf")
        self.violations.append(message)

    def extend(self, other: PlanCheck) -> None:
        """Add the violations of ``other`` to this verdict.

        Parameters
        ----------
        other : PlanCheck
            Another verdict; its violations, worst values and notes are appended (a name in
            both keeps ``other``'s worst value) and ``ok`` becomes false if ``other`` failed.
        """
        self.ok = self.ok and other.ok
        self.violations.extend(other.violations)
        self.worst.update(other.worst)
        self.notes.extend(other.notes)

    def raise_if_invalid(self) -> None:
        """Raise :class:`~lpsched.errors.InvalidPlanError` listing every violation unless ``ok``."""
        if not self.ok:
            raise InvalidPlanError("plan violates " + "; ".join(self.violations))


def _resolution(t: np.ndarray) -> np.ndarray:
    """The float resolution (s) of absolute times ``t``: :data:`ULPS` ulps of each."""
    return ULPS * _EPS * np.abs(t)


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
    ms: np.ndarray  # (n,) MS* of each application: scale of its time checks
    tol: float

    @property
    def ttol(self) -> np.ndarray:
        """Each application's time tolerance (s): ``tol·MS*_k`` plus the float resolution of
        its window's ends."""
        ends = np.maximum(np.abs(self.start), np.abs(self.deadlines))
        return self.tol * self.ms + _resolution(ends)


def check_plan(inst: Instance, plan: StretchPlan, tol: float = tolerances.PLAN_CHECK,
               memory: np.ndarray | None = None, port: str | None = None) -> PlanCheck:
    """Verify ``plan`` against the constraints of (K1) (one-port) or (K) (multiport).

    Source: seed 003 §3.3–§3.5 (constraints (2)–(11), (10-b), the memory bound, the initial
    state) and spec §11 item 12. ``MS*`` (so the deadlines ``d_k = r_k + S·MS*_k``) and the
    capacities are computed under one model, ``port`` (the instance's). ``O(n·p·E)``.

    Parameters
    ----------
    inst : Instance
        The instance the plan is for.
    plan : StretchPlan
        The plan (amounts per interval, buffers per epoch), e.g. ``max_stretch(inst).plan``.
    tol : float
        Relative tolerance on each constraint's own scale (module doc).
    memory : numpy.ndarray or None
        Buffer memory of each worker (bytes) to check the bound of seed 003 §3.1.3.
    port : {"one-port", "multiport"} or None
        The model to check under (``None``: the instance's); a plan of another model is
        a ``port model`` violation (the rest is still checked).

    Returns
    -------
    PlanCheck
        ``ok`` and every violated constraint, with its largest scaled violation.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> from lpsched.bags.maxstretch import max_stretch
    >>> inst = random_bags(3, 2, seed=0)
    >>> plan = max_stretch(inst).plan
    >>> check_plan(inst, plan).ok
    True

    A plan that computes only half of what it sends leaves data in the buffers:

    >>> from dataclasses import replace
    >>> bad = check_plan(inst, replace(plan, comp=plan.comp * 0.5))
    >>> bad.ok, sorted(bad.worst)
    (False, ['buffer conservation (7)', 'empty buffers at the deadline (6)'])

    A multiport plan is checked under multiport only when asked for:

    >>> mp = max_stretch(inst.with_port("multiport")).plan
    >>> check_plan(inst, mp).worst["port model"]
    inf
    >>> check_plan(inst, mp, port="multiport").ok
    True
    """
    if port is not None:
        inst = inst.with_port(port)
    model = inst.platform.port
    out = PlanCheck()
    _check_port(out, plan, model)
    apps = np.asarray(plan.apps, int)
    comm, comp, buffers = (np.asarray(a, float) for a in (plan.comm, plan.comp, plan.buffers))
    t = np.asarray(plan.epochs, float)
    if not _check_shapes(out, comm, comp, buffers, apps.size, inst.p, t.size):
        return out
    all_ms = dedicated_makespans(inst)
    if not _check_state(out, inst, plan, apps, all_ms, tol):
        return out
    ms = all_ms[apps]
    length = np.diff(t)
    deadlines = inst.release[apps] + plan.stretch * ms
    _check_times(out, plan, t, ms, deadlines, tol)
    initial, remaining = np.asarray(plan.buffered, float), np.asarray(plan.remaining, float)
    a = _Arrays(comm, comp, buffers, t, np.asarray(plan.start, float), deadlines, initial,
                remaining, np.maximum(1.0, remaining + initial.sum(axis=1)), ms, tol)
    _check_amounts(out, a)
    active, recomputed = _check_buffers(out, a)
    _check_capacities(out, a, inst, apps, length)
    if memory is not None:
        _check_memory(out, active, recomputed, inst.size[apps], memory, tol)
    return out


def _check_memory(out: PlanCheck, active: np.ndarray, recomputed: np.ndarray,
                  size: np.ndarray, memory: np.ndarray, tol: float) -> None:
    """The buffer memory bound of seed 003 §3.1.3 on each worker at each epoch (bytes of
    the active applications' recomputed buffers, ``size`` bytes per task)."""
    mem = np.asarray(memory, float)
    used = np.einsum("kue,k->ue", np.where(active[:, None, :], recomputed, 0.0), size)
    out.add("buffer memory (§3.1.3)", (used - mem[:, None]) / mem[:, None] - tol,
            "(worker, epoch)")


def _check_state(out: PlanCheck, inst: Instance, plan: StretchPlan, apps: np.ndarray,
                 all_ms: np.ndarray, tol: float) -> bool:
    """The plan's initial state against the instance (seed 003 §3.5; decision 231: a plan
    leaving an application out, or sending tasks before its release, is refused).
    Offline (``t_new`` is ``None``): every application, windows starting at the releases,
    all tasks at the master, nothing buffered. Online: distinct applications of the
    instance, windows from ``max(r_k, t_new)``, at most the application's tasks left.
    ``all_ms``: every application's ``MS*``. Returns whether the applications are usable
    indices, at least one (the rest of the check needs it)."""
    n = inst.n
    if apps.size == 0:
        out.fail("applications", "the plan has no applications")
        return False
    if (apps.min() < 0 or apps.max() >= n or np.unique(apps).size != apps.size):
        out.fail("applications", f"plan applications {apps.tolist()} are not distinct "
                 f"indices of the instance's {n} applications")
        return False
    start = np.asarray(plan.start, float)
    remaining = np.asarray(plan.remaining, float)
    buffered = np.asarray(plan.buffered, float)
    tasks = inst.tasks[apps].astype(float)
    rel = inst.release[apps]
    origin = rel if plan.t_new is None else np.maximum(rel, plan.t_new)
    ms = all_ms[apps]
    early = (origin - start - _resolution(np.maximum(np.abs(origin), np.abs(start)))) / ms
    out.add("window start (r_k, or t_new online)", early - tol, "app")
    held = remaining + buffered.sum(axis=1) if buffered.ndim == 2 else remaining
    out.add("tasks at the window start (at most the application's)",
            (held - tasks) / np.maximum(tasks, 1.0) - tol, "app")
    if plan.t_new is None:
        missing = np.setdiff1d(np.arange(n), apps)
        if missing.size:
            out.fail("applications", f"offline plan without applications "
                     f"{missing.tolist()} (every application must be scheduled)")
        out.add("offline start = release", np.abs(start - rel) / ms - tol - _resolution(
            np.maximum(np.abs(start), np.abs(rel))) / ms, "app")
        out.add("offline: all tasks at the master",
                np.abs(remaining - tasks) / np.maximum(tasks, 1.0) - tol, "app")
        if buffered.ndim == 2:
            out.add("offline: nothing buffered", np.abs(buffered).max(axis=1)
                    / np.maximum(tasks, 1.0) - tol, "app")
    return True


def _check_port(out: PlanCheck, plan: StretchPlan, model: str) -> None:
    """A plan computed under another port model than ``model`` is a violation."""
    if plan.port != model:
        out.fail("port model", f"port model: the plan was computed for {plan.port}, the "
                 f"check is under {model} (constraints and MS* of {_LP[model]}); check it "
                 f"under its own model with 'lpsched check --port {plan.port}' or "
                 f"check_plan(..., port={plan.port!r})")


def _check_times(out: PlanCheck, plan: StretchPlan, t: np.ndarray, ms: np.ndarray,
                 deadlines: np.ndarray, tol: float) -> None:
    """Epochs sorted (the smallest ``MS*``'s scale) and the plan's deadlines equal to the
    recomputed ``d_k = r_k + S·MS*_k`` (each application's own ``MS*``), both up to the
    float resolution of the times."""
    ends = np.maximum(np.abs(t[:-1]), np.abs(t[1:]))
    out.add("epochs sorted", (-np.diff(t) - _resolution(ends)) / ms.min() - tol, "interval")
    claimed = np.asarray(plan.deadlines, float)
    gap = np.abs(deadlines - claimed) - _resolution(np.maximum(np.abs(deadlines),
                                                               np.abs(claimed)))
    out.add("deadlines (2)", gap / ms - tol, "app")


def _check_shapes(out: PlanCheck, comm: np.ndarray, comp: np.ndarray, buffers: np.ndarray,
                  n: int, p: int, e: int) -> bool:
    """Amounts ``(n, p, E-1)`` and buffers ``(n, p, E)`` for ``E`` epochs; whether they
    all have their shapes."""
    good = True
    for name, arr, shape in (("comm", comm, (n, p, e - 1)), ("comp", comp, (n, p, e - 1)),
                             ("buffers", buffers, (n, p, e))):
        if arr.shape != shape:
            out.fail(f"shape of {name}", f"{name} has shape {arr.shape}, expected {shape}")
            good = False
    return good


def _check_amounts(out: PlanCheck, a: _Arrays) -> None:
    """No activity outside ``[start_k, d_k]`` (each application's own time tolerance),
    (11) non-negative amounts, (3) all tasks sent."""
    t, tol, ttol, tasks = a.epochs, a.tol, a.ttol, a.tasks
    inside = ((t[None, :-1] >= (a.start - ttol)[:, None])
              & (t[None, 1:] <= (a.deadlines + ttol)[:, None]))
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
    first = np.argmax(a.epochs[None, :] >= (a.start - a.ttol)[:, None], axis=1)
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


def _users_scale(a: _Arrays, amounts: np.ndarray) -> np.ndarray:
    """The time scale (s) of a resource per interval: the smallest ``MS*`` among the
    applications whose amount on it (``amounts``, ``(n, ..., J)``) is above ``tol`` of their
    tasks; if none, among those with any amount > 0; if none, the smallest ``MS*``."""
    ms = a.ms.reshape((-1,) + (1,) * (amounts.ndim - 1))
    big = amounts > a.tol * a.tasks.reshape(ms.shape)
    some = amounts > 0
    low = np.where(big, ms, np.inf).min(axis=0)
    low = np.where(np.isfinite(low), low, np.where(some, ms, np.inf).min(axis=0))
    return np.where(np.isfinite(low), low, float(a.ms.min()))


def _check_capacities(out: PlanCheck, a: _Arrays, inst: Instance, apps: np.ndarray,
                      length: np.ndarray) -> None:
    """(8) CPUs, (9) links, and the master: (10-b) one-port or (10) bounded multiport,
    under the instance's model. A resource's load in interval ``j`` may exceed ``Δ_j`` by
    ``tol`` times the larger of ``Δ_j`` and the smallest ``MS*`` among its users in ``j``
    (module doc), plus the float resolution of the interval's ends; an excess above that
    but within :data:`LP_RESOLUTION` of the largest ``MS*`` is a note, not a violation."""
    tol, t = a.tol, a.epochs
    slack = _resolution(np.maximum(np.abs(t[:-1]), np.abs(t[1:])))
    cap = length + slack
    floor = LP_RESOLUTION * float(a.ms.max())

    def check(name: str, load: np.ndarray, users: np.ndarray, where: str) -> None:
        scale = np.maximum(length, _users_scale(a, users))
        out.add(name, (load - cap - floor) / scale - tol, where)
        if name in out.worst:
            return
        fine = (load - cap) / scale
        if (fine > tol).any():
            idx = np.unravel_index(int(np.argmax(fine)), fine.shape)
            at = tuple(int(i) for i in idx)
            out.notes.append(
                f"{name}: exceeded at {where}={at} by {float(fine[idx]):.3g} of its scale "
                f"({float(scale[idx]):.3g} s: the smallest MS* among the applications using it "
                f"there, or the interval), within the LPs' resolution ({LP_RESOLUTION:g} of "
                f"the largest MS*, {floor:.3g} s); those applications' stretches are verified "
                f"to that relative precision, not to {tol:g}")

    cpu = np.einsum("kuj,ku->uj", a.comp, np.asarray(inst.comp_time)[apps])
    check("CPU capacity (8)", cpu, a.comp, "(worker, interval)")
    link = np.einsum("kuj,ku->uj", a.comm, np.asarray(inst.comm_time)[apps])
    check("link capacity (9)", link, a.comm, "(worker, interval)")
    sent = a.comm.sum(axis=1)  # (n, J): an application uses the master when it sends
    if inst.platform.port == "one-port":
        check("one-port master (10-b)", link.sum(axis=0), sent, "interval")
    elif np.isfinite(inst.platform.master_bandwidth):
        volume = np.einsum("kuj,k->j", a.comm, inst.size[apps]) / inst.platform.master_bandwidth
        check("master bandwidth (10)", volume, sent, "interval")


#: The array fields of a plan file and their shapes, in terms of ``n`` (applications of
#: the plan), ``p`` (workers) and ``E`` (epochs).
_PLAN_ARRAYS = (("epochs", ("E",)), ("deadlines", ("n",)), ("start", ("n",)),
                ("remaining", ("n",)), ("buffered", ("n", "p")),
                ("comm", ("n", "p", "E-1")), ("comp", ("n", "p", "E-1")),
                ("buffers", ("n", "p", "E")))


def _plan_numbers(name: str, value: Any, path: str, what: str = "plan field") -> np.ndarray:
    """``value`` as a float array: nested lists of finite numbers only (no booleans, no
    text, no ragged rows); a :class:`~lpsched.errors.ParseError` names the field
    (``what`` and ``name``)."""
    ragged = ParseError(path, f"{what} {name!r}: rows of unequal lengths")
    try:
        arr = np.asarray(value, dtype=object)
    except ValueError:
        raise ragged from None
    flat = arr.reshape(-1)
    # numpy stops at the first depth where the rows differ and keeps the rows as lists
    if any(isinstance(x, (list, tuple, dict)) for x in flat):
        raise ragged
    bad = [x for x in flat if isinstance(x, bool) or not isinstance(x, (int, float))]
    if bad:
        raise ParseError(path, f"{what} {name!r}: {bad[0]!r} is not a number")
    try:
        out = np.asarray(value, dtype=float)
    except OverflowError:
        raise ParseError(path, f"{what} {name!r}: a number outside the float "
                         "range") from None
    if not np.isfinite(out).all():
        raise ParseError(path, f"{what} {name!r}: every number must be finite")
    return out


def plan_from_dict(data: Any, inst: Instance, path: str) -> StretchPlan:
    """Read a plan for the instance ``inst``, checking every field :func:`check_plan` reads.

    The plan is the ``plan`` object of ``lpsched solve --json --plan``, or the object
    itself. Numbers only (no booleans or text), finite, arrays of the shapes the plan's
    ``apps``, the instance's workers and the plan's ``epochs`` imply, ``apps`` distinct
    whole numbers indexing ``inst``'s applications, ``port`` one of the two models.

    Raises :class:`~lpsched.errors.ParseError` naming ``path`` and the field.

    Parameters
    ----------
    data : object
        The decoded JSON: a ``lpsched solve --json --plan`` output (its ``plan`` key is read)
        or the plan object itself.
    inst : Instance
        The instance the plan is for; fixes the number of workers and the valid ``apps``.
    path : str
        The file name used in error messages.

    Returns
    -------
    StretchPlan
        The plan, its arrays as floats and ``apps`` as ints.

    Raises
    ------
    ParseError
        Not a plan, a missing field, a value that is not a finite number, an array of the
        wrong shape, bad ``apps``, ``port`` or ``t_new``.
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


def check_summary(data: Any, inst: Instance, plan: StretchPlan, path: str,
                  tol: float = tolerances.PLAN_CHECK) -> PlanCheck:
    """Verify the fields a result file states beside its plan against that plan.

    ``lpsched solve --json --plan`` writes the optimum twice: in the summary (``stretch``,
    ``deadlines``, ...) and in the ``plan`` object that :func:`check_plan` verifies. A
    reader of the summary must get a value that was checked, so every summary field that
    restates the plan or the instance is compared: ``stretch``, ``port``, ``apps`` and
    ``t_new`` with the plan's; ``deadlines`` with the plan's (each application's time
    tolerance, as :func:`check_plan`); ``dedicated_makespans`` and ``throughputs`` with
    ``MS*`` and ``ρ*`` recomputed under the plan's model (the one the summary speaks of;
    whether it is the instance's is :func:`check_plan`'s ``port model``); ``lower`` must
    not exceed the plan's ``stretch``. The other fields (timings, counts,
    ``probes``) describe the search and are not checked. A file that is the plan object
    itself has no summary: nothing to check.

    Parameters
    ----------
    data : Any
        The file's JSON value (``solve --json --plan`` output, or a bare plan object).
    inst : Instance
        The instance the plan is for.
    plan : StretchPlan
        The plan read from ``data`` by :func:`plan_from_dict`.
    path : str
        The file's name, for the errors.
    tol : float
        Relative tolerance, as in :func:`check_plan`.

    Returns
    -------
    PlanCheck
        One ``summary <field>`` violation per field that disagrees with the plan.

    Raises
    ------
    ParseError
        A summary field that is not of its type (a number, a list of numbers, a model name).

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> from lpsched.bags.maxstretch import max_stretch
    >>> inst = random_bags(3, 2, seed=0)
    >>> data = max_stretch(inst).to_dict()
    >>> plan = plan_from_dict(data, inst, "res.json")
    >>> check_summary(data, inst, plan, "res.json").ok
    True
    >>> data["stretch"] = 1.0
    >>> check_summary(data, inst, plan, "res.json").violations[0].startswith(
    ...     "summary stretch 1 differs")
    True
    """
    out = PlanCheck()
    if not isinstance(data, dict) or not isinstance(data.get("plan"), dict):
        return out
    inst = inst.with_port(plan.port)
    apps = np.asarray(plan.apps, int)
    ms = dedicated_makespans(inst)[apps]
    _summary_scalars(out, data, plan, path, ms, tol)
    _summary_per_app(out, data, inst, plan, path, ms, tol)
    return out


def _summary_number(data: dict[str, Any], name: str, path: str) -> float | None:
    """The summary's number ``name`` (``None`` when absent)."""
    if name not in data:
        return None
    value = _plan_numbers(name, data[name], path, "summary field")
    if value.ndim:
        raise ParseError(path, f"summary field {name!r}: must be one number")
    return float(value)


def _differs(out: PlanCheck, name: str, shown: str, plans: str) -> None:
    out.fail(f"summary {name}", f"summary {name} {shown} differs from the plan's "
             f"{plans}: the summary was not computed from the plan that was checked")


def _summary_scalars(out: PlanCheck, data: dict[str, Any], plan: StretchPlan, path: str,
                     ms: np.ndarray, tol: float) -> None:
    """``stretch``, ``lower``, ``port``, ``t_new`` and ``apps`` of :func:`check_summary`."""
    stretch = _summary_number(data, "stretch", path)
    if stretch is not None and abs(stretch - plan.stretch) > tol * max(1.0, abs(plan.stretch)):
        _differs(out, "stretch", f"{stretch:.9g}", f"{plan.stretch:.9g}")
    lower = _summary_number(data, "lower", path)
    if lower is not None and lower > plan.stretch + tol * max(1.0, abs(plan.stretch)):
        out.fail("summary lower", f"summary lower {lower:.9g} is above the plan's stretch "
                 f"{plan.stretch:.9g}: a lower bound cannot exceed an achieved stretch")
    if "port" in data and data["port"] != plan.port:
        _differs(out, "port", repr(data["port"]), repr(plan.port))
    if "t_new" in data:
        t_new = None if data["t_new"] is None else _summary_number(data, "t_new", path)
        if t_new is None or plan.t_new is None:
            same = t_new is None and plan.t_new is None
        else:  # a time: the smallest application's scale, and the float resolution
            same = abs(t_new - plan.t_new) <= tol * float(ms.min()) + float(
                _resolution(np.array(max(abs(t_new), abs(plan.t_new)))))
        if not same:
            _differs(out, "t_new", repr(t_new), repr(plan.t_new))
    apps = np.asarray(plan.apps, int)
    if "apps" in data:
        listed = _plan_numbers("apps", data["apps"], path, "summary field")
        if listed.shape != apps.shape or (listed != apps).any():
            _differs(out, "apps", str(listed.tolist()), str(apps.tolist()))


def _summary_per_app(out: PlanCheck, data: dict[str, Any], inst: Instance,
                     plan: StretchPlan, path: str, ms: np.ndarray, tol: float) -> None:
    """``deadlines``, ``dedicated_makespans`` and ``throughputs`` of
    :func:`check_summary`, under the plan's model (``inst`` already set to it)."""
    apps = np.asarray(plan.apps, int)
    per_app = (("deadlines", np.asarray(plan.deadlines, float), "plan's deadlines"),
               ("dedicated_makespans", ms, f"MS* under {inst.platform.port}"),
               ("throughputs", dedicated_throughputs(inst)[apps],
                f"rho* under {inst.platform.port}"))
    for name, want, what in per_app:
        if name not in data:
            continue
        shown = _plan_numbers(name, data[name], path, "summary field")
        if shown.shape != want.shape:
            _differs(out, name, f"has {shown.size} entries", f"{want.size} applications")
            continue
        if name == "deadlines":  # times: each application's own MS*, as check_plan
            res = _resolution(np.maximum(np.abs(shown), np.abs(want)))
            excess = (np.abs(shown - want) - res) / ms - tol
        else:
            excess = np.abs(shown - want) / np.abs(want) - tol
        if (excess > 0).any():
            k = int(np.argmax(excess))
            out.fail(f"summary {name}", f"summary {name} of app {int(apps[k])}: "
                     f"{shown[k]:.9g}, the {what} {want[k]:.9g}: the summary was not "
                     "computed from the plan that was checked")
