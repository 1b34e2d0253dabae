"""Seed 003: concurrent bags of tasks on a heterogeneous star platform.

Instances (star platforms, applications), steady-state throughput, the optimal
max-stretch (:mod:`lpsched.bags.maxstretch`: the polyhedra (K)/(K1), Algorithms 1-2, the
online re-solve), the plan checker, 1-D load balancing and the schedule constructions of
Theorems 3, 4 and 6, the master-worker simulator with its 18 policies, and the reproduction
of Tables 3-8. This package's top level exports the instance types and their files (JSON,
and SimGrid platform files: :mod:`lpsched.bags.simgrid`).
"""

from lpsched.bags.generators import PROFILES, random_bags
from lpsched.bags.instance import Application, Instance
from lpsched.bags.io import instance_from_dict, instance_to_dict, load_instance, save_instance
from lpsched.bags.platform import PORTS, StarPlatform
from lpsched.bags.simgrid import read_simgrid_platform, write_simgrid_platform

__all__ = [
    "PORTS",
    "PROFILES",
    "Application",
    "Instance",
    "StarPlatform",
    "instance_from_dict",
    "instance_to_dict",
    "load_instance",
    "random_bags",
    "read_simgrid_platform",
    "save_instance",
    "write_simgrid_platform",
]
