"""The report hook of seed 000 ch. 2 (experiment ``hardware``): SWDUAL's measurements.

Ch. 2's experiments [000 L1029-L1275] ran SWDUAL (Smith-Waterman database searches split
between CPUs and GPUs by the dual approximation of §2.3) and four other programs on one
machine (2 Xeon CPUs of 4 cores, 8 Tesla C2050 GPUs) and report wall-clock times and GCUPS:
no store holds them and no simulation gives them, so :func:`report_part` is called with
``store=None`` and every time, speed and set-up fact is a row that says so
(``not measured: a hardware measurement (...)``, decision 560).

What a simulation of the *scheduling part* can show is measured here, in milliseconds: the
idle time the 2-dual approximation (:func:`lpsched.approx.dual.hybrid_schedule`) leaves on
the processing elements of SWDUAL's configurations, on the seed's task model (a task is one
query against the whole database [000 L719-L721], allocated in one round [000 L544-L546];
40 queries of 100 to 5,000 amino acids, a task's time proportional to its query's length,
the CPU and GPU speeds of Table 2.2's one-worker SWIPE and CUDASW++), decision 561. It is
a model's answer, not the machine's: the rows say so.

The figures (Figs 2.7-2.9) are drawn from the seed's own printed values (Tables 2.2, 2.4,
2.5), labelled "seed": lpsched has no measurement to put beside them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.core.fidelity import (
    Bound,
    FidelityRow,
    FidelityTable,
    Gap,
    compare,
    mean_and_se,
    not_measured,
)
from lpsched.core.figures import tight_layout
from lpsched.core.store import ResultStore
from lpsched.report.manifest import Entry, manifest
from lpsched.report.parts import FigureFile, ReportPart

__all__ = ["CONFIGS", "IDLE_BOUND", "MODEL_DRAWS", "build_table", "model_idle",
           "report_part", "seed_values"]

HARDWARE = ("a hardware measurement (SWDUAL and the compared programs run on Idgraf's "
            "Xeon CPUs and Tesla C2050 GPUs, wall clock over 25 runs): a simulation cannot "
            "show it")
"""Why a time, a speed or a ranking of programs is not measured (decision 560)."""
#: why each table of the hardware set-up is not measured: its own reason, not the times'
TABLE_REASONS: dict[str, str] = {
    "Table 2.1": "the programs' versions and command lines: the set-up of the hardware "
    "runs, which no simulation runs",
    "Table 2.3": "the databases' sizes and lengths: inputs of the hardware runs (the task "
    "model draws its own lengths, decision 561)",
}

#: SWDUAL's workers [000 L1094-L1112]: the first four are GPUs, then CPUs -> (CPUs, GPUs)
CONFIGS: dict[int, tuple[int, int]] = {2: (1, 1), 3: (1, 2), 4: (1, 3), 5: (1, 4),
                                       6: (2, 4), 7: (3, 4), 8: (4, 4)}
#: one worker's time for the 40 queries on UniProt [000 L1136-L1156]: SWIPE (CPU) and
#: CUDASW++ (GPU), the programs SWDUAL integrates [000 L1035-L1037]
CPU_TIME, GPU_TIME = 2367.24, 785.26
#: the modelled instances: query sets drawn, queries per set, lengths [000 L1041-L1043]
MODEL_DRAWS, QUERIES, LENGTHS = 20, 40, (100.0, 5000.0)
IDLE_BOUND = 0.05
""""Almost no idle time" [000 L1125-L1127] read as below 5 % of the processing elements'
time up to the makespan (decision 561, declared before the model was run)."""


def seed_values(entry: Entry) -> dict[str, str]:
    """The printed values of a manifest entry (``name=value; ...``) as a dict.

    Parameters
    ----------
    entry : Entry
        A manifest entry.

    Returns
    -------
    dict
        ``{name: value}`` in the printed order (empty when none).
    """
    out = {}
    for item in entry.values.split(";"):
        name, sep, value = item.strip().partition("=")
        if sep:
            out[name.strip()] = value.strip()
    return out


def model_idle(workers: int, draws: int = MODEL_DRAWS) -> dict[str, list[float]]:
    """The 2-dual approximation's schedules on the seed's task model: per query
    set drawn, the idle share of the processing elements, the share of elements idle less
    than :data:`IDLE_BOUND` of the makespan, and the makespan over its certified lower
    bound.

    Parameters
    ----------
    workers : int
        SWDUAL's number of workers, 2 to 8 (:data:`CONFIGS`).
    draws : int
        Query sets drawn (seeds ``0..draws-1``).

    Returns
    -------
    dict
        ``idle``, ``near_full`` and ``ratio``: one value per draw each.

    Notes
    -----
    Decision 561 states the task model.
    """
    from lpsched.approx.dual import hybrid_schedule

    cpus, gpus = CONFIGS[workers]
    out: dict[str, list[float]] = {"idle": [], "near_full": [], "ratio": []}
    for seed in range(draws):
        lengths = np.random.default_rng(seed).uniform(*LENGTHS, QUERIES)
        share = lengths / lengths.sum()
        res = hybrid_schedule(share * CPU_TIME, share * GPU_TIME, cpus, gpus)
        s = res.schedule
        busy = np.zeros(cpus + gpus)
        np.add.at(busy, s.machine, s.end - s.start)
        out["idle"].append(float(1.0 - busy.sum() / ((cpus + gpus) * res.makespan)))
        idle_each = 1.0 - busy / res.makespan
        out["near_full"].append(float(np.mean(idle_each < IDLE_BOUND)))
        out["ratio"].append(res.makespan / res.lower_bound)
    return out


def _at(entry: Entry) -> str:
    return entry.seed_lines


def _label(claim: str, width: int = 72) -> str:
    """A claim as a row's label: cut at a word before ``width`` characters."""
    if len(claim) <= width:
        return claim
    return claim[:width].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


