"""Online scheduling of independent sequential tasks on identical processors (seed 000 ch. 3).

The redirection of heavy tasks to a dedicated pool (GSPT-RD, SPT-RD, GSPT-RR, SPT-RR) and
its baselines (FCFS, GSPT, GSRPT, SPT, SRPT with the ΔF dispatch rule), simulated online
(:mod:`.simulator`), checked by an independent validator and measured by the chapter's six
metrics (:mod:`.schedule`) against proven lower bounds (:mod:`.bounds`); instances from SWF
traces (:mod:`.instance`), the policies side by side (:mod:`.comparison`) and the
reproduction of §3.5 (:mod:`.reproduce`).
"""

from lpsched.tasks.instance import (
    TRACES,
    TaskInstance,
    instance_from_trace,
    load_instance,
    save_instance,
)
from lpsched.tasks.policies import REGISTRY, OnlinePolicy, get_policy
from lpsched.tasks.schedule import TaskSchedule, metrics, validate_schedule
from lpsched.tasks.simulator import OnlineResult, evaluate, simulate

__all__ = ["REGISTRY", "TRACES", "OnlinePolicy", "OnlineResult", "TaskInstance",
           "TaskSchedule", "evaluate", "get_policy", "instance_from_trace",
           "load_instance", "metrics", "save_instance", "simulate", "validate_schedule"]
