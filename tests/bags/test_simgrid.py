"""SimGrid platform files as seed 003's star: units, reading, writing, round trips, latency.

The last tests load lpsched's files with SimGrid itself (its Python bindings, in this
interpreter or in ``$LPSCHED_SIMGRID_PYTHON`` or a system ``/usr/bin/python3`` that has
them, e.g. Debian's ``python3-simgrid``); they are skipped when no SimGrid is found.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpsched.bags import Application, Instance, StarPlatform, instance_from_dict
from lpsched.bags import simgrid as sg
from lpsched.bags.io import instance_to_dict, instance_to_json
from lpsched.bags.policies import get_policy
from lpsched.bags.schedule import validate
from lpsched.bags.simulator import simulate
from lpsched.errors import InvalidInstanceError, ParseError
from lpsched.platforms import xmlfile
from lpsched.testing.strategies import star_instances

HEAD = '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'


def doc(body: str, version: str = "4.1", tag: str = "zone", routing: str = "Full") -> str:
    return (f'{HEAD}<platform version="{version}">\n<{tag} id="z" routing="{routing}">\n'
            f"{body}\n</{tag}>\n</platform>\n")


# -- units -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("1f", 1.0), ("1kf", 1e3), ("1Mf", 1e6), ("1.5Gf", 1.5e9), ("2Tf", 2e12), ("1Pf", 1e15),
    ("1Ef", 1e18), ("1Zf", 1e21), ("1Yf", 1e24), ("3flops", 3.0), ("2gigaflops", 2e9),
    ("1e9f", 1e9), (".5Gf", 5e8), ("1E3kf", 1e6), ("1zetaflops", 1e21),
])
def test_speed_units_are_simgrids(text, value):
    assert sg.parse_quantity(text, "speed") == (value, True)


@pytest.mark.parametrize(("text", "value"), [
    ("1Bps", 1.0), ("1kBps", 1e3), ("10MBps", 1e7), ("1GBps", 1e9), ("1TBps", 1e12),
    ("1KiBps", 1024.0), ("1MiBps", 1024.0**2), ("1GiBps", 1024.0**3), ("2TiBps", 2 * 1024.0**4),
    ("8bps", 1.0), ("1kbps", 125.0), ("100Mbps", 12.5e6), ("1Gbps", 1.25e8),
    ("1Kibps", 128.0), ("1Mibps", 1024.0**2 / 8), ("1Eibps", 1024.0**6 / 8),
])
def test_bandwidth_units_are_simgrids(text, value):
    assert sg.parse_quantity(text, "bandwidth") == (value, True)


@pytest.mark.parametrize(("text", "value"), [
    ("1s", 1.0), ("2ms", 2e-3), ("1us", 1e-6), ("1ns", 1e-9), ("1ps", 1e-12), ("1m", 60.0),
    ("1h", 3600.0), ("1d", 86400.0), ("1w", 604800.0), ("0", 0.0),
])
def test_latency_units_are_simgrids(text, value):
    assert sg.parse_quantity(text, "latency")[0] == value


def test_a_number_without_unit_is_read_in_the_base_unit_and_flagged():
    assert sg.parse_quantity("1e9", "speed") == (1e9, False)
    assert sg.parse_quantity("125", "bandwidth") == (125.0, False)
    assert sg.parse_quantity("0.5", "latency") == (0.5, False)


@pytest.mark.parametrize(("text", "kind", "hint"), [
    ("1KBps", "bandwidth", "kBps"),       # SimGrid's decimal kilo is lower-case
    ("1Kif", "speed", "no binary prefixes"),
    ("1GHz", "speed", "1Gf"),
    ("10 MBps", "bandwidth", "decimal number"),
    ("fast", "bandwidth", "decimal number"),
    ("1sec", "latency", "ms us"),
    ("0x10Bps", "bandwidth", "unknown"),
])
def test_units_simgrid_refuses_are_errors_with_a_hint(text, kind, hint):
    with pytest.raises(ValueError, match=hint):
        sg.parse_quantity(text, kind)


# -- reading hand-written files ---------------------------------------------------------------

HANDWRITTEN = doc("""
  <prop id="site" value="lyon"/>
  <host id="Tremblay" speed="98.095Mf"/>
  <host id="Jupiter" speed="76.296Mf,50Mf,20Mf" pstate="1"/>
  <host id="Fafard" speed="76296000"/>
  <host id="Ginette" speed="0.5Gf" core="4">
    <prop id="owner" value="me"/>
  </host>
  <router id="switch"/>
  <link id="backbone" bandwidth="1GBps" latency="500us" sharing_policy="FATPIPE"/>
  <link id="l1" bandwidth="100Mbps" latency="1ms"/>
  <link id="l2" bandwidth="4MiBps" latency="50us" sharing_policy="SPLITDUPLEX"/>
  <link id="l3" bandwidth="2MBps" latency="0.002"/>
  <!-- a comment -->
  <route src="Tremblay" dst="Jupiter"><link_ctn id="l1"/><link_ctn id="backbone"/></route>
  <route src="Fafard" dst="Tremblay">
    <link_ctn id="l2" direction="DOWN"/><link_ctn id="backbone"/>
  </route>
  <route src="Tremblay" dst="Ginette" symmetrical="NO"><link_ctn id="l3"/></route>
  <route src="Jupiter" dst="Fafard"><link_ctn id="l1"/></route>