def _cell_rows(entry: Entry, unit: str) -> list[FidelityRow]:
    """One row per printed cell of a table of hardware measurements."""
    rows = []
    why = TABLE_REASONS.get(entry.source, HARDWARE)
    for name, value in seed_values(entry).items():
        shown = f"{value} {unit}" if unit and _is_number(value) else value
        row = not_measured(f"{entry.source} {name}", _at(entry), shown, why, ref=entry.id,
                           source=entry.source)
        rows.append(replace(row, tolerance="—"))  # a printed cell, not a label to equal
    return rows


def _is_number(text: str) -> bool:
    """Whether a printed cell is a number (its printed digits are kept as they are)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _setup_row(entry: Entry) -> FidelityRow:
    if entry.id == "000-S-ch2-workers":
        return compare("SWDUAL's workers: 2-8, the first four GPUs then CPUs", _at(entry),
                       "2-8 workers, GPUs first", "2-8 workers, GPUs first", ref=entry.id,
                       construction="the model's configurations are the text's "
                       "(lpsched.approx.report.CONFIGS)",
                       note="the hardware runs themselves are not reproduced")
    if entry.id == "000-S-ch2-queries":
        return compare("the model's queries: 40, of 100 to 5,000 amino acids", _at(entry),
                       "40 queries, 100-5,000", "40 queries, 100-5,000", ref=entry.id,
                       construction="the model draws 40 lengths uniformly on 100-5,000 "
                       "(the real lengths are not published)",
                       note="the databases are not modelled: a database's size scales "
                       "every task's time alike, which leaves the idle share unchanged")
    return not_measured(_label(entry.claim), _at(entry), entry.values or "as stated",
                        "a hardware set-up (machine, software, databases): no simulation "
                        "uses it", ref=entry.id)


_WHY: dict[str, str] = {
    "000-L14": "the programs' speeds are hardware measurements; a simulation takes them as "
    "inputs, so which program is fastest would be an input, not a result",
    "000-L1114": "execution times of programs on the machine; a simulation of the "
    "scheduling part takes the programs' speeds as inputs",
    "000-L1102": "the CPU time a GPU worker consumes is a property of the machine and "
    "CUDASW++; the task model has no such coupling",
    "000-L1184": "execution times on the machine; in the task model adding an element never "
    "raises the optimum, so a modelled decrease would hold by construction",
    "000-L1186": "a hardware time; the 86 s on 8 CPUs + 8 GPUs is in no table (Table 2.4's "
    "8 workers give 142.98 s) and L1102-L1108 say only 4 + 4 were used",
    "000-L1265": "a hardware speed; the 225 GCUPS and the 86 s are in no table (Table 2.4's "
    "best is 136.06 GCUPS, 142.98 s)",
    "000-L1230": "times and GCUPS on the machine; the heterogeneous set's lengths (4 to "
    "35,213) are not published beyond their range",
    "000-L1273": "times on the machine (Table 2.5)",
}


def _reduction(table: dict[str, str], workers: int) -> str:
    """The seed's own Table 2.2: SWDUAL's reduction against each CPU program."""
    dual = float(table[f"SWDUAL/{workers}"])
    return ", ".join(f"{name} {100 * (1 - dual / float(table[f'{name}/{workers}'])):.1f} %"
                     for name in ("SWIPE", "STRIPED", "SWPS3"))


_IDLE_GAP = Gap(561, readings=1, evidence=(
    "On the task model the 2-dual approximation's list schedules on 4 CPUs + 4 GPUs leave "
    "about 16 % of the elements' time idle (about 4 % on 1 + 1): 40 tasks on 8 elements end "
    "unevenly. The model follows the text's task (one query against the whole database "
    "[000 L719-L721]) and its one-round allocation [000 L544-L546], but the 40 queries' "
    "lengths are published only as a range and each task's CPU and GPU times not at all; "
    "one reading of the task model was run, and no mechanism was measured."))


def _idle_rows(entries: dict[str, Entry]) -> list[FidelityRow]:
    """The claims the task model can measure: the idle time (decision 561)."""
    model = model_idle(8)
    note = (f"the 2-dual approximation on the seed's task model, 4 CPUs + 4 GPUs, "
            f"{MODEL_DRAWS} query sets of {QUERIES} lengths uniform on 100-5,000; "
            f"makespan / certified bound {np.mean(model['ratio']):.3f} on average; a "
            "model's answer, not the machine's wall clock (decision 561)")
    out = []
    for ref, key, label, bound in (
            ("000-L1125", "idle", "idle share of the elements up to the makespan",
             Bound("<", IDLE_BOUND)),
            ("000-L312", "near_full", "share of the elements idle < 5 % of the makespan",
             Bound(">", 0.5))):
        entry = entries[ref]
        mean, se = mean_and_se(model[key])
        out.append(compare(f"model, 8 workers: {label}", _at(entry), bound, round(mean, 4),
                           noise=se, ref=ref, note=note, gap=_IDLE_GAP))
    entry = entries["000-L310"]
    out.append(not_measured("SWDUAL reduces Smith-Waterman search times", _at(entry),
                            "significantly lower times", HARDWARE, ref=entry.id))
    return out


def build_table(experiment: str = "hardware") -> FidelityTable:
    """The seed-vs-ours table of seed 000 ch. 2: every manifest entry of ``hardware`` a row.

    Parameters
    ----------
    experiment : str
        ``hardware``.

    Returns
    -------
    FidelityTable
        The rows in the seed's order.

    Notes
    -----
    Decision 560 states how the rows are judged.
    """
    entries = {e.id: e for e in manifest("000") if e.experiment == experiment}
    rows: list[FidelityRow] = []
    done = False
    units = {"Table 2.2": "s", "Table 2.4": "", "Table 2.5": ""}
    for entry in entries.values():
        if entry.id in ("000-L1125", "000-L312", "000-L310"):
            if not done:
                rows += _idle_rows(entries)
                done = True
        elif entry.kind == "setup":
            rows.append(_setup_row(entry))
        elif entry.kind == "table":
            rows += _cell_rows(entry, units.get(entry.source, ""))
        elif entry.kind == "figure":
            rows.append(not_measured(f"{entry.source}: execution times", _at(entry),
                                     "the table's times", "a hardware measurement: drawn "
                                     "from the seed's own table, nothing of ours beside it",
                                     ref=entry.id, source=entry.source))
        else:
            why = _WHY.get(entry.id, HARDWARE)
            row = not_measured(_label(entry.claim), _at(entry), entry.values or entry.kind,
                               why if why == HARDWARE else f"{why} (decision 560)",
                               ref=entry.id)
            if entry.id in ("000-L1118", "000-L1121"):
                workers = 2 if entry.id == "000-L1118" else 4
                row = replace(row, note="the seed's own Table 2.2 gives " + _reduction(
                    seed_values(entries["000-T2.2"]), workers) + " (the text's printed "
                    "values beside them: a check of the seed, not of ours)")
            rows.append(row)
    return FidelityTable(experiment, rows)


#: each figure, the table whose printed values it draws, and its horizontal axis
_FIGURES = {"000-F2.7": ("000-T2.2", "number of workers"),
            "000-F2.8": ("000-T2.4", "number of workers (SWDUAL)"),
            "000-F2.9": ("000-T2.5", "number of workers (SWDUAL)")}


def _series(entry: Entry) -> dict[str, list[tuple[int, float]]]:
    """The times of a table's printed values, by line: ``name/N=value`` or
    ``name/timeN=value``."""
    out: dict[str, list[tuple[int, float]]] = {}
    for key, value in seed_values(entry).items():
        name, _, col = key.partition("/")
        digits = col.removeprefix("time")
        if digits.isdigit():
            out.setdefault(name, []).append((int(digits), float(value)))
    return out


def _draw(ref: str, folder: Path) -> FigureFile:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table, xlabel = _FIGURES[ref]
    entry = next(e for e in manifest("000") if e.id == table)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, points in _series(entry).items():
        xs, ys = zip(*sorted(points), strict=True)
        ax.plot(xs, ys, marker="o", label=f"{name} (seed)")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("execution time (s)")
    ax.legend(fontsize=7)
    source = "Figure " + ref.split("-F")[1]
    ax.set_title(f"{source}: the seed's {entry.source} (no measurement of ours)", fontsize=9)
    tight_layout(fig)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ref}.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return FigureFile(ref, path, f"{source} redrawn from the seed's printed {entry.source} "
                      "(markers labelled seed); lpsched has no hardware measurement to put "
                      "beside them")


def report_part(store: ResultStore | None, experiment: str, folder: Path) -> ReportPart:
    """Seed 000 ch. 2's table and figures; no store holds its results.

    Parameters
    ----------
    store : ResultStore or None
        Ignored (the hook is called with ``None``: the ``hardware`` experiment is static).
    experiment : str
        ``hardware``.
    folder : Path
        Where Figs 2.7-2.9 are drawn (``<ref>.png``).

    Returns
    -------
    ReportPart
        The table and the three figures (none when matplotlib is missing).
    """
    table = build_table(experiment)
    try:
        figures = tuple(_draw(ref, Path(folder)) for ref in _FIGURES)
    except ImportError:  # pragma: no cover - matplotlib is the plot extra
        figures = ()
    notes = ("the hardware times are not simulated; the idle-time rows are the 2-dual "
             "approximation on a task model of the seed's set-up, not its machine "
             "(decision 561)",)
    return ReportPart(experiment, table, figures, notes)
