"""Subcommands of the multiple-PTG family (seed 004): ``ptg generate``, ``ptg schedule`` and
``reproduce ptg``.

Every modelling default that changes a command's numbers (a task's Amdahl α a file leaves
out, recorded runtimes read as seconds, the speed of ``--cluster P``;
:mod:`lpsched.ptg.assumptions`) is one ``lpsched: note: ...`` line on stderr and, with
``--json``, a record of ``"assumptions"`` (``ptg generate``: a top-level ``assumptions`` of
the JSON it writes). ``reproduce ptg`` runs seed 004's own graphs and clusters: every α and
speed is the seed's, nothing is defaulted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lpsched.cli.common import (
    add_runner_options,
    dump_json,
    read_json,
    report_fidelity,
    run_experiment,
    seed,
)
from lpsched.cli.outputs import (
    atomic_output,
    atomic_path,
    check_output,
    check_output_folder,
    write_rows_csv,
)
from lpsched.errors import InvalidInstanceError, LpschedError


def _note(message: str) -> None:
    """One ``lpsched: note: ...`` line on stderr (stdout keeps the report)."""
    print(f"lpsched: note: {message}", file=sys.stderr)


def alpha_arg(text: str) -> float:
    """``argparse`` type of ``--alpha``: Amdahl's non-parallel fraction α in [0, 1]
    (seed 004 [L493-498]).

    Parameters
    ----------
    text : str
        The option's value as typed.

    Returns
    -------
    float
        α.

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number in [0, 1] (a usage error, exit 2).
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: Amdahl's non-parallel fraction must be "
                                         "a number in [0, 1] (0 perfectly parallel, 1 "
                                         "sequential)")
    return value


ALPHA_HELP = ("Amdahl's non-parallel fraction alpha in [0, 1] (seed 004's alpha; 1 - alpha "
              "is the parallel fraction) of every task whose file gives none. Default: a "
              "WfCommons or DAX task recorded on c cores takes alpha = 1/c (runs its "
              "recorded runtime on its c cores; recorded on 1 core: alpha = 1, sequential); "
              "a DOT or lpsched JSON task takes 0. Each default used is a note on stderr")


def _cmd_generate(args: argparse.Namespace) -> int:
    from lpsched.ptg import generators as gen
    from lpsched.ptg.io import to_dot

    out = check_output(args.output, "-o", (".json", ".dot", ".gv")) if args.output else None
    if args.seed < 0:
        raise LpschedError(f"--seed {args.seed}: must be a whole number >= 0")
    if args.alpha is not None and not args.cls.startswith("wfcommons:"):
        raise LpschedError(f"--alpha applies to --class wfcommons:* (recorded runtimes); "
                           f"--class {args.cls} draws each alpha in [0, --alpha-max]")
    if args.cls == "random":
        g = gen.random_ptg(args.n, args.fat, args.density, args.regular, args.jump,
                           args.complexity, args.seed, args.alpha_max)
    elif args.cls == "fft":
        g = gen.fft_ptg(args.points, args.complexity, args.seed, args.alpha_max)
    elif args.cls.startswith("wfcommons:"):
        from lpsched.ptg.wfcommons_gen import wfcommons_ptg

        g = wfcommons_ptg(args.cls.split(":", 1)[1], args.n, args.seed, alpha=args.alpha)
    else:
        g = gen.strassen_ptg(args.complexity, args.seed, args.alpha_max)
    notes = _generate_notes(g, args.cls)
    if out is not None and out.suffix.lower() in (".dot", ".gv"):
        text = to_dot(g)
    else:
        doc = g.to_dict()
        if notes:
            doc["assumptions"] = [a.to_dict() for a in notes]
        text = json.dumps(doc, indent=1)  # as lpsched.ptg.io.to_json writes a PTG
    if out is None:
        print(text)
    else:
        with atomic_output(out) as fh:
            fh.write(text)
        print(f"{int((~g.dummy).sum())} tasks (+{int(g.dummy.sum())} dummy entry/exit), "
              f"width {g.width} -> {out}", file=sys.stderr)
    for a in notes:
        _note(a.note)
    return 0