""")


def test_a_handwritten_platform_in_simgrids_style_reads_correctly():
    res = sg.parse_simgrid_platform(HANDWRITTEN, "plat.xml")
    assert res.master == "Tremblay"
    assert res.workers == ("Jupiter", "Fafard", "Ginette")
    plat = res.platform
    # pstate 1 of Jupiter; a unit-less speed is in flop/s
    assert plat.speeds.tolist() == [50e6, 76296000.0, 0.5e9]
    # multi-link routes: the smallest bandwidth; the FATPIPE backbone is on two routes only
    assert plat.bandwidths.tolist() == [12.5e6, 4 * 1024.0**2, 2e6]
    # latencies add up in route order (Fafard's route is the reverse of its declaration)
    assert plat.latencies.tolist() == [0.001 + 500e-6, 500e-6 + 50e-6, 0.002]
    assert res.routes[1] == ("backbone", "l2_UP")  # reversed, DOWN becomes UP
    assert plat.port == "one-port" and math.isinf(plat.master_bandwidth)
    assert plat.extra["simgrid"] == {"master": "Tremblay",
                                     "workers": ["Jupiter", "Fafard", "Ginette"]}
    notes = " ".join(res.notes)
    assert "without unit" in notes and "Fafard speed='76296000'" in notes
    assert "l3 latency='0.002'" in notes
    assert "Ginette (4 cores)" in notes


def test_the_old_as_tag_and_version_4_are_read():
    text = doc('<host id="m" speed="1Gf"/><host id="w" speed="2Gf"/>'
               '<link id="l" bandwidth="1MBps"/><route src="m" dst="w"><link_ctn id="l"/>'
               "</route>", version="4", tag="AS")
    with pytest.raises(ParseError, match="2 hosts"):  # a symmetric route: either end
        sg.parse_simgrid_platform(text)
    res = sg.parse_simgrid_platform(text, master="m")
    assert res.platform.speeds.tolist() == [2e9] and res.workers == ("w",)


def test_the_master_is_the_host_that_reaches_every_other():
    text = doc('<host id="w1" speed="1Gf"/><host id="m" speed="1Gf"/><host id="w2" speed="2Gf"/>'
               '<host id="w3" speed="3Gf"/>'
               '<link id="a" bandwidth="1MBps"/><link id="b" bandwidth="2MBps"/>'
               '<link id="c" bandwidth="3MBps"/><link id="d" bandwidth="4MBps"/>'
               '<route src="m" dst="w1"><link_ctn id="a"/></route>'
               '<route src="w2" dst="m"><link_ctn id="b"/></route>'
               '<route src="m" dst="w3"><link_ctn id="d"/></route>'
               '<route src="w1" dst="w2"><link_ctn id="c"/></route>')  # ignored
    res = sg.parse_simgrid_platform(text)
    assert res.master == "m" and res.workers == ("w1", "w2", "w3")
    assert res.platform.bandwidths.tolist() == [1e6, 2e6, 4e6]


FULL_MESH = doc('<host id="a" speed="1Gf"/><host id="b" speed="2Gf"/><host id="c" speed="3Gf"/>'
                '<link id="ab" bandwidth="1MBps"/><link id="ac" bandwidth="2MBps"/>'
                '<link id="bc" bandwidth="3MBps"/>'
                '<route src="a" dst="b"><link_ctn id="ab"/></route>'
                '<route src="a" dst="c"><link_ctn id="ac"/></route>'
                '<route src="b" dst="c"><link_ctn id="bc"/></route>')


def test_several_candidate_masters_need_master_and_it_works():
    with pytest.raises(ParseError, match=r"3 hosts have a route to every other host .*--master"):
        sg.parse_simgrid_platform(FULL_MESH, "mesh.xml")
    res = sg.parse_simgrid_platform(FULL_MESH, "mesh.xml", master="b")
    assert res.workers == ("a", "c")
    assert res.platform.bandwidths.tolist() == [1e6, 3e6]
    assert res.platform.speeds.tolist() == [1e9, 3e9]


@pytest.mark.parametrize(("body", "master", "match"), [
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>'
     '<link id="l" bandwidth="1MBps"/><route src="a" dst="b"><link_ctn id="l"/></route>',
     None, r"not a star: no host has a route to every other host \(the best, 'a', reaches 1 "
     r"of the 2"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>'
     '<link id="l" bandwidth="1MBps"/><route src="a" dst="b"><link_ctn id="l"/></route>',
     "a", r"not a star with master 'a': no route from 'a' to 'c'"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>'
     '<link id="l" bandwidth="1MBps"/><route src="a" dst="b"><link_ctn id="l"/></route>',
     "x", r"--master 'x': no such host \(hosts: 'a', 'b'\)"),
    ('<host id="a" speed="1Gf"/>', None, "at least one worker host"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>'
     '<link id="l" bandwidth="1MBps"/><route src="b" dst="a" symmetrical="NO">'
     '<link_ctn id="l"/></route>', "a", "no route from 'a' to 'b'"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><route src="a" dst="b"/>',
     "a", "has no link"),
])
def test_a_platform_that_is_not_a_star_is_a_clear_error(body, master, match):
    with pytest.raises(ParseError, match=match) as err:
        sg.parse_simgrid_platform(doc(body), "p.xml", master=master)
    assert str(err.value).startswith("p.xml")


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("body", "needle", "match"), [
    ('<cluster id="c" prefix="c-" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" '
     'topology="HYPERCUBE"/>', "<cluster", "expected FLAT, TORUS, FAT_TREE or DRAGONFLY"),
    ('<cluster id="c" prefix="c-" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" '
     'topology="DRAGONFLY" topo_parameters="1,1;1,1;4"/>', "<cluster",
     "expected \"groups,links;chassis,links;blades,links;nodes"),
    ('<cluster id="c" prefix="c-" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" '
     'topology="FAT_TREE" topo_parameters="2;2,2;1,1"/>', "<cluster",
     "expected \"L;c1,..,cL"),
    ('<cluster id="c" prefix="c-" suffix="" radical="0-2" speed="1Gf" bw="1GBps" lat="1us" '
     'topology="TORUS" topo_parameters="2,2"/>', "<cluster", "4 hosts need as many radicals"),
    ('<zone id="inner" routing="RuleBased"/>', "inner", "SimGrid's routings are Cluster, "
     "Dijkstra, Floyd, Full, None, Vivaldi, Wifi"),
    ('<cluster id="c" prefix="c-" suffix="" radical="0-x" speed="1Gf" bw="1GBps" lat="1us"/>',
     "<cluster", "malformed group '0-x'"),
    ('<host id="a" speed="0f,1Gf" pstate="0"/>', '"a"', r"speed = '0f' must be > 0"),
    ('<peer id="p" speed="1Gf" bw_in="1MBps" bw_out="1MBps"/>', "<peer",
     'only allowed in a zone with routing="Vivaldi"'),
    ('<host_link id="a" up="l" down="l"/>', "host_link", 'routing="Cluster"'),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1MBps"/>'
     '<route src="a" dst="b"><link_ctn id="l"/></route>'
     '<route src="b" dst="a"><link_ctn id="l"/></route>', '<route src="b"',
     "from 'b' to 'a' is declared twice .*symmetrical"),
    ('<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>'
     '<route src="a" dst="b"><link_ctn id="nope"/></route>', "nope", "no link of that name"),
    ('<host id="a" speed="1Gf"/><route src="a" dst="q"/>', 'dst="q"', "no host or router 'q'"),
    ('<host id="a" speed="0f"/>', '"a"', r"speed = '0f' must be > 0"),
    ('<host id="a" speed="1Gf" pstate="2"/>', '"a"', "pstate index from 0 to 0"),
    ('<link id="l" bandwidth="10KBps"/>', '"l"', "decimal kilo is 'k'"),
    ('<link id="l" bandwidth="1MBps" latency="-1s"/>', '"l"', ">= 0"),
    ('<link id="l" bandwidth="1MBps"/><link id="l" bandwidth="2MBps"/>', 'bandwidth="2',
     "already declared"),
    ('<link id="w" bandwidth="54Mbps,36Mbps" sharing_policy="WIFI"/>', "WIFI", "WIFI link"),
    ('<host id="a"/>', '"a"', "has no speed attribute"),
    ('<host id="a" speed="1Gf"/><host id="a" speed="2Gf"/>', 'speed="2Gf"', "already declared"),
    ('<gizmo/>', "gizmo", r"unknown element <gizmo>"),
])
def test_bad_or_unsupported_content_names_the_file_and_line(body, needle, match):
    text = doc(body.replace("><", ">\n<"))
    with pytest.raises(ParseError, match=match) as err:
        sg.parse_simgrid_platform(text, "p.xml")
    assert err.value.path == "p.xml"
    assert err.value.line == _line(text, needle.replace("><", ">\n<").splitlines()[-1])


@pytest.mark.parametrize(("text", "match"), [
    (doc("", routing="Bogus"), "SimGrid's routings are"),
    (doc("", version="3"), "version 4 or 4.1 .*simgrid_update_xml"),
    (doc("", version="4.2"), "newer than 4.1"),
    (HEAD + "<platform/>", "version 4 or 4.1"),
    (HEAD + '<platform version="4.1"></platform>', "expected one <zone>"),
    (HEAD + '<plateform version="4.1"/>', "not a SimGrid platform file"),
    (HEAD + '<platform version="4.1"><zone id="z" routing="Full">', "not well-formed XML"),
    ('<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;">]>\n'
     '<platform version="4.1"/>', "internal subset"),
    ('<platform version="4.1"><zone id="&x;" routing="Full"/></platform>', "undefined entity"),
    ('<platform version="4.1"><include file="other.xml"/></platform>', "<include>"),
])
def test_file_level_errors(text, match):
    with pytest.raises(ParseError, match=match):
        sg.parse_simgrid_platform(text, "p.xml")


def test_a_file_that_is_too_large_or_missing_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "big.xml"
    path.write_text(HANDWRITTEN)
    monkeypatch.setattr(xmlfile, "MAX_PLATFORM_BYTES", 100)  # where the reader looks it up
    with pytest.raises(ParseError, match="larger than the 100 bytes"):
        sg.read_simgrid_platform(path)
    with pytest.raises(ParseError, match="cannot read file"):
        sg.read_simgrid_platform(tmp_path / "missing.xml")


# -- the master's port ------------------------------------------------------------------------

SHARED_PORT = doc("""
  <host id="m" speed="1Gf"/><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="nic" bandwidth="6MBps" latency="1ms"/>
  <link id="la" bandwidth="10MBps" latency="2ms" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="1MBps"/>
  <route src="m" dst="a"><link_ctn id="nic"/><link_ctn id="la" direction="UP"/></route>
  <route src="m" dst="b"><link_ctn id="nic"/><link_ctn id="lb"/></route>
