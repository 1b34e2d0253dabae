"""How close a seed 003 reproduction is to the seed's Tables 4-8, and two runs side by side.

    .venv/bin/python benchmarks/seed003_fidelity.py OLD_DIR [NEW_DIR] [--dispatcher eager]
        [--bootstrap N]

Each ``DIR`` is the ``--out`` folder of ``lpsched reproduce cbs3m`` (its ``cbs3m.sqlite``
store is read through :class:`lpsched.core.ResultStore`, partial stores allowed: the tables
use the instances that have every policy's row). With one folder it prints that run's
score; with two, Tables 4-8 side by side (seed average, old, new; Table 4's "best %" too)
and both scores. This is the script behind the score of decision 36 (10 against 100 Mbit/s
links for the ``simgrid`` profile):

    lpsched reproduce cbs3m --instances 1000 --jobs 2 --base-bandwidth 1.25e6 --out old
    lpsched reproduce cbs3m --instances 1000 --jobs 2 --out new      # 100 Mbit/s default
    .venv/bin/python benchmarks/seed003_fidelity.py old new

**Score** (lower is closer to the seed; decision 36): over the 12 rows {FIFO, SPT, SRPT,
SWRPT} x {MCT, RR} + the four CBS3M rows, ``t4`` = mean |avg / seed avg - 1| of Table 4 in
percent, ``best`` = mean |best % - seed best %| of Table 4 in percentage points, ``t58`` =
the ``t4`` of Tables 5-8 together; total = ``t4 + best + t58 / 2``. DD rows are left out
(the seed prints them equal to RR), MWMA too (decision 323: no reading of it is adopted).
A default chosen by this score is fitted to Tables 4-8: the seed-vs-ours table
(``lpsched.bags.fidelity``) marks every row it touches calibration, counted apart (decision
501); ``benchmarks/bags_headlines.py`` measures how the unstated parameters move the
headlines instead of choosing one.

A ``DIR`` may be several folders joined by commas (runs of the same reading on disjoint
seeds, e.g. ``--first-seed 0`` and ``--first-seed 80``), pooled. ``--bootstrap N`` (two
runs) adds the paired bootstrap of the score difference (new - old) over the instances
both runs have: N resamples of those instances with replacement, the same draw for both
runs, and its 5 % / 95 % quantiles (decisions 321 and 324).

``--mwma OPTION=VALUE ...`` (one run) recomputes the two MWMA rows of that run under a
reading of decision 322 (the options of :class:`lpsched.bags.policies.mwma.MWMA`, e.g.
``share=payoff``; none: today's) on the same instances (``--profile``, ``--base-bandwidth``
as the run's), keeps the 16 other rows, and prints the run as "old" beside it as "new"
(decision 323's figures: ``benchmarks/seed003_fidelity.py r2 --mwma share=platform``).

``--ms-bound N`` (no store needed: give any folder name, e.g. ``-``) prints decision 323's
bound on N fresh instances (seeds 0..N-1, ``--profile``, ``--base-bandwidth``,
``--arrivals``; MWMA-NBT under ``--mwma``'s reading): the largest max-stretch any schedule
can have when its makespan is at most rho times NBT's, over NBT's max-stretch, for rho =
1, 1.078 and 1.42 (the seed's average and largest MS makespans over the best [L956]).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.bags import reproduce as rep
from lpsched.bags.generators import PROFILES, random_bags
from lpsched.bags.policies.mwma import MWMA, READINGS
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import simulate
from lpsched.bags.steady_state import dedicated_throughputs
from lpsched.core import ResultStore
from lpsched.errors import LpschedError

MCT = ["fifo-mct", "spt-mct", "srpt-mct", "swrpt-mct"]
RR = ["fifo-rr", "spt-rr", "srpt-rr", "swrpt-rr"]
CBS = ["cbs3m-fifo-online", "cbs3m-edf-online", "cbs3m-fifo-offline", "cbs3m-edf-offline"]
ROWS = MCT + RR + CBS
#: seed 003 Table 4, "the best in x %" column of the scored rows
SEED_BEST4 = {"fifo-rr": 0.0, "fifo-mct": 0.0, "spt-rr": 0.0, "spt-mct": 1.3, "srpt-rr": 0.0,
              "srpt-mct": 2.2, "swrpt-rr": 0.0, "swrpt-mct": 1.9, "cbs3m-fifo-online": 6.9,
              "cbs3m-edf-online": 64.0, "cbs3m-fifo-offline": 3.8, "cbs3m-edf-offline": 26.2}
LATER = ("sum_stretch", "makespan", "max_flow", "sum_flow")


def load_rows(folders: str | Path, dispatcher: str = "lazy") -> list[dict[str, Any]]:
    """The rows of the seed's 18 policies (CBS3M ``dispatcher``, ``reproduce.select``) in
    the stores of ``folders`` (one folder, or several joined by commas, pooled; a seed
    found in two of them is an error, since the tables would mix two runs of it)."""
    rows: list[dict[str, Any]] = []
    seen: set[int] = set()
    for folder in str(folders).split(","):
        path = Path(folder) / f"{rep.EXPERIMENT}.sqlite"
        if not path.exists():
            raise SystemExit(f"{path}: no store there (an --out folder of "
                             "`lpsched reproduce cbs3m`?)")
        store = ResultStore(path)
        try:
            got = rep.select(store.rows(rep.EXPERIMENT, rep.ROW_SCHEMA), dispatcher)
        finally:
            store.close()
        seeds = {int(r["seed"]) for r in got}
        if seeds & seen:
            raise SystemExit(f"{folder}: seeds {sorted(seeds & seen)[:5]} are already in an "
                             "earlier folder; pool runs of disjoint seeds only")
        seen |= seeds
        rows += got
    return rows


def load(folder: str | Path, dispatcher: str = "lazy") -> dict[str, dict[str, dict[str, Any]]]:
    """Tables 4-8 (``reproduce.tables``) of the store(s) in ``folder`` (:func:`load_rows`),
    over the seed's 18 policies with the CBS3M ``dispatcher`` (decision 318)."""
    return rep.tables(load_rows(folder, dispatcher))


