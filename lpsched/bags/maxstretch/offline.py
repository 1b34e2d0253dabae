"""The offline max-stretch: one exact search, or time scales solved apart and composed.

:func:`max_stretch` is the entry point of seed 003 §3 offline: the optimal max-stretch of an
instance in the fluid model of its port, with a plan that reaches it. When the dedicated
makespans span more time scales than one LP holds, :func:`solve_by_scales` splits the
applications into two groups, solves each, and composes the plans
(:mod:`lpsched.bags.maxstretch.composition`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch.algorithms import solve_problem
from lpsched.bags.maxstretch.composition import busy_blocks, compose_plans, paused_plan
from lpsched.bags.maxstretch.conditioning import ScaleError
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.maxstretch.results import MaxStretchResult
from lpsched.bags.steady_state import dedicated_makespans, dedicated_throughputs
from lpsched.core import tolerances


def max_stretch(inst: Instance, method: str = "intervals", tol: float = tolerances.BISECTION,
                *, memory: np.ndarray | None = None, time_limit: float | None = 120.0,
                relaxation_bound: bool = True, warm_start: bool = True,
                worker_generation: bool = True, window_bound: bool | None = None,
                relaxation_basis: bool = True, formulation: str = "auto",
                coarse_start: bool | None = None, first_solve: str | None = None,
                **highs_options: Any) -> MaxStretchResult:
    """Optimal max-stretch of ``inst`` in the fluid model of its port (seed 003 §3).

    Polyhedron (K1) for a one-port platform, (K) for bounded multiport; ``memory`` adds the
    buffer bound of §3.1.3. Every LP is checked: a non-optimal status or a violated
    constraint raises :class:`~lpsched.errors.SolverError`. The instance is first
    conditioned for HiGHS (:func:`~lpsched.bags.maxstretch.conditioning.condition`): an
    application of 10^9 tasks beside small ones is solved in units of whole applications,
    and time scales one LP cannot hold are solved apart (:func:`solve_by_scales`).

    Parameters
    ----------
    inst : Instance
        The star platform and its bags of tasks (seed 003 §2).
    method : str
        ``"intervals"`` (default, exact: Algorithm 2, Theorems 7–8, the deficit's tangent
        choosing the critical values and Newton steps inside the last interval),
        ``"intervals-lp"`` (Algorithm 2 with the paper's final LP (12)–(20),
        ``ceil(log2(#intervals)) + 1`` LPs) or ``"bisection"`` (Algorithm 1, Theorem 2: an
        achievable stretch within ``tol`` of the optimum).
    tol : float
        Absolute tolerance of the bisection (default
        :data:`~lpsched.core.tolerances.BISECTION`).
    memory : numpy.ndarray, optional
        Buffer bound per worker, in bytes (§3.1.3).
    time_limit : float or None
        Wall-clock budget of the whole search in seconds, every LP and loop included
        (default 120; ``None``: none); when it runs out,
        :class:`~lpsched.errors.SolverError` with status ``time_limit``. Every loop is also
        capped (bisection: :data:`~lpsched.bags.maxstretch.algorithms.MAX_BISECTIONS` steps
        or the float resolution of ``S``; Newton: 200 steps).
    relaxation_bound : bool
        Start every search from the relaxations' lower bounds: the single-resource ones
        (:mod:`lpsched.bags.maxstretch.relaxations`) and, with ``window_bound``, the window
        relaxation's (:func:`~lpsched.bags.maxstretch.search.window_lower_bound`).
    warm_start : bool
        ``False`` solves every LP from scratch.
    worker_generation : bool
        Pose the feasibility LPs on the useful workers only, proving the rest useless by
        pricing (:mod:`lpsched.bags.maxstretch.workers`; exact either way).
    window_bound : bool or None
        The window relaxation's bound (default ``None``: on with buffers, off with paths,
        where it costs more than it saves).
    relaxation_basis : bool
        Start the first exact LP from the window relaxation's last optimal basis (dual
        simplex; :meth:`~lpsched.bags.maxstretch.buffer_model.StretchModel.basis_from_relaxed`).
    formulation : str
        How each LP is posed: ``"buffers"`` the (K)/(K1) model of
        :mod:`lpsched.bags.maxstretch.buffer_model`, ``"paths"`` its exact path
        reformulation solved by column generation (:mod:`lpsched.bags.maxstretch.paths`, no
        buffer rows; not with ``memory``), ``"auto"`` (default) the rule of
        :func:`~lpsched.bags.maxstretch.formulation.choose_formulation`.
    coarse_start : bool, optional
        Path formulation, no held tasks: pick the master's first columns and, for
        ``"intervals"``, the first critical value probed, from a time-aggregated LP
        (:mod:`lpsched.bags.maxstretch.coarse`; a guess, so the answer does not change).
        ``None`` (default): on instances with ``n·p·J`` above
        :data:`~lpsched.bags.maxstretch.coarse.COARSE_ABOVE`; ``True``/``False``:
        always/never.
    first_solve : str, optional
        Path formulation (the buffer model ignores it): how the path master's first solve
        runs, the largest single cost of a large search. ``"simplex"`` (the default, also
        for ``None``: primal simplex from the slack basis) or ``"ipm"`` (HiGHS' interior
        point method with crossover, then simplex from its basis). Both reach the same
        optimum, but ``"ipm"`` may land on another optimal vertex, so the plan, the
        schedule realised from it and the last digits of ``stretch`` can differ from the
        default's.
    **highs_options
        HiGHS options for every LP (e.g. ``threads=1``).

    Returns
    -------
    MaxStretchResult
        ``stretch`` (the optimum, or within ``tol`` for the bisection), ``lower`` (a proven
        lower bound), ``plan`` (a :class:`~lpsched.bags.maxstretch.results.StretchPlan` that
        ``check_plan`` verifies), the dedicated makespans ``MS*_k`` and throughputs, and the
        search's counts and times (``formulation``, ``column_rounds``, ``columns`` and
        ``coarse_solves`` say what ran).

    Notes
    -----
    Measured on the balanced 100x20 benchmark set: the coarse start takes the median search
    from 12.7 s to 3.8 s (3.3 s on held-out instances; decision 228); ``first_solve="ipm"``
    from 2.5 s to 1.8 s CPU (decisions 402, 452). The window bound is decision 150, the
    path formulation decision 213, worker generation decision 18, the time scales solved
    apart decision 250.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> res = max_stretch(random_bags(3, 2, seed=0))
    >>> round(res.stretch, 4), res.plan.comm.shape
    (2.4683, (3, 2, 5))
    >>> round(max_stretch(random_bags(3, 2, seed=0), method="bisection").stretch, 4)
    2.4683
    """
    options = dict(relaxation_bound=relaxation_bound, warm_start=warm_start,
                   worker_generation=worker_generation, window_bound=window_bound,
                   relaxation_basis=relaxation_basis, formulation=formulation,
                   coarse_start=coarse_start, first_solve=first_solve, **highs_options)
    try:
        return solve_problem(StretchProblem.offline(inst, memory), method, tol, time_limit,
                             **options)
    except ScaleError:
        if memory is not None or inst.n < 2:
            raise
        return solve_by_scales(inst, method, tol, time_limit, **options)


def solve_by_scales(inst: Instance, method: str = "intervals",
                    tol: float = tolerances.BISECTION, time_limit: float | None = 120.0,
                    **options: Any) -> MaxStretchResult:
    """Max-stretch of an instance whose dedicated makespans span more time scales than one LP holds.

    The applications are split at the largest ratio between consecutive ``MS*``, into a
    *small* group ``A`` and a *large* group ``L``, each solved on its own by
    :func:`max_stretch` (so split again if needed; seed 003 §3 on each scale), and the two
    plans are composed: ``A``'s plan as it is, and ``L``'s plan paused during each time
    range in which ``A``'s plan works (:func:`~lpsched.bags.maxstretch.composition.busy_blocks`,
    :func:`~lpsched.bags.maxstretch.composition.paused_plan`; from ``L``'s first epoch on):
    ``L`` runs in the time ``A`` leaves, late by at most ``Δ``, the total length of the
    pauses.

    Exactness: removing applications relaxes (K)/(K1), so ``S* >= max(S*_A, S*_L)``
    (each group's proven lower bound); the composed plan is a point of (K)/(K1) for the
    whole instance at ``S_up = max(S*_A, S*_L + Δ / min_L MS*)`` (its two halves use the
    platform in disjoint time ranges, and the pause delays each ``L`` deadline by at most
    ``Δ``). The answer is ``S_up`` with ``lower = max(...)``:
    ``A``'s status when ``A`` sets the stretch (then ``S* = S*_A``), ``within_tolerance``
    when ``L`` does after a move ``Δ > 0`` and the bounds
    differ by at most ``tol·max(1, S)`` (``L`` sets it: the gap is ``Δ/MS*_L``, about the
    ratio of the time scales, below the bisection tolerance), else :class:`ScaleError`
    (the small applications hold the platform so long that ``Δ`` shows against ``L``'s
    ``MS*``: the time scales are not that far apart, and no exact method is implemented).

    Parameters
    ----------
    inst : Instance
        The instance (offline).
    method : str
        As for :func:`max_stretch`, applied to each group.
    tol : float
        The bisection tolerance, and the largest gap accepted between the two bounds.
    time_limit : float or None
        Wall-clock budget of each group's search, in seconds.
    **options
        Further options of :func:`max_stretch`.

    Returns
    -------
    MaxStretchResult
        ``stretch = S_up``, ``lower = max(S*_A, S*_L)``, the composed plan.

    Raises
    ------
    ScaleError
        The two bounds are further apart than ``tol``; one group alone cannot be solved.

    Notes
    -----
    Decision 250: time scales one LP cannot hold are solved apart and the plans composed.
    """
    t0 = time.perf_counter()
    ms = dedicated_makespans(inst)
    order = np.argsort(ms, kind="stable")
    cut = int(np.argmax(ms[order][1:] / ms[order][:-1])) + 1
    small, large = np.sort(order[:cut]), np.sort(order[cut:])
    ra = max_stretch(inst.subset(small.tolist()), method, tol, time_limit=time_limit,
                     **options)
    rl = max_stretch(inst.subset(large.tolist()), method, tol, time_limit=time_limit,
                     **options)
    paused, delta = rl.plan, 0.0
    for begin, end in busy_blocks(ra.plan):  # L gives way while A works
        at = max(begin, float(np.asarray(paused.epochs)[0]))
        if end > at:
            paused = paused_plan(paused, at, end - at)
            delta += end - at
    lower = max(ra.lower, rl.lower)
    late = rl.stretch + delta / float(ms[large].min())
    stretch = max(ra.stretch, late)
    # S* >= S*_A: when A sets the stretch, its status is the answer's; so for L if Δ = 0
    status = ra.status if ra.stretch >= late else rl.status if delta == 0 else \
        "within_tolerance"
    if stretch - lower > tol * max(1.0, stretch):
        raise ScaleError(
            f"the applications' dedicated makespans span {float(ms.max() / ms.min()):.2g} "
            f"times, more than one LP holds; solved apart, the max-stretch lies in "
            f"[{lower:.9g}, {stretch:.9g}], wider than tol = {tol:g} (the applications of "
            f"MS* <= {float(ms[small].max()):.3g} s hold the platform {delta:.6g} s while "
            "the larger ones run): solve the groups separately or rescale")
    plan = compose_plans(inst, stretch, ms, [(ra.plan, small), (paused, large)])
    parts = (ra, rl)
    return MaxStretchResult(
        stretch=stretch, lower=lower, method=method, status=status, plan=plan,
        dedicated_makespans=ms, throughputs=dedicated_throughputs(inst),
        lp_solves=sum(r.lp_solves for r in parts),
        pricing_solves=sum(r.pricing_solves for r in parts),
        workers_used=max(r.workers_used for r in parts),
        critical_values=sum(r.critical_values for r in parts),
        seconds=time.perf_counter() - t0, highs_seconds=sum(r.highs_seconds for r in parts),
        build_seconds=sum(r.build_seconds for r in parts),
        iterations=sum(r.iterations for r in parts),
        lp_size={k: max(r.lp_size.get(k, 0) for r in parts)
                 for k in {**ra.lp_size, **rl.lp_size}},
        probes=ra.probes + rl.probes, search=None,
        relaxation_solves=sum(r.relaxation_solves for r in parts),
        formulation=ra.formulation if ra.formulation == rl.formulation else "mixed",
        column_rounds=sum(r.column_rounds for r in parts),
        columns=sum(r.columns for r in parts),
        coarse_solves=sum(r.coarse_solves for r in parts))


