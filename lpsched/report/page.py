"""One seed's reproduction report as a standalone page: Markdown and HTML.

The page opens with the tally (validation rows per verdict kind, at the size each
experiment ran, calibration rows apart), then walks the seed's manifest in the seed's order:
for each published result its source, seed lines and claim, the seed's printed values, the
figure redrawn from the store (with the seed's values beside ours where the seed prints
them), and every row that judges it: the seed's value, ours, the tolerance, the verdict,
the role and, for each difference, the evidence of its decision. Rows of the tables that
answer no manifest entry come last. The HTML page needs no network: its style is inline
and its images sit beside it.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lpsched.core.fidelity import KINDS, FidelityRow
from lpsched.report.manifest import SEEDS, STATIC, Entry
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["Page", "html_page", "markdown_page"]

ROW_COLUMNS = ("figure", "seed_value", "ours", "tolerance", "verdict", "role", "note")
TITLES = {"figure": "row", "seed_value": "seed", "ours": "ours", "tolerance": "tolerance",
          "verdict": "verdict", "role": "role", "note": "note"}
TALLY = ("rows", *KINDS, "calibration")


@dataclass(frozen=True)
class Page:
    """What one seed's page shows: the manifest, the parts given, the experiments of the
    seed no store was given for, and the run's description (version, date, stores)."""

    seed: str
    entries: Sequence[Entry]
    parts: Sequence[ReportPart]
    missing: Sequence[str]
    run: Sequence[str]
    folder: Path

    def rows_of(self, ref: str) -> list[tuple[str, FidelityRow]]:
        """The rows answering one manifest entry.

        Parameters
        ----------
        ref : str
            The entry's id.

        Returns
        -------
        list of (str, FidelityRow)
            (experiment, row) of each, in the parts' order.
        """
        return [(p.experiment, r) for p in self.parts for r in p.table.rows if r.ref == ref]

    def figures_of(self, ref: str) -> list[FigureFile]:
        """The figures drawn for one manifest entry.

        Parameters
        ----------
        ref : str
            The entry's id.

        Returns
        -------
        list of FigureFile
        """
        return [f for p in self.parts for f in p.figures if f.ref == ref]

    def orphans(self) -> list[tuple[str, FidelityRow]]:
        """The rows whose ``ref`` names no manifest entry of this seed.

        Returns
        -------
        list of (str, FidelityRow)
        """
        known = {e.id for e in self.entries}
        return [(p.experiment, r) for p in self.parts for r in p.table.rows
                if r.ref not in known]

    def tally(self) -> list[tuple[str, str, dict[str, int]]]:
        """The tally of each part, then of the page.

        Returns
        -------
        list of (str, str, dict)
            (experiment, size, counts) per part, then (``all``, ``""``, the sums).
        """
        out = []
        total = dict.fromkeys(TALLY, 0)
        for p in self.parts:
            counts = p.table.counts()
            size = (p.table.size.label() if p.table.size else
                    "no run: the seed's own measurements" if p.experiment in STATIC
                    else "the seed's size")
            out.append((p.experiment, size, counts))
            for k in TALLY:
                total[k] += counts[k]
        out.append(("all", "", total))
        return out

    def absent(self, entry: Entry) -> str:
        """Why an entry has no row on this page.

        Parameters
        ----------
        entry : Entry
            A manifest entry without rows.

        Returns
        -------
        str
            ``not measured: no ... store was given`` or ``no row: ...``.
        """
        if entry.experiment in self.missing:
            return f"not measured: no `{entry.experiment}` store was given to the report"
        return f"no row: the `{entry.experiment}` table has none for this result"

    def relative(self, path: Path) -> str:
        """A figure's path relative to the page's folder, as the page links it.

        Parameters
        ----------
        path : Path
            A figure file.

        Returns
        -------
        str
            A POSIX relative path.
        """
        return Path(os.path.relpath(path, self.folder)).as_posix()


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _evidence(rows: list[tuple[str, FidelityRow]]) -> list[str]:
    lines = []
    for _, r in rows:
        if r.kind.startswith("differs") and r.decision is not None:
            lines.append(f"decision {r.decision}: {r.evidence or 'see docs/decisions.md'}")
    return list(dict.fromkeys(lines))


def markdown_page(page: Page) -> str:
    """The page as Markdown.

    Parameters
    ----------
    page : Page
        What to show.

    Returns
    -------
    str
        The whole page, ``\\n``-terminated.
    """
    out = [f"# {SEEDS[page.seed]}", "", *[f"- {line}" for line in page.run], "",
           "## Tally", "",
           "Validation rows per verdict, at the size each experiment ran; calibration rows "
           "(a reading or a default chosen by looking at results) are counted apart.", "",
           "| experiment | size | " + " | ".join(TALLY) + " |",
           "|---|---|" + "---|" * len(TALLY)]
    for experiment, size, counts in page.tally():
        out.append(f"| {experiment} | {size} | " + " | ".join(str(counts[k]) for k in TALLY)
                   + " |")
    notes = [(part.experiment, note) for part in page.parts for note in part.notes]
    if notes:
        out += ["", "## Notes", "", *[f"- {name}: {note}" for name, note in notes]]
    out += ["", "## Published results, in the seed's order", ""]
    for entry in page.entries:
        out += _md_entry(page, entry)
    orphans = page.orphans()
    if orphans:
        out += ["## Rows outside the manifest", "", _md_table(orphans), ""]
    return "\n".join(out) + "\n"


