"""Reproduction of seed 003 Tables 3–8 and Figures 5–10 (the MPI and SimGrid experiments).

The seed's experiments are [L837–L1015]. Every cell key holds the greedy heuristics'
reading (:func:`reading`, decisions 316–317); the eager CBS3M variants run beside the
seed's 18 (:func:`select` gives the seed's 18 with one dispatcher; the tables normalise
among those); Figures 5–10 come from :func:`load_curves`, :func:`figure5_rows` and
:func:`write_figures`; the seed-vs-ours table is :func:`lpsched.bags.fidelity.cbs3m_table`'s.

One cell = (instance seed, policy): a fresh Table-2 instance (20 applications, 10 workers,
one-port; decision A27) simulated under one policy, with the (K1) optimum as the lower bound.
Normalisation (decision A29): max-stretch by the LP optimum; sum-stretch, makespan, max-flow
and sum-flow by the best of the policies run on the same instance. Statistics per policy:
min, mean, sample standard deviation, max and the percentage of instances where it is the
best (ties credited to every tied policy, relative tolerance 1e-9; decision A31).

Per-policy outcomes: a policy that cannot finish an instance (it stops with an application
unfinished, a solver gives up, its schedule is invalid) is a result, not a crash. Its row
carries ``status`` (``"ok"``, ``"failed"``, ``"time_limit"`` or ``"invalid"``) and
``reason`` (the error's one line), its metrics are ``None``, and the other policies' rows
of the same instance still count. The tables use the finished runs only: normalisation by
the best of the policies that finished, statistics per policy over the instances it
finished (``n``), and ``failed`` counts the others (never credited as best).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from lpsched.bags.generators import PROFILES, random_bags
from lpsched.bags.instance import Instance
from lpsched.bags.policies import cbs3m, get_policy, greedy, policy_names
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import StarPolicy, simulate
from lpsched.errors import InvalidScheduleError, LpschedError, SolverError
from lpsched.solvers.solution import Status

EXPERIMENT = "cbs3m"
METRICS = ("max_stretch", "sum_stretch", "makespan", "max_flow", "sum_flow")
#: The fields the tables, CSV files and plots read, checked when rows are read back from
#: a store (:func:`lpsched.core.store.check_row`): a damaged store is one line, never a
#: wrong table.
ROW_SCHEMA: dict[str, str] = {"seed": "int>=0", "policy": "text", "status": "text",
                              "reason": "text?", "lp_bound": "number>=0?",
                              **dict.fromkeys(METRICS, "number>=0?")}
TABLE_OF = {"max_stretch": 4, "sum_stretch": 5, "makespan": 6, "max_flow": 7, "sum_flow": 8}

#: Averages printed in seed 003 Tables 4–8, by policy (for the side-by-side comparison).
SEED_AVERAGES: dict[str, dict[str, float]] = {
    "max_stretch": {"fifo-rr": 16.689, "fifo-mct": 6.912, "fifo-dd": 16.689, "spt-rr": 4.274,
                    "spt-mct": 1.928, "spt-dd": 4.274, "srpt-rr": 4.121, "srpt-mct": 1.861,
                    "srpt-dd": 4.121, "swrpt-rr": 4.119, "swrpt-mct": 1.857, "swrpt-dd": 4.119,
                    "mwma-nbt": 3.433, "mwma-ms": 8.619, "cbs3m-fifo-online": 1.322,
                    "cbs3m-edf-online": 1.163, "cbs3m-fifo-offline": 1.379,
                    "cbs3m-edf-offline": 1.213},
    "sum_stretch": {"fifo-rr": 6.783, "fifo-mct": 2.754, "fifo-dd": 6.783, "spt-rr": 2.942,
                    "spt-mct": 1.182, "spt-dd": 2.942, "srpt-rr": 2.607, "srpt-mct": 1.045,
                    "srpt-dd": 2.607, "swrpt-rr": 2.596, "swrpt-mct": 1.038, "swrpt-dd": 2.596,
                    "mwma-nbt": 2.013, "mwma-ms": 4.183, "cbs3m-fifo-online": 1.294,
                    "cbs3m-edf-online": 1.201, "cbs3m-fifo-offline": 1.332,
                    "cbs3m-edf-offline": 1.272},
    "makespan": {"fifo-rr": 2.716, "fifo-mct": 1.329, "fifo-dd": 2.716, "spt-rr": 2.714,
                 "spt-mct": 1.329, "spt-dd": 2.714, "srpt-rr": 2.714, "srpt-mct": 1.328,
                 "srpt-dd": 2.714, "swrpt-rr": 2.715, "swrpt-mct": 1.328, "swrpt-dd": 2.715,
                 "mwma-nbt": 1.079, "mwma-ms": 1.078, "cbs3m-fifo-online": 1.029,
                 "cbs3m-edf-online": 1.004, "cbs3m-fifo-offline": 1.018,
                 "cbs3m-edf-offline": 1.003},
    "max_flow": {"fifo-rr": 3.097, "fifo-mct": 1.281, "fifo-dd": 3.097, "spt-rr": 3.282,
                 "spt-mct": 1.460, "spt-dd": 3.282, "srpt-rr": 3.289, "srpt-mct": 1.473,
                 "srpt-dd": 3.289, "swrpt-rr": 3.291, "swrpt-mct": 1.477, "swrpt-dd": 3.291,
                 "mwma-nbt": 1.181, "mwma-ms": 1.261, "cbs3m-fifo-online": 1.054,
                 "cbs3m-edf-online": 1.031, "cbs3m-fifo-offline": 1.037,
                 "cbs3m-edf-offline": 1.023},
    "sum_flow": {"fifo-rr": 4.020, "fifo-mct": 1.652, "fifo-dd": 4.020, "spt-rr": 2.811,
                 "spt-mct": 1.149, "spt-dd": 2.811, "srpt-rr": 2.704, "srpt-mct": 1.105,
                 "srpt-dd": 2.704, "swrpt-rr": 2.706, "swrpt-mct": 1.108, "swrpt-dd": 2.706,
                 "mwma-nbt": 1.404, "mwma-ms": 2.333, "cbs3m-fifo-online": 1.122,
                 "cbs3m-edf-online": 1.065, "cbs3m-fifo-offline": 1.120,
                 "cbs3m-edf-offline": 1.087},
}
#: Table 3's averages [L848–L859] (the MPI experiments, Table 1's parameters), printed
#: beside ours by :func:`format_tables` under ``--profile mpi``.
SEED_TABLE3 = {"cbs3m-edf-offline": 1.28, "cbs3m-edf-online": 1.31,
               "cbs3m-fifo-offline": 1.35, "cbs3m-fifo-online": 1.38, "fifo-mct": 1.95,
               "fifo-rr": 4.26, "mwma-ms": 2.24, "mwma-nbt": 1.48, "spt-dd": 4.76,
               "spt-mct": 1.97, "srpt-mct": 2.00, "swrpt-mct": 2.03}


@functools.lru_cache(maxsize=64)
def _instance_and_bound(seed: int, profile: str, base_bandwidth: float | None = None,
                        arrivals: str = "absolute") -> tuple[Instance, float]:
    inst = random_bags(profile=profile, seed=seed, base_bandwidth=base_bandwidth,
                       arrivals=arrivals)
    return inst, cbs3m.SOLVES.offline(inst).stretch  # the offline CBS3M plans' own solve


def outcome(exc: LpschedError) -> str:
    """The ``status`` of a policy run that raised ``exc`` (see the module doc).

    Parameters
    ----------
    exc : LpschedError
        What the run (the simulation, its LP solves or the validation of its schedule)
        raised.

    Returns
    -------
    str
        ``"invalid"`` for an :class:`~lpsched.errors.InvalidScheduleError`,
        ``"time_limit"`` for a :class:`~lpsched.errors.SolverError` out of time,
        ``"failed"`` for any other error.
    """
    if isinstance(exc, InvalidScheduleError):
        return "invalid"
    if isinstance(exc, SolverError) and exc.status in (Status.TIME_LIMIT, "time_limit"):
        return "time_limit"
    return "failed"


def reading() -> str:
    """The greedy heuristics' reading of today's registered policies, as the cells' last key
    element: ``"dd_request=<idle|received>;switch=<dispatch|complete>"``
    (:mod:`lpsched.bags.policies.greedy`).

    Returns
    -------
    str
        Today's ``DD_REQUEST`` and ``SWITCH`` of :mod:`lpsched.bags.policies.greedy`
        (``"dd_request=received;switch=complete"``, decisions 316-317), the form
        :func:`parse_reading` reads.
    """
    return f"dd_request={greedy.DD_REQUEST};switch={greedy.SWITCH}"


def parse_reading(text: str) -> dict[str, str]:
    """The keyword arguments of :class:`~lpsched.bags.policies.greedy.GreedyPolicy` named by
    a reading string (:func:`reading`); ``LpschedError`` naming the bad part.

    Parameters
    ----------
    text : str
        ``name=value`` parts separated by ``;``: ``dd_request`` (``idle`` or
        ``received``: when a DD worker asks for a task) and ``switch`` (``dispatch`` or
        ``complete``: when a greedy heuristic moves to the next application). Either may
        be left out (the policy's default then applies); empty parts are ignored.

    Returns
    -------
    dict of str to str
        The named parts, ``{"dd_request": ..., "switch": ...}`` or a subset of them.

    Raises
    ------
    LpschedError
        A part names another keyword or a value outside the allowed ones.
    """
    out: dict[str, str] = {}
    for part in filter(None, text.split(";")):
        name, _, value = part.partition("=")
        allowed = {"dd_request": greedy.DD_REQUESTS, "switch": greedy.SWITCHES}.get(name)
        if allowed is None or value not in allowed:
            raise LpschedError(f"greedy reading {part!r}: expected dd_request=idle|received "
                               "or switch=dispatch|complete")
        out[name] = value
    return out


def make_policy(name: str, read: str | None = None) -> StarPolicy:
    """A fresh policy ``name``; a greedy one (``<rule>-<rr|mct|dd>``) under the reading
    ``read`` (:func:`parse_reading`; ``None``: the registered default).

    Parameters
    ----------
    name : str
        A registered policy name (``lpsched policies``), e.g. ``"srpt-mct"``,
        ``"cbs3m-edf-online"`` or an eager variant ``"cbs3m-edf-online-eager"``.
    read : str, optional
        The greedy reading (:func:`reading`'s form); used only for the greedy
        heuristics (application rule ``fifo``, ``spt``, ``srpt`` or ``swrpt`` with
        resource rule ``rr``, ``mct`` or ``dd``), ignored for the others. ``None`` (the
        default) takes the registered policy as it is.

    Returns
    -------
    StarPolicy
        A new policy object, with no state from earlier runs.

    Raises
    ------
    LpschedError
        ``name`` is not registered, or ``read`` is not a valid reading.
    """
    app, _, res = name.partition("-")
    if read is not None and app in greedy.APP_RULES and res in greedy.RESOURCE_RULES:
        return greedy.GreedyPolicy(app, res, **parse_reading(read))
    return get_policy(name)


def cell(key: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Simulate policy ``key[1]`` on the instance of seed ``key[0]``, as one result row.

    ``key[2]`` is the profile; ``key[3]`` the generator's base bandwidth, bytes/s (without
    it, the profile's); ``key[4]`` the greedy reading, :func:`reading` (without it, spec
    A17/A20's ``dd_request=idle;switch=dispatch``, the keys' first reading); ``key[5]``,
    when present, the generator's ``arrivals`` (absolute dates without it).

    One row, with ``status`` and ``reason``: a policy that cannot finish, or whose schedule
    is invalid, is reported in its row (metrics ``None``) instead of failing the cell.

    Parameters
    ----------
    key : tuple
        One cell of :func:`cells`: ``(seed, policy, profile[, base_bandwidth[,
        reading[, arrivals]]])``; ``seed`` the generator's seed (int >= 0), ``policy`` a
        policy name (:func:`make_policy`), ``profile`` a key of
        :data:`~lpsched.bags.generators.PROFILES` (``"simgrid"``, seed 003 Table 2;
        ``"mpi"``, Table 1), ``base_bandwidth`` in bytes/s or ``None``, ``reading``
        as :func:`reading` returns it, ``arrivals`` ``"absolute"`` or
        ``"interarrival"``.

    Returns
    -------
    list of dict
        One row: ``seed``, ``policy``, ``status`` (``"ok"``, ``"failed"``,
        ``"time_limit"`` or ``"invalid"``), ``reason`` (``None`` when ok), ``lp_bound``
        (the instance's optimal max-stretch, the (K1) LP optimum), the five
        :data:`METRICS` (flows and makespan in seconds; ``None`` unless ok),
        ``seconds`` (the simulation's wall time) and ``events`` (the simulator's event
        count, ``None`` unless ok); the rows of the LP-based policies (CBS3M, MWMA)
        also carry ``solves`` and ``solve_seconds`` (their LP solves and the wall time
        of each).
    """
    seed, policy, profile = key[:3]
    base = float(key[3]) if len(key) > 3 and key[3] is not None else None
    read = str(key[4]) if len(key) > 4 else "dd_request=idle;switch=dispatch"
    arrivals = str(key[5]) if len(key) > 5 else "absolute"
    row: dict[str, Any] = {"seed": int(seed), "policy": policy, "status": "ok",
                           "reason": None, "lp_bound": None}
    t0 = time.perf_counter()
    try:
        inst, bound = _instance_and_bound(int(seed), profile, base, arrivals)
        row["lp_bound"] = bound
        t0 = time.perf_counter()
        res = simulate(inst, make_policy(policy, read))
        seconds = time.perf_counter() - t0
        validate(inst, res.schedule)
    except LpschedError as exc:
        row.update(status=outcome(exc), reason=str(exc), seconds=time.perf_counter() - t0,
                   events=None, **dict.fromkeys(METRICS))
        return [row]
    m = metrics(inst, res.schedule)
    row.update(seconds=seconds, events=res.events, **m.to_dict())
    row.pop("stretch")
    if "solve_seconds" in res.stats:
        row["solves"] = res.stats["solves"]
        row["solve_seconds"] = res.stats["solve_seconds"]
    return [row]


def cells(instances: int, profile: str = "simgrid", first_seed: int = 0,
          policies: list[str] | None = None,
          base_bandwidth: float | None = None,
          greedy_reading: str | None = None, eager: bool = False,
          arrivals: str = "absolute") -> list[tuple[Any, ...]]:
    """The cells ``(seed, policy, profile, base bandwidth, greedy reading)`` of a run.

    The bandwidth (``None``: the profile's) and the reading (``None``: :func:`reading`) are
    always in the key, so a store filled under another default (10 Mbit/s links for
    ``simgrid``, or another greedy reading) is never read back as today's. ``policies``
    default to the seed's 18, plus the eager CBS3M variants when ``eager``.
    ``arrivals="interarrival"`` adds a sixth key element; the default, absolute dates,
    keeps five, so the stores of five-element keys stay valid.

    Parameters
    ----------
    instances : int
        How many instances (the seed's 1,000 for Tables 4-8); their seeds are
        ``first_seed, first_seed + 1, ...``.
    profile : str
        The generator: ``"simgrid"`` (seed 003 Table 2, the default), ``"mpi"`` (Table
        1, the set-up of Table 3) or ``"balanced"`` (not in the seed: computation and
        communication of one order).
    first_seed : int
        The seed of the first instance (default 0).
    policies : list of str, optional
        The policies run on every instance; ``None`` (the default) or empty: the seed's
        18, and the eager CBS3M variants when ``eager``.
    base_bandwidth : float, optional
        The generator's link bandwidth before slowdowns, bytes/s; ``None`` (the default)
        takes the profile's (12.5e6, 100 Mbit/s, for ``simgrid``; 1.25e6 for ``mpi``;
        1e7 for ``balanced``).
    greedy_reading : str, optional
        The greedy heuristics' reading (:func:`parse_reading`); ``None`` (the default)
        takes today's, :func:`reading`.
    eager : bool
        With the default policies, also the ``cbs3m-*-eager`` variants (decision 318);
        default ``False``.
    arrivals : str
        The generator's release dates: ``"absolute"`` (log-normal dates, the default) or
        ``"interarrival"`` (log-normal gaps accumulated, decision 321).

    Returns
    -------
    list of tuple
        One key per (instance seed, policy), instance by instance, in the policies' order:
        ``(seed, policy, profile, base_bandwidth, reading)``, plus ``arrivals`` when it
        is not ``"absolute"``; each is run by :func:`cell`.

    Raises
    ------
    LpschedError
        An unknown ``profile`` or ``arrivals``, or an invalid ``greedy_reading``.
    """
    if profile not in PROFILES:
        raise LpschedError(f"unknown profile {profile!r}: must be one of {sorted(PROFILES)}")
    names = policies or (policy_names() + [f"{p}{EAGER}" for p in policy_names()
                                           if p.startswith("cbs3m-")] * eager)
    base = float(PROFILES[profile].base_bandwidth if base_bandwidth is None
                 else base_bandwidth)
    read = reading() if greedy_reading is None else greedy_reading
    parse_reading(read)
    if arrivals not in ("absolute", "interarrival"):
        raise LpschedError(f"arrivals {arrivals!r}: must be 'absolute' or 'interarrival'")
    tail = () if arrivals == "absolute" else (arrivals,)
    return [(seed, name, profile, base, read, *tail)
            for seed in range(first_seed, first_seed + instances) for name in names]


def _finished(row: dict[str, Any], metric: str) -> float:
    """The row's value of ``metric``, NaN when the run did not finish (or older rows that
    have no ``status`` key: finished)."""
    value = row.get(metric)
    if row.get("status", "ok") != "ok" or value is None:
        return float("nan")
    return float(value)


EAGER = "-eager"


def select(rows: list[dict[str, Any]], dispatcher: str = "lazy") -> list[dict[str, Any]]:
    """The rows of the seed's 18 policies, CBS3M being the plan dispatcher ``dispatcher``.

    ``"lazy"`` (the registered ``cbs3m-*``, spec §4.4) or ``"eager"`` (the ``cbs3m-*-eager``
    rows, renamed ``cbs3m-*`` so that they take the seed's CBS3M rows). Tables 4–8
    normalise by the best of these 18, as the seed compares its 18.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy), eager
        variants included.
    dispatcher : str
        ``"lazy"`` (the default) or ``"eager"``.

    Returns
    -------
    list of dict
        The rows of the other policies, unchanged, and those of the chosen CBS3M
        dispatcher (copies renamed ``cbs3m-*`` for ``"eager"``), in the order of
        ``rows``.

    Raises
    ------
    LpschedError
        ``dispatcher`` is neither ``"lazy"`` nor ``"eager"``.
    """
    if dispatcher not in ("lazy", "eager"):
        raise LpschedError(f"dispatcher {dispatcher!r}: must be 'lazy' or 'eager'")
    out = []
    for r in rows:
        name = str(r["policy"])
        if name.endswith(EAGER):
            if dispatcher == "eager":
                out.append({**r, "policy": name[:-len(EAGER)]})
        elif not (dispatcher == "eager" and name.startswith("cbs3m-")):
            out.append(r)
    return out


def relative(rows: list[dict[str, Any]], metric: str, tol: float = 1e-9,
             ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Per-instance values of ``metric`` as Tables 4–8 normalise them (spec A29).

    ``(policies, load, rel, best)`` over the instances that have every policy's row, with
    ``load`` the LP optimum of each instance (the "load" of Figures 6–10 [L878]), ``rel``
    (instances x policies) the value over the LP optimum (max-stretch) or over the best of
    the policies that finished (the others), NaN for runs that did not finish, and ``best``
    whether the policy is the best on the instance (ties at ``tol`` relative).

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy) (usually
        :func:`select`'s); every policy found in them is a column.
    metric : str
        One of :data:`METRICS`.
    tol : float
        Relative tolerance of a tie for the best (default 1e-9, decision A31).

    Returns
    -------
    policies : list of str
        The columns, in the registry's order (unregistered names last, sorted).
    load : numpy.ndarray
        Shape ``(instances,)``: each counted instance's LP optimal max-stretch, by
        instance seed (NaN when no row holds it).
    rel : numpy.ndarray
        Shape ``(instances, policies)``: the normalised values, NaN for a run that did
        not finish.
    best : numpy.ndarray of bool
        Shape ``(instances, policies)``: finished and within ``tol`` of the instance's
        lowest value.
    """
    order = policy_names(variants=True)
    policies = sorted({r["policy"] for r in rows},
                      key=lambda p: (order.index(p) if p in order else len(order), p))
    seeds = sorted({r["seed"] for r in rows})
    index = {(r["seed"], r["policy"]): r for r in rows}
    complete = [s for s in seeds if all((s, p) in index for p in policies)]
    values = np.array([[_finished(index[(s, p)], metric) for p in policies]
                       for s in complete], float).reshape(len(complete), len(policies))
    done = np.isfinite(values)
    least = np.where(done, values, np.inf).min(axis=1)
    load = np.array([next((float(index[(s, p)]["lp_bound"]) for p in policies
                           if index[(s, p)].get("lp_bound") is not None), np.nan)
                     for s in complete])
    ref = load if metric == "max_stretch" else np.where(np.isfinite(least), least, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = values / ref[:, None]
        best = done & (values <= least[:, None] * (1 + tol))
    return policies, load, rel, best


def tables(rows: list[dict[str, Any]], tol: float = 1e-9) -> dict[str, dict[str, dict[str, Any]]]:
    """The statistics of Tables 4–8: ``{metric: {policy: {"min", "avg", ...}}}``.

    Over the policies of ``rows`` (:func:`select` gives the seed's 18; module doc). Instances
    count when every policy has a row; ``n`` is the number of them the policy finished,
    ``failed`` the others; statistics over finished runs only (NaN when none), ``best`` in
    percent of all counted instances.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy).
    tol : float
        Relative tolerance of a tie for the best (default 1e-9, decision A31).

    Returns
    -------
    dict
        For each of :data:`METRICS` (Tables 4 to 8 in turn), for each policy of
        :func:`relative`'s order: ``min``, ``avg``, ``sd`` (sample, ``ddof=1``; 0 for a
        single run), ``max`` of the normalised values, ``best`` (percent), ``n`` and
        ``failed`` (ints).
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for metric in METRICS:
        policies, _, rel, best = relative(rows, metric, tol)
        out[metric] = {p: _stats(rel[:, j], best[:, j], rel.shape[0])
                       for j, p in enumerate(policies)}
    return out


def _stats(rel: np.ndarray, best: np.ndarray, count: int) -> dict[str, float | int]:
    ok = rel[np.isfinite(rel)]
    nan = float("nan")
    return {"min": float(ok.min()) if ok.size else nan,
            "avg": float(ok.mean()) if ok.size else nan,
            "sd": float(ok.std(ddof=1)) if ok.size > 1 else (0.0 if ok.size else nan),
            "max": float(ok.max()) if ok.size else nan,
            "best": float(100 * best.mean()) if count else nan,
            "n": int(ok.size), "failed": int(count - ok.size)}


def _num(value: float, spec: str) -> str:
    """``value`` formatted with ``spec``, or a dash of the same width when it is NaN (a
    policy that finished no instance, or no seed average)."""
    if value != value:
        width = int("".join(ch for ch in spec.split(".")[0] if ch.isdigit()) or 0)
        return f"{'-':>{width}}"
    return format(value, spec)


def format_tables(tab: dict[str, dict[str, dict[str, Any]]], profile: str = "simgrid") -> str:
    """Tables 4–8 in the seed's layout, with the seed's average beside ours (for the
    ``mpi`` profile, the max-stretch table's seed column is Table 3's [L847–L859]).

    Parameters
    ----------
    tab : dict
        :func:`tables`' result.
    profile : str
        The generator the rows come from, ``"simgrid"`` (the default) or ``"mpi"``: it
        picks the seed's averages shown beside ours (Table 3's for ``mpi``'s
        max-stretch, Tables 4-8's otherwise).

    Returns
    -------
    str
        Per metric a title line (``Table N — ... (n instances)``), a header, one line per
        policy (min, avg, ± sd, max, best %, the seed's average and our difference, a
        dash where a value is NaN; a ``failed`` column when some run did not finish)
        and a blank line.
    """
    lines = []
    titles = {"max_stretch": "max-stretch / LP optimum", "sum_stretch": "sum-stretch / best",
              "makespan": "makespan / best", "max_flow": "max-flow / best",
              "sum_flow": "sum-flow / best"}
    for metric, per in tab.items():
        n = max(s["n"] + s.get("failed", 0) for s in per.values())
        failures = any(s.get("failed", 0) for s in per.values())
        seed_of = (" (seed avg: Table 3, the MPI experiments)"
                   if profile == "mpi" and metric == "max_stretch" else "")
        lines.append(f"Table {TABLE_OF[metric]} — {titles[metric]} ({n} instances)"
                     + seed_of)
        lines.append(f"{'Algorithm':<20} {'min':>7} {'avg':>7} {'(± sd)':>8} {'max':>7} "
                     f"{'best %':>7}   {'seed avg':>8} {'diff':>7}"
                     + (f" {'failed':>6}" if failures else ""))
        for p, s in per.items():
            seeds = (SEED_TABLE3 if profile == "mpi" and metric == "max_stretch"
                     else SEED_AVERAGES[metric])
            seed = seeds.get(p, float("nan"))
            lines.append(f"{p:<20} {_num(s['min'], '>7.3f')} {_num(s['avg'], '>7.3f')} "
                         f"{_num(s['sd'], '>8.3f')} {_num(s['max'], '>7.3f')} "
                         f"{_num(s['best'], '>7.1f')}   {_num(seed, '>8.3f')} "
                         f"{_num(s['avg'] - seed, '>+7.3f')}"
                         + (f" {s.get('failed', 0):>6}" if failures else ""))
        lines.append("")
    return "\n".join(lines)


def _open_csv(path: Path) -> contextlib.AbstractContextManager[IO[str]]:
    return open(path, "w", newline="")


def write_csv(tab: dict[str, dict[str, dict[str, Any]]], rows: list[dict[str, Any]], out: Path,
              opener: Callable[[Path], contextlib.AbstractContextManager[IO[str]]] = _open_csv,
              ) -> None:
    """Tables 4-8 (``table<N>_<metric>.csv``) and every row (``cbs3m_rows.csv``, with each
    run's ``status`` and ``reason``) into the folder ``out``. ``opener(path)`` opens a file
    for writing (text, ``newline=""``); the CLI passes an atomic writer.

    Parameters
    ----------
    tab : dict
        :func:`tables`' result; each table's CSV has the columns ``policy, min, avg, sd,
        max, best_percent, instances, seed_avg, failed``.
    rows : list of dict
        The rows of :func:`cell` to write to ``cbs3m_rows.csv`` (every policy, eager
        variants included); a missing field is written empty (``status`` as ``ok``).
    out : Path
        The folder (created if missing, with its parents).
    opener : callable
        ``opener(path)`` returns a context manager of a text file open for writing;
        default :func:`open` with ``newline=""`` (no atomic replacement).
    """
    out.mkdir(parents=True, exist_ok=True)
    for metric, per in tab.items():
        with opener(out / f"table{TABLE_OF[metric]}_{metric}.csv") as fh:
            w = csv.writer(fh)
            w.writerow(["policy", "min", "avg", "sd", "max", "best_percent", "instances",
                        "seed_avg", "failed"])
            for p, s in per.items():
                w.writerow([p, s["min"], s["avg"], s["sd"], s["max"], s["best"], s["n"],
                            SEED_AVERAGES[metric].get(p, ""), s.get("failed", 0)])
    keys = ["seed", "policy", "status", "lp_bound", *METRICS, "seconds", "events", "solves",
            "reason"]
    with opener(out / "cbs3m_rows.csv") as fh:
        w = csv.writer(fh)
        w.writerow(keys)
        for r in rows:
            w.writerow([r.get(k, "ok" if k == "status" else "") for k in keys])


def by_instance(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Group key of a cell: its instance (every policy of one instance runs together).

    Parameters
    ----------
    key : tuple
        A cell of :func:`cells`.

    Returns
    -------
    tuple
        The cell without its policy: ``(seed, profile, base_bandwidth, reading[,
        arrivals])``, the ``group`` of :func:`lpsched.core.runner.run_cells` (the
        instance and its LP bound are then computed once per worker).
    """
    return (key[0], *key[2:])


#: Figures 6–10 of seed 003 [L915–L1015]: each metric against the load, by figure number.
FIGURE_OF = {"max_stretch": 6, "sum_stretch": 7, "makespan": 8, "max_flow": 9, "sum_flow": 10}
#: Figure 5 [L845, L872]: "the best four algorithms, CBS3M using EDF policy, in both the
#: offline and online versions, MWMA NBT and SWRPT" (SWRPT with MCT, its best resource rule
#: in Table 3), per experiment, on the MPI set-up.
FIGURE5_POLICIES = ("cbs3m-edf-offline", "cbs3m-edf-online", "mwma-nbt", "swrpt-mct")
#: Columns of the CSV behind each figure.
CURVE_COLUMNS = ("figure", "metric", "bin", "load_lo", "load_hi", "load_mid", "policy",
                 "instances", "mean", "sd", "min", "max")


def best_policies(rows: list[dict[str, Any]], metric: str, count: int = 4) -> list[str]:
    """The ``count`` policies with the lowest average of ``metric`` (normalised as in
    Tables 4–8; "the best ones" of Figures 6–10 [L878], which the seed does not name),
    in the registry's order.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy) (usually
        :func:`select`'s).
    metric : str
        One of :data:`METRICS`.
    count : int
        How many policies (default 4, the curves of each of Figures 6-10).

    Returns
    -------
    list of str
        At most ``count`` policy names, returned in :func:`relative`'s order; a policy
        that finished no instance is picked last, and ties go to the earlier one.
    """
    policies, _, rel, _ = relative(rows, metric)
    with np.errstate(invalid="ignore"):
        avg = [float(np.nanmean(rel[:, j])) if np.isfinite(rel[:, j]).any() else np.inf
               for j in range(len(policies))]
    chosen = sorted(np.argsort(avg, kind="stable")[:count])
    return [policies[j] for j in chosen]


def load_curves(rows: list[dict[str, Any]], metric: str, policies: list[str] | None = None,
                bins: int = 8) -> list[dict[str, Any]]:
    """The data of Figures 6–10 [L878, L915–L1015]: ``metric`` against the load.

    ``metric`` is normalised as in Tables 4–8; the load is the instance's LP optimal
    max-stretch, cut into ``bins`` bins of equal width between the smallest and the largest
    load (empty bins left out). One row per (bin, policy) with the finished runs'
    ``instances``, ``mean``, ``sd``, ``min`` and ``max`` (columns :data:`CURVE_COLUMNS`).
    ``policies`` default to :func:`best_policies`.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy) (usually
        :func:`select`'s).
    metric : str
        One of :data:`METRICS`; also names the figure (:data:`FIGURE_OF`).
    policies : list of str, optional
        The curves; names without rows are skipped. ``None`` (the default): the four of
        :func:`best_policies`.
    bins : int
        The number of load bins, >= 1 (default 8); one bin when every instance has the
        same load.

    Returns
    -------
    list of dict
        The rows by bin, then policy: ``figure``, ``metric``, ``bin`` (its index),
        ``load_lo``, ``load_hi`` and ``load_mid`` (the bin's edges and middle, in LP
        max-stretch), ``policy``, ``instances`` (finished runs in the bin), ``mean``,
        ``sd`` (sample; 0 for one run), ``min`` and ``max`` (NaN when none finished).
        Empty when no instance has a finite load.

    Raises
    ------
    LpschedError
        An unknown ``metric``, or ``bins`` below 1.
    """
    if metric not in METRICS:
        raise LpschedError(f"metric {metric!r}: must be one of {METRICS}")
    if bins < 1:
        raise LpschedError(f"bins {bins}: must be at least 1")
    names, load, rel, _ = relative(rows, metric)
    chosen = list(policies) if policies is not None else best_policies(rows, metric)
    if not load.size or not np.isfinite(load).any():
        return []
    lo, hi = float(np.nanmin(load)), float(np.nanmax(load))
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.array([lo, hi])
    which = np.clip(np.searchsorted(edges, load, side="right") - 1, 0, edges.size - 2)
    out = []
    for b in range(edges.size - 1):
        members = which == b
        if not members.any():
            continue
        for p in chosen:
            if p not in names:
                continue
            v = rel[members, names.index(p)]
            v = v[np.isfinite(v)]
            out.append({"figure": FIGURE_OF[metric], "metric": metric, "bin": b,
                        "load_lo": float(edges[b]), "load_hi": float(edges[b + 1]),
                        "load_mid": float((edges[b] + edges[b + 1]) / 2), "policy": p,
                        "instances": int(v.size),
                        "mean": float(v.mean()) if v.size else float("nan"),
                        "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                        "min": float(v.min()) if v.size else float("nan"),
                        "max": float(v.max()) if v.size else float("nan")})
    return out


def figure5_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The data of Figure 5 [L845, L872]: the relative max-stretch of
    :data:`FIGURE5_POLICIES` on each instance (the seed's "Exp1"–"Exp10" of Table 3), one
    row per (instance seed, policy) with columns ``figure, seed, load, policy, value``.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy) (usually
        :func:`select`'s, on the ``mpi`` profile).

    Returns
    -------
    list of dict
        By instance seed, then in :data:`FIGURE5_POLICIES`' order (policies without rows
        left out): ``figure`` (5), ``seed``, ``load`` (the instance's LP optimal
        max-stretch), ``policy`` and ``value`` (its max-stretch over the LP optimum, NaN
        when the run did not finish). Only instances with a row for every policy count.
    """
    names, load, rel, _ = relative(rows, "max_stretch")
    seeds = sorted({r["seed"] for r in rows})
    index = {(r["seed"], r["policy"]) for r in rows}
    complete = [s for s in seeds if all((s, p) in index for p in names)]
    return [{"figure": 5, "seed": s, "load": float(load[i]), "policy": p,
             "value": float(rel[i, names.index(p)])}
            for i, s in enumerate(complete) for p in FIGURE5_POLICIES if p in names]


def write_figures(rows: list[dict[str, Any]], out: Path, figure5: bool = False,
                  opener: Callable[[Path], contextlib.AbstractContextManager[IO[str]]]
                  = _open_csv, bins: int = 8,
                  saver: Callable[[Any, Path], None] | None = None,
                  draw: bool = True) -> list[Path]:
    """Write Figures 6–10 (and 5 when ``figure5``, the MPI set-up) into ``out``.

    ``fig<N>_<metric>.csv`` (the data, :func:`load_curves` / :func:`figure5_rows`) and
    ``fig<N>_<metric>.png`` beside it when ``draw`` (:mod:`lpsched.bags.plotting`, saved
    by ``saver(figure, path)``, default :func:`lpsched.bags.plotting.save`; without
    matplotlib a ``LpschedError`` names the extra, the CSVs being written first).
    ``rows``: the seed's 18 policies (:func:`select`). Returns the files written.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy).
    out : Path
        The folder (created if missing, with its parents); existing files are replaced.
    figure5 : bool
        Also Figure 5 (default ``False``; the seed draws it for the MPI set-up only).
    opener : callable
        ``opener(path)`` returns a context manager of a text file open for writing
        (``newline=""``); default plain :func:`open`, the CLI passes an atomic writer.
    bins : int
        Load bins of Figures 6-10 (:func:`load_curves`; default 8).
    saver : callable, optional
        ``saver(figure, path)`` writes a matplotlib figure; ``None`` (the default):
        :func:`lpsched.bags.plotting.save`.
    draw : bool
        Draw the PNGs (default ``True``); ``False`` writes the CSVs only, without
        matplotlib.

    Returns
    -------
    list of Path
        The CSV files (Figure 5 first when asked, then 6 to 10), then the PNGs in the
        same order when ``draw``.

    Raises
    ------
    LpschedError
        ``draw`` without matplotlib installed (after the CSVs are written).
    """
    from lpsched.bags import plotting

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    data: list[tuple[int, str, list[dict[str, Any]]]] = []
    for metric in METRICS:
        data.append((FIGURE_OF[metric], metric, load_curves(rows, metric, bins=bins)))
    if figure5:
        data.insert(0, (5, "max_stretch", figure5_rows(rows)))
    for number, metric, curve in data:
        path = out / f"fig{number}_{metric}.csv"
        cols = CURVE_COLUMNS if number != 5 else ("figure", "seed", "load", "policy", "value")
        with opener(path) as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            for r in curve:
                w.writerow([r[c] for c in cols])
        written.append(path)
    store = saver or plotting.save
    for number, metric, curve in data if draw else []:
        png = out / f"fig{number}_{metric}.png"
        ax = (plotting.figure5(curve) if number == 5
              else plotting.load_figure(curve, metric, title=f"Figure {number}"))
        store(ax.figure, png)
        written.append(png)
    return written


def read_curve_csv(path: Path) -> list[dict[str, Any]]:
    """Rows of a ``fig<N>_<metric>.csv`` written by :func:`write_figures`, numbers parsed
    (for ``lpsched plot load`` and the tests).

    Parameters
    ----------
    path : Path
        The CSV file, with its header line.

    Returns
    -------
    list of dict
        One dict per line, keyed by the header: ``figure``, ``bin``, ``instances`` and
        ``seed`` as int, ``metric`` and ``policy`` as str, every other column as float
        (``nan`` where the file says so).
    """
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    ints = {"figure", "bin", "instances", "seed"}
    text = {"metric", "policy"}
    return [{k: (v if k in text else int(v) if k in ints else float(v))
             for k, v in r.items()} for r in rows]


def format_dispatchers(rows: list[dict[str, Any]]) -> str:
    """Tables 4, 6 and 7's CBS3M rows under the lazy and the eager plan dispatcher (each
    normalised among the seed's 18 policies with that dispatcher, :func:`select`), with the
    leader of each table; empty when the rows hold no eager run.

    Parameters
    ----------
    rows : list of dict
        The stored rows of :func:`cell`, one per (instance seed, policy), eager
        variants included.

    Returns
    -------
    str
        A title line, a header, one line per CBS3M policy (its average and best % in
        Tables 4, 6 and 7 under each dispatcher) and a ``leader`` line (the policy with
        the lowest average), newline-terminated; ``""`` without eager rows.
    """
    if not any(str(r["policy"]).endswith(EAGER) for r in rows):
        return ""
    tabs = {d: tables(select(rows, d)) for d in ("lazy", "eager")}
    lines = ["CBS3M dispatchers: lazy (spec §4.4) vs eager, avg (best %)"]
    head = f"{'Algorithm':<20}"
    metrics = ("max_stretch", "makespan", "max_flow")
    for metric in metrics:
        t = f"T{TABLE_OF[metric]}"
        head += f" {t + ' lazy':>16} {t + ' eager':>16}"
    lines.append(head)
    for p in [p for p in policy_names() if p.startswith("cbs3m") and not p.endswith(EAGER)]:
        line = f"{p:<20}"
        for metric in metrics:
            for d in ("lazy", "eager"):
                s = tabs[d][metric].get(p)
                line += (f" {_num(s['avg'], '>7.3f')} ({_num(s['best'], '>5.1f')}%)"
                         if s else f" {'-':>16}")
        lines.append(line)
    line = f"{'leader':<20}"
    for metric in metrics:
        for d in ("lazy", "eager"):
            per = {p: s["avg"] for p, s in tabs[d][metric].items() if s["avg"] == s["avg"]}
            leader = min(per, key=lambda p: (per[p], p)) if per else "-"
            line += f" {leader:>16}"
    lines.append(line)
    return "\n".join(lines) + "\n"