def parse_mwma(items: list[str]) -> dict[str, str]:
    """``["share=payoff", ...]`` -> the keyword arguments of ``MWMA`` (decision 322);
    ``SystemExit`` naming the options and their values on a bad item."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or value not in READINGS.get(name, ()):
            choices = "; ".join(f"{k}={'|'.join(v)}" for k, v in READINGS.items())
            raise SystemExit(f"--mwma {item!r}: expected OPTION=VALUE among {choices}")
        out[name] = value
    return out


def with_mwma(rows: list[dict[str, Any]], options: dict[str, str], profile: str = "simgrid",
              base_bandwidth: float | None = None) -> list[dict[str, Any]]:
    """``rows`` with their two MWMA rows recomputed under ``MWMA(w, **options)`` (seed 003
    §4.1 [L779–L784], decision 322's readings) on the same instances: each seed's instance
    regenerated (``random_bags(profile=, seed=, base_bandwidth=)``, absolute dates), its LP
    bound taken from the stored rows. A run that cannot finish is a ``failed`` row, as in
    ``reproduce.cell``."""
    bound = {int(r["seed"]): r.get("lp_bound") for r in rows}
    out = [r for r in rows if not str(r["policy"]).startswith("mwma-")]
    for seed in sorted(bound):
        inst = random_bags(profile=profile, seed=seed, base_bandwidth=base_bandwidth)
        for w in ("nbt", "ms"):
            row: dict[str, Any] = {"seed": seed, "policy": f"mwma-{w}", "status": "ok",
                                   "reason": None, "lp_bound": bound[seed]}
            try:
                res = simulate(inst, MWMA(w, **options))
                validate(inst, res.schedule)
            except LpschedError as exc:
                row.update(status=rep.outcome(exc), reason=str(exc),
                           **dict.fromkeys(rep.METRICS))
            else:
                m = metrics(inst, res.schedule).to_dict()
                row.update({k: m[k] for k in rep.METRICS})
            out.append(row)
    return out


def ms_bound(instances: int, options: dict[str, str],
             rhos: tuple[float, ...] = (1.0, 1.078, 1.42), profile: str = "simgrid",
             base_bandwidth: float | None = None,
             arrivals: str = "absolute") -> dict[float, tuple[float, float]]:
    """Decision 323's bound (seed 003 Tables 4 and 6 [L905–L906, L955–L956]): on each
    instance, with ``C`` MWMA-NBT's makespan (under ``options``) and ``S`` its max-stretch,
    ``max_j (rho·C − r_j)/MS*_j / S``, the largest ratio of max-stretches an MS schedule
    whose makespan is at most ``rho·C`` can reach (it ends every application by then).
    Returns ``{rho: (mean, max)}`` over seeds ``0..instances-1``."""
    ratios: dict[float, list[float]] = {rho: [] for rho in rhos}
    for seed in range(instances):
        inst = random_bags(profile=profile, seed=seed, base_bandwidth=base_bandwidth,
                           arrivals=arrivals)
        for rho, ratio in ms_bound_of(inst, options, rhos).items():
            ratios[rho].append(ratio)
    return {rho: (float(np.mean(v)), float(np.max(v))) for rho, v in ratios.items()}


def ms_bound_of(inst: Any, options: dict[str, str],
                rhos: tuple[float, ...] = (1.0, 1.078, 1.42)) -> dict[float, float]:
    """:func:`ms_bound` on one instance: ``{rho: max_j (rho·C − r_j)/MS*_j / S}`` with ``C``
    and ``S`` the makespan and max-stretch of MWMA-NBT under ``options``."""
    res = simulate(inst, MWMA("nbt", **options))
    stretch = np.asarray(metrics(inst, res.schedule).stretch, float)
    ms = inst.tasks / dedicated_throughputs(inst)
    end = float((inst.release + stretch * ms).max())
    return {rho: float(((rho * end - inst.release) / ms).max() / stretch.max())
            for rho in rhos}


def paired_bootstrap(old: list[dict[str, Any]], new: list[dict[str, Any]], draws: int,
                     seed: int = 0) -> tuple[float, float, float, int]:
    """The score difference ``score(new) - score(old)`` over the seeds both row sets have,
    and its 5 % / 95 % quantiles over ``draws`` paired resamples of those seeds (the same
    resample for both: a resampled seed is renamed by its position, so a seed drawn twice
    counts twice). Returns ``(difference, low, high, instances)``."""
    seeds = sorted({r["seed"] for r in old} & {r["seed"] for r in new})
    if len(seeds) < 2:
        raise SystemExit("the two runs share fewer than 2 instances: nothing to pair")

    def by_seed(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            out.setdefault(int(r["seed"]), []).append(r)
        return out

    o, n = by_seed(old), by_seed(new)

    def diff(pick: list[int]) -> float:
        ro = [{**r, "seed": i} for i, s in enumerate(pick) for r in o[s]]
        rn = [{**r, "seed": i} for i, s in enumerate(pick) for r in n[s]]
        return score(rep.tables(rn))["total"] - score(rep.tables(ro))["total"]

    rng = np.random.default_rng(seed)
    samples = [diff(list(rng.choice(seeds, size=len(seeds)))) for _ in range(draws)]
    lo, hi = np.quantile(samples, [0.05, 0.95])
    return diff(seeds), float(lo), float(hi), len(seeds)


def score(tab: dict[str, dict[str, dict[str, Any]]]) -> dict[str, float]:
    """The distances of the module docstring, and the family averages behind them."""
    def err(metric: str, p: str) -> float:
        return abs(tab[metric][p]["avg"] / rep.SEED_AVERAGES[metric][p] - 1)

    t4 = float(np.mean([err("max_stretch", p) for p in ROWS])) * 100
    best = float(np.mean([abs(tab["max_stretch"][p]["best"] - SEED_BEST4[p]) for p in ROWS]))
    t58 = float(np.mean([err(m, p) for m in LATER for p in ROWS])) * 100
    mean4 = {p: tab["max_stretch"][p]["avg"] for p in ROWS}
    return {"total": t4 + best + t58 / 2, "t4": t4, "best": best, "t58": t58,
            "mct": float(np.mean([mean4[p] for p in MCT[1:]])),
            "rr": float(np.mean([mean4[p] for p in RR[1:]])),
            "cbs3m_edf_online": mean4["cbs3m-edf-online"],
            "cbs3m_edf_online_best": tab["max_stretch"]["cbs3m-edf-online"]["best"]}


def instances(tab: dict[str, dict[str, dict[str, Any]]], metric: str) -> int:
    return max(s["n"] + s["failed"] for s in tab[metric].values())


def side_by_side(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for metric in rep.METRICS:
        lines.append(f"\nTable {rep.TABLE_OF[metric]} - {metric} (old: "
                     f"{instances(old, metric)} instances, new: {instances(new, metric)})")
        lines.append(f"{'Algorithm':<20} {'seed avg':>8} {'old avg':>8} {'new avg':>8} | "
                     f"{'seed best':>9} {'old best':>8} {'new best':>8} | {'old max':>8} "
                     f"{'new max':>8}")
        for p in old[metric]:
            sb = SEED_BEST4.get(p, math.nan) if metric == "max_stretch" else math.nan
            o, n = old[metric][p], new[metric][p]
            shown = f"{sb:9.1f}" if not math.isnan(sb) else " " * 9
            lines.append(f"{p:<20} {rep.SEED_AVERAGES[metric][p]:8.3f} {o['avg']:8.3f} "
                         f"{n['avg']:8.3f} | {shown} {o['best']:8.1f} {n['best']:8.1f} | "
                         f"{o['max']:8.3f} {n['max']:8.3f}")
    return lines


def describe(label: str, s: dict[str, float]) -> str:
    return (f"  {label}: total {s['total']:.1f} = T4 avg err {s['t4']:.1f}% + best-% err "
            f"{s['best']:.1f} pp + T5-8 avg err {s['t58']:.1f}%/2; MCT {s['mct']:.3f}, RR "
            f"{s['rr']:.3f}, CBS3M EDF online {s['cbs3m_edf_online']:.3f} (best "
            f"{s['cbs3m_edf_online_best']:.1f}%)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", help="an --out folder of lpsched reproduce cbs3m (several: "
                    "joined by commas, pooled)")
    ap.add_argument("new", nargs="?", help="a second one, shown beside it")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="with two runs: paired bootstrap of the score difference, N draws")
    ap.add_argument("--mwma", nargs="*", metavar="OPTION=VALUE",
                    help="with one run: recompute its MWMA rows under this reading "
                    "(decision 322), shown beside the run")
    ap.add_argument("--profile", default="simgrid", choices=sorted(PROFILES),
                    help="the run's generator profile (for --mwma)")
    ap.add_argument("--base-bandwidth", type=float, default=None,
                    help="the run's base bandwidth, bytes/s (for --mwma; the profile's)")
    ap.add_argument("--ms-bound", type=int, default=0, metavar="N",
                    help="decision 323's bound on N fresh instances (no store read)")
    ap.add_argument("--arrivals", default="absolute", choices=("absolute", "interarrival"),
                    help="the arrival dates of --ms-bound's instances")
    ap.add_argument("--dispatcher", choices=("lazy", "eager"), default="lazy",
                    help="CBS3M rows: the registered dispatcher or the eager variant "
                    "(decision 318; both folders)")
    args = ap.parse_args()
    if args.ms_bound > 0:
        reading = parse_mwma(args.mwma or [])
        for rho, (mean, top) in ms_bound(args.ms_bound, reading, profile=args.profile,
                                         base_bandwidth=args.base_bandwidth,
                                         arrivals=args.arrivals).items():
            print(f"rho={rho:g}: MS max-stretch / NBT max-stretch at most {mean:.3f} on "
                  f"average, {top:.3f} at most ({args.ms_bound} instances, NBT "
                  f"{reading or 'today'}, {args.arrivals} dates)")
        return
    if args.mwma is not None:
        if args.new is not None:
            raise SystemExit("--mwma compares one run with itself under another MWMA "
                             "reading: give one folder")
        rows = load_rows(args.old, args.dispatcher)
        reading = parse_mwma(args.mwma)
        old_t, new_t = rep.tables(rows), rep.tables(
            with_mwma(rows, reading, args.profile, args.base_bandwidth))
        print("\n".join(side_by_side(old_t, new_t)))
        print(f"\nnew = MWMA rows recomputed with {reading or 'the defaults'}")
        return
    old = load(args.old, args.dispatcher)
    if args.new is None:
        print("score (lower is closer to the seed):")
        print(describe(str(args.old), score(old)))
        return
    new_rows = load_rows(args.new, args.dispatcher)
    new = rep.tables(new_rows)
    print("\n".join(side_by_side(old, new)))
    print("\nscore (lower is closer to the seed):")
    print(describe("old", score(old)))
    print(describe("new", score(new)))
    if args.bootstrap > 0:
        d, lo, hi, count = paired_bootstrap(load_rows(args.old, args.dispatcher), new_rows,
                                            args.bootstrap)
        print(f"  new - old on the {count} shared instances: {d:+.1f}, paired bootstrap "
              f"({args.bootstrap} draws) 90 % interval {lo:+.1f} to {hi:+.1f}")


if __name__ == "__main__":
    main()
