"""Experiments: cells mapped over an executor into a resumable result store."""

from lpsched.experiments.runner import run_cells
from lpsched.experiments.store import ResultStore

__all__ = ["ResultStore", "run_cells"]
