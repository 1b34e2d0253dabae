"""The readings of A7 and A26 (seed 004 [L552-558], [L676-697]) tried on stored rows,
with bootstrap intervals over scenarios (decision 412).

    .venv/bin/python benchmarks/bench_ptg_readings.py DIR/ptg.csv [DIR2/ptg.csv ...]
        [--boot 1000] [--json OUT]

Each CSV is the ``ptg.csv`` of one ``lpsched reproduce ptg`` run (all 19 algorithms). For
each: A7 (SSCT) and A13 (Cmax) under the five readings of decision 412 (``smaller``,
``larger``, ``mean-of-two``, ``all``, ``pairs``), each value with its 95 % interval over
1,000 bootstrap resamples of the scenarios (stratified by population, seed 0); the mean
absolute difference of A7's five values (the calibration rule) and A13's three (its
validation); A26's front under the ``weak`` and ``strict`` dominance readings, and for each
seed member off the front the algorithm that dominates it with both ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched.ptg.generators import CLASSES

READINGS = ("smaller", "larger", "mean-of-two", "all", "pairs")
#: A7 [L555-556]: F1, SELFISH, the others' smallest, largest and mean (%)
SEED_A7 = {"f1": 52.0, "selfish": 49.0, "others_min": 7.5, "others_max": 42.4,
           "others_mean": 19.2}
#: A13 [L600-602]: smallest (C4), largest (CAFM CRA WEIGHT), mean (%)
SEED_A13 = {"min": 17.0, "max": 39.8, "mean": 29.1}
#: A26 [L686-697]: the six non-dominated algorithms of Fig. 5
SEED_A26 = ("cafm-cra", "cafm-k-shelves", "cafm-lptf", "cra-work", "cra-work-weight",
            "selfish-order")


def load(path: str) -> dict[str, Any]:
    """The rows of ``path`` as arrays: ``scenario`` (class/N/set/cluster), ``class``,
    ``algorithm``, ``ssct``, ``makespan``, ``max_stretch``.

    Parameters
    ----------
    path : str
        A ``ptg.csv`` written by ``lpsched reproduce ptg``.

    Returns
    -------
    dict
        Column name to numpy array (one entry per row).
    """
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    out: dict[str, Any] = {
        "scenario": np.array([f'{r["class"]}/{r["N"]}/{r["set"]}/{r["cluster"]}'
                              for r in rows]),
        "class": np.array([r["class"] for r in rows]),
        "algorithm": np.array([r["algorithm"] for r in rows])}
    for k in ("ssct", "makespan", "max_stretch"):
        out[k] = np.array([float(r[k]) for r in rows])
    return out


def _value(med: dict[str, float], all_med: float, reading: str) -> list[float]:
    """The relative differences of one algorithm's population medians under ``reading``:
    one value, or one per pair (``pairs``)."""
    v = sorted(med.values())
    lo, hi = v[0], v[-1]
    if reading == "smaller":
        return [(hi - lo) / lo]
    if reading == "larger":
        return [(hi - lo) / hi]
    if reading == "mean-of-two":
        return [(hi - lo) / ((hi + lo) / 2)]
    if reading == "all":
        return [(hi - lo) / all_med]
    pops = list(med)
    return [abs(med[a] - med[b]) / min(med[a], med[b])
            for i, a in enumerate(pops) for b in pops[i + 1:]]


def figures(medians: dict[str, dict[str, float]], all_med: dict[str, float],
            reading: str) -> dict[str, float]:
    """A7-style figures (F1, SELFISH, the others' min / max / mean, %, and the mean
    absolute difference) and A13-style ones (min / max / mean over all algorithms, %)
    of one metric's population medians under ``reading``.

    Parameters
    ----------
    medians : dict
        ``medians[algorithm][population]``: the median of the metric.
    all_med : dict
        ``all_med[algorithm]``: the median over all populations.
    reading : str
        One of :data:`READINGS`.

    Returns
    -------
    dict
        ``f1``, ``selfish``, ``others_min``, ``others_max``, ``others_mean`` (A7),
        ``min``, ``max``, ``mean`` (A13, over every algorithm), in %, and
        ``mean_absolute`` (the metric's unit).
    """
    vals = {a: _value(m, all_med[a], reading) for a, m in medians.items()}
    others = [x for a, v in vals.items() if a not in ("f1", "selfish") for x in v]
    every = [x for v in vals.values() for x in v]
    absd = [max(m.values()) - min(m.values()) for m in medians.values()]
    return {"f1": 100 * max(vals["f1"]), "selfish": 100 * max(vals["selfish"]),
            "others_min": 100 * min(others), "others_max": 100 * max(others),
            "others_mean": 100 * float(np.mean(others)),
            "min": 100 * min(every), "max": 100 * max(every),
            "mean": 100 * float(np.mean(every)), "mean_absolute": float(np.mean(absd))}


def medians_of(t: dict[str, Any], idx: np.ndarray, metric: str,
               ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Population and overall medians of ``metric`` over the rows ``idx``.

    Parameters
    ----------
    t : dict
        :func:`load`'s arrays.
    idx : numpy.ndarray
        Row indices (with repeats for a bootstrap resample).
    metric : str
        ``ssct`` or ``makespan``.

    Returns
    -------
    tuple of dict
        ``medians[algorithm][population]`` and ``all_med[algorithm]``.
    """
    alg, cls, x = t["algorithm"][idx], t["class"][idx], t[metric][idx]
    med: dict[str, dict[str, float]] = {}
    allm: dict[str, float] = {}
    for a in sorted(set(alg.tolist())):
        sel = alg == a
        med[a] = {c: float(np.median(x[sel & (cls == c)])) for c in CLASSES
                  if (sel & (cls == c)).any()}
        allm[a] = float(np.median(x[sel]))
    return med, allm


def bootstrap(t: dict[str, Any], stat: Callable[[np.ndarray], dict[str, float]],
              boot: int, seed: int = 0) -> dict[str, tuple[float, float, float]]:
    """``stat`` on the rows and its 95 % percentile interval over ``boot`` resamples of
    the scenarios, stratified by population.

    Parameters
    ----------
    t : dict
        :func:`load`'s arrays.
    stat : callable
        Row indices -> named figures.
    boot : int
        Number of resamples (0: no interval).
    seed : int
        Seed of the resampling.

    Returns
    -------
    dict
        Figure name -> (value, 2.5 % quantile, 97.5 % quantile).
    """
    scen = t["scenario"]
    names = sorted(set(scen.tolist()))
    rows_of = {s: np.flatnonzero(scen == s) for s in names}
    by_cls = {c: [s for s in names if s.startswith(c + "/")] for c in CLASSES}
    base = stat(np.arange(scen.size))
    if not boot:
        return {k: (v, v, v) for k, v in base.items()}
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {k: [] for k in base}
    for _ in range(boot):
        pick = [s for c in CLASSES for s in
                (np.array(by_cls[c])[rng.integers(0, len(by_cls[c]), len(by_cls[c]))]
                 if by_cls[c] else [])]
        res = stat(np.concatenate([rows_of[s] for s in pick]))
        for k, v in res.items():
            draws[k].append(v)
    return {k: (base[k], float(np.quantile(draws[k], 0.025)),
                float(np.quantile(draws[k], 0.975))) for k in base}


def _hmean_ratios(t: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Harmonic-mean Cmax and SSCT ratios to SELFISH per algorithm (seed [L670-675])."""
    base = {m: dict(zip(t["scenario"][t["algorithm"] == "selfish"],
                        t[m][t["algorithm"] == "selfish"], strict=True))
            for m in ("makespan", "ssct")}
    out = {}
    for a in sorted(set(t["algorithm"].tolist())):
        sel = t["algorithm"] == a
        r = [t[m][sel] / np.array([base[m][s] for s in t["scenario"][sel]])
             for m in ("makespan", "ssct")]
        out[a] = tuple(float(x.size / (1 / x).sum()) for x in r)
    return out  # type: ignore[return-value]


def front(points: dict[str, tuple[float, float]], strict: bool,
          ) -> tuple[list[str], dict[str, str]]:
    """The non-dominated algorithms and, for each dominated one, one that dominates it.

    Parameters
    ----------
    points : dict
        Algorithm -> (Cmax ratio, SSCT ratio).
    strict : bool
        ``True``: dominated only by a point strictly smaller on both axes; ``False``: by
        a point no larger on both and smaller on one.

    Returns
    -------
    tuple
        The sorted front, and algorithm -> a dominating algorithm (the one with the
        smallest Cmax ratio among those that dominate it).
    """
    by: dict[str, str] = {}
    for a, (x, y) in points.items():
        dom = [b for b, (x2, y2) in points.items() if b != a and (
            (x2 < x and y2 < y) if strict else (x2 <= x and y2 <= y and (x2 < x or y2 < y)))]
        if dom:
            by[a] = min(dom, key=lambda b: points[b][0])
    return sorted(a for a in points if a not in by), by


def analyse(path: str, boot: int) -> dict[str, Any]:
    """Every figure of the module doc for one ``ptg.csv``.

    Parameters
    ----------
    path : str
        The rows.
    boot : int
        Bootstrap resamples for the intervals.

    Returns
    -------
    dict
        ``scenarios``, ``a7`` and ``a13`` (reading -> figure -> (value, lo, hi)),
        ``mad_a7`` and ``mad_a13`` (reading -> mean absolute difference to the seed, on
        the point values), ``a26`` (reading -> front and the dominators of the seed's
        members off it, with their ratios).
    """
    t = load(path)
    out: dict[str, Any] = {"path": path, "scenarios": len(set(t["scenario"].tolist())),
                           "a7": {}, "a13": {}, "mad_a7": {}, "mad_a13": {}, "a26": {}}
    for r in READINGS:
        def stat(idx: np.ndarray, r: str = r) -> dict[str, float]:
            s = figures(*medians_of(t, idx, "ssct"), r)
            c = figures(*medians_of(t, idx, "makespan"), r)
            return {**{f"a7_{k}": s[k] for k in (*SEED_A7, "mean_absolute")},
                    **{f"a13_{k}": c[k] for k in SEED_A13}}
        res = bootstrap(t, stat, boot)
        out["a7"][r] = {k[3:]: v for k, v in res.items() if k.startswith("a7_")}
        out["a13"][r] = {k[4:]: v for k, v in res.items() if k.startswith("a13_")}
        out["mad_a7"][r] = float(np.mean([abs(out["a7"][r][k][0] - v)
                                          for k, v in SEED_A7.items()]))
        out["mad_a13"][r] = float(np.mean([abs(out["a13"][r][k][0] - v)
                                           for k, v in SEED_A13.items()]))
    med, _ = medians_of(t, np.arange(t["scenario"].size), "ssct")
    out["highest_ssct_population"] = {a: max(m, key=m.__getitem__) for a, m in med.items()}
    pts = _hmean_ratios(t)
    for name, strict in (("weak", False), ("strict", True)):
        f, by = front(pts, strict)
        out["a26"][name] = {"front": f, "off": {
            a: {"ratios": pts[a], "dominated_by": by[a], "its_ratios": pts[by[a]]}
            for a in SEED_A26 if a in by}}
    out["ratios"] = pts
    out["a26_bootstrap"] = a26_bootstrap(t, boot)
    return out


def a26_bootstrap(t: dict[str, Any], boot: int, seed: int = 0) -> dict[str, float]:
    """How often, over ``boot`` resamples of the scenarios (stratified by population),
    the weak front is the seed's six, holds SELFISH ORDER, holds CAFM CRA, and holds both.

    Parameters
    ----------
    t : dict
        :func:`load`'s arrays.
    boot : int
        Number of resamples (0: the point values only).
    seed : int
        Seed of the resampling.

    Returns
    -------
    dict
        Shares in [0, 1]: ``seed_front``, ``selfish_order``, ``cafm_cra``, ``both``.
    """
    scen = t["scenario"]
    names = sorted(set(scen.tolist()))
    rows_of = {s: np.flatnonzero(scen == s) for s in names}
    by_cls = [[s for s in names if s.startswith(c + "/")] for c in CLASSES]
    rng = np.random.default_rng(seed)
    hits = {"seed_front": 0, "selfish_order": 0, "cafm_cra": 0, "both": 0}
    draws = max(boot, 1)
    for _ in range(draws):
        if boot:
            pick = [g[i] for g in by_cls if g for i in rng.integers(0, len(g), len(g))]
            idx = np.concatenate([rows_of[s] for s in pick])
            sub = {key: v[idx] for key, v in t.items()}
            sub["scenario"] = np.concatenate([np.char.add(scen[rows_of[s]], f"#{j}")
                                              for j, s in enumerate(pick)])
        else:
            sub = t
        f, _ = front(_hmean_ratios(sub), strict=False)
        so, cc = "selfish-order" in f, "cafm-cra" in f
        hits["seed_front"] += tuple(f) == SEED_A26
        hits["selfish_order"] += so
        hits["cafm_cra"] += cc
        hits["both"] += so and cc
    return {k: v / draws for k, v in hits.items()}


def _print(res: dict[str, Any]) -> None:
    print(f"\n== {res['path']}: {res['scenarios']} scenarios")
    for fig, seed in (("a7", SEED_A7), ("a13", SEED_A13)):
        print(f"{fig.upper()} (seed " + ", ".join(f"{k} {v}" for k, v in seed.items())
              + ")")
        for r in READINGS:
            vals = res[fig][r]
            cells = "  ".join(f"{k} {v[0]:6.1f} [{v[1]:.1f}, {v[2]:.1f}]"
                              for k, v in vals.items() if k in seed)
            print(f"  {r:12s} MAD {res['mad_' + fig][r]:6.1f}  {cells}")
    ma = res["a7"]["smaller"]["mean_absolute"]
    print(f"A7 mean absolute difference (seed 0.40): {ma[0]:.3f} [{ma[1]:.3f}, {ma[2]:.3f}]")
    hi = res["highest_ssct_population"]
    print("highest SSCT median (seed: Strassen except the SELFISH family [L553-554]): "
          + ", ".join(f"{a} {p}" for a, p in hi.items()))
    print("A26 over bootstrap resamples (share): " + ", ".join(
        f"{k} {v:.2f}" for k, v in res["a26_bootstrap"].items()))
    for name, d in res["a26"].items():
        print(f"A26 {name}: front {d['front']}")
        for a, v in d["off"].items():
            print(f"    {a} {v['ratios'][0]:.3f}/{v['ratios'][1]:.3f} dominated by "
                  f"{v['dominated_by']} {v['its_ratios'][0]:.3f}/{v['its_ratios'][1]:.3f}")


def main() -> None:
    """Command line: the paths of ``ptg.csv`` files, ``--boot``, ``--json``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args()
    results = [analyse(p, args.boot) for p in args.csv]
    for r in results:
        _print(r)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
