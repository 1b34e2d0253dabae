"""Every online policy on one task instance against proven lower bounds, one row per policy.

The rows ``lpsched online INSTANCE --policy all`` prints as its table and writes with
``--json`` or ``--csv``.

:func:`compare_policies` computes the lower bounds once, then simulates each policy,
validates its schedule independently and measures it (:func:`~lpsched.tasks.simulator.
evaluate`); the result's :attr:`rows <PolicyComparison.rows>` are the JSON rows and the
table's lines, and :meth:`PolicyComparison.to_frame` gives them as a DataFrame, so they
cannot differ.

Parameters of the redirection policies: the given ones, else seed 000 Table 3.2's values for
the instance's trace (its ``meta["source"]``), else :data:`~lpsched.tasks.policies.
DEFAULTS` (``m_d`` at most ``m - 1``). With ``policies="all"``, a redirection policy that
cannot run on the instance (``m < 2``, or Table 3.2's ``m_d >= m``) is a row ``{"policy",
"status": "skipped", "reason"}`` (decision 136); named, it is an error.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lpsched.errors import LpschedError
from lpsched.tasks.instance import TaskInstance

__all__ = ["BOUNDS", "METRICS", "PolicyComparison", "compare_policies"]

#: The six objectives of a row (seed 000 §3.2), in the table's order.
METRICS = ("max_stretch", "sum_stretch", "l2_stretch", "max_flow", "sum_flow", "l2_flow")
#: The lower bounds :func:`compare_policies` can compute (``lpsched online --bounds``).
BOUNDS = ("exact", "lp", "speed-m", "none")


@dataclass
class PolicyComparison:
    """The policies run on one task instance (:func:`compare_policies`).

    Attributes
    ----------
    rows : list of dict
        One row per policy, in the order asked: :meth:`OnlineResult.to_dict
        <lpsched.tasks.simulator.OnlineResult.to_dict>` with ``status`` ``"ok"``,
        ``lower_bounds`` (the bounds below) and ``<objective>_over_lb`` for each bounded
        objective; or ``{"policy", "status": "skipped", "reason"}``.
    bounds : dict
        Objective (``max_stretch``, ``max_flow``, ``sum_flow``) to its lower bound's JSON
        form (``value``, ``bound``: how it was proven, ...); empty with ``bounds="none"``.
    bound_seconds : float
        Wall time of the lower bounds (s).
    """

    rows: list[dict[str, Any]]
    bounds: dict[str, Any]
    bound_seconds: float

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame, one row per policy (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            One column per row field in the order first met (``policy``, the policy's
            parameters, ``valid``, the six :data:`METRICS` (stretches 1, flows s), the
            counts, ``seconds`` (s), ``status``, ``<objective>_over_lb``; ``reason`` where
            a policy was skipped, missing elsewhere), the nested ``lower_bounds`` replaced
            by ``lb_<objective>`` (its value) and ``lb_<objective>_kind`` (how it was
            proven), as the rows of ``reproduce redirection`` name them. The columns
            ``lpsched online --table`` prints have the same values.

        Examples
        --------
        >>> inst = TaskInstance(2, [0.0, 0.5, 1.0], [4.0, 1.0, 2.0])
        >>> frame = compare_policies(inst, ["fcfs", "srpt"]).to_frame()
        >>> frame[["policy", "max_flow", "lb_max_flow", "max_flow_over_lb"]]
          policy  max_flow  lb_max_flow  max_flow_over_lb
        0   fcfs       4.0          4.0               1.0
        1   srpt       4.0          4.0               1.0
        """
        from lpsched.core.frames import pandas

        pd = pandas("PolicyComparison.to_frame()")
        lb = {f"lb_{key}": b["value"] for key, b in self.bounds.items()}
        lb.update({f"lb_{key}_kind": b["bound"] for key, b in self.bounds.items()})
        records = [{**{k: v for k, v in r.items() if k != "lower_bounds"}, **lb}
                   for r in self.rows]
        columns: dict[str, None] = {}
        for record in records:
            columns.update(dict.fromkeys(record))
        return pd.DataFrame.from_records(records, columns=list(columns))


def _policy(inst: TaskInstance, name: str, info: Any, params: dict[str, Any],
            seed: int) -> Any:
    """One policy with its parameters (module doc), or why its dedicated pool does not fit
    the instance (a ``str``)."""
    from lpsched.tasks.policies import DEFAULTS, REGISTRY, get_policy, table_params

    m = inst.processors
    if REGISTRY[name].base.redirect and m < 2:
        return f"a dedicated pool needs m >= 2 processors (the instance has {m})"
    chosen: dict[str, Any] = {**table_params(name, info)}
    if REGISTRY[name].base.redirect and params.get("md") is None and chosen.get("md", 0) >= m:
        return (f"Table 3.2's m_d = {chosen['md']} for {info.short} needs m > "
                f"{chosen['md']} processors (the instance has {m}); give --md")
    chosen.setdefault("md", min(DEFAULTS["md"], m - 1))
    chosen.update({k: v for k, v in params.items() if v is not None})
    return get_policy(name, seed=seed, **chosen).check(m)


