"""The online policies of seed 000 ch. 3 (§3.4), found by name (``lpsched policies``).

A policy is data (:class:`OnlinePolicy`): its paradigm (one common queue, or immediate
dispatch to one queue per processor by the ΔF rule of §3.4.4), the order of its queues,
whether it preempts, and its redirection rule with parameters. The event simulator
(:mod:`lpsched.tasks.simulator`) reads it.

The readings of the seed's text (decision 76): A3.4 a GSPT-RD counter
counts an arrival only when it must wait (no main-pool processor is free for it) and only
running main-pool tasks are candidates; A3.5 SRPT/GSRPT preempt when ``p_j < p_k(r_j)``
(strict, as the ΔF exception and the counters), so equal remaining times never swap; A3.6 a
counter starts at 0 with each execution; A3.7 ``pmax`` includes the arriving task, one
``numpy`` generator seeded by ``seed`` draws ``c_j`` for the potentially heavy tasks in
arrival order; A3.9 ties of ΔF go to the lowest processor index, the dedicated pool of
SPT-RD/SPT-RR dispatches by the same rule (general case) over its ``m_d`` processors; A3.12
FCFS, GSPT, GSRPT, SPT and SRPT use all ``m`` processors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from lpsched.errors import LpschedError

#: parameters when the trace's Table 3.2 values are unknown
DEFAULTS = {"md": 5, "tau": 2.0, "b": 0.02, "c": 0.8}


@dataclass(frozen=True)
class OnlinePolicy:
    """An online policy as data: its queues, whether it preempts, and its redirection rule.

    ``paradigm``: ``"common"`` or ``"dispatch"``; ``order``: ``"release"`` (FCFS), ``"p"``
    (SPT) or ``"remaining"`` (SRPT); ``redirect``: ``None``, ``"threshold"`` (RD: ``md``,
    ``tau``) or ``"random"`` (RR: ``md``, ``b``, ``c``, ``seed``).
    """

    name: str
    paradigm: str
    order: str
    preemptive: bool = False
    redirect: str | None = None
    md: int = 0
    tau: float = math.inf
    b: float = 0.02
    c: float = 0.8
    seed: int = 0

    def params(self) -> dict[str, Any]:
        """The parameters that matter for this policy (for tables and JSON).

        Returns
        -------
        dict
            ``{"md", "tau"}`` for the RD policies (dedicated processors ``m_d``, threshold
            ``τ``), ``{"md", "b", "c", "seed"}`` for the RR ones (seed 000 §3.4.3), ``{}``
            otherwise.
        """
        if self.redirect == "threshold":
            return {"md": self.md, "tau": self.tau}
        if self.redirect == "random":
            return {"md": self.md, "b": self.b, "c": self.c, "seed": self.seed}
        return {}

    def check(self, processors: int) -> OnlinePolicy:
        """Check the parameters against the machine (seed 000 §3.4.3's ranges).

        Parameters
        ----------
        processors : int
            The instance's ``m``.

        Returns
        -------
        OnlinePolicy
            ``self``, unchanged.

        Raises
        ------
        LpschedError
            On ``m_d`` outside ``1 <= m_d < m``, ``τ < 1``, or ``b, c`` outside ``[0, 1]``.
        """
        if self.redirect is None:
            return self
        if not 1 <= self.md < processors:
            raise LpschedError(f"--md {self.md}: the dedicated pool needs 1 <= m_d < m = "
                               f"{processors} processors")
        if self.redirect == "threshold" and not self.tau >= 1:
            raise LpschedError(f"--tau {self.tau}: the threshold must be >= 1")
        for key in ("b", "c"):
            value = getattr(self, key)
            if self.redirect == "random" and not 0 <= value <= 1:
                raise LpschedError(f"--{key} {value}: must be in [0, 1]")
        return self


@dataclass(frozen=True)
class PolicyEntry:
    """A registered online policy: its ``name``, the line ``lpsched policies --family
    tasks`` prints, and ``base``, the policy with its default parameters
    (:func:`get_policy` sets others)."""

    name: str
    description: str
    base: OnlinePolicy


#: policy name -> entry: FCFS, the (G)SPT/(G)SRPT baselines and the redirection policies
#: of seed 000 ch. 3
REGISTRY: dict[str, PolicyEntry] = {}


def _register(name: str, description: str, **spec: Any) -> None:
    REGISTRY[name] = PolicyEntry(name, description, OnlinePolicy(name, **spec))


_register("fcfs", "seed 000 §3.4.1: common queue, earliest release first",
          paradigm="common", order="release")
_register("gspt", "seed 000 §3.4.1: common queue, shortest processing time first",
          paradigm="common", order="p")
_register("gsrpt", "seed 000 §3.4.1: common queue, shortest remaining time, an arrival "
          "preempts the longest running task (preemptive)", paradigm="common",
          order="remaining", preemptive=True)
_register("spt", "seed 000 §3.4.1: ΔF dispatch, shortest processing time per processor",
          paradigm="dispatch", order="p")
_register("srpt", "seed 000 §3.4.1: ΔF dispatch, shortest remaining time per processor "
          "(preemptive)", paradigm="dispatch", order="remaining", preemptive=True)
_register("gspt-rd", "seed 000 §3.4.2: GSPT, a task delaying tau smaller arrivals restarts "
          "on m_d dedicated processors", paradigm="common", order="p", redirect="threshold")
_register("spt-rd", "seed 000 §3.4.2: SPT with ΔF dispatch, threshold tau, m_d dedicated "
          "processors", paradigm="dispatch", order="p", redirect="threshold")
_register("gspt-rr", "seed 000 §3.4.3: GSPT, tasks with p >= b·pmax go to m_d dedicated "
          "processors with probability c", paradigm="common", order="p", redirect="random")
_register("spt-rr", "seed 000 §3.4.3: SPT with ΔF dispatch, random redirection (b, c, m_d)",
          paradigm="dispatch", order="p", redirect="random")

#: the eight methods the chapter compares (L1951-1953), then FCFS
CHAPTER_POLICIES = ("spt", "gspt", "srpt", "gsrpt", "spt-rd", "gspt-rd", "spt-rr", "gspt-rr")
ALL_POLICIES = (*CHAPTER_POLICIES, "fcfs")


def get_policy(name: str, md: int | None = None, tau: float | None = None,
               b: float | None = None, c: float | None = None, seed: int = 0,
               ) -> OnlinePolicy:
    """Find a registered policy by name and set its parameters (unset ones: :data:`DEFAULTS`).

    Parameters
    ----------
    name : str
        A registered name (``lpsched policies --family tasks``): ``fcfs``, ``spt``, ``srpt``,
        ``gspt``, ``gsrpt``, ``spt-rd``, ``gspt-rd``, ``spt-rr``, ``gspt-rr``.
    md : int, optional
        Dedicated processors ``m_d`` (RD and RR policies).
    tau : float, optional
        The RD threshold ``τ >= 1``: interruptions before a running task is redirected.
    b, c : float, optional
        RR: a task is potentially heavy when ``p_j >= b·pmax``; it is redirected with
        probability ``c``.
    seed : int
        Seed of the RR draws.

    Returns
    -------
    OnlinePolicy
        The registered policy; with its parameters set when it redirects (the others take
        none).

    Raises
    ------
    LpschedError
        For an unknown name (the known ones listed).
    """
    try:
        base = REGISTRY[name].base
    except KeyError:
        raise LpschedError(f"unknown policy {name!r}; known: {', '.join(REGISTRY)}") from None
    given = {"md": md, "tau": tau, "b": b, "c": c}
    values = {k: (v if v is not None else DEFAULTS[k]) for k, v in given.items()}
    if base.redirect is None:
        return base
    return replace(base, md=int(values["md"]), tau=float(values["tau"]),
                   b=float(values["b"]), c=float(values["c"]), seed=int(seed))


def table_params(name: str, info: Any) -> dict[str, float]:
    """Table 3.2's parameters of ``name`` for a trace row (seed 000 [L1976-1986]).

    Parameters
    ----------
    name : str
        A policy name (only the RD and RR policies have parameters there).
    info : TraceInfo or None
        The trace's Table 3.1 row (:func:`~lpsched.tasks.instance.trace_info`).

    Returns
    -------
    dict
        ``{"md", "tau"}`` for ``*-rd``, ``{"md", "c"}`` for ``*-rr``, ``{}`` when the table
        has none.
    """
    if info is None or name not in info.params:
        return {}
    md, x = info.params[name]
    return {"md": md, "tau": x} if name.endswith("-rd") else {"md": md, "c": x}