def _generate_notes(g: Any, label: str) -> list[Any]:
    """The defaults behind a generated graph: none for seed 004's classes (every work and α
    drawn as the seed says); for a WfCommons recipe, the α defaults, the runtimes of 0 s and
    the reference speed that turned runtimes into work."""
    from lpsched.ptg.assumptions import (
        alpha_assumptions,
        reference_speed_note,
        runtime_assumptions,
    )

    return [*alpha_assumptions([g], [label]),
            *runtime_assumptions([g], [label], replayed=False),
            *reference_speed_note(g, label)]


def _load(paths: list[str], speed: float, alpha: float | None = None) -> list[Any]:
    """The PTG files, in any format :func:`lpsched.ptg.io.load_ptg` reads (lpsched JSON,
    DOT, daggen text, WfCommons JSON, Pegasus DAX); runtimes become work at the cluster's
    ``speed`` (decision 371), ``alpha`` is ``--alpha``."""
    from lpsched.ptg.io import load_ptg, ptg_from_document

    out = []
    for p in paths:
        try:
            if Path(p).suffix.lower() == ".json":  # the size-checked JSON reader
                out.append(ptg_from_document(read_json(p), Path(p).stem, p, speed, alpha))
            else:
                out.append(load_ptg(p, speed, alpha))
        except InvalidInstanceError as e:  # which of the PTG files it is
            raise InvalidInstanceError(f"{p}: {e.field}", e.value, e.reason) from None
    return out


def _cluster(text: str) -> Any:
    """The cluster of ``--cluster``: a platform file (``.xml``) through
    :func:`lpsched.ptg.platforms.cluster_from_platform`, any other text through
    :func:`lpsched.ptg.model.get_cluster` (a Table 1 name, ``P`` or ``P@S``)."""
    if text.lower().endswith(".xml"):
        from lpsched.ptg.platforms import cluster_from_platform

        return cluster_from_platform(text)
    from lpsched.ptg.model import get_cluster

    return get_cluster(text)


def _cmd_schedule(args: argparse.Namespace) -> int:
    from lpsched.ptg.assumptions import schedule_assumptions
    from lpsched.ptg.comparison import compare_algorithms
    from lpsched.ptg.problem import Problem

    gantt = (check_output(args.gantt, "--gantt", (".png", ".pdf", ".svg"), inputs=args.ptgs)
             if args.gantt else None)
    if gantt is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise LpschedError("--gantt needs matplotlib (pip install lpsched[dev])") from None
    if args.seed < 0:
        raise LpschedError(f"--seed {args.seed}: must be a whole number >= 0")
    if args.platform is not None:
        from lpsched.ptg.platforms import cluster_from_platform

        cluster, typed = cluster_from_platform(args.platform), None
    else:
        cluster, typed = _cluster(args.cluster), args.cluster
    ptgs = _load(args.ptgs, cluster.speed, args.alpha)
    notes = schedule_assumptions(ptgs, cluster, typed, args.ptgs)
    pb = Problem(ptgs, cluster, seed=args.seed, hcpa_bound=_bound(args))
    comparison = compare_algorithms(pb, args.algorithm, lp=not args.no_lp)
    results = comparison.results
    if gantt is not None:
        from lpsched.ptg.plotting import gantt as draw

        with atomic_path(gantt) as tmp:  # a failed write leaves the old file in place
            draw(results[0].schedule, cluster.processors, tmp,
                 f"{results[0].algorithm} on {cluster.name}", _legend(ptgs, args.ptgs))
    if args.json:
        bounds = comparison.bounds.to_dict()
        rows = [{**r.to_dict(), "lower_bounds": bounds} for r in results]
        doc: dict[str, Any] = rows[0] if len(rows) == 1 else {
            "algorithm": "all", "cluster": cluster.name, "lower_bounds": bounds,
            "results": rows}
        doc.update({"cluster": cluster.name, "ptgs": [g.name for g in pb.ptgs],
                    "hcpa_bound": str(pb.hcpa_bound),
                    "lower_bound_seconds": comparison.bound_seconds,
                    "alpha_option": args.alpha,
                    "assumptions": [a.to_dict() for a in notes]})
        print(dump_json(doc))
    else:
        print(_table(comparison, cluster.name))
    for a in notes:
        _note(a.note)
    return 0


