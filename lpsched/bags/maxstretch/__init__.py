"""The optimal max-stretch of concurrent bags of tasks (seed 003 §3.1–3.5).

``max_stretch(inst)`` returns the optimal max-stretch of an instance in the fluid model of
its port, polyhedron (K1) for one-port and (K) for bounded multiport, with a plan that
reaches it; ``online_max_stretch(inst, t_new, remaining, buffered)`` the optimum on
``[T_new, ∞)`` from a state (§3.5, what CBS3M re-solves at every arrival).

The searches (``method=``):

* ``"intervals"`` (default): Algorithm 2 (Theorems 7–8), a search over the *critical
  values* of the stretch, where the order of release dates and deadlines changes, for the
  interval holding the optimum, then the optimum inside it. Exact (up to LP tolerances).
  The critical values are probed where the deficit's tangent points (halving after an
  overshoot), and Newton steps finish inside the interval.
* ``"intervals-lp"``: the paper's version, binary search then one LP (12)–(20),
  ``ceil(log2(#intervals)) + 1`` LP solves.
* ``"bisection"``: Algorithm 1 (Theorem 2), bisection on ``S`` with the feasibility LP;
  an achievable ``S <= S_opt + tol`` in ``O(log(S_up/tol))`` LP solves.

The modules, in the order a search uses them:

* :mod:`~lpsched.bags.maxstretch.problem`: the problem's data and its epochs, affine in
  ``S``; the online state;
* :mod:`~lpsched.bags.maxstretch.conditioning`: what HiGHS can take (units, floors,
  merged slopes, useless workers dropped);
* :mod:`~lpsched.bags.maxstretch.critical`: the critical values and the search's two ends
  (``S_up`` is ``S_FIFO``, spec §3.7);
* :mod:`~lpsched.bags.maxstretch.relaxations`: single-resource lower bounds;
* :mod:`~lpsched.bags.maxstretch.formulation`: the buffer model or the path
  reformulation;
* :mod:`~lpsched.bags.maxstretch.buffer_model`: (K)/(K1) with buffers, and its window
  relaxation;
* :mod:`~lpsched.bags.maxstretch.paths`: the path reformulation solved by column
  generation;
* :mod:`~lpsched.bags.maxstretch.coarse`: where a large path search starts (a
  time-aggregated LP; a guess, never a verdict);
* :mod:`~lpsched.bags.maxstretch.workers`: worker generation;
* :mod:`~lpsched.bags.maxstretch.search`: :class:`StretchSearch`, the LP solves over the
  stretch axis, and the tangent-guided search;
* :mod:`~lpsched.bags.maxstretch.algorithms`: Algorithms 1 and 2 and
  :func:`solve_problem`;
* :mod:`~lpsched.bags.maxstretch.offline`, :mod:`~lpsched.bags.maxstretch.online`: the
  entry points; :mod:`~lpsched.bags.maxstretch.composition`: plans of time scales solved
  apart composed into one;
* :mod:`~lpsched.bags.maxstretch.results`: what a search returns.
"""

from lpsched.bags.maxstretch.algorithms import MAX_BISECTIONS, METHODS, solve_problem
from lpsched.bags.maxstretch.buffer_model import StretchModel
from lpsched.bags.maxstretch.coarse import COARSE_ABOVE, use_coarse
from lpsched.bags.maxstretch.composition import busy_blocks, compose_plans, paused_plan
from lpsched.bags.maxstretch.critical import (
    critical_values,
    online_lower_bound,
    sequential_stretch,
)
from lpsched.bags.maxstretch.formulation import FORMULATIONS, choose_formulation
from lpsched.bags.maxstretch.offline import max_stretch, solve_by_scales
from lpsched.bags.maxstretch.online import online_max_stretch
from lpsched.bags.maxstretch.problem import StretchProblem, online_problem
from lpsched.bags.maxstretch.results import Check, MaxStretchResult, Probe, StretchPlan
from lpsched.bags.maxstretch.search import (
    DUAL,
    GUIDED_GAP,
    PRIMAL,
    SEARCH_OPTIONS,
    StretchSearch,
    check_time_limit,
    window_lower_bound,
)
from lpsched.bags.maxstretch.workers import SEED_PAIRS, initial_workers

__all__ = [
    "COARSE_ABOVE",
    "DUAL",
    "FORMULATIONS",
    "GUIDED_GAP",
    "MAX_BISECTIONS",
    "METHODS",
    "PRIMAL",
    "SEARCH_OPTIONS",
    "SEED_PAIRS",
    "Check",
    "MaxStretchResult",
    "Probe",
    "StretchModel",
    "StretchPlan",
    "StretchProblem",
    "StretchSearch",
    "busy_blocks",
    "check_time_limit",
    "choose_formulation",
    "compose_plans",
    "critical_values",
    "initial_workers",
    "max_stretch",
    "online_lower_bound",
    "online_max_stretch",
    "online_problem",
    "paused_plan",
    "sequential_stretch",
    "solve_by_scales",
    "solve_problem",
    "use_coarse",
    "window_lower_bound",
]
