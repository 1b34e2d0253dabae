"""Policies for the simulators, found by name (``lpsched policies`` lists them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from lpsched.bags.policies.cbs3m import CBS3M
from lpsched.bags.policies.greedy import APP_RULES, RESOURCE_RULES, GreedyPolicy
from lpsched.bags.policies.mwma import MWMA
from lpsched.bags.simulator import StarPolicy
from lpsched.errors import LpschedError

_APP_TEXT = {"fifo": "first released first", "spt": "smallest MS* first",
             "srpt": "smallest remaining time first (preempts at releases)",
             "swrpt": "smallest remaining time x MS* first (preempts at releases)"}
_RES_TEXT = {"rr": "round-robin over the workers", "mct": "minimum completion time",
             "dd": "demand driven (idle workers ask)"}


@dataclass(frozen=True)
class PolicyEntry:
    """A registered master-worker policy: its ``name``, the line ``lpsched policies``
    prints, and ``factory()``, which makes a fresh policy object for one simulation."""

    name: str
    description: str
    factory: Callable[[], StarPolicy]
    variant: bool = False


#: policy name -> entry: the 12 greedy heuristics, MWMA (2) and CBS3M (4) of seed 003 §4.1,
#: and the 4 eager CBS3M variants (decision 318)
REGISTRY: dict[str, PolicyEntry] = {}


def register(name: str, description: str, factory: Callable[[], StarPolicy],
             variant: bool = False) -> None:
    """Add a policy to :data:`REGISTRY` under ``name``.

    ``factory()`` must return a new policy object at each call. A ``variant`` is a policy
    that is not one of the seed's 18 (e.g. the eager CBS3M dispatcher): found by name, left
    out of :func:`policy_names` unless asked for.

    Parameters
    ----------
    name : str
        The policy's name, as ``lpsched simulate --policy`` and :func:`get_policy` take it.
    description : str
        One line shown by ``lpsched policies``.
    factory : callable
        Called with no argument, returns a new :class:`StarPolicy` object (policies keep
        state between decisions, so each run needs its own).
    variant : bool
        ``True`` for a policy that is not one of the seed's 18 (left out of
        :func:`policy_names` and of ``all``); default ``False``.

    Raises
    ------
    LpschedError
        ``name`` is already registered.
    """
    if name in REGISTRY:
        raise LpschedError(f"policy {name!r} is already registered")
    REGISTRY[name] = PolicyEntry(name, description, factory, variant)


for _a in APP_RULES:
    for _r in RESOURCE_RULES:
        register(f"{_a}-{_r}", f"seed 003 §4.1: {_APP_TEXT[_a]}, {_RES_TEXT[_r]}",
                 partial(GreedyPolicy, _a, _r))

register("mwma-nbt", "seed 003 §4.1: steady-state shares by tasks left (MWMA, NBT weights)",
         lambda: MWMA("nbt"))
register("mwma-ms", "seed 003 §4.1: steady-state shares by dedicated time left (MWMA, MS)",
         lambda: MWMA("ms"))

for _order in ("fifo", "edf"):
    for _online in (True, False):
        register(f"cbs3m-{_order}-{'online' if _online else 'offline'}",
                 f"seed 003 §3.5/§4.1: follow the optimal max-stretch plan "
                 f"({'re-solved at every arrival' if _online else 'solved once, clairvoyant'}),"
                 f" {_order.upper()} workers",
                 partial(CBS3M, _order, _online))
for _order in ("fifo", "edf"):
    for _online in (True, False):
        register(f"cbs3m-{_order}-{'online' if _online else 'offline'}-eager",
                 f"as cbs3m-{_order}-{'online' if _online else 'offline'}, the "
                 "port never idling while the plan has a task to send (next interval "
                 "opened early)", partial(CBS3M, _order, _online, True), variant=True)


def get_policy(name: str) -> StarPolicy:
    """A fresh policy object for ``name`` (see :data:`REGISTRY`).

    Parameters
    ----------
    name : str
        A registered policy name (``lpsched policies`` lists them), e.g. ``"fifo-rr"`` or
        ``"cbs3m-edf-online"``.

    Returns
    -------
    StarPolicy
        A new policy object, made by the entry's factory.

    Raises
    ------
    LpschedError
        ``name`` is not registered.
    """
    try:
        return REGISTRY[name].factory()
    except KeyError:
        raise LpschedError(f"unknown policy {name!r}; `lpsched policies` lists "
                           f"{len(REGISTRY)} names") from None


def policy_names(variants: bool = False) -> list[str]:
    """The registered policy names, in registration order: the seed's 18 (what ``all``
    means), and the variants too when ``variants``.

    Parameters
    ----------
    variants : bool
        Include the variants (policies outside the seed's 18); default ``False``.

    Returns
    -------
    list of str
        The names, in registration order.
    """
    return [n for n, e in REGISTRY.items() if variants or not e.variant]
