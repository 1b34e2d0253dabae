"""``lpsched export simgrid`` and ``--platform`` (decisions 184-188), run as the installed
command: stdout, stderr and exit status."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lpsched.bags import load_instance
from lpsched.bags.simgrid import read_simgrid_platform
from tests.cli.test_cli_subprocess import lpsched, one_json_object

STAR = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="lab" routing="Full">
    <host id="boss" speed="2Gf"/>
    <host id="n1" speed="1Gf"/>
    <host id="n2" speed="500Mf"/>
    <host id="n3" speed="1000000000"/>
    <link id="sw" bandwidth="1GBps" latency="20us" sharing_policy="FATPIPE"/>
    <link id="l1" bandwidth="100Mbps" latency="100us"/>
    <link id="l2" bandwidth="10MBps" latency="1ms" sharing_policy="SPLITDUPLEX"/>
    <link id="l3" bandwidth="4MiBps"/>
    <route src="boss" dst="n1"><link_ctn id="sw"/><link_ctn id="l1"/></route>
    <route src="n2" dst="boss"><link_ctn id="l2" direction="DOWN"/><link_ctn id="sw"/></route>
    <route src="boss" dst="n3"><link_ctn id="l3"/></route>
  </zone>
</platform>
"""


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "star.xml").write_text(STAR)
    proc = lpsched("generate", "bags", "--apps", "3", "--workers", "2", "--seed", "4", "-o",
                   str(tmp_path / "inst.json"))
    assert proc.returncode == 0, proc.stderr
    return tmp_path


def _notes(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(line.startswith("lpsched: note: ") for line in lines), stderr
    return lines


def test_export_simgrid_writes_a_platform_that_reads_back_the_same(files):
    out, dep = files / "p.xml", files / "d.xml"
    proc = lpsched("export", "simgrid", str(files / "inst.json"), "-o", str(out),
                   "--deployment", str(dep))
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"wrote {out}: SimGrid platform (version 4.1), master + 2 workers, one-port",
        f"wrote {dep}: SimGrid deployment, 3 applications"]
    inst = load_instance(files / "inst.json")
    back = read_simgrid_platform(out).platform
    assert np.array_equal(back.speeds, inst.platform.speeds)
    assert np.array_equal(back.bandwidths, inst.platform.bandwidths)
    assert back.port == inst.platform.port and not back.has_latency
    assert dep.read_text().count('function="worker"') == 2


def test_export_simgrid_to_stdout_prints_only_the_xml(files):
    proc = lpsched("export", "simgrid", str(files / "inst.json"), "--exact-network")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("<?xml") and proc.stdout.rstrip().endswith("</platform>")
    assert '<prop id="network/model" value="CM02"/>' in proc.stdout


def test_generate_on_a_simgrid_platform_draws_the_same_applications(files):
    proc = lpsched("generate", "bags", "--apps", "3", "--seed", "4", "--platform",
                   str(files / "star.xml"))
    assert proc.returncode == 0
    # n3's unit-less speed: one note, stdout stays one JSON object
    notes = _notes(proc.stderr)
    assert len(notes) == 1 and "without unit" in notes[0] and "n3 speed" in notes[0]
    data = json.loads(proc.stdout)
    plat = data["platform"]
    assert plat["speeds"] == [1e9, 5e8, 1e9]
    assert plat["bandwidths"] == [12.5e6, 10e6, 4 * 1024.0**2]
    # SimGrid's arithmetic: value x unit, then the route's links in order
    assert plat["latencies"] == [20 * 1e-6 + 100 * 1e-6, 1 * 1e-3 + 20 * 1e-6, 0.0]
    assert plat["simgrid"] == {"master": "boss", "workers": ["n1", "n2", "n3"]}
    assert data["generator"]["platform"] == "star.xml"
    same = json.loads(lpsched("generate", "bags", "--apps", "3", "--seed", "4", "--workers",
                              "3").stdout)
    assert data["applications"] == same["applications"]


