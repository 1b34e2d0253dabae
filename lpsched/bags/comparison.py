"""Every policy's metrics on one instance, one row per policy: the rows ``lpsched simulate
INSTANCE --policy all`` prints as its table and writes with ``--json``.

:func:`compare_policies` solves the LP lower bound of the instance's max-stretch once,
then simulates each policy and validates its schedule; the result's :attr:`rows
<PolicyComparison.rows>` are the JSON rows and the table's lines, and
:meth:`PolicyComparison.to_frame` gives them as a DataFrame, so the three cannot differ.

A policy that cannot finish is a row, not an error: ``status`` ``failed`` or
``time_limit`` with its ``reason`` and no metrics; ``invalid`` when its schedule breaks a
rule of the platform (the metrics are still given).

**RR and DD.** Under one-port, with the registered greedy reading (a DD worker asks for its
next task as soon as its last one has arrived, decision 316), DD serves the workers in
round robin's cyclic order, so every ``*-rr`` row is its ``*-dd`` row: the identity of
seed 003's Tables 4-8 [L893-L1012]. :attr:`PolicyComparison.same` names the pairs whose
rows are equal on this instance for that reason (checked, not assumed; under bounded
multiport DD may differ from RR, and equal rows there are no identity).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lpsched.bags.instance import Instance
from lpsched.errors import LpschedError

__all__ = ["METRICS", "RR_DD_NOTE", "TABLE_COLUMNS", "PolicyComparison", "compare_policies",
           "run_policy"]

#: The five objectives of seed 003 Tables 4-8 in a row (``None`` when the policy did not
#: finish).
METRICS = ("max_stretch", "sum_stretch", "makespan", "max_flow", "sum_flow")
#: The row fields ``lpsched simulate --table`` prints, in its column order (headed
#: ``policy``, ``status``, ``max-str/LP``, ``max-stretch``, ``sum-stretch``, ``makespan``,
#: ``max-flow``, ``sum-flow`` and ``s``).
TABLE_COLUMNS = ("policy", "status", "relative_max_stretch", *METRICS, "seconds")
#: Why the rows of a pair in :attr:`PolicyComparison.same` are equal: one sentence, with
#: the seed lines, under the table and in the pair's JSON rows (``same_as_why``).
RR_DD_NOTE = ("under one-port a DD worker asks for its next task as soon as its last one "
              "has arrived, so DD serves the workers in round robin's cyclic order and "
              "makes RR's choices (seed 003 [L775], the identical RR and DD rows of Tables "
              "4-8 [L893-L1012]; decision 316)")


def run_policy(inst: Instance, name: str, lp_bound: float | None,
               time_limit: float | None = None) -> dict[str, Any]:
    """One row: the policy ``name`` simulated on ``inst``, its schedule validated, and its
    metrics.

    Parameters
    ----------
    inst : Instance
        The instance.
    name : str
        A registered policy (``lpsched policies``).
    lp_bound : float or None
        The LP lower bound of the max-stretch (``relative_max_stretch`` is the max-stretch
        over it; the validation checks no schedule beats it, decision 252).
    time_limit : float, optional
        The run's wall-clock budget (s); a run out of time is the row's ``time_limit``.

    Returns
    -------
    dict
        ``policy``, ``status`` (``"ok"``, ``"invalid"``, ``"failed"`` or
        ``"time_limit"``), ``reason`` (``None`` when ok), ``valid`` (``None`` unless the
        run finished), the five :data:`METRICS` (flows and makespan in s), ``lp_bound``,
        ``relative_max_stretch``, ``seconds`` (wall time of the run), ``events``; also
        ``invalid_because`` for an invalid schedule and ``solves`` for the LP-based
        policies.
    """
    from lpsched.bags.policies import get_policy
    from lpsched.bags.reproduce import outcome
    from lpsched.bags.schedule import metrics, validate
    from lpsched.bags.simulator import simulate
    from lpsched.errors import InvalidScheduleError

    t0 = time.perf_counter()
    try:
        res = simulate(inst, get_policy(name), time_limit=time_limit)
    except LpschedError as exc:
        return {"policy": name, "status": outcome(exc), "reason": str(exc), "valid": None,
                **dict.fromkeys(METRICS), "lp_bound": lp_bound,
                "relative_max_stretch": None, "seconds": time.perf_counter() - t0,
                "events": None}
    bound = lp_bound if lp_bound is not None and math.isfinite(lp_bound) else None
    try:  # the LP optimum bounds every schedule from below (decision 252)
        validate(inst, res.schedule, stretch_bound=bound)
        valid, why = True, None
    except InvalidScheduleError as exc:
        valid, why = False, str(exc)
    m = metrics(inst, res.schedule)
    row: dict[str, Any] = {"policy": name, "status": "ok" if valid else "invalid",
                           "reason": why, "valid": valid, **m.to_dict(),
                           "lp_bound": lp_bound,
                           "relative_max_stretch": (m.max_stretch / lp_bound
                                                    if lp_bound else None),
                           "seconds": res.seconds, "events": res.events}
    row.pop("stretch")
    if why:
        row["invalid_because"] = why
    if res.stats:
        row["solves"] = res.stats.get("solves")
    return row


@dataclass
class PolicyComparison:
    """The policies run on one instance (:func:`compare_policies`).

    Attributes
    ----------
    rows : list of dict
        One row per policy, in the order asked (:func:`run_policy`; the pairs of
        :attr:`same` also carry ``same_as``, the other policy, and ``same_as_why``,
        :data:`RR_DD_NOTE`).
    lp_bound : float
        The LP lower bound of the instance's max-stretch ((K1) under one-port, (K) under
        bounded multiport).
    port : str
        The platform's port model, ``"one-port"`` or ``"multiport"``.
    same : list of tuple of str
        The ``(rr, dd)`` policy pairs whose rows are equal by construction (module doc):
        one-port, both finished, and their status and five metrics equal on this instance.
    """

    rows: list[dict[str, Any]]
    lp_bound: float
    port: str
    same: list[tuple[str, str]] = field(default_factory=list)

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame, one row per policy (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            One column per row field, in the order first met: ``policy`` (str),
            ``status`` (str), ``reason`` (str or missing), ``valid`` (bool or missing),
            ``max_stretch``, ``sum_stretch`` (1), ``makespan``, ``max_flow``,
            ``sum_flow`` (s), ``lp_bound`` (1), ``relative_max_stretch`` (1, the
            max-stretch over ``lp_bound``), ``seconds`` (s, the run's wall time),
            ``events``; then, where some row has them, ``invalid_because``, ``solves``,
            ``same_as`` and ``same_as_why`` (missing in the other rows). The columns of
            :data:`TABLE_COLUMNS` are ``lpsched simulate --table``'s, with the same values.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> res = compare_policies(random_bags(3, 2, seed=0), ["fifo-rr", "fifo-dd"])
        >>> frame = res.to_frame()
        >>> frame[["policy", "status", "same_as"]]
            policy status  same_as
        0  fifo-rr     ok  fifo-dd
        1  fifo-dd     ok  fifo-rr
        >>> bool((frame.loc[0, list(METRICS)] == frame.loc[1, list(METRICS)]).all())
        True
        """
        from lpsched.core.frames import pandas

        pd = pandas("PolicyComparison.to_frame()")
        columns: dict[str, None] = {}
        for row in self.rows:
            columns.update(dict.fromkeys(row))
        return pd.DataFrame.from_records(self.rows, columns=list(columns))


