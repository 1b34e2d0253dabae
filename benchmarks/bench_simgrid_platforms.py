"""How many SimGrid platform files of a folder lpsched reads as a star (issue 33).

Usage::

    python benchmarks/bench_simgrid_platforms.py FOLDER [FOLDER ...] [--json]

For every ``*.xml`` of each folder (not recursive), :func:`lpsched.bags.simgrid.
read_simgrid_platform` is tried as it is; a file refused only because several hosts could
be the master is tried again with ``master=`` the first of them (``--master``). Each file
is printed with its outcome (``ok``, ``ok with --master H``, or ``refused: <reason>``), its
worker count and read time, then the counts. The folders are SimGrid's
``examples/platforms`` and Batsim's ``platforms`` (neither is in the repository: get them
with ``git clone https://framagit.org/simgrid/simgrid`` and
``https://github.com/oar-team/batsim``). Deployment files are not tried here.

``--simgrid PYTHON`` (an interpreter with SimGrid's bindings, e.g. Debian's
``/usr/bin/python3`` with ``python3-simgrid``) also asks SimGrid for the route from the
master to each worker of every file read (its first 300 workers), inside a run (SimGrid
3.32 computes Floyd's tables when the simulation starts), and compares the links (as a
multiset; a Wifi crossing ``link@station`` as ``link``), the latency and, one-port, the
bottleneck bandwidth (not for Wifi links, whose nominal bandwidth SimGrid reports as 1).
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

from lpsched.bags.simgrid import read_simgrid_platform
from lpsched.errors import ParseError

_CANDIDATES = re.compile(r"hosts have a route to every other host \('([^']*)'")


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
             ("<include>", "include")]
    for needle, name in rules:
        if needle in message:
            return name
    return message.split(": ", 1)[-1][:60]


def try_file(path: Path) -> dict[str, object]:
    """Read ``path`` as it is, then (several candidate masters) with the first as master.

    Parameters
    ----------
    path : Path
        A SimGrid platform file.

    Returns
    -------
    dict
        ``file``, ``outcome`` (``"ok"``, ``"master"`` or ``"refused"``), ``master``,
        ``workers``, ``reason`` (the error), ``category`` and ``seconds``.
    """
    start = time.perf_counter()
    out: dict[str, object] = {"file": path.name, "master": None, "workers": 0, "reason": ""}
    try:
        sg = read_simgrid_platform(path)
        out.update(outcome="ok", master=sg.master, workers=len(sg.workers))
    except ParseError as exc:
        found = _CANDIDATES.search(str(exc))
        if found is None:
            out.update(outcome="refused", reason=str(exc), category=_category(str(exc)))
        else:
            try:
                sg = read_simgrid_platform(path, master=found.group(1))
                out.update(outcome="master", master=sg.master, workers=len(sg.workers))
            except ParseError as exc2:
                out.update(outcome="refused", reason=str(exc2),
                           category=_category(str(exc2)))
    out["seconds"] = round(time.perf_counter() - start, 4)
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
    """``"same"``, ``"differs: ..."`` or ``"simgrid failed: ..."`` for the routes from
    ``master`` in ``path`` (module doc, ``--simgrid``).

    Parameters
    ----------
    path : Path
        A platform file lpsched reads.
    master : str
        The master host lpsched used.
    python : str
        An interpreter that imports ``simgrid``.

    Returns
    -------
    str
        The verdict.
    """
    sg = read_simgrid_platform(path, master=master)
    workers = [w for w in sg.workers if w != master][:300]
    proc = subprocess.run([python, "-c", PROBE, str(path), master, json.dumps(workers)],
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if "Error" in line][-1:]
        return f"simgrid failed: {last[0] if last else proc.stderr.strip()[-120:]}"
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    diffs = []
    lats = [0.0] * len(sg.workers) if sg.platform.latencies is None else [
        float(x) for x in sg.platform.latencies]
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


def main(argv: list[str] | None = None) -> int:
    """Print the outcome of each file and the counts; return 0.

    Parameters
    ----------
    argv : list of str, optional
        The command line (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (2 when a folder does not exist).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders of SimGrid .xml files")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead")
    ap.add_argument("--simgrid", metavar="PYTHON",
                    help="compare each star's routes with SimGrid's, run by this interpreter")
    args = ap.parse_args(argv)
    report = []
    for folder in args.folders:
        if not folder.is_dir():
            print(f"bench_simgrid_platforms: {folder}: not a folder", file=sys.stderr)
            return 2
        rows = [try_file(p) for p in sorted(folder.glob("*.xml"))]
        if args.simgrid:
            for r in rows:
                if r["outcome"] != "refused":
                    r["simgrid"] = compare_with_simgrid(folder / str(r["file"]),
                                                        str(r["master"]), args.simgrid)
        counts = Counter(str(r["outcome"]) for r in rows)
        checked = Counter(str(r["simgrid"]).split(" ")[0] for r in rows if "simgrid" in r)
        refused = Counter(str(r["category"]) for r in rows if r["outcome"] == "refused")
        report.append({"folder": str(folder), "files": len(rows), "ok": counts["ok"],
                       "with_master": counts["master"], "refused": counts["refused"],
                       "refused_by_reason": dict(refused.most_common()),
                       "simgrid": dict(checked), "rows": rows})
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for rep in report:
        print(f"== {rep['folder']}")
        for r in rep["rows"]:  # type: ignore[attr-defined]
            if r["outcome"] == "ok":
                what = f"ok ({r['workers']} workers, master {r['master']})"
            elif r["outcome"] == "master":
                what = f"ok with --master {r['master']} ({r['workers']} workers)"
            else:
                what = f"refused: {str(r['reason']).split(': ', 1)[-1]}"
            if "simgrid" in r:
                what += f"; SimGrid: {r['simgrid']}"
            print(f"{r['file']:48s} {r['seconds']:8.3f}s  {what}")
        print(f"{rep['files']} files: {rep['ok']} load as they are, {rep['with_master']} "
              f"with --master, {rep['refused']} refused")
        for reason, n in rep["refused_by_reason"].items():  # type: ignore[attr-defined]
            print(f"  {n:3d} {reason}")
        shown = rep["simgrid"]
        if isinstance(shown, dict) and shown:
            print("compared with SimGrid: " + ", ".join(f"{n} {k}" for k, n in shown.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
