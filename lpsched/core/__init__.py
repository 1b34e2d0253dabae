"""The shared core: numerical tolerances, the event engine, the experiment runner and its
resumable result store, versions. Families build on it; it imports no family."""

from lpsched.core.runner import run_cells
from lpsched.core.store import ResultStore

__all__ = ["ResultStore", "run_cells"]