def _same_rows(rows: list[dict[str, Any]], port: str) -> list[tuple[str, str]]:
    """The ``(*-rr, *-dd)`` pairs of ``rows`` equal by construction (module doc)."""
    if port != "one-port":
        return []
    from lpsched.bags.policies.greedy import APP_RULES

    by_name = {r["policy"]: r for r in rows}
    pairs = []
    for rule in APP_RULES:
        rr, dd = by_name.get(f"{rule}-rr"), by_name.get(f"{rule}-dd")
        if rr is None or dd is None or rr["status"] != "ok" or dd["status"] != "ok":
            continue
        if all(rr[m] == dd[m] for m in METRICS):
            pairs.append((rr["policy"], dd["policy"]))
    return pairs


def compare_policies(inst: Instance, policies: str | Sequence[str] = "all",
                     time_limit: float | None = 120.0) -> PolicyComparison:
    """Simulate every policy of ``policies`` on ``inst`` and measure each, after the LP
    lower bound of the max-stretch: the rows of ``lpsched simulate INSTANCE --policy``.

    Parameters
    ----------
    inst : Instance
        The instance.
    policies : str or sequence of str
        ``"all"`` (default: the seed's 18 policies, ``lpsched policies``), or policy
        names.
    time_limit : float, optional
        Wall-clock budget (s) of the LP bound's search and of each policy's run (default
        120, as ``lpsched simulate``); ``None``: none.

    Returns
    -------
    PolicyComparison
        The rows, the LP bound, the port model and the RR/DD pairs equal by
        construction.

    Raises
    ------
    LpschedError
        An unknown policy name, no policy, or an instance the simulator cannot hold.
    SolverError
        The LP bound's search ran out of time.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> res = compare_policies(random_bags(3, 2, seed=0))
    >>> len(res.rows), res.port, len(res.same)
    (18, 'one-port', 4)
    >>> all(r["max_stretch"] >= res.lp_bound * (1 - 1e-9) for r in res.rows)
    True
    """
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.policies import REGISTRY, policy_names
    from lpsched.bags.simulator import check_size

    names = policy_names() if isinstance(policies, str) and policies == "all" else (
        [policies] if isinstance(policies, str) else list(policies))
    unknown = [n for n in names if n not in REGISTRY]
    if unknown or not names:
        raise LpschedError(f"unknown policy {unknown[0] if unknown else ''!r}: "
                           f"`lpsched policies` lists {len(REGISTRY)} names, or use 'all'")
    check_size(inst)
    lp_bound = max_stretch(inst, time_limit=time_limit).stretch
    rows = [run_policy(inst, name, lp_bound, time_limit) for name in names]
    port = inst.platform.port
    same = _same_rows(rows, port)
    by_name = {r["policy"]: r for r in rows}
    for rr, dd in same:
        by_name[rr].update(same_as=dd, same_as_why=RR_DD_NOTE)
        by_name[dd].update(same_as=rr, same_as_why=RR_DD_NOTE)
    return PolicyComparison(rows, lp_bound, port, same)
