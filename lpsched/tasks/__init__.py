"""Seed 000 ch. 3: online scheduling of independent sequential tasks on identical
processors, with redirection of heavy tasks to a dedicated pool (GSPT-RD, SPT-RD, GSPT-RR,
SPT-RR), the baselines (FCFS, GSPT, GSRPT, SPT, SRPT with the ΔF dispatch rule), an
independent schedule validator, the six metrics and proven lower bounds."""

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