""")


def test_a_link_on_every_route_is_the_masters_port():
    multi = sg.parse_simgrid_platform(SHARED_PORT, port="multiport")
    assert multi.master_links == ("nic",)
    assert multi.platform.bandwidths.tolist() == [10e6, 1e6]   # own links only
    assert multi.platform.master_bandwidth == 6e6
    one = sg.parse_simgrid_platform(SHARED_PORT)                # one-port: the whole route
    assert one.platform.port == "one-port"
    assert one.platform.bandwidths.tolist() == [6e6, 1e6]
    assert one.platform.master_bandwidth == 6e6
    assert one.platform.latencies.tolist() == [0.001 + 0.002, 0.001]


def test_a_fatpipe_link_on_every_route_is_not_a_shared_port():
    text = SHARED_PORT.replace('<link id="nic" bandwidth="6MBps" latency="1ms"/>',
                               '<link id="nic" bandwidth="6MBps" latency="1ms" '
                               'sharing_policy="FATPIPE"/>')
    res = sg.parse_simgrid_platform(text, port="multiport")
    assert res.master_links == ()
    assert math.isinf(res.platform.master_bandwidth)
    assert res.platform.bandwidths.tolist() == [6e6, 1e6]  # FATPIPE limits each flow


def test_the_port_property_and_the_port_argument():
    text = SHARED_PORT.replace('<host id="m" speed="1Gf"/>',
                               '<host id="m" speed="1Gf"><prop id="lpsched.port" '
                               'value="multiport"/></host>')
    assert sg.parse_simgrid_platform(text).platform.port == "multiport"
    assert sg.parse_simgrid_platform(text, port="one-port").platform.port == "one-port"
    bad = text.replace('value="multiport"', 'value="two-port"')
    with pytest.raises(ParseError, match=r"lpsched\.port='two-port'"):
        sg.parse_simgrid_platform(bad)
    with pytest.raises(InvalidInstanceError, match="port"):
        sg.parse_simgrid_platform(text, port="two-port")


# -- writing and round trips ------------------------------------------------------------------

def _same_platform(a: StarPlatform, b: StarPlatform) -> None:
    assert np.array_equal(a.speeds, b.speeds)
    assert np.array_equal(a.bandwidths, b.bandwidths)
    assert np.array_equal(a.latencies, b.latencies)
    assert a.master_bandwidth == b.master_bandwidth
    assert a.port == b.port


latencies = st.lists(st.one_of(st.just(0.0), st.floats(1e-9, 10.0)), min_size=1, max_size=8)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(star_instances(max_apps=2, max_workers=6, speeds="related"), latencies,
       st.floats(1e-3, 1e12), st.booleans())
def test_instance_to_simgrid_and_back_is_the_same_platform(inst, lat, scale, exact):
    """Any related-speed platform, with latencies and rescaled to realistic magnitudes,
    written to XML and read back: the same speeds, bandwidths, latencies, BW, port, bit
    for bit (one-port or bounded multiport, with or without a master link)."""
    plat = inst.platform
    p = plat.workers
    bw = plat.master_bandwidth * scale if math.isfinite(plat.master_bandwidth) else None
    plat = StarPlatform(plat.speeds * 1e9 / 3, plat.bandwidths * scale, bw, plat.port,
                        latencies=(lat * p)[:p])
    back = sg.parse_simgrid_platform(sg.simgrid_platform_xml(plat, exact_network=exact))
    _same_platform(back.platform, plat)
    assert back.workers == tuple(f"worker{u}" for u in range(p))
    again = sg.parse_simgrid_platform(sg.simgrid_platform_xml(back.platform))
    assert again.workers == back.workers and again.master == back.master


def test_a_one_port_platform_with_a_bounded_master_keeps_it_without_a_link():
    plat = StarPlatform([1e9], [1e6], master_bandwidth=5e5, port="one-port")
    text = sg.simgrid_platform_xml(plat)
    assert sg.MASTER_PORT_LINK not in text and 'lpsched.master_bandwidth" value="500000.0"' in text
    _same_platform(sg.parse_simgrid_platform(text).platform, plat)


def test_a_single_worker_multiport_master_link_is_named_by_a_property():
    plat = StarPlatform([1e9], [1e6], master_bandwidth=5e5, port="multiport")
    back = sg.parse_simgrid_platform(sg.simgrid_platform_xml(plat))
    assert back.master_links == ("master_port_UP",)
    _same_platform(back.platform, plat)


def test_host_names_from_a_simgrid_file_are_written_back():
    res = sg.parse_simgrid_platform(FULL_MESH, master="b")
    text = sg.simgrid_platform_xml(res.platform)
    back = sg.parse_simgrid_platform(text)
    assert (back.master, back.workers) == ("b", ("a", "c"))
    _same_platform(back.platform, res.platform)
    # names that collide with the generated link names are renamed, never duplicated
    plat = StarPlatform([1e9, 1e9], [1e6, 2e6])
    odd = sg.simgrid_platform_xml(plat, master="w_link", workers=["w", "x"])
    assert sg.parse_simgrid_platform(odd).workers == ("w", "x")


def test_written_files_are_simgrid_style_xml():
    plat = StarPlatform([1e9, 2e9], [1.25e7, 1e6], master_bandwidth=5e6, port="multiport",
                        latencies=[1e-4, 0.0])
    text = sg.simgrid_platform_xml(plat, exact_network=True, comment="from a--b.json")
    root = ET.fromstring(text.split("-->", 1)[1])
    assert root.tag == "platform" and root.get("version") == "4.1"
    config = {p.get("id"): p.get("value") for p in root.find("config")}
    assert config == {"network/model": "CM02", "network/TCP-gamma": "1e100",
                      "network/crosstraffic": "0"}
    zone = root.find("zone")
    assert zone.get("routing") == "Full"
    links = {link.get("id"): link.attrib for link in zone.iter("link")}
    assert links["master_port"]["bandwidth"] == "5000000.0Bps"
    assert links["worker0_link"] == {"id": "worker0_link", "bandwidth": "12500000.0Bps",
                                     "latency": "0.0001s", "sharing_policy": "SPLITDUPLEX"}
    routes = [[c.get("id") for c in r] for r in zone.iter("route")]
    assert routes == [["master_port", "worker0_link"], ["master_port", "worker1_link"]]
    assert "a- -b.json" in text  # "--" is not allowed inside an XML comment
    assert sg.parse_simgrid_platform(text).config == config


def test_unrelated_speeds_cannot_be_written():
    plat = StarPlatform([[1e9, 2e9], [2e9, 1e9]], [1e6, 1e6])
    with pytest.raises(InvalidInstanceError, match="unrelated speeds"):
        sg.simgrid_platform_xml(plat)


def test_the_deployment_file_lists_the_applications_for_the_master():
    inst = Instance(StarPlatform([1e9, 2e9], [1e6, 1e6], port="one-port"),
                    (Application(0.0, 3, 1e9, 1e6), Application(2.5, 4, 2e9, 5e5)))
    root = ET.fromstring(sg.simgrid_deployment_xml(inst).split("-->", 1)[1])
    actors = root.findall("actor")
    assert [(a.get("host"), a.get("function")) for a in actors] == [
        ("master", "master"), ("worker0", "worker"), ("worker1", "worker")]
    args = [a.get("value") for a in actors[0]]
    assert args == ["one-port", "2", "0.0", "3", "1000000000.0", "1000000.0",
                    "2.5", "4", "2000000000.0", "500000.0", "worker0", "worker1"]


def test_with_platform_keeps_the_applications():
    inst = Instance(StarPlatform([1.0, 2.0], [1.0, 1.0]), (Application(0.0, 3, 1.0, 1.0),),
                    {"note": 1})
    res = sg.parse_simgrid_platform(SHARED_PORT)
    moved = sg.with_platform(inst, res.platform)
    assert moved.applications == inst.applications and moved.extra == {"note": 1}
    assert moved.platform is res.platform


# -- latencies in the instance ---------------------------------------------------------------

def test_latencies_default_to_zero_and_are_validated():
    plat = StarPlatform([1.0, 2.0], [1.0, 1.0])
    assert plat.latencies.tolist() == [0.0, 0.0] and not plat.has_latency
    assert not plat.latencies.flags.writeable
    assert StarPlatform([1.0], [1.0], latencies=[-0.0]).latencies.tolist() == [0.0]
    for bad, match in (([1.0], "one latency per worker"), ([0.1, -1.0], r"latencies\[1\]"),
                       ([0.1, math.nan], "finite"), ([True, 0.0], "boolean"),
                       ([0.1, math.inf], "finite")):
        with pytest.raises(InvalidInstanceError, match=match):
            StarPlatform([1.0, 2.0], [1.0, 1.0], latencies=bad)


def test_latencies_survive_every_copy_of_a_platform():
    plat = StarPlatform([[1.0, 2.0], [2.0, 1.0]], [1.0, 1.0], latencies=[0.5, 0.0])
    inst = Instance(plat, (Application(0.0, 1, 1.0, 1.0), Application(1.0, 1, 1.0, 1.0)))
    assert inst.with_port("multiport").platform.latencies.tolist() == [0.5, 0.0]
    assert inst.subset([1]).platform.latencies.tolist() == [0.5, 0.0]
    assert inst.comm_time.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # seed 003's δ/b, no latency


def test_json_keeps_latencies_only_when_some_is_nonzero():
    base = {"platform": {"speeds": [1.0, 0.5], "bandwidths": [10.0, 2.0],
                         "master_bandwidth": None, "port": "one-port"},
            "applications": [{"release": 0.0, "tasks": 2, "work": 3.0, "size": 4.0}]}
    plain = instance_from_dict(base)
    zeros = json.loads(json.dumps(base))
    zeros["platform"]["latencies"] = [0, 0]
    # an explicit all-zero latency writes the same file (and hash) as none at all
    assert instance_to_json(instance_from_dict(zeros)) == instance_to_json(plain)
    assert "latencies" not in instance_to_json(plain)
    some = json.loads(json.dumps(base))
    some["platform"]["latencies"] = [0.25, 0]
    out = instance_to_dict(instance_from_dict(some))
    assert out["platform"]["latencies"] == [0.25, 0.0]
    assert list(out["platform"])[:5] == ["speeds", "bandwidths", "master_bandwidth", "port",
                                         "latencies"]
    some["platform"]["latencies"] = [0.25]
    with pytest.raises(InvalidInstanceError, match=r"platform\.latencies"):
        instance_from_dict(some)


# -- the simulator honours latencies ---------------------------------------------------------

def _one_app(port: str, lat: list[float], bw: float | None = None) -> Instance:
    plat = StarPlatform([1.0, 1.0], [2.0, 1.0], master_bandwidth=bw, port=port,  # type: ignore[arg-type]
                        latencies=lat)
    return Instance(plat, (Application(0.0, 4, 0.5, 2.0),))


def test_one_port_sends_pay_their_latency_while_holding_the_port():
    inst = _one_app("one-port", [0.25, 1.0])
    res = simulate(inst, get_policy("fifo-rr"))
    s = res.schedule
    validate(inst, s)
    order = np.argsort(s.send_start)
    # round robin: worker 0 (λ=0.25, δ/b=1), worker 1 (λ=1, δ/b=2), then again
    starts = s.send_start[order].tolist()
    ends = s.send_end[order].tolist()
    assert s.worker[order].tolist() == [0, 1, 0, 1]
    assert starts == [0.25, 2.25, 4.5, 6.5]
    assert ends == [1.25, 4.25, 5.5, 8.5]
    plain = simulate(_one_app("one-port", [0.0, 0.0]), get_policy("fifo-rr")).schedule
    assert np.sort(plain.send_end).tolist() == [1.0, 3.0, 4.0, 6.0]


def test_multiport_latency_takes_the_link_before_the_bytes_share_the_master():
    inst = _one_app("multiport", [0.5, 0.0], bw=2.0)
    s = simulate(inst, get_policy("fifo-rr")).schedule
    validate(inst, s)
    first = {int(w): (float(a), float(b)) for w, a, b in
             zip(s.worker[:2], s.send_start[:2], s.send_end[:2], strict=True)}
    # worker 1 alone on the master (rate 1 <= BW) during worker 0's latency [0, 0.5];
    # from 0.5 both share BW = 2 in proportion to b = (2, 1): rates 4/3 and 2/3
    # (worker 0 needs 1.5 s for its 2 bytes: ends at 2.0; worker 1 has carried
    # 0.5 + 1.0 bytes by then and sends its last 0.5 alone at rate 1: ends at 2.5)
    assert first[1][0] == 0.0 and first[0][0] == 0.5
    assert first[0][1] == pytest.approx(2.0)
    assert first[1][1] == pytest.approx(2.5)


def test_zero_latencies_change_nothing_in_the_simulator():
    a = _one_app("multiport", [0.0, 0.0], bw=2.0)
    b = Instance(StarPlatform([1.0, 1.0], [2.0, 1.0], master_bandwidth=2.0, port="multiport"),
                 a.applications)
    for policy in ("fifo-rr", "fifo-mct", "cbs3m-edf-online"):
        sa = simulate(a, get_policy(policy))
        sb = simulate(b, get_policy(policy))
        assert sa.events == sb.events
        assert np.array_equal(sa.schedule.send_end, sb.schedule.send_end)
        assert np.array_equal(sa.schedule.end, sb.schedule.end)


# -- SimGrid itself -----------------------------------------------------------------------------

def _simgrid_python() -> str:
    """An interpreter with SimGrid's Python bindings (module doc), or skip."""
    candidates = [sys.executable, os.environ.get("LPSCHED_SIMGRID_PYTHON", ""),
                  "/usr/bin/python3"]
    for python in candidates:
        if python and Path(python).exists():
            probe = subprocess.run([python, "-c", "import simgrid"], capture_output=True,
                                   timeout=60, check=False)
            if probe.returncode == 0:
                return python
    pytest.skip("SimGrid's Python bindings are not installed (pip install simgrid, or "
                "Debian's python3-simgrid for /usr/bin/python3)")


