"""One file, every command: the star, Batsim's machine and seed 004's cluster read the same
hosts, speeds and pstates, and refuse what they cannot use with the same words.

The projections are ``lpsched.bags.simgrid.star_from_platform``,
``lpsched.batch.batsim.machine_from_platform`` and ``lpsched.ptg.platforms.cluster_of``;
the subprocess tests run the installed ``lpsched`` as a user does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lpsched.bags.simgrid import read_simgrid_platform, star_from_platform
from lpsched.batch.batsim import machine_from_platform
from lpsched.batch.batsim import read_platform as read_machine
from lpsched.errors import ParseError
from lpsched.platforms import (
    PlatformRefused,
    compute_hosts,
    parse_platform,
    read_platform,
    refuse,
)
from lpsched.ptg.platforms import cluster_from_platform, cluster_of
from tests.cli.test_cli_subprocess import lpsched, one_json_object

#: a Batsim-style platform: a master, a storage host, a cluster of 2-core hosts whose
#: pstate 0 is 2 Gflop/s, every host reached through the cluster's router
BATSIM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="AS0" routing="Full">
    <cluster id="c" prefix="n" suffix="" radical="0-3" speed="2Gf,1Gf" core="2"
             bw="1GBps" lat="50us" bb_bw="10GBps" bb_lat="1us"/>
    <zone id="front" routing="Full">
      <host id="master_host" speed="1Gf"/>
      <host id="pfs" speed="0f"><prop id="role" value="storage"/></host>
    </zone>
    <link id="wan" bandwidth="100MBps" latency="1ms"/>
    <zoneRoute src="front" dst="c" gw_src="master_host" gw_dst="nc_router">
      <link_ctn id="wan"/>
    </zoneRoute>
  </zone>
</platform>
"""


@pytest.fixture
def batsim_file(tmp_path: Path) -> Path:
    path = tmp_path / "lab.xml"
    path.write_text(BATSIM)
    return path


def test_one_file_reads_the_same_hosts_and_speeds_in_every_command(batsim_file: Path) -> None:
    plat = read_platform(batsim_file)
    machine = read_machine(batsim_file)
    cluster = cluster_from_platform(batsim_file)
    star = read_simgrid_platform(batsim_file, master="master_host",
                                 deployment=_workers(batsim_file.parent, "n0 n1 n2 n3"))
    speeds = {h.name: h.speed for h in plat.hosts.values()}
    assert machine.hosts == ("n0", "n1", "n2", "n3")  # master and storage left out
    assert machine.speeds.tolist() == [speeds[h] for h in machine.hosts] == [2e9] * 4
    assert (cluster.name, cluster.processors, cluster.speed) == ("lab", 8, 2e9)  # 4 x 2 cores
    assert star.workers == machine.hosts
    assert star.platform.speeds.tolist() == machine.speeds.tolist()
    assert star.routes[0] == ("wan", "c_backbone", "c_link_0_DOWN")


def _workers(folder: Path, hosts: str) -> Path:
    """A deployment file: the master on master_host, a worker on each of ``hosts``."""
    path = folder / "deploy.xml"
    actors = "".join(f'<actor host="{h}" function="worker"/>' for h in hosts.split())
    path.write_text(f'<platform version="4.1"><actor host="master_host" function="master"/>'
                    f"{actors}</platform>")
    return path


@pytest.mark.parametrize(("props", "expected"), [
    ("", ["n0", "n1"]),                                          # master_host: Batsim's master
    ('<prop id="role" value="compute_node"/>', ["master_host", "n0", "n1"]),  # its own role
    ("+boss", ["master_host", "n0", "n1"]),                      # another host is the master
])
def test_batsims_roles_decide_the_compute_hosts(props: str, expected: list[str]) -> None:
    boss = '<host id="boss" speed="1Gf"><prop id="role" value="master"/></host>'
    host = ('<host id="master_host" speed="1Gf"/>' if props in ("", "+boss") else
            f'<host id="master_host" speed="1Gf">{props}</host>')
    text = (f'<platform version="4.1"><zone id="z" routing="Full">{host}'
            f'{boss if props == "+boss" else ""}'
            '<host id="n0" speed="1Gf"/><host id="n1" speed="1Gf"/>'
            '<host id="s" speed="0f"><prop id="role" value="storage"/></host>'
            "</zone></platform>")
    assert [h.name for h in compute_hosts(parse_platform(text))] == expected


def test_refusals_are_worded_by_one_function() -> None:
    err = refuse("p.xml", "a seed 004 cluster (one speed)", "no compute host", 7)
    assert isinstance(err, PlatformRefused) and isinstance(err, ParseError)
    assert str(err) == "p.xml:7: not usable as a seed 004 cluster (one speed): no compute host"
    assert (err.path, err.line, err.why) == ("p.xml", 7, "no compute host")


