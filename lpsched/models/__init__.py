"""Declarative model builders: instance -> LinearProgram (no solving, no I/O)."""

from lpsched.models.program import Block, LinearProgram

__all__ = ["Block", "LinearProgram"]
