"""Seed 002: fair scheduling of user campaigns (MULTICAMP, FairCamp, OStrich, parallel OStrich,
campaign extraction from SWF logs).

See docs/families/campaigns.md.
"""

from lpsched.campaigns.instance import Workload, from_dict, load_workload, save_workload, to_dict

__all__ = ["Workload", "from_dict", "load_workload", "save_workload", "to_dict"]
