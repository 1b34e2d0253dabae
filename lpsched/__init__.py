"""lpsched: scheduling on parallel and distributed platforms with linear programming.

The most used entry points are re-exported here::

    import lpsched
    inst = lpsched.load_instance("inst.json")
    res = lpsched.max_stretch(inst, method="intervals")
    lpsched.throughput(inst.platform, inst.applications[0])

The names are loaded on first use (PEP 562 ``__getattr__``): ``import lpsched`` alone, and
every command that does not need them (``lpsched batch``), imports neither scipy nor
highspy (decision 160). ``from lpsched import max_stretch`` works all the same.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from lpsched.core.versions import __version__
from lpsched.errors import (
    InfeasibleError,
    InvalidInstanceError,
    InvalidPlanError,
    LpschedError,
    LpschedWarning,
    ParseError,
    SolverError,
)

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from lpsched.bags import (
        Application,
        Instance,
        StarPlatform,
        load_instance,
        random_bags,
        save_instance,
    )
    from lpsched.bags.check import PlanCheck, check_plan
    from lpsched.bags.maxstretch import critical_values, max_stretch, online_max_stretch
    from lpsched.bags.maxstretch.results import MaxStretchResult, StretchPlan
    from lpsched.bags.schedule import metrics, validate
    from lpsched.bags.steady_state import (
        dedicated_makespans,
        dedicated_throughputs,
        throughput,
    )

#: lazily re-exported name -> the module that defines it
_LAZY = {
    **dict.fromkeys(("Application", "Instance", "StarPlatform", "load_instance",
                     "random_bags", "save_instance"), "lpsched.bags"),
    **dict.fromkeys(("PlanCheck", "check_plan"), "lpsched.bags.check"),
    **dict.fromkeys(("critical_values", "max_stretch", "online_max_stretch"),
                    "lpsched.bags.maxstretch"),
    **dict.fromkeys(("MaxStretchResult", "StretchPlan"), "lpsched.bags.maxstretch.results"),
    **dict.fromkeys(("metrics", "validate"), "lpsched.bags.schedule"),
    **dict.fromkeys(("dedicated_makespans", "dedicated_throughputs", "throughput"),
                    "lpsched.bags.steady_state"),
}


def __getattr__(name: str) -> Any:
    """Load a re-exported name on first use and keep it (PEP 562); ``lpsched.experiments``
    (the result store as pandas DataFrames) is loaded the same way."""
    if name == "experiments":
        return import_module("lpsched.experiments")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpsched' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"experiments"})


__all__ = [
    "Application",
    "InfeasibleError",
    "Instance",
    "InvalidInstanceError",
    "InvalidPlanError",
    "LpschedError",
    "LpschedWarning",
    "MaxStretchResult",
    "ParseError",
    "PlanCheck",
    "SolverError",
    "StarPlatform",
    "StretchPlan",
    "__version__",
    "check_plan",
    "critical_values",
    "dedicated_makespans",
    "dedicated_throughputs",
    "load_instance",
    "max_stretch",
    "metrics",
    "online_max_stretch",
    "random_bags",
    "save_instance",
    "throughput",
    "validate",
]