def test_solve_on_a_platform_with_latencies_says_the_lp_ignores_them(files):
    proc = lpsched("solve", str(files / "inst.json"), "--platform", str(files / "star.xml"),
                   "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["status"] == "optimal"
    assert proc.stdout.count("\n") == 1
    notes = _notes(proc.stderr)
    assert len(notes) == 2  # the unit-less speed, then the latencies
    assert notes[1].startswith("lpsched: note: the max-stretch LP ((K)/(K1)) ignores the link "
                               "latencies (up to 0.00102 s on 2 of 3 workers)")


def test_simulate_honours_latencies_and_says_the_bound_does_not(files):
    plat = files / "lat.xml"
    assert lpsched("export", "simgrid", str(files / "inst.json"), "-o", str(plat)).returncode == 0
    text = plat.read_text().replace('latency="0.0s"', 'latency="250ms"')
    plat.write_text(text)
    sim = lpsched("simulate", str(files / "inst.json"), "--platform", str(plat), "--policy",
                  "fifo-rr", "--json")
    assert sim.returncode == 0
    notes = _notes(sim.stderr)
    assert len(notes) == 1 and "LP lower bound (K1) ('lp_bound') ignores" in notes[0]
    assert "the simulated schedules include them" in notes[0]
    plain = one_json_object(lpsched("simulate", str(files / "inst.json"), "--policy",
                                    "fifo-rr", "--json"))
    row = json.loads(sim.stdout)
    assert row["lp_bound"] == plain["lp_bound"]        # the bound ignores latencies
    assert row["makespan"] > plain["makespan"]         # the simulation pays them
    thr = lpsched("throughput", str(files / "inst.json"), "--platform", str(plat), "--json")
    assert thr.returncode == 0 and "the steady state ignores" in thr.stderr


def test_platform_errors_are_one_line_and_exit_2(files):
    cases = [
        (("throughput", str(files / "inst.json"), "--master", "boss"),
         "lpsched: error: --master boss: names the master host of a SimGrid platform file, "
         "give the file with --platform"),
        (("throughput", str(files / "inst.json"), "--platform", str(files / "star.xml"),
          "--master", "n1"),
         f"lpsched: error: {files / 'star.xml'}:7: not usable as a star platform: not a star "
         "with master 'n1': no route "
         "from 'n1' to 'n2', 'n3' (zone 'lab' (routing=\"Full\") declares no route from 'n1' "
         "to 'n2')"),
        (("generate", "bags", "--platform", str(files / "star.xml"), "--workers", "3"),
         f"lpsched: error: --workers 3: the platform file {files / 'star.xml'} sets the "
         "workers and their links; leave it out"),
        (("export", "simgrid", str(files / "inst.json"), "-o", str(files / "p.txt")),
         f"lpsched: error: -o {files / 'p.txt'}: the file name must end with .xml"),
        (("solve", str(files / "inst.json"), "--platform", str(files / "missing.xml")),
         f"lpsched: error: {files / 'missing.xml'}: cannot read file: No such file or "
         "directory"),
    ]
    for argv, line in cases:
        proc = lpsched(*argv)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert proc.stdout == "" and proc.stderr == line + "\n", proc.stderr


def test_export_of_unrelated_speeds_is_refused(files):
    doc = json.loads((files / "inst.json").read_text())
    doc["platform"]["speeds"] = [doc["platform"]["speeds"]] * len(doc["applications"])
    (files / "u.json").write_text(json.dumps(doc))
    proc = lpsched("export", "simgrid", str(files / "u.json"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "unrelated speeds (one row per application) cannot be written" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_help_documents_the_platform_options():
    for argv in (("solve", "--help"), ("simulate", "--help"), ("generate", "bags", "--help"),
                 ("schedule", "--help"), ("export", "simgrid", "--help")):
        proc = lpsched(*argv)
        assert proc.returncode == 0
        text = " ".join(proc.stdout.split())
        assert ("--platform FILE" in text) or ("SimGrid platform file" in text), argv


# -- platforms in SimGrid's other styles through the existing options ---------------------------

CLUSTER = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <zone id="front" routing="Full"><host id="boss" speed="2Gf"/></zone>
    <cluster id="c" prefix="node-" suffix="" radical="0-2" speed="0f,1Gf" bw="10MBps" lat="1ms"
             bb_bw="100MBps" bb_lat="2ms"/>
    <link id="wan" bandwidth="50MBps" latency="3ms"/>
    <zoneRoute src="front" dst="c" gw_src="boss" gw_dst="node-c_router">
      <link_ctn id="wan"/>
    </zoneRoute>
  </zone>
</platform>
"""


def test_generate_on_a_cluster_behind_a_router_with_master(tmp_path):
    """boss -> node-i: wan (50 MB/s, 3 ms), the backbone (100 MB/s, 2 ms), node-i's private
    link down (10 MB/s, 1 ms); the cluster's speed list has 0f in pstate 0: refused, the
    hosts compute in the pstate they are in."""
    plat = tmp_path / "cluster.xml"
    plat.write_text(CLUSTER)
    proc = lpsched("generate", "bags", "--apps", "2", "--seed", "1", "--platform", str(plat),
                   "--master", "boss")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"lpsched: error: {plat}:6: not usable as a star platform: <cluster "
                           "id='c'> speed = '0f' must be > 0: host 'node-0' computes in "
                           "pstate 0\n")
    plat.write_text(CLUSTER.replace('speed="0f,1Gf"', 'speed="1Gf,0f"'))
    proc = lpsched("generate", "bags", "--apps", "2", "--seed", "1", "--platform", str(plat),
                   "--master", "boss")
    assert proc.returncode == 0 and proc.stderr == ""
    data = json.loads(proc.stdout)["platform"]
    assert data["speeds"] == [1e9] * 3
    assert data["bandwidths"] == [10e6] * 3
    assert data["latencies"] == pytest.approx([6e-3] * 3, rel=1e-12)
    assert data["simgrid"] == {"master": "boss", "workers": ["node-0", "node-1", "node-2"]}
    proc = lpsched("generate", "bags", "--apps", "2", "--seed", "1", "--platform", str(plat))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"lpsched: error: {plat}: not usable as a star platform: 4 "
                                  "hosts have a route to every other host ('boss', 'node-0', "
                                  "'node-1', 'node-2')")


def test_the_platform_benchmark_counts_a_folder(tmp_path):
    (tmp_path / "cluster.xml").write_text(CLUSTER.replace('speed="0f,1Gf"', 'speed="1Gf"'))
    (tmp_path / "star.xml").write_text(STAR)
    (tmp_path / "torus.xml").write_text(CLUSTER.replace(
        'bb_lat="2ms"', 'topology="RING"'))
    script = Path(__file__).parents[2] / "benchmarks" / "bench_simgrid_platforms.py"
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == f"== {tmp_path}"
    assert "ok with --master boss (3 workers)" in lines[1]
    assert "ok (3 workers, master boss)" in lines[2]
    assert "refused: <cluster id='c' topology='RING'>: expected FLAT, TORUS" in lines[3]
    assert lines[4] == "3 files: 1 load as they are, 1 with --master, 1 refused"
    assert lines[5] == "    1 unknown cluster topology"
    missing = subprocess.run([sys.executable, str(script), str(tmp_path / "nope")],
                             capture_output=True, text=True, timeout=120, check=False)
    assert missing.returncode == 2 and "not a folder" in missing.stderr


SMALL = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="Tremblay" speed="98.095Mf"/><host id="Jupiter" speed="76.296Mf"/>
    <host id="Fafard" speed="76.296Mf"/>
    <link id="1" bandwidth="34.285625MBps" latency="514.433us"/>
    <link id="2" bandwidth="118.6825MBps" latency="136.931us"/>
    <route src="Tremblay" dst="Jupiter"><link_ctn id="1"/></route>
    <route src="Tremblay" dst="Fafard"><link_ctn id="2"/></route>
    <route src="Jupiter" dst="Fafard"><link_ctn id="1"/><link_ctn id="2"/></route>
  </zone>
</platform>
"""

DEPLOYMENT = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <actor host="Tremblay" function="master"><argument value="20"/></actor>
  <actor host="Tremblay" function="worker"/>
  <actor host="Jupiter" function="worker"/>
  <actor host="Fafard" function="worker"/>
</platform>
"""


def test_generate_with_a_deployment_file(tmp_path):
    """``--deployment FILE`` with ``--platform`` (decision 359): the master computes too."""
    (tmp_path / "p.xml").write_text(SMALL)
    (tmp_path / "d.xml").write_text(DEPLOYMENT)
    proc = lpsched("generate", "bags", "--apps", "2", "--seed", "1", "--platform",
                   str(tmp_path / "p.xml"), "--deployment", str(tmp_path / "d.xml"))
    assert proc.returncode == 0, proc.stderr
    notes = _notes(proc.stderr)
    assert len(notes) == 1 and "also runs a worker actor" in notes[0]
    plat = json.loads(proc.stdout)["platform"]
    assert plat["simgrid"] == {"master": "Tremblay",
                               "workers": ["Tremblay", "Jupiter", "Fafard"]}
    assert plat["speeds"] == [98.095e6, 76.296e6, 76.296e6]
    assert plat["bandwidths"] == [1e30, 34.285625e6, 118.6825e6]
    alone = lpsched("generate", "bags", "--apps", "2", "--deployment", str(tmp_path / "d.xml"))
    assert alone.returncode == 2 and alone.stdout == ""
    assert alone.stderr == (f"lpsched: error: --deployment {tmp_path / 'd.xml'}: names the "
                            "master and the workers of a SimGrid platform file, give the "
                            "file with --platform\n")