def _legend(ptgs: list[Any], paths: list[str]) -> list[str]:
    """The Gantt legend's entry of each PTG: its name, or the file as typed when two PTGs
    share a name."""
    names = [g.name or Path(p).stem for g, p in zip(ptgs, paths, strict=True)]
    return [n if names.count(n) == 1 else p for n, p in zip(names, paths, strict=True)]


def _table(comparison: Any, cluster: str) -> str:
    """``ptg schedule``'s table: the rows of
    :func:`lpsched.ptg.comparison.compare_algorithms` (the fields of its ``TABLE_COLUMNS``;
    ``time``: the algorithm's own seconds, ``shared``: the one-time cost of the shared
    precomputations it uses), then the bounds and the validation line."""
    lines = [f"{'algorithm':<18} {'Cmax (s)':>10} {'Cmax/LB':>8} {'SSCT':>7} {'SSCT/LB':>8} "
             f"{'MaxS':>8} {'util %':>7} {'time (s)':>9} {'shared (s)':>10}"]
    rows = comparison.rows
    for r in rows:
        lines.append(f"{r['algorithm']:<18} {r['makespan']:>10.2f} {r['makespan_ratio']:>8.3f} "
                     f"{r['scaled_sum_completion']:>7.3f} {r['ssct_ratio']:>8.3f} "
                     f"{r['max_stretch']:>8.3f} {100 * r['utilisation']:>7.2f} "
                     f"{r['seconds']:>9.4f} {r['shared_seconds']:>10.4f}")
    b = comparison.bounds
    checked = ("every schedule validated" if all(r["valid"] for r in rows)
               else "schedules NOT validated")
    lines.append(f"lower bounds on {cluster}: Cmax >= {b.makespan:.2f} s "
                 f"({'lp' if b.makespan_lp >= b.makespan_classical else 'classical'}), "
                 f"SSCT >= {b.ssct:.3f} ({b.ssct_source}); {checked}")
    return "\n".join(lines)


def _bound(args: argparse.Namespace) -> Any:
    """The improved-HCPA processor bound of ``--hcpa-bound`` (decision 336; the literal reading,
    default when absent)."""
    from lpsched.ptg.hcpa import DEFAULT_BOUND, HcpaBound

    return HcpaBound.parse(args.hcpa_bound) if args.hcpa_bound else DEFAULT_BOUND


def _cmd_reproduce(args: argparse.Namespace) -> int:

    from lpsched.ptg import reproduce as exp

    if not 1 <= args.scenarios <= 1500:
        raise LpschedError(f"--scenarios {args.scenarios}: must be a whole number in [1, 1500]")
    if args.jobs < 1:
        raise LpschedError(f"--jobs {args.jobs}: must be a whole number >= 1")
    if args.seed < 0:
        raise LpschedError(f"--seed {args.seed}: must be a whole number >= 0")
    out = check_output_folder(args.out, "--out")
    csv_path = check_output(str(out / "ptg.csv"), "--out")
    json_path = check_output(str(out / "ptg_summary.json"), "--out")
    bound = _bound(args)
    cells = exp.cells(args.scenarios, args.seed, hcpa_bound=bound)
    rows, ran, wall = run_experiment("ptg", cells, exp.cell_rows, out, args, exp.ROW_SCHEMA)
    write_rows_csv(csv_path, rows)
    summ = exp.summary(rows)
    with atomic_output(json_path) as fh:
        fh.write(dump_json(summ))
    figures: list[str] = []
    if not args.no_figures and rows:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            pass
        else:
            from lpsched.ptg.plotting import summary_figures

            figures = [str(p) for p in summary_figures(summ, out)]
    from lpsched.ptg.fidelity import ptg_table

    table = ptg_table(rows, str(bound))
    print(dump_json({"experiment": "ptg", "scenarios": len(cells), "figures": figures,
                     "hcpa_bound": str(bound), "acceptance": summ.get("acceptance", []),
                     "bounds_hold": summ.get("bounds_hold"),
                     "pareto": summ.get("pareto"),
                     "targets": summ.get("targets", {}), "vs_seed": table.to_dict()}))
    report_fidelity(table, out, json_mode=True)  # the table on stderr, its CSV in --out
    print(f"{ran} scenarios computed now, {len(cells) - ran} found in {out / 'ptg.sqlite'}; "
          f"{wall:.1f} s; rows in {csv_path}, summary in {json_path}", file=sys.stderr)
    return 0