LOAD = """
import json, sys, simgrid
e = simgrid.Engine(["load", "--log=root.thres:critical"])
e.load_platform(sys.argv[1])
hosts = {h.name: h for h in e.all_hosts}
out = {"hosts": {n: h.speed for n, h in hosts.items()},
       "links": {l.name: [l.bandwidth, l.latency] for l in e.all_links},
       "routes": {}}
for w in hosts:
    if w != "master":
        links, lat = hosts["master"].route_to(hosts[w])
        out["routes"][w] = [[l.name for l in links], lat]
print(json.dumps(out))
"""

# one-port: the master sends SIZE bytes to each worker in turn (blocking sends);
# multiport: to all at once. Prints when each transfer ends.
TRANSFERS = """
import json, sys, simgrid
from simgrid import Actor, Engine, Mailbox, this_actor
e = Engine(["run", "--log=root.thres:critical"])
e.load_platform(sys.argv[1])
mode, size = sys.argv[2], float(sys.argv[3])
ends = {}
def master():
    workers = [h.name for h in e.all_hosts if h.name != "master"]
    if mode == "one-port":
        for w in workers:
            Mailbox.by_name(w).put(w, int(size))
    else:
        comms = [Mailbox.by_name(w).put_async(w, int(size)) for w in workers]
        for c in comms:
            c.wait()
def worker():
    name = this_actor.get_host().name
    Mailbox.by_name(name).get()
    ends[name] = Engine.clock
Actor.create("master", e.host_by_name("master"), master)
for h in e.all_hosts:
    if h.name != "master":
        Actor.create("worker", h, worker)
e.run()
print(json.dumps(ends))
"""


