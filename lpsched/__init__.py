"""lpsched: scheduling on parallel and distributed platforms with linear programming.

The most used entry points are re-exported here::

    import lpsched
    inst = lpsched.load_instance("inst.json")
    res = lpsched.max_stretch(inst, method="intervals")
    lpsched.throughput(inst.platform, inst.applications[0])
"""

from lpsched.bags import (
    Application,
    Instance,
    StarPlatform,
    load_instance,
    random_bags,
    save_instance,
)
from lpsched.bags.check import PlanCheck, check_plan
from lpsched.bags.maxstretch import (
    MaxStretchResult,
    StretchPlan,
    critical_values,
    max_stretch,
    online_max_stretch,
)
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.steady_state import dedicated_makespans, dedicated_throughputs, throughput
from lpsched.core.versions import __version__
from lpsched.errors import (
    InfeasibleError,
    InvalidInstanceError,
    InvalidPlanError,
    LpschedError,
    ParseError,
    SolverError,
)

__all__ = [
    "Application",
    "InfeasibleError",
    "Instance",
    "InvalidInstanceError",
    "InvalidPlanError",
    "LpschedError",
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
