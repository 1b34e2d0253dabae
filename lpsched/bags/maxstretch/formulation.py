"""How a max-stretch search poses its LPs: the buffer model or its path reformulation.

Both are exact. The buffer model (K)/(K1) of :mod:`lpsched.bags.maxstretch.buffer_model`
has ``C·p`` buffer and conservation rows; the path reformulation of
:mod:`lpsched.bags.maxstretch.paths` has none and is solved by column generation (about
4,300 rows on balanced 100x20 where the buffer model has 204,280).
"""

from __future__ import annotations

from lpsched.bags.maxstretch.conditioning import UNITS_BELOW
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.errors import LpschedError

#: How each epoch order's LP is posed: ``"buffers"`` the (K)/(K1) model of
#: :mod:`lpsched.bags.maxstretch.buffer_model`, ``"paths"`` its path reformulation by column
#: generation (:mod:`lpsched.bags.maxstretch.paths`), ``"auto"`` the rule of
#: :func:`choose_formulation`.
FORMULATIONS = ("auto", "buffers", "paths")


def choose_formulation(problem: StretchProblem, formulation: str = "auto",
                       units: bool = False) -> str:
    """``"buffers"`` or ``"paths"``: how the LPs of ``problem`` are posed.

    Parameters
    ----------
    problem : StretchProblem
        The problem to solve.
    formulation : str
        ``"buffers"`` (the (K)/(K1) model of :mod:`lpsched.bags.maxstretch.buffer_model`),
        ``"paths"`` (its path reformulation, :mod:`lpsched.bags.maxstretch.paths`) or
        ``"auto"``.
    units : bool
        Whether :func:`~lpsched.bags.maxstretch.conditioning.condition` counts this
        problem's amounts in whole applications (per-task times below
        :data:`UNITS_BELOW` of the horizon).

    Returns
    -------
    str
        ``formulation`` itself, or for ``"auto"``: ``"paths"`` for an offline problem
        without a memory bound whose amounts are counted in tasks, ``"buffers"`` otherwise.
        Paths have no memory rows (a memory bound couples all buffers); online (CBS3M's
        re-solves) and per-application units keep the buffer model, the first because the
        plans are not unique and CBS3M's schedules follow them, the second because its
        capacity rows of ~1e-9 (normalised time) are within HiGHS' feasibility tolerance
        and the path master has been seen to use that slack where the buffer model does not.

    Raises
    ------
    LpschedError
        For an unknown ``formulation``, or ``"paths"`` with a memory bound or on a problem
        counted per application (``units``).

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> pr = StretchProblem.offline(random_bags(3, 2, seed=0))
    >>> choose_formulation(pr), choose_formulation(pr, "buffers")
    ('paths', 'buffers')
    """
    if formulation not in FORMULATIONS:
        raise LpschedError(f"unknown formulation {formulation!r}; choose one of "
                           f"{FORMULATIONS}")
    if formulation == "auto":
        return ("buffers" if problem.memory is not None or problem.online or units
                else "paths")
    if formulation == "paths" and problem.memory is not None:
        raise LpschedError("formulation='paths' has no memory rows (a memory bound couples "
                           "the applications' buffers); use formulation='buffers' or 'auto'")
    if formulation == "paths" and units:
        raise LpschedError("the path formulation is not used when per-task times are below "
                           f"{UNITS_BELOW:g} of the horizon (amounts per application): its "
                           "capacity rows then sit within HiGHS' feasibility tolerance and "
                           "it can miss the optimum; use the buffer formulation "
                           "(formulation='buffers' or 'auto'; --formulation buffers)")
    return formulation


#: Which (application, worker) pairs get same-interval seed paths without a coarse start:
#: ``"all"`` or ``"steady"`` (those serving the application in its steady state alone).
