"""Reproduction reports: every published result of a seed beside ours, one page per seed.

``lpsched report STORE... --out DIR`` (:func:`build_report`) reads the result stores of any
reproductions run, rebuilds each experiment's seed-vs-ours table from the stored rows and
draws the seed's figures through the family's report hook (:mod:`lpsched.report.parts`),
and writes one standalone page per seed (HTML with its images beside it, and Markdown):
the tally at the top, then every entry of the seed's manifest (:mod:`lpsched.report.manifest`)
in the seed's order, with the seed's values, ours, the verdict and the evidence of every
difference.

The names are loaded on first use (PEP 562 ``__getattr__``), so that a family's report hook
importing :mod:`lpsched.report.parts` (as ``reproduce redirection``'s table does) does not
load the builder, its pages and its manifest (decision 693).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lpsched.report.build import Report, build_report
    from lpsched.report.manifest import Entry, manifest

__all__ = ["Entry", "Report", "build_report", "manifest"]

#: lazily re-exported name -> the module that defines it
_LAZY = {"Report": "lpsched.report.build", "build_report": "lpsched.report.build",
         "Entry": "lpsched.report.manifest", "manifest": "lpsched.report.manifest"}


def __getattr__(name: str) -> Any:
    """Load a re-exported name on first use and keep it (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpsched.report' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