def _md_entry(page: Page, entry: Entry) -> list[str]:
    rows = page.rows_of(entry.id)
    out = [f"### {entry.source if entry.source != 'text' else entry.kind}: {entry.id}", "",
           f"*[{entry.seed_lines}], {entry.section}.* {entry.claim}", ""]
    if entry.values:
        out += [f"Seed's values: {entry.values}", ""]
    for fig in page.figures_of(entry.id):
        out += [f"![{fig.caption}]({page.relative(fig.path)})", "", f"*{fig.caption}*", ""]
    out += [_md_table(rows), ""] if rows else [f"**{page.absent(entry)}**", ""]
    out += [f"- {line}" for line in _evidence(rows)]
    return out + ([""] if _evidence(rows) else [])


def _md_table(rows: list[tuple[str, FidelityRow]]) -> str:
    head = "| experiment | " + " | ".join(TITLES[c] for c in ROW_COLUMNS) + " |"
    lines = [head, "|---|" + "---|" * len(ROW_COLUMNS)]
    for experiment, r in rows:
        lines.append(f"| {experiment} | " + " | ".join(_md_cell(getattr(r, c))
                                                      for c in ROW_COLUMNS) + " |")
    return "\n".join(lines)


_STYLE = """
body{font-family:sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222222}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}
td,th{border:1px solid #bbb;padding:.25rem .5rem;vertical-align:top;text-align:left}
th{background:#eee}.match,.holds{background:#dff0d8}.close{background:#fcf8e3}
.undetermined{background:#eef}.differs{background:#f2dede}.notmeasured{background:#f5f5f5}
img{max-width:100%;border:1px solid #ddd}.claim{color:#444444}.absent{color:#a94442}
h3{margin-top:2rem;border-top:1px solid #ddd;padding-top:1rem}
"""


def _cls(kind: str) -> str:
    return {"match": "match", "holds by construction": "holds", "close": "close",
            "undetermined": "undetermined", "not measured": "notmeasured"}.get(
        kind, "differs")


def html_page(page: Page) -> str:
    """The page as standalone HTML (inline style, images beside it, no network).

    Parameters
    ----------
    page : Page
        What to show.

    Returns
    -------
    str
        The whole HTML document.
    """
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(SEEDS[page.seed])}</title><style>{_STYLE}</style></head><body>",
           f"<h1>{e(SEEDS[page.seed])}</h1><ul>",
           *[f"<li>{e(line)}</li>" for line in page.run], "</ul>", "<h2>Tally</h2>",
           "<p>Validation rows per verdict, at the size each experiment ran; calibration "
           "rows are counted apart.</p><table><tr><th>experiment</th><th>size</th>",
           *[f"<th>{e(k)}</th>" for k in TALLY], "</tr>"]
    for experiment, size, counts in page.tally():
        out.append(f"<tr><td>{e(experiment)}</td><td>{e(size)}</td>"
                   + "".join(f"<td>{counts[k]}</td>" for k in TALLY) + "</tr>")
    out.append("</table>")
    notes = [(part.experiment, note) for part in page.parts for note in part.notes]
    if notes:
        out += ["<h2>Notes</h2><ul>",
                *[f"<li>{e(name)}: {e(note)}</li>" for name, note in notes], "</ul>"]
    out.append("<h2>Published results, in the seed's order</h2>")
    for entry in page.entries:
        out += _html_entry(page, entry)
    orphans = page.orphans()
    if orphans:
        out += ["<h2>Rows outside the manifest</h2>", _html_table(orphans)]
    return "\n".join([*out, "</body></html>"]) + "\n"


def _html_entry(page: Page, entry: Entry) -> list[str]:
    e = html.escape
    rows = page.rows_of(entry.id)
    head = entry.source if entry.source != "text" else entry.kind
    out = [f'<h3 id="{e(entry.id)}">{e(head)}: {e(entry.id)}</h3>',
           f'<p class="claim"><em>[{e(entry.seed_lines)}], {e(entry.section)}.</em> '
           f"{e(entry.claim)}</p>"]
    if entry.values:
        out.append(f"<p>Seed's values: {e(entry.values)}</p>")
    for fig in page.figures_of(entry.id):
        out.append(f'<figure><img src="{e(page.relative(fig.path))}" alt="{e(fig.caption)}">'
                   f"<figcaption>{e(fig.caption)}</figcaption></figure>")
    out.append(_html_table(rows) if rows else f'<p class="absent">{e(page.absent(entry))}</p>')
    evidence = _evidence(rows)
    if evidence:
        out.append("<ul>" + "".join(f"<li>{e(line)}</li>" for line in evidence) + "</ul>")
    return out


def _html_table(rows: list[tuple[str, FidelityRow]]) -> str:
    e = html.escape
    out = ["<table><tr><th>experiment</th>"
           + "".join(f"<th>{e(TITLES[c])}</th>" for c in ROW_COLUMNS) + "</tr>"]
    for experiment, r in rows:
        out.append(f'<tr class="{_cls(r.kind)}"><td>{e(experiment)}</td>'
                   + "".join(f"<td>{e(str(getattr(r, c)))}</td>" for c in ROW_COLUMNS)
                   + "</tr>")
    return "\n".join([*out, "</table>"])
