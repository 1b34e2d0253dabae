"""Reproduction reports: every published result of a seed beside ours, one page per seed.

``lpsched report STORE... --out DIR`` (:func:`build_report`) reads the result stores of any
reproductions run, rebuilds each experiment's seed-vs-ours table from the stored rows and
draws the seed's figures through the family's report hook (:mod:`lpsched.report.parts`),
and writes one standalone page per seed (HTML with its images beside it, and Markdown):
the tally at the top, then every entry of the seed's manifest (:mod:`lpsched.report.manifest`)
in the seed's order, with the seed's values, ours, the verdict and the evidence of every
difference.
"""

from __future__ import annotations

from lpsched.report.build import Report, build_report
from lpsched.report.manifest import Entry, manifest

__all__ = ["Entry", "Report", "build_report", "manifest"]
