"""One reproduction report per seed from result stores (``lpsched report``).

Each store given is opened read-only; each experiment found in it is handed to its family's
report hook (:mod:`lpsched.report.parts`), which rebuilds the seed-vs-ours table from the
stored rows and draws the seed's figures into ``DIR/seed<NNN>/``. The parts are grouped by
seed and each seed's page is written as ``DIR/seed<NNN>.html`` and ``DIR/seed<NNN>.md``
(every seed gets a page: a seed whose experiments were not given lists its results as not
measured, saying so), then ``DIR/index.html`` and ``DIR/index.md`` with the tally of each
seed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lpsched.core.versions import __version__
from lpsched.errors import LpschedError
from lpsched.report.manifest import COMPANIONS, EXPERIMENTS, SEEDS, STATIC, manifest
from lpsched.report.page import TALLY, Page, html_page, markdown_page
from lpsched.report.parts import ReportPart, hook

__all__ = ["Report", "build_report"]


@dataclass(frozen=True)
class Report:
    """What :func:`build_report` wrote: the pages, and each seed's tally."""

    pages: tuple[Path, ...]
    tallies: dict[str, dict[str, int]]


def _parts(stores: Sequence[Path], out: Path) -> tuple[dict[str, list[ReportPart]],
                                                       list[str]]:
    """The report parts of every known experiment in ``stores``, by seed, and the run's
    description lines."""
    from lpsched.core.store import ResultStore

    by_seed: dict[str, list[ReportPart]] = {s: [] for s in SEEDS}
    run = [f"lpsched {__version__}, report written "
           f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC"]
    seen: set[str] = set()
    for path in stores:
        if not Path(path).is_file():
            raise LpschedError(f"{path}: no such result store")
        store = ResultStore(path, create=False)
        try:
            for experiment in store.experiments():
                if experiment in COMPANIONS:
                    run.append(f"{experiment}: {path} (read by the {COMPANIONS[experiment]} "
                               f"hook from its store's folder)")
                    continue
                if experiment not in EXPERIMENTS:
                    run.append(f"{path}: experiment {experiment!r} has no report, skipped")
                    continue
                if experiment in seen:
                    raise LpschedError(f"{path}: a second store of {experiment!r}; give "
                                       f"one store per experiment")
                seen.add(experiment)
                seed = EXPERIMENTS[experiment]
                part = hook(experiment)(store, experiment, out / f"seed{seed}")
                by_seed[seed].append(part)
                size = part.table.size.label() if part.table.size else "the seed's size"
                run.append(f"{experiment}: {path} ({size})")
        finally:
            store.close()
    for experiment in sorted(STATIC):
        by_seed[EXPERIMENTS[experiment]].append(
            hook(experiment)(None, experiment, out / f"seed{EXPERIMENTS[experiment]}"))
    return by_seed, run


def build_report(stores: Sequence[str | Path], out: str | Path) -> Report:
    """Write one page per seed (HTML and Markdown) and an index from result stores.

    Parameters
    ----------
    stores : sequence of str or Path
        SQLite result stores written by ``lpsched reproduce``; one per experiment.
    out : str or Path
        The folder of the pages (created); figures go to ``out/seed<NNN>/``.

    Returns
    -------
    Report
        The pages written and the tally of each seed (validation rows per verdict kind,
        calibration apart, summed over the seed's experiments).

    Raises
    ------
    LpschedError
        A store that does not exist or cannot be read, or two stores of one experiment.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    by_seed, run = _parts([Path(s) for s in stores], folder)
    pages: list[Path] = []
    tallies: dict[str, dict[str, int]] = {}
    for seed in SEEDS:
        given = {p.experiment for p in by_seed[seed]}
        missing = sorted(e for e, s in EXPERIMENTS.items()
                         if s == seed and e not in given and e not in STATIC)
        page = Page(seed, manifest(seed), by_seed[seed], missing, _run_of(seed, run), folder)
        tallies[seed] = page.tally()[-1][2]
        for suffix, render in ((".html", html_page), (".md", markdown_page)):
            path = folder / f"seed{seed}{suffix}"
            path.write_text(render(page), encoding="utf-8")
            pages.append(path)
    given = {s for s, parts in by_seed.items()
             if any(p.experiment not in STATIC for p in parts)}
    pages += _index(folder, tallies, run, given)
    return Report(tuple(pages), tallies)


def _run_of(seed: str, run: list[str]) -> list[str]:
    """The run's description lines that concern ``seed``: the version line, then the
    stores of the seed's experiments (and of their companions)."""
    mine = [e for e, s in EXPERIMENTS.items() if s == seed]
    mine += [c for c, e in COMPANIONS.items() if e in mine]
    return run[:1] + [line for line in run[1:] if line.split(":", 1)[0] in mine]


def _index(folder: Path, tallies: dict[str, dict[str, int]], run: list[str],
           given: set[str]) -> list[Path]:
    """``index.md`` and ``index.html``: each seed's tally and its page (``no store`` for a
    seed none of whose experiments was given)."""
    import html

    md = ["# Reproduction reports", "", *[f"- {line}" for line in run], "",
          "| seed | " + " | ".join(TALLY) + " |", "|---|" + "---|" * len(TALLY)]
    rows = []
    for seed, counts in tallies.items():
        cells = [str(counts[k]) for k in TALLY] if seed in given else (
            ["no store given", *[""] * (len(TALLY) - 1)])
        md.append(f"| [{seed}](seed{seed}.md) | " + " | ".join(cells) + " |")
        rows.append(f'<tr><td><a href="seed{seed}.html">{seed}</a></td>'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
            "Reproduction reports</title></head><body><h1>Reproduction reports</h1><ul>"
            + "".join(f"<li>{html.escape(line)}</li>" for line in run) + "</ul><table border=1>"
            "<tr><th>seed</th>" + "".join(f"<th>{k}</th>" for k in TALLY) + "</tr>"
            + "".join(rows) + "</table></body></html>\n")
    (folder / "index.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (folder / "index.html").write_text(page, encoding="utf-8")
    return [folder / "index.html", folder / "index.md"]
