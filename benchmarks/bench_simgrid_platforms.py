"""What every command makes of the SimGrid platform files of a folder: loads, or refused and why.

Usage::

    python benchmarks/bench_simgrid_platforms.py FOLDER [FOLDER ...] [--json] [--simgrid PY]

Each ``*.xml`` of each folder (not recursive) is read once by
:func:`lpsched.platforms.read_platform`, then projected as each command projects it:

* ``star`` (``lpsched solve/generate/simulate --platform``,
  :func:`lpsched.bags.simgrid.star_from_platform`): tried as it is; a file refused only
  because several hosts could be the master is tried again with ``master=`` the first of
  them (``--master``);
* ``batch`` (``lpsched batch --platform``, :func:`lpsched.batch.batsim.machine_from_platform`):
  the compute hosts and their speeds;
* ``ptg`` (``lpsched ptg schedule --cluster FILE``,
  :func:`lpsched.ptg.platforms.cluster_of`): the homogeneous cluster.

Each file is printed on one line with its read time and each command's outcome, then the
counts per command, refusals grouped by reason. "Loads" means lpsched builds the command's
model; it does not mean the model is a good one of the platform (e.g. a Wifi cell read as a
star). The folders are SimGrid's ``examples/platforms`` and Batsim's ``platforms``; neither
is in the repository (``git clone https://framagit.org/simgrid/simgrid`` and
``https://github.com/oar-team/batsim``). Deployment files are not tried here.

``--simgrid PYTHON`` (an interpreter with SimGrid's bindings, e.g. Debian's
``/usr/bin/python3`` with ``python3-simgrid``) also asks SimGrid for the route from the
star's master to each worker of every file read (its first 300 workers), inside a run
(SimGrid 3.32 computes Floyd's tables when the simulation starts), and compares the links
(as a multiset; a Wifi crossing ``link@station`` as ``link``), the latency and, one-port,
the bottleneck bandwidth (not for Wifi links, whose nominal bandwidth SimGrid reports as 1).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from lpsched.bags.simgrid import SimgridPlatform, star_from_platform
from lpsched.batch.batsim import machine_from_platform
from lpsched.errors import ParseError
from lpsched.platforms import Platform, PlatformRefused, read_platform
from lpsched.ptg.platforms import cluster_of

_CANDIDATES = re.compile(r"hosts have a route to every other host \('([^']*)'")
#: the commands, in the order printed
COMMANDS = ("star", "batch", "ptg")
#: the command line each projection stands for
COMMAND_LINES = {"star": "solve/generate --platform (star)", "batch": "batch --platform",
                 "ptg": "ptg schedule --cluster FILE"}


def _category(message: str) -> str:
    """A short reason for a refusal (the counts' key)."""
    rules = [("routing=\"None\"", "routing None (no route)"),
             ("topology=", "unknown cluster topology"),
             ("a star needs a master and at least one worker", "fewer than two hosts"),
             ("not a star", "not a star (no master reaches every host)"),
             ("has no link", "route without link"),
             ("coordinates", "Vivaldi netpoint without coordinates"),
             ("no gateway", "zone without gateway"),
             ("WIFI", "wifi"),
             ("<include>", "include"),
             ("hosts of different speeds", "hosts of different speeds"),
             ("no compute host", "no compute host"),
             ("must be > 0", "a host of speed 0")]
    for needle, name in rules:
        if needle in message:
            return name
    return message.split(": ", 1)[-1][:60]


def _reason(exc: ParseError) -> str:
    """The refusal's words without the file name (and, for a projection, its model)."""
    if isinstance(exc, PlatformRefused):
        return exc.why
    return str(exc).split(": ", 1)[-1]


def _star(plat: Platform) -> dict[str, Any]:
    """The star's outcome: ``ok``, ``master`` (with ``--master``) or ``refused``."""
    try:
        sg: SimgridPlatform = star_from_platform(plat)
        return {"outcome": "ok", "master": sg.master, "workers": len(sg.workers)}
    except ParseError as exc:
        found = _CANDIDATES.search(str(exc))
        if found is None:
            return {"outcome": "refused", "reason": _reason(exc),
                    "category": _category(str(exc))}
    try:
        sg = star_from_platform(plat, master=found.group(1))
        return {"outcome": "master", "master": sg.master, "workers": len(sg.workers)}
    except ParseError as exc2:
        return {"outcome": "refused", "reason": _reason(exc2), "category": _category(str(exc2))}


def _batch(plat: Platform) -> dict[str, Any]:
    """Batsim's machine: its compute hosts and their speeds, or the refusal."""
    try:
        m = machine_from_platform(plat)
    except ParseError as exc:
        return {"outcome": "refused", "reason": _reason(exc), "category": _category(str(exc))}
    return {"outcome": "ok", "hosts": m.processors, "speed": m.speed,
            "speeds": len(set(m.speeds.tolist()))}


def _ptg(plat: Platform) -> dict[str, Any]:
    """Seed 004's cluster: processors and speed, or the refusal."""
    try:
        c = cluster_of(plat, "x")
    except ParseError as exc:
        return {"outcome": "refused", "reason": _reason(exc), "category": _category(str(exc))}
    return {"outcome": "ok", "processors": c.processors, "speed": c.speed}


def try_file(path: Path) -> dict[str, Any]:
    """Read ``path`` once and project it as each command does (module doc).

    Parameters
    ----------
    path : Path
        A SimGrid platform file.

    Returns
    -------
    dict
        ``file``, ``seconds`` (the read), ``hosts``, and per command of :data:`COMMANDS`
        a dict with ``outcome`` (``"ok"``, ``"master"`` or ``"refused"``) and the model's
        sizes or the ``reason`` and its ``category``; a file that is not a platform is
        refused by every command with the reader's words.
    """
    start = time.perf_counter()
    out: dict[str, Any] = {"file": path.name}
    try:
        plat = read_platform(path)
    except ParseError as exc:
        refused = {"outcome": "refused", "reason": _reason(exc), "category": _category(str(exc))}
        out.update(seconds=round(time.perf_counter() - start, 4), hosts=0,
                   **{c: dict(refused) for c in COMMANDS})
        return out
    out.update(seconds=round(time.perf_counter() - start, 4), hosts=len(plat.hosts),
               star=_star(plat), batch=_batch(plat), ptg=_ptg(plat))
    return out


PROBE = """
import json, sys, simgrid
e = simgrid.Engine(["probe", "--log=root.thres:critical"])
e.load_platform(sys.argv[1])
hosts = {h.name: h for h in e.all_hosts}
out = {}
def probe():
    for w in json.loads(sys.argv[3]):
        links, lat = hosts[sys.argv[2]].route_to(hosts[w])
        out[w] = [[l.name for l in links], lat, [l.bandwidth for l in links]]
simgrid.Actor.create("probe", hosts[sys.argv[2]], probe)
e.run()
print(json.dumps(out))
"""


def compare_with_simgrid(path: Path, master: str, python: str) -> str:
    """Compare the star's routes from ``master`` in ``path`` with SimGrid's (``--simgrid``).

    Parameters
    ----------
    path : Path
        A platform file the star projection reads.
    master : str
        The master host lpsched used.
    python : str
        An interpreter that imports ``simgrid``.

    Returns
    -------
    str
        ``"same (N routes)"``, ``"differs (N): ..."`` or ``"simgrid failed: ..."``.
    """
    sg = star_from_platform(read_platform(path), master=master)
    workers = [w for w in sg.workers if w != master][:300]
    proc = subprocess.run([python, "-c", PROBE, str(path), master, json.dumps(workers)],
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if "Error" in line][-1:]
        return f"simgrid failed: {last[0] if last else proc.stderr.strip()[-120:]}"
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    diffs = []
    lats = [float(x) for x in sg.platform.latencies]
    for u, w in enumerate(sg.workers):
        if w not in ref:
            continue
        names, lat, bws = ref[w]
        mine = sorted(h.split("@")[0] for h in sg.routes[u])
        if mine != sorted(names):
            diffs.append(f"{w}: links {mine} vs {sorted(names)}")
        if abs(lats[u] - lat) > 1e-12 * max(1.0, lat):
            diffs.append(f"{w}: latency {lats[u]} vs {lat}")
        wifi = any("@" in h for h in sg.routes[u])
        if sg.platform.port == "one-port" and not wifi:
            if abs(float(sg.platform.bandwidths[u]) - min(bws)) > 1e-9 * min(bws):
                diffs.append(f"{w}: bandwidth {float(sg.platform.bandwidths[u])} vs {min(bws)}")
    if diffs:
        return f"differs ({len(diffs)}): {'; '.join(diffs[:2])}"
    return f"same ({len(workers)} routes)"


def _star_text(r: dict[str, Any]) -> str:
    """The star's outcome on a file's line."""
    if r["outcome"] == "ok":
        return f"ok ({r['workers']} workers, master {r['master']})"
    if r["outcome"] == "master":
        return f"ok with --master {r['master']} ({r['workers']} workers)"
    return f"refused: {r['reason']}"


def _line(row: dict[str, Any]) -> str:
    """One file's line: the read time, then each command's outcome."""
    text = f"{row['file']:48s} {row['seconds']:8.3f}s  star: {_star_text(row['star'])}"
    if row["hosts"] == 0:  # not a platform: every command refuses it alike
        return text
    b, p = row["batch"], row["ptg"]
    text += (f" | batch: {b['hosts']} hosts at {b['speed']:g} flop/s"
             + (f" (slowest of {b['speeds']} speeds)" if b["speeds"] > 1 else "")
             if b["outcome"] == "ok" else f" | batch: refused: {b['reason']}")
    text += (f" | ptg: {p['processors']} x {p['speed']:g} flop/s" if p["outcome"] == "ok"
             else f" | ptg: refused: {p['category']}")
    return text


def report(folder: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts of a folder's rows, per command.

    Parameters
    ----------
    folder : Path
        The folder read.
    rows : list of dict
        :func:`try_file` of each of its files.

    Returns
    -------
    dict
        ``folder``, ``files``, the star's ``ok``/``with_master``/``refused`` and
        ``refused_by_reason``, per command ``commands[c]`` its ``loads``, ``refused`` and
        ``refused_by_reason``, the SimGrid comparison's counts, and the ``rows``.
    """
    star = Counter(str(r["star"]["outcome"]) for r in rows)
    commands = {}
    for c in COMMANDS:
        refused = [r[c] for r in rows if r[c]["outcome"] == "refused"]
        commands[c] = {"loads": len(rows) - len(refused), "refused": len(refused),
                       "refused_by_reason": dict(Counter(str(x["category"])
                                                         for x in refused).most_common())}
    checked = Counter(str(r["simgrid"]).split(" ")[0] for r in rows if "simgrid" in r)
    return {"folder": str(folder), "files": len(rows), "ok": star["ok"],
            "with_master": star["master"], "refused": star["refused"],
            "refused_by_reason": commands["star"]["refused_by_reason"],
            "commands": commands, "simgrid": dict(checked), "rows": rows}


def print_report(rep: dict[str, Any]) -> None:
    """Print a folder's files, then the counts per command (module doc).

    Parameters
    ----------
    rep : dict
        :func:`report`'s result.
    """
    print(f"== {rep['folder']}")
    for r in rep["rows"]:
        line = _line(r)
        if "simgrid" in r:
            line += f"; SimGrid: {r['simgrid']}"
        print(line)
    print(f"{rep['files']} files: {rep['ok']} load as they are, {rep['with_master']} "
          f"with --master, {rep['refused']} refused")
    for reason, n in rep["refused_by_reason"].items():
        print(f"  {n:3d} {reason}")
    for c in COMMANDS[1:]:
        counts = rep["commands"][c]
        print(f"{COMMAND_LINES[c]}: {counts['loads']} load, {counts['refused']} refused")
        for reason, n in counts["refused_by_reason"].items():
            print(f"  {n:3d} {reason}")
    if rep["simgrid"]:
        print("compared with SimGrid: " + ", ".join(f"{n} {k}"
                                                   for k, n in rep["simgrid"].items()))


def main(argv: list[str] | None = None) -> int:
    """Print the outcome of each file and the counts.

    Parameters
    ----------
    argv : list of str, optional
        The command line (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (2 when a folder does not exist).
    """
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders of SimGrid .xml files")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead")
    ap.add_argument("--simgrid", metavar="PYTHON",
                    help="compare each star's routes with SimGrid's, run by this interpreter")
    args = ap.parse_args(argv)
    reports = []
    for folder in args.folders:
        if not folder.is_dir():
            print(f"bench_simgrid_platforms: {folder}: not a folder", file=sys.stderr)
            return 2
        rows = [try_file(p) for p in sorted(folder.glob("*.xml"))]
        if args.simgrid:
            for r in rows:
                if r["star"]["outcome"] != "refused":
                    r["simgrid"] = compare_with_simgrid(folder / str(r["file"]),
                                                        str(r["star"]["master"]), args.simgrid)
        reports.append(report(folder, rows))
    if args.json:
        print(json.dumps(reports, indent=1))
        return 0
    for rep in reports:
        print_report(rep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
