"""What each reproduction gives the report: its seed-vs-ours table and its figures.

Every family whose reproduction measures a seed's results provides a *report hook*, a
module-level function ``report_part(store, experiment, folder) -> ReportPart`` that rebuilds
the experiment's table (:class:`lpsched.core.fidelity.FidelityTable`, every manifest
entry a row at every size) from the rows of a result store and draws the seed's figures
from them into ``folder`` (PNG, the seed's printed values beside ours where the seed prints
them). :data:`HOOKS` names each experiment's hook; the report imports it only when a store
of that experiment is given, or always for the experiments of
:data:`lpsched.report.manifest.STATIC`, whose hook is called with ``store=None``. A hook
called with an empty store (no rows of its experiment) returns every row, not measured.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["HOOKS", "FigureFile", "ReportPart", "hook"]


@dataclass(frozen=True)
class FigureFile:
    """A figure drawn for the report: the manifest entry it redraws, the PNG file, and a
    caption saying what is drawn (and where the seed's values are shown)."""

    ref: str
    path: Path
    caption: str


@dataclass(frozen=True)
class ReportPart:
    """One experiment's contribution to a seed's report."""

    experiment: str
    table: Any  # lpsched.core.fidelity.FidelityTable
    figures: tuple[FigureFile, ...] = ()
    notes: tuple[str, ...] = field(default=())


#: experiment -> "module:function" of its report hook
HOOKS: dict[str, str] = {
    "cbs3m": "lpsched.bags.report:report_part",
    "contiguity": "lpsched.batch.report:report_part",
    "platform-level": "lpsched.batch.report:report_part",
    "topology-aware": "lpsched.batch.report:report_part",
    "redirection": "lpsched.tasks.report:report_part",
    "faircamp": "lpsched.campaigns.report:report_part",
    "ostrich": "lpsched.campaigns.report:report_part",
    "ptg": "lpsched.ptg.report:report_part",
    "hardware": "lpsched.approx.report:report_part",
}


def hook(experiment: str) -> Callable[..., ReportPart]:
    """The report hook of ``experiment``.

    Parameters
    ----------
    experiment : str
        A key of :data:`HOOKS`.

    Returns
    -------
    callable
        ``report_part(store, experiment, folder) -> ReportPart``.

    Raises
    ------
    KeyError
        No hook for ``experiment``.
    """
    module, _, name = HOOKS[experiment].partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return,unused-ignore]