def _lower_bounds(inst: TaskInstance, bounds: str, exact_limit: int) -> dict[str, Any]:
    """The JSON forms of the lower bounds ``bounds`` asks for (:data:`BOUNDS`)."""
    from lpsched.tasks.bounds import lower_bounds

    if bounds == "none":
        return {}
    limit = -1 if bounds == "speed-m" else exact_limit
    method = "lp" if bounds == "lp" else "flow"
    out = {k: v.to_dict() for k, v in lower_bounds(inst, limit, method).items()}
    for b in out.values():  # which feasibility test the exact search used
        if b["bound"] == "preemptive-exact":
            b["test"] = "lp" if method == "lp" else "max-flow"
    return out


def _row(res: Any, bounds: dict[str, Any]) -> dict[str, Any]:
    """A finished policy's row: its result, ``status`` ok and its ratios to the bounds."""
    from lpsched.tasks.schedule import check_bounds

    check_bounds(res.metrics, bounds)  # decision 286: no schedule beats a proof
    row = {**res.to_dict(), "status": "ok"}
    row["lower_bounds"] = bounds
    for key, b in bounds.items():
        row[f"{key}_over_lb"] = row[key] / b["value"] if b["value"] > 0 else None
    return row


def compare_policies(inst: TaskInstance, policies: str | Sequence[str] = "all", *,
                     md: int | None = None, tau: float | None = None,
                     b: float | None = None, c: float | None = None, seed: int = 0,
                     bounds: str = "exact", exact_limit: int = 3000) -> PolicyComparison:
    """Simulate, validate and measure policies on one instance, against proven lower bounds.

    The rows of ``lpsched online INSTANCE --policy``.

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    policies : str or sequence of str
        ``"all"`` (default: every registered policy, ``lpsched policies --family
        tasks``), or policy names.
    md, tau, b, c : optional
        The redirection policies' parameters (``m_d`` dedicated processors, threshold
        ``τ >= 1``, ``b`` and ``c`` in [0, 1]); unset: Table 3.2's for the instance's
        trace, else the defaults (module doc).
    seed : int
        Seed of the RR policies' draws (default 0).
    bounds : {"exact", "lp", "speed-m", "none"}
        The lower bounds (``lpsched online --bounds``; default ``"exact"``: bisection on
        the preemptive optimum with a max-flow test up to ``exact_limit`` tasks).
    exact_limit : int
        Most tasks for the exact bounds (default 3000); above it the speed-``m`` ones.

    Returns
    -------
    PolicyComparison
        The rows, the bounds and their wall time.

    Raises
    ------
    LpschedError
        An unknown policy or ``bounds``; a policy named alone whose dedicated pool does
        not fit the instance; parameters out of range.
    InvalidScheduleError
        A schedule beats a proven lower bound (decision 286).

    Examples
    --------
    >>> inst = TaskInstance(2, [0.0, 0.5, 1.0], [4.0, 1.0, 2.0])
    >>> res = compare_policies(inst)
    >>> [(r["policy"], r["status"]) for r in res.rows][:3]
    [('spt', 'ok'), ('gspt', 'ok'), ('srpt', 'ok')]
    >>> sorted(res.bounds)
    ['max_flow', 'max_stretch', 'sum_flow']
    """
    from lpsched.tasks.instance import trace_info
    from lpsched.tasks.policies import ALL_POLICIES, REGISTRY
    from lpsched.tasks.simulator import evaluate

    every = isinstance(policies, str) and policies == "all"
    names = list(ALL_POLICIES) if every else (
        str(policies).split(",") if isinstance(policies, str) else list(policies))
    for name in names:
        if name not in REGISTRY:
            raise LpschedError(f"unknown policy {name!r}; `lpsched policies` lists them: "
                               f"{', '.join(REGISTRY)}, or use 'all'")
    if bounds not in BOUNDS:
        raise LpschedError(f"bounds {bounds!r}: must be one of {', '.join(BOUNDS)}")
    info = trace_info(str(inst.meta.get("source", "")))
    params = {"md": md, "tau": tau, "b": b, "c": c}
    chosen: list[Any] = []
    for name in names:
        pol = _policy(inst, name, info, params, seed)
        if isinstance(pol, str):
            if not every:
                raise LpschedError(f"policy {name}: {pol}")
            pol = {"policy": name, "status": "skipped", "reason": pol}
        chosen.append(pol)
    t0 = time.perf_counter()
    proven = _lower_bounds(inst, bounds, exact_limit)
    seconds = time.perf_counter() - t0
    rows = [pol if isinstance(pol, dict) else _row(evaluate(inst, pol), proven)
            for pol in chosen]
    return PolicyComparison(rows, proven, seconds)