HETEROGENEOUS = ('<platform version="4.1"><zone id="z" routing="Full">{hosts}'
                 "</zone></platform>")


@pytest.mark.parametrize(("hosts", "project", "words"), [
    ('<host id="a" speed="1Gf"/><host id="b" speed="2Gf" core="3"/>', "ptg",
     "not usable as a seed 004 cluster (one speed): hosts of different speeds (1 at 1e+09 "
     "flop/s, 3 at 2e+09 flop/s): seed 004's cluster is homogeneous"),
    ("".join(f'<host id="h{i}" speed="{i + 1}Gf"/>' for i in range(8)), "ptg",
     "1 at 6e+09 flop/s and 2 more speeds)"),
    ('<host id="master_host" speed="1Gf"/>', "ptg", "not usable as a seed 004 cluster (one "
     "speed): no compute host (every host is the master or a storage, or there is none)"),
    ('<host id="master_host" speed="1Gf"/>', "batch", "not usable as Batsim's machine (its "
     "compute hosts): no compute host"),
    ('<host id="a" speed="1Gf,0f" pstate="1"/>', "batch", "not usable as Batsim's machine "
     "(its compute hosts): <host id='a'> speed = '0f' must be > 0: host 'a' computes in "
     "pstate 1"),
    ('<host id="a" speed="0f"/><host id="b" speed="1Gf"/>', "star",
     "not usable as a star platform: <host id='a'> speed = '0f' must be > 0"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>', "star",
     "not usable as a star platform: not a star: no host has a route to every other host"),
])
def test_each_projection_names_the_property_it_cannot_use(hosts: str, project: str,
                                                           words: str) -> None:
    plat = parse_platform(HETEROGENEOUS.format(hosts=hosts), "p.xml")
    projection = {"ptg": lambda: cluster_of(plat, "p"),
                  "batch": lambda: machine_from_platform(plat),
                  "star": lambda: star_from_platform(plat)}[project]
    with pytest.raises(PlatformRefused, match=re.escape(words)) as err:
        projection()
    assert str(err.value).startswith("p.xml")


SWF = "; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
DOT = 'digraph g {\n 1 [size="2e9", alpha="0.1"];\n 2 [size="4e9", alpha="0"];\n 1 -> 2;\n}\n'


def test_the_commands_agree_on_a_file_and_refuse_alike(batsim_file: Path,
                                                       tmp_path: Path) -> None:
    (tmp_path / "t.swf").write_text(SWF)
    (tmp_path / "g.dot").write_text(DOT)
    batch = one_json_object(lpsched("batch", str(tmp_path / "t.swf"), "--platform",
                                    str(batsim_file), "--json"))
    assert batch["processors"] == 4  # the cluster's 4 hosts
    ptg = one_json_object(lpsched("ptg", "schedule", str(tmp_path / "g.dot"), "--cluster",
                                  str(batsim_file), "--algorithm", "selfish", "--json"))
    assert ptg["cluster"] == "lab"
    mixed = tmp_path / "mixed.xml"
    mixed.write_text(BATSIM.replace('<host id="master_host" speed="1Gf"/>',
                                    '<host id="master_host" speed="1Gf"/>'
                                    '<host id="extra" speed="3Gf"/>'))
    proc = lpsched("ptg", "schedule", str(tmp_path / "g.dot"), "--cluster", str(mixed))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"lpsched: error: {mixed}: not usable as a seed 004 cluster (one "
                           "speed): hosts of different speeds (8 at 2e+09 flop/s, 1 at 3e+09 "
                           "flop/s): seed 004's cluster is homogeneous\n")
    proc = lpsched("batch", str(tmp_path / "t.swf"), "--platform", str(mixed), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["processors"] == 5
    bad = tmp_path / "bad.xml"
    bad.write_text(BATSIM.replace('core="2"', 'core="2" pstate="1"'))
    for argv in (("batch", str(tmp_path / "t.swf"), "--platform", str(bad)),
                 ("ptg", "schedule", str(tmp_path / "g.dot"), "--cluster", str(bad)),
                 ("generate", "bags", "--platform", str(bad))):
        proc = lpsched(*argv)
        assert proc.returncode == 2 and proc.stdout == "", argv
        assert proc.stderr == (f"lpsched: error: {bad}:5: <cluster id='c'>: attribute 'pstate' "
                               "is not one SimGrid reads on <cluster> (SimGrid refuses the "
                               "file; its attributes are bb_bw, bb_lat, bb_sharing_policy, bw, "
                               "core, id, lat, limiter_link, loopback_bw, loopback_lat, "
                               "prefix, radical, router_id, sharing_policy, speed, suffix, "
                               "topo_parameters, topology)\n"), argv
