"""Numerical tolerances, in one place (DESIGN.md, "Numerics").

Every float comparison in lpsched uses one of these names, so a change of policy is a change
of one line. The values are relative unless the name says otherwise.
"""

from __future__ import annotations

#: Primal feasibility tolerance passed to the LP solvers (absolute, on scaled rows).
LP_FEASIBILITY = 1e-9
#: Optimality (dual feasibility) tolerance passed to the LP solvers.
LP_OPTIMALITY = 1e-9
#: Relative deficit of delivered tasks below which a stretch is declared feasible
#: (the max-delivered formulation of (K)/(K1); see ``lpsched.bags.maxstretch.buffer_model``).
DELIVERY = 1e-9
#: Relative tolerance used by :func:`lpsched.bags.check.check_plan` on every constraint.
PLAN_CHECK = 1e-6
#: Relative gap under which an interval LP's optimum is "equal" to the interval's lower end
#: (Algorithm 2, spec ambiguity A7: about 10x the LP feasibility tolerance, scaled by max(1,S)).
STRETCH_EQUAL = 1e-7
#: Two critical stretch values closer than this (relative) are merged.
CRITICAL_MERGE = 1e-10
#: Default bisection tolerance on the stretch (spec §3.7: eps = 1e-6 * max(1, S)).
BISECTION = 1e-6