def _run_simgrid(script: str, *args: str) -> dict:
    python = _simgrid_python()
    proc = subprocess.run([python, "-c", script, *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_simgrid_loads_the_exported_platform(tmp_path):
    plat = StarPlatform([1e9, 5e8, 2e9], [1.25e7, 1e6, 3.3e6], master_bandwidth=6e6,
                        port="multiport", latencies=[1e-3, 0.0, 2.5e-5])
    path = tmp_path / "p.xml"
    sg.write_simgrid_platform(plat, path)
    got = _run_simgrid(LOAD, str(path))
    assert got["hosts"] == {"master": 2e9, "worker0": 1e9, "worker1": 5e8, "worker2": 2e9}
    for u, w in enumerate(("worker0", "worker1", "worker2")):
        assert got["links"][f"{w}_link_UP"] == [plat.bandwidths[u], plat.latencies[u]]
        names, lat = got["routes"][w]
        assert names == ["master_port_UP", f"{w}_link_UP"]
        assert lat == plat.latencies[u]
    assert got["links"]["master_port_UP"] == [6e6, 0.0]


@pytest.mark.parametrize("port", ["one-port", "multiport"])
def test_simgrid_transfer_times_equal_lpscheds_with_exact_network(tmp_path, port):
    """With ``exact_network`` (CM02, no TCP window, no cross-traffic), SimGrid's transfer
    times are lpsched's simulator's: latency + size/bandwidth, one after the other
    (one-port) or all at once on an unbounded master (multiport)."""
    plat = StarPlatform([1e9, 1e9, 1e9], [1.25e7, 1e6, 3.3e6], port=port,  # type: ignore[arg-type]
                        latencies=[0.01, 0.0, 2.5e-3])
    size = 2e6
    inst = Instance(plat, (Application(0.0, 3, 1e3, size),))
    sched = simulate(inst, get_policy("fifo-rr")).schedule
    lp_ends = {f"worker{int(w)}": float(e) for w, e in zip(sched.worker, sched.send_end,
                                                           strict=True)}
    path = tmp_path / "p.xml"
    sg.write_simgrid_platform(plat, path, exact_network=True)
    sim_ends = _run_simgrid(TRANSFERS, str(path), port, repr(size))
    assert sim_ends.keys() == lp_ends.keys()
    for w, end in lp_ends.items():
        assert sim_ends[w] == pytest.approx(end, rel=1e-9)


def test_simgrid_default_model_scales_latencies_and_bandwidths(tmp_path):
    """Without ``exact_network`` SimGrid uses LV08: each transfer alone takes
    ``13.01 λ + δ / (0.97 b)`` (docs/decisions.md: what to set in SimGrid)."""
    plat = StarPlatform([1e9, 1e9], [1.25e7, 1e6], latencies=[0.01, 0.0])
    path = tmp_path / "p.xml"
    sg.write_simgrid_platform(plat, path)
    ends = _run_simgrid(TRANSFERS, str(path), "one-port", "2e6")
    first = 13.01 * 0.01 + 2e6 / (0.97 * 1.25e7)
    assert ends["worker0"] == pytest.approx(first, rel=1e-9)
    assert ends["worker1"] == pytest.approx(first + 2e6 / (0.97 * 1e6), rel=1e-9)


def test_simgrid_shares_a_saturated_master_link_max_min_not_proportionally(tmp_path):
    """Bounded multiport: SimGrid splits the master link max-min (the slow worker keeps its
    1 MB/s, the fast one gets the other 5), lpsched's simulator in proportion to the links
    (6 x 10/11 and 6 x 1/11 MB/s). Both respect seed 003's constraint sum <= BW; the
    transfer times differ (docs/decisions.md)."""
    plat = StarPlatform([1e9, 1e9], [1e7, 1e6], master_bandwidth=6e6, port="multiport")
    path = tmp_path / "p.xml"
    sg.write_simgrid_platform(plat, path, exact_network=True)
    ends = _run_simgrid(TRANSFERS, str(path), "multiport", "1e7")
    assert ends["worker0"] == pytest.approx(1e7 / 5e6, rel=1e-9)
    assert ends["worker1"] == pytest.approx(10.0, rel=1e-9)
    inst = Instance(plat, (Application(0.0, 2, 1e3, 1e7),))
    sched = simulate(inst, get_policy("fifo-rr")).schedule
    mine = dict(zip(sched.worker.tolist(), sched.send_end.tolist(), strict=True))
    assert mine[0] == pytest.approx(1e7 / (6e6 * 10 / 11))
    assert mine[0] < ends["worker0"]


# -- a link shared by some workers but not all (decision 208) ---------------------------------

PARTLY_SHARED = doc("""
  <host id="m" speed="1Gf"/><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <host id="c" speed="1Gf"/>
  <link id="sw" bandwidth="1MBps"/>
  <link id="la" bandwidth="10MBps"/><link id="lb" bandwidth="10MBps"/>
  <link id="lc" bandwidth="1MBps"/>
  <route src="m" dst="a"><link_ctn id="sw"/><link_ctn id="la"/></route>
  <route src="m" dst="b"><link_ctn id="sw"/><link_ctn id="lb"/></route>
  <route src="m" dst="c"><link_ctn id="lc"/></route>
""")


def test_a_link_shared_by_some_workers_gets_a_note_under_multiport():
    """lpsched's star cannot express ``sw`` (shared by a and b, not c): each worker gets the
    minimum over its route and the reader says that concurrent transfers through ``sw`` are
    not limited together."""
    res = sg.parse_simgrid_platform(PARTLY_SHARED, port="multiport")
    assert res.platform.bandwidths.tolist() == [1e6, 1e6, 1e6]
    assert math.isinf(res.platform.master_bandwidth) and res.master_links == ()
    notes = [n for n in res.notes if "shared by the routes of some workers" in n]
    assert len(notes) == 1
    assert "'sw' by 'a', 'b'" in notes[0] and "'c'" not in notes[0]
    assert "minimum over its route" in notes[0] and "not limited together" in notes[0]


def test_no_partly_shared_note_under_one_port_or_for_fatpipe_or_the_masters_port():
    one = sg.parse_simgrid_platform(PARTLY_SHARED, port="one-port")
    assert not any("shared by the routes" in n for n in one.notes)
    fat = PARTLY_SHARED.replace('<link id="sw" bandwidth="1MBps"/>',
                                '<link id="sw" bandwidth="1MBps" sharing_policy="FATPIPE"/>')
    assert not any("shared by the routes" in n
                   for n in sg.parse_simgrid_platform(fat, port="multiport").notes)
    port = sg.parse_simgrid_platform(SHARED_PORT, port="multiport")  # shared by all: BW
    assert not any("shared by the routes" in n for n in port.notes)


# -- SimGrid's routings, clusters, nested zones, deployments, pstates (decisions 355-363) -------
# Each platform below is written in one of SimGrid's styles; the expected speeds, bandwidths and
# latencies are computed by hand from the links the zone's rule puts on each route.

def _p(body: str) -> str:
    return f'{HEAD}<platform version="4.1">\n{body}\n</platform>\n'


CLUSTER = _p("""<zone id="world" routing="Full">
  <cluster id="c" prefix="n" suffix=".lab" radical="0-2" speed="1Gf,500Mf" bw="100MBps"
           lat="10us" bb_bw="50MBps" bb_lat="5us" bb_sharing_policy="{bb}"/>
</zone>""")


@pytest.mark.parametrize("bb", ["SHARED", "FATPIPE"])
def test_a_cluster_with_the_master_inside(bb):
    """n0 -> n1: c_link_0_UP (100 MB/s, 10 us), c_backbone (50 MB/s, 5 us), c_link_1_DOWN
    (100 MB/s, 10 us): 25 us; one flow gets the bottleneck, 50 MB/s."""
    text = CLUSTER.replace("{bb}", bb)
    one = sg.parse_simgrid_platform(text, master="n0.lab")
    assert one.workers == ("n1.lab", "n2.lab")
    assert one.routes[0] == ("c_link_0_UP", "c_backbone", "c_link_1_DOWN")
    assert one.platform.speeds.tolist() == [1e9, 1e9]  # pstate 0 of "1Gf,500Mf"
    assert one.platform.bandwidths.tolist() == [50e6, 50e6]
    assert one.platform.latencies.tolist() == pytest.approx([25e-6, 25e-6], rel=1e-12)
    multi = sg.parse_simgrid_platform(text, master="n0.lab", port="multiport")
    if bb == "SHARED":  # the master's link and the shared backbone carry every transfer
        assert multi.master_links == ("c_backbone", "c_link_0_UP")
        assert multi.platform.master_bandwidth == 50e6
        assert multi.platform.bandwidths.tolist() == [100e6, 100e6]
    else:  # a FATPIPE backbone limits each flow, not their sum
        assert multi.master_links == ("c_link_0_UP",)
        assert multi.platform.master_bandwidth == 100e6
        assert multi.platform.bandwidths.tolist() == [50e6, 50e6]


TORUS = _p("""<zone id="world" routing="Full">
  <cluster id="t" topology="TORUS" topo_parameters="3,2" prefix="n" radical="0-5" suffix=""
           speed="1Gf" bw="100MBps" lat="10us" limiter_link="80MBps"/>
</zone>""")


def test_a_torus_cluster_routes_dimension_by_dimension():
    """Host i sits at (i mod 3, i div 3); n0 -> n1: right along x; n0 -> n2: left along x
    (the wrap-around link that n2 declared, its DOWN side); n0 -> n4: x first, then y; each
    node's limiter (80 MB/s) before its hop, the target's last; 10 us per hop."""
    got = sg.parse_simgrid_platform(TORUS, master="n0")
    routes = dict(zip(got.workers, got.routes, strict=True))
    assert routes["n1"] == ("t_link_0_limiter", "t_link_from_0_to_1_UP", "t_link_1_limiter")
    assert routes["n2"] == ("t_link_0_limiter", "t_link_from_2_to_0_DOWN", "t_link_2_limiter")
    assert routes["n4"] == ("t_link_0_limiter", "t_link_from_0_to_1_UP", "t_link_1_limiter",
                            "t_link_from_1_to_4_UP", "t_link_4_limiter")
    lat = dict(zip(got.workers, got.platform.latencies.tolist(), strict=True))
    assert lat == pytest.approx({"n1": 10e-6, "n2": 10e-6, "n3": 10e-6, "n4": 20e-6,
                                 "n5": 20e-6}, rel=1e-12)
    assert got.platform.bandwidths.tolist() == [80e6] * 5


FAT_TREE = _p("""<zone id="world" routing="Full">
  <cluster id="f" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2" prefix="n" radical="0-15"
           suffix="" speed="1Gf" bw="125MBps" lat="5us" limiter_link="90MBps"/>
</zone>""")


def test_a_fat_tree_cluster_goes_up_to_the_nearest_common_switch():
    """Host i has label (i mod 4, i div 4): n1..n3 share n0's leaf switch (id 31: switches
    are numbered down from 2 x 16), two hops of 5 us; the others are reached through a top
    switch, four hops; every node's 90 MB/s limiter bounds the route."""
    got = sg.parse_simgrid_platform(FAT_TREE, master="n0")
    routes = dict(zip(got.workers, got.routes, strict=True))
    assert routes["n1"] == ("f_link_0_limiter", "link_from_0_31_0_UP", "link_from_1_31_1_DOWN",
                            "f_link_31_limiter", "f_link_1_limiter")
    lat = got.platform.latencies.tolist()
    assert lat == pytest.approx([10e-6] * 3 + [20e-6] * 12, rel=1e-12)
    assert got.platform.bandwidths.tolist() == [90e6] * 15


DRAGONFLY = _p("""<zone id="world" routing="Full">
  <cluster id="d" topology="DRAGONFLY" topo_parameters="2,1;1,1;2,2;1" prefix="n" radical="0-3"
           suffix="" speed="1Gf" bw="100MBps" lat="1us" sharing_policy="SHARED"/>
</zone>""")


def test_a_dragonfly_cluster_crosses_blades_then_groups():
    """2 groups of 1 chassis of 2 blades of 1 node: host r is in group r div 2, blade r mod 2;
    the blue link joins router (group 0, blade 1) to (group 1, blade 0). n0 -> n1: node,
    green, node (3 us); n0 -> n2: node, green, blue, node (4 us); n0 -> n3: node, green,
    blue, green, node (5 us); green links carry 2 x 100 MB/s, the others 100 MB/s."""
    got = sg.parse_simgrid_platform(DRAGONFLY, master="n0")
    assert got.routes[2] == ("local_link_from_router_0_to_node_0_0",
                             "green_link_in_chassis_0_between_routers_0_and_1_4",
                             "blue_link_between_group_0_and_1_routers_1_and_2_6",
                             "green_link_in_chassis_0_between_routers_0_and_1_5",
                             "local_link_from_router_3_to_node_0_3")
    assert got.platform.latencies.tolist() == pytest.approx([3e-6, 4e-6, 5e-6], rel=1e-12)
    assert got.platform.bandwidths.tolist() == [100e6] * 3


def test_without_a_master_a_cluster_asks_for_one():
    with pytest.raises(ParseError, match=r"3 hosts have a route to every other host "
                       r"\('n0.lab', 'n1.lab', 'n2.lab'\).*deployment file"):
        sg.parse_simgrid_platform(CLUSTER.replace("{bb}", "SHARED"))


def test_a_cluster_with_the_master_outside_through_its_router():
    """m -> n1: front's link 'wan' (10 MB/s, 1 ms) to the router, then the backbone (1 GB/s,
    0) and n1's private link down; SHARED private links (no _UP/_DOWN), a limiter link."""
    text = _p("""<zone id="world" routing="Full">
  <zone id="front" routing="Full"><host id="m" speed="2Gf"/></zone>
  <cluster id="c" prefix="n" suffix="" radical="1,3-4" speed="1Gf" bw="100MBps" lat="10us"
           sharing_policy="SHARED" bb_bw="1GBps" limiter_link="80MBps"/>
  <link id="wan" bandwidth="10MBps" latency="1ms"/>
  <zoneRoute src="front" dst="c" gw_src="m" gw_dst="nc_router"><link_ctn id="wan"/></zoneRoute>
</zone>""")
    got = sg.parse_simgrid_platform(text, master="m")
    assert got.master == "m" and got.workers == ("n1", "n3", "n4")
    assert got.routes[0] == ("wan", "c_backbone", "c_link_1", "c_link_1_limiter")
    assert got.platform.bandwidths.tolist() == [10e6] * 3
    assert got.platform.latencies.tolist() == pytest.approx([1e-3 + 10e-6] * 3, rel=1e-12)
    multi = sg.parse_simgrid_platform(text, master="m", port="multiport")
    assert multi.master_links == ("c_backbone", "wan")
    assert multi.platform.master_bandwidth == 10e6
    assert multi.platform.bandwidths.tolist() == [80e6] * 3  # the limiter bounds each host


ROUTED = _p("""<zone id="net" routing="{routing}">
  <host id="m" speed="1Gf"/><host id="a" speed="2Gf"/><host id="b" speed="3Gf"/>
  <router id="r1"/><router id="r2"/>
  <link id="l1" bandwidth="100MBps" latency="1ms"/>
  <link id="l2" bandwidth="20MBps" latency="2ms"/>
  <link id="l3" bandwidth="60MBps" latency="3ms" sharing_policy="SPLITDUPLEX"/>
  <link id="l4" bandwidth="30MBps" latency="4ms"/>
  <link id="slow" bandwidth="1MBps" latency="1us"/>
  <route src="m" dst="r1"><link_ctn id="l1"/></route>
  <route src="r1" dst="a"><link_ctn id="l2"/></route>
  <route src="r1" dst="r2"><link_ctn id="l3" direction="UP"/></route>
  <route src="b" dst="r2"><link_ctn id="l4"/></route>
  <route src="m" dst="b" symmetrical="NO">
    <link_ctn id="slow"/><link_ctn id="slow"/><link_ctn id="slow"/><link_ctn id="slow"/>
  </route>
</zone>""")


@pytest.mark.parametrize("routing", ["Floyd", "Dijkstra", "DijkstraCache"])
def test_floyd_and_dijkstra_take_the_path_of_fewest_links(routing):
    """m -> a: l1, l2 (2 links); m -> b: l1, l3_UP, l4 (3 links) beats the declared 4-link
    route 'slow' (SimGrid's cost is the number of links, not the latency)."""
    got = sg.parse_simgrid_platform(ROUTED.replace("{routing}", routing), master="m")
    assert got.routes == (("l1", "l2"), ("l1", "l3_UP", "l4"))
    assert got.platform.bandwidths.tolist() == [20e6, 30e6]
    assert got.platform.latencies.tolist() == pytest.approx([3e-3, 8e-3], rel=1e-12)
    assert got.platform.speeds.tolist() == [2e9, 3e9]
    # the symmetrical route r1 -> r2 gives r2 -> r1 through l3's other direction
    back = sg.parse_simgrid_platform(ROUTED.replace("{routing}", routing), master="b")
    assert back.routes[back.workers.index("a")] == ("l4", "l3_DOWN", "l2")


def test_a_route_missing_in_a_dijkstra_graph_is_named():
    text = ROUTED.replace("{routing}", "Dijkstra").replace(
        '<route src="r1" dst="a"><link_ctn id="l2"/></route>', "")
    with pytest.raises(ParseError, match=r"no route from 'm' to 'a' \(zone 'net' "
                       r"\(routing=\"Dijkstra\"\): no path from 'm' to 'a'"):
        sg.parse_simgrid_platform(text, master="m")


def test_vivaldi_peers_latency_from_coordinates():
    """m -> a: link_m_UP (m's bw_out) and link_a_DOWN (a's bw_in), latency from the
    coordinates: sqrt(3^2 + 4^2) + |1| + |2| = 8 ms."""
    text = _p("""<zone id="v" routing="Vivaldi">
  <peer id="m" coordinates="0 0 1" speed="1Gf" bw_in="1GBps" bw_out="40MBps"/>
  <peer id="a" coordinates="3 4 2" speed="2Gf" bw_in="25MBps" bw_out="1GBps"/>
  <peer id="b" coordinates="0 0 0" speed="3Gf" bw_in="1GBps" bw_out="1GBps"/>
</zone>""")
    got = sg.parse_simgrid_platform(text, master="m")
    assert got.routes == (("link_m_UP", "link_a_DOWN"), ("link_m_UP", "link_b_DOWN"))
    assert got.platform.bandwidths.tolist() == [25e6, 40e6]
    assert got.platform.latencies.tolist() == pytest.approx([8e-3, 1e-3], rel=1e-12)
    assert any("Vivaldi" in n for n in got.notes)
    hosts = text.replace("<peer", "<host").replace(' bw_in="1GBps" bw_out="40MBps"', "")
    with pytest.raises(ParseError, match=r"has no link.*Vivaldi zone"):
        sg.parse_simgrid_platform(hosts.replace(' bw_in="25MBps" bw_out="1GBps"', "")
                                  .replace(' bw_in="1GBps" bw_out="1GBps"', ""), master="m")


NESTED = _p("""<zone id="root" routing="Full">
  <zone id="left" routing="Full">
    <host id="m" speed="1Gf"/><router id="gl"/>
    <link id="ml" bandwidth="100MBps" latency="1ms"/>
    <route src="m" dst="gl"><link_ctn id="ml"/></route>
  </zone>
  <zone id="right" routing="Floyd">
    <host id="a" speed="2Gf"/><host id="b" speed="4Gf"/><router id="gr"/>
    <link id="ra" bandwidth="10MBps" latency="2ms"/>
    <link id="rb" bandwidth="80MBps" latency="3ms"/>
    <route src="gr" dst="a"><link_ctn id="ra"/></route>
    <route src="gr" dst="b"><link_ctn id="rb"/></route>
  </zone>
  <link id="wan" bandwidth="50MBps" latency="10ms" sharing_policy="FATPIPE"/>
  <zoneRoute src="left" dst="right" gw_src="gl" gw_dst="gr"><link_ctn id="wan"/></zoneRoute>
</zone>""")


def test_nested_zones_route_through_their_gateways():
    """m -> a: m -> gl (ml) in 'left', 'wan' in 'root', gr -> a (ra) in 'right'."""
    got = sg.parse_simgrid_platform(NESTED, master="m")
    assert got.master == "m" and got.workers == ("a", "b")
    assert got.routes == (("ml", "wan", "ra"), ("ml", "wan", "rb"))
    assert got.platform.bandwidths.tolist() == [10e6, 50e6]
    assert got.platform.latencies.tolist() == pytest.approx([13e-3, 14e-3], rel=1e-12)
    multi = sg.parse_simgrid_platform(NESTED, master="m", port="multiport")
    assert multi.master_links == ("ml",)  # 'wan' is FATPIPE: not the master's port
    assert multi.platform.master_bandwidth == 100e6
    assert multi.platform.bandwidths.tolist() == [10e6, 50e6]


def test_a_bypass_route_replaces_the_zones_route():
    text = NESTED.replace("</zone>\n</platform>", """<link id="direct" bandwidth="70MBps"
    latency="1us"/>
  <bypassRoute src="m" dst="b"><link_ctn id="direct"/></bypassRoute>
</zone>
</platform>""")
    got = sg.parse_simgrid_platform(text, master="m")
    assert got.routes == (("ml", "wan", "ra"), ("direct",))
    assert got.platform.bandwidths.tolist() == [10e6, 70e6]


def test_a_zone_with_routing_none_has_no_route():
    text = _p("""<zone id="z" routing="None">
  <host id="m" speed="1Gf"/><host id="a" speed="1Gf"/></zone>""")
    with pytest.raises(ParseError, match=r"routing=\"None\": SimGrid computes no route"):
        sg.parse_simgrid_platform(text, master="m")


def test_wifi_stations_cross_the_medium_at_their_rate():
    """Station -> station: the WIFI link twice (at the first rate level, 54 Mbit/s), then
    the wired collector to the access point's side is not used."""
    text = _p("""<zone id="world" routing="Full">
  <zone id="cell" routing="Wifi">
    <prop id="access_point" value="ap"/>
    <host id="s1" speed="100Mf"/><host id="s2" speed="50Mf"/>
    <link id="air" sharing_policy="WIFI" bandwidth="54Mbps,36Mbps" latency="1ms"/>
    <router id="ap"/>
  </zone>
  <zone id="wired" routing="Full"><host id="h" speed="1Gf"/></zone>
  <link id="col" bandwidth="100MBps" latency="2ms"/>
  <zoneRoute src="cell" dst="wired" gw_src="ap" gw_dst="h"><link_ctn id="col"/></zoneRoute>
</zone>""")
    got = sg.parse_simgrid_platform(text, master="h")
    assert got.workers == ("s1", "s2")
    assert got.routes == (("col", "air@s1"), ("col", "air@s2"))
    assert got.platform.bandwidths.tolist() == [54e6 / 8] * 2
    assert got.platform.latencies.tolist() == pytest.approx([3e-3] * 2, rel=1e-12)
    station = sg.parse_simgrid_platform(text, master="s1")
    assert station.routes[0] == ("air@s1", "air@s2")
    assert any("Wifi" in n for n in got.notes)


@pytest.mark.parametrize(("speed", "pstate", "value"), [
    ("0f,1Gf,2Gf", "2", 2e9),    # SimGrid's energy_boot.xml style: 0f where the host is off
    ("1Gf,0f", "0", 1e9),
    ("100Mf, 50Mf, 20Mf", "1", 50e6),
])
def test_pstates_as_simgrid_defines_them(speed, pstate, value):
    text = doc(f'<host id="m" speed="1Gf"/><host id="a" speed="{speed}" pstate="{pstate}"/>'
               '<link id="l" bandwidth="1MBps"/><route src="m" dst="a"><link_ctn id="l"/>'
               "</route>")
    assert sg.parse_simgrid_platform(text, master="m").platform.speeds.tolist() == [value]


def test_leading_blank_lines_before_the_declaration_are_read_as_simgrid_does():
    text = "\n\n" + doc('<host id="m" speed="1Gf"/><host id="a" speed="2Gf"/>'
                        '<link id="l" bandwidth="1MBps"/>\n'
                        '<route src="m" dst="a"><link_ctn id="l"/></route>')
    assert sg.parse_simgrid_platform(text, master="m").workers == ("a",)
    with pytest.raises(ParseError) as err:
        sg.parse_simgrid_platform(text.replace('ctn id="l"', 'ctn id="q"'), master="m")
    assert err.value.line == _line(text, 'ctn id="l"') and "'q'" in str(err.value)


SMALL = _p("""<zone id="z" routing="Full">
  <host id="Tremblay" speed="98.095Mf"/><host id="Jupiter" speed="76.296Mf"/>
  <host id="Fafard" speed="76.296Mf"/>
  <link id="1" bandwidth="34.285625MBps" latency="514.433us"/>
  <link id="2" bandwidth="118.6825MBps" latency="136.931us"/>
  <route src="Tremblay" dst="Jupiter"><link_ctn id="1"/></route>
  <route src="Tremblay" dst="Fafard"><link_ctn id="2"/></route>
  <route src="Jupiter" dst="Fafard"><link_ctn id="1"/><link_ctn id="2"/></route>
</zone>""")

MASTER_WORKERS = """<?xml version='1.0'?>
<platform version="4.1">
  <actor host="Tremblay" function="master">
    <argument value="20"/><argument value="50000000"/><argument value="1000000"/>
    <argument value="Tremblay"/><argument value="Jupiter"/><argument value="Fafard"/>
  </actor>
  <actor host="Tremblay" function="worker"/>
  <actor host="Jupiter" function="worker"/>
  <actor host="Fafard" function="worker"/>
</platform>
"""


def test_a_deployment_names_the_master_and_a_master_that_computes_is_a_worker(tmp_path):
    """SimGrid's master-workers example: the master Tremblay runs a worker too."""
    (tmp_path / "p.xml").write_text(SMALL)
    (tmp_path / "d.xml").write_text(MASTER_WORKERS)
    got = sg.read_simgrid_platform(tmp_path / "p.xml", deployment=tmp_path / "d.xml")
    assert got.master == "Tremblay" and got.workers == ("Tremblay", "Jupiter", "Fafard")
    plat = got.platform
    assert plat.speeds.tolist() == [98.095e6, 76.296e6, 76.296e6]
    assert plat.bandwidths.tolist() == [sg.SELF_BANDWIDTH, 34.285625e6, 118.6825e6]
    assert plat.latencies.tolist() == pytest.approx([0.0, 514.433e-6, 136.931e-6], rel=1e-12)
    assert got.routes[0] == ()
    assert any("also runs a worker actor" in n and "decision 358" in n for n in got.notes)
    # the instance runs: the master's own tasks cost no transfer time
    inst = Instance(plat, [Application(0.0, 6, 5e7, 1e6)])
    sim = simulate(inst, get_policy("fifo-rr"))
    validate(inst, sim.schedule)
    # without the master's worker actor, only the two others are workers
    lone = MASTER_WORKERS.replace('<actor host="Tremblay" function="worker"/>', "")
    got = sg.parse_simgrid_platform(SMALL, deployment=lone)
    assert got.workers == ("Jupiter", "Fafard")
    # a deployment without worker actors: every other host
    only = sg.parse_simgrid_platform(SMALL, deployment=MASTER_WORKERS.replace(
        'function="worker"', 'function="peer"'))
    assert only.workers == ("Jupiter", "Fafard")


@pytest.mark.parametrize(("deployment", "match"), [
    (MASTER_WORKERS.replace('host="Fafard" function="worker"', 'host="Nowhere" function="w"'),
     r"on host 'Nowhere', which the platform file does not declare"),
    (MASTER_WORKERS.replace('function="master"', 'function="boss"'),
     r"no actor with function 'master' .*'boss', 'worker'"),
    (MASTER_WORKERS.replace('<actor host="Jupiter" function="worker"/>',
                            '<actor host="Jupiter" function="master"/>'),
     r"actors 'master' on several hosts \('Jupiter', 'Tremblay'\)"),
    (SMALL, r"<zone> in a deployment file: expected <actor> elements"),
])
def test_deployment_errors_name_the_file_and_what_to_fix(deployment, match):
    with pytest.raises(ParseError, match=match) as err:
        sg.parse_simgrid_platform(SMALL, deployment=deployment, deployment_path="d.xml")
    assert err.value.path == "d.xml"


def test_the_functions_of_a_deployment_can_be_named():
    text = MASTER_WORKERS.replace('"master"', '"coordinator"').replace('"worker"', '"node"')
    got = sg.parse_simgrid_platform(SMALL, deployment=text, master_function="coordinator",
                                    worker_function="node")
    assert got.master == "Tremblay" and got.workers == ("Tremblay", "Jupiter", "Fafard")


def test_actors_in_the_platform_file_itself_are_its_deployment():
    text = SMALL.replace("</platform>", MASTER_WORKERS.split('<platform version="4.1">')[1]
                         .replace("</platform>\n", "") + "</platform>")
    got = sg.parse_simgrid_platform(text)
    assert got.master == "Tremblay" and got.workers[0] == "Tremblay"


def test_a_cluster_zone_with_host_links_cabinets_and_a_backbone():
    """routing="Cluster": host_link up/down (a split-duplex link named l_UP / l_DOWN) and a
    cabinet's hosts, each behind the zone's backbone."""
    text = _p("""<zone id="cl" routing="Cluster">
  <router id="r"/>
  <host id="m" speed="1Gf"/>
  <link id="lm" bandwidth="100MBps" latency="10us" sharing_policy="SPLITDUPLEX"/>
  <host_link id="m" up="lm_UP" down="lm_DOWN"/>
  <cabinet id="cab" prefix="k" suffix="" radical="1-2" speed="2Gf" bw="20MBps" lat="30us"/>
  <backbone id="bb" bandwidth="1GBps" latency="5us"/>
</zone>""")
    got = sg.parse_simgrid_platform(text, master="m")
    assert got.workers == ("k1", "k2")
    assert got.routes[0] == ("lm_UP", "bb", "link_k1_DOWN")
    assert got.platform.bandwidths.tolist() == [20e6, 20e6]
    assert got.platform.latencies.tolist() == pytest.approx([45e-6] * 2, rel=1e-12)


# inside the simulation: SimGrid (3.32) seals the zones, computing Floyd's tables, at run
ROUTE_TO = """
import json, sys, simgrid
e = simgrid.Engine(["routes", "--log=root.thres:critical"])
e.load_platform(sys.argv[1])
hosts = {h.name: h for h in e.all_hosts}
out = {}
def probe():
    for w in json.loads(sys.argv[3]):
        links, lat = hosts[sys.argv[2]].route_to(hosts[w])
        out[w] = [[l.name for l in links], lat, min(l.bandwidth for l in links)]
simgrid.Actor.create("probe", hosts[sys.argv[2]], probe)
e.run()
print(json.dumps(out))
"""


@pytest.mark.parametrize(("name", "text", "master"), [
    ("cluster-shared", CLUSTER.replace("{bb}", "SHARED"), "n0.lab"),
    ("cluster-fatpipe", CLUSTER.replace("{bb}", "FATPIPE"), "n1.lab"),
    ("floyd", ROUTED.replace("{routing}", "Floyd"), "m"),
    ("dijkstra", ROUTED.replace("{routing}", "Dijkstra"), "b"),
    ("vivaldi", _p("""<zone id="v" routing="Vivaldi">
  <peer id="m" coordinates="0 0 1" speed="1Gf" bw_in="1GBps" bw_out="40MBps"/>
  <peer id="a" coordinates="3 4 2" speed="2Gf" bw_in="25MBps" bw_out="1GBps"/>
</zone>"""), "m"),
    ("nested", NESTED, "m"),
    ("torus", TORUS, "n4"),
    ("fat-tree", FAT_TREE, "n6"),
    ("dragonfly", DRAGONFLY, "n3"),
    ("nested-reverse", NESTED, "b"),
    ("small", SMALL, "Jupiter"),
])
def test_simgrid_computes_the_same_routes(tmp_path, name, text, master):
    """SimGrid's own route_to (links, latency) and the bottleneck bandwidth of each route
    equal lpsched's on the platforms of the tests above."""
    path = tmp_path / f"{name}.xml"
    path.write_text(text)
    got = sg.read_simgrid_platform(path, master=master)
    ref = _run_simgrid(ROUTE_TO, str(path), master, json.dumps(list(got.workers)))
    for u, w in enumerate(got.workers):
        links, lat, bw = ref[w]
        assert sorted(got.routes[u]) == sorted(links), (w, got.routes[u], links)
        assert got.platform.latencies[u] == pytest.approx(lat, rel=1e-12, abs=1e-15)
        assert got.platform.bandwidths[u] == pytest.approx(bw, rel=1e-12)