HCPA_BOUND_HELP = ("the improved-HCPA variant (decision 336; default: literal): literal "
                   "(the seed's own wording, smallest T(v,p+1)/(p+1); the seed states a "
                   "bound [L595-597] but not its value; none is added), or CPA's gain rule "
                   "with a bound: none, fraction:F, sqrt:X, efficiency:E, level:F, budget:F "
                   "(budget:0.65 was fitted to A9, decision 170); literal and none take no "
                   "value (decision 416)")


def hcpa_bound_arg(text: str) -> str:
    """``argparse`` type of ``--hcpa-bound``: the text as typed, once
    :meth:`lpsched.ptg.hcpa.HcpaBound.parse` accepts it (``literal`` and ``none`` take no
    value).

    Parameters
    ----------
    text : str
        The option's value as typed (``literal``, ``none`` or ``KIND:VALUE``).

    Returns
    -------
    str
        ``text`` unchanged; :func:`_bound` parses it again.

    Raises
    ------
    argparse.ArgumentTypeError
        The variant is not one of seed 004's allocation-step readings (a usage error,
        exit 2), with what was typed and what is accepted.

    Notes
    -----
    The refusal of a value is decision 416.
    """
    from lpsched.errors import InvalidInstanceError
    from lpsched.ptg.hcpa import HcpaBound

    try:
        HcpaBound.parse(text)
    except InvalidInstanceError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc.reason}") from None
    return text


def add_reproduce(rep_sub: Any) -> None:
    """``reproduce ptg``.

    Parameters
    ----------
    rep_sub : argparse._SubParsersAction
        The subparsers of ``lpsched reproduce``, which receive the ``ptg`` command.
    """
    rp = rep_sub.add_parser("ptg", help="seed 004: multiple PTGs, 1,500 scenarios x 19 "
                            "algorithms (Figs 2-8, Table 2, acceptance checks)")
    rp.add_argument("--scenarios", type=int, default=1500, help="the first N scenarios, "
                    "balanced over classes, N and clusters (default 1500)")
    add_runner_options(rp, "folder of the store, CSV and summary")
    rp.add_argument("--seed", type=seed, default=0)
    rp.add_argument("--hcpa-bound", default=None, type=hcpa_bound_arg, help=HCPA_BOUND_HELP)
    rp.add_argument("--no-figures", action="store_true", help="skip Figs 2-8 (PNG files, "
                    "drawn when matplotlib is installed)")
    rp.set_defaults(func=_cmd_reproduce)


