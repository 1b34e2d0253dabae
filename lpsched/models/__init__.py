"""The declarative LP layer: :class:`LinearProgram`, data with no solving and no I/O.

The builders that turn a family's instance into a :class:`LinearProgram` (the bags
family's throughput and stretch LPs, the online tasks' deadline LP) live in their family,
since they read the family's types (decision 62); the solvers and emitters are
:mod:`lpsched.solvers`.
"""

from lpsched.models.program import Block, LinearProgram

__all__ = ["Block", "LinearProgram"]
