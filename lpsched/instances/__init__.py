"""Platforms, workloads and their files."""

from lpsched.instances.bags import Application, Instance
from lpsched.instances.generators import PROFILES, random_bags
from lpsched.instances.io import instance_from_dict, instance_to_dict, load_instance, save_instance
from lpsched.instances.platform import PORTS, StarPlatform

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
    "save_instance",
]