def add_commands(sub: Any, full: bool = True) -> None:
    """``ptg generate``, ``ptg schedule``.

    Their choices come from the ptg family, which imports networkx: with ``full=False`` (a command
    line that does not name ``ptg``) only the ``ptg`` entry of ``lpsched --help`` is added, so other
    commands never import it.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level subparsers of ``lpsched``.
    full : bool
        Build the ``ptg`` subcommands with all their options (False: the entry only).
    """
    ptg = sub.add_parser("ptg", help="multiple parallel task graphs on one cluster (seed 004)")
    if not full:
        return
    from lpsched.ptg.generators import COMPLEXITIES
    from lpsched.ptg.model import CLUSTERS
    from lpsched.ptg.registry import ALGORITHMS

    ps = ptg.add_subparsers(dest="ptg_command", required=True)
    from lpsched.ptg.wfcommons_gen import RECIPES

    gen = ps.add_parser("generate", help="a random (daggen), FFT or Strassen PTG, or one "
                        "drawn from a WfCommons recipe")
    gen.add_argument("--class", dest="cls", default="random",
                     choices=("random", "fft", "strassen", *(f"wfcommons:{r}" for r in RECIPES)),
                     help="the PTG family of seed 004 §5.1, or wfcommons:RECIPE (a recipe "
                     "of the optional wfcommons package, built from real executions; "
                     "runtimes become work at 1e9 flop/s, alpha 1/recorded cores unless "
                     "--alpha: decisions 371, 484)")
    gen.add_argument("--n", type=int, default=20, help="random and wfcommons: number of "
                     "tasks")
    gen.add_argument("--fat", type=float, default=0.5, help="random: width exponent")
    gen.add_argument("--density", type=float, default=0.2,
                     help="random: daggen's edge density between levels")
    gen.add_argument("--regular", type=float, default=0.8,
                     help="random: daggen's regularity of the level widths")
    gen.add_argument("--jump", type=int, default=1,
                     help="random: the longest edge, in levels")
    gen.add_argument("--points", type=int, default=4, help="fft: 2, 4, 8, ...")
    gen.add_argument("--complexity", choices=COMPLEXITIES, default="mixed",
                     help="the task cost scenario of seed 004 (a·d, a·d·log d, d^1.5, mixed)")
    gen.add_argument("--alpha-max", type=float, default=0.25,
                     help="Amdahl's non-parallel fraction α drawn in [0, alpha-max] "
                     "(random, fft, strassen; default 0.25, the seed's [L497])")
    gen.add_argument("--alpha", type=alpha_arg, default=None,
                     help="wfcommons:RECIPE only: Amdahl's non-parallel fraction alpha in "
                     "[0, 1] of every task (1 - alpha is the parallel fraction). Default: "
                     "1/c for a task recorded on c cores (it runs its recorded runtime on "
                     "them; recorded on 1 core: alpha = 1, sequential), a note on stderr "
                     "and in the JSON's assumptions")
    gen.add_argument("--seed", type=seed, default=0)
    gen.add_argument("-o", "--output", help=".json or .dot (default: JSON on stdout)")
    gen.set_defaults(func=_cmd_generate)
    sch = ps.add_parser("schedule", help="schedule PTGs together, validated, vs lower bounds")
    sch.add_argument("ptgs", nargs="+", help="PTG files: lpsched JSON, DOT (lpsched or "
                     "daggen --dot), daggen text (NODE lines), WfCommons JSON (1.4/1.5) or "
                     "Pegasus DAX (.dax/.xml)")
    sch.add_argument("--alpha", type=alpha_arg, default=None, help=ALPHA_HELP)
    where = sch.add_mutually_exclusive_group(required=True)
    where.add_argument("--cluster", help=f"one of {', '.join(CLUSTERS)} "
                       "(seed 004 Table 1), a processor count P or P@SPEED (flop/s; "
                       "default speed 1e9), e.g. 64 or 64@3.2e9, or a SimGrid/Batsim "
                       "platform file (.xml: its compute cores, one speed)")
    where.add_argument("--platform", metavar="FILE", help="a SimGrid/Batsim platform file, "
                       "whatever its name: the cluster of its compute hosts' cores, one "
                       "speed (as --cluster FILE.xml; the same reader as every command's "
                       "--platform)")
    sch.add_argument("--algorithm", choices=[*ALGORITHMS, "all"], default="all",
                     help="one of seed 004's 19 algorithms, or all of them")
    sch.add_argument("--seed", type=seed, default=0, help="random ties")
    sch.add_argument("--hcpa-bound", default=None, type=hcpa_bound_arg, help=HCPA_BOUND_HELP)
    sch.add_argument("--no-lp", action="store_true", help="classical bounds only")
    fmt = sch.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--table", action="store_true", help="the table against the lower "
                     "bounds and the validation line (the default output)")
    sch.add_argument("--gantt", help="draw the (first) schedule to a .png/.pdf/.svg file, "
                     "one colour per PTG, named in its legend")
    sch.set_defaults(func=_cmd_schedule)
