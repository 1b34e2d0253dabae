"""The one SimGrid platform reader (lpsched/platforms/reader.py): each element as SimGrid
reads it, the route query, the immutable result, and errors naming the file and the line.

Every platform here is hand-written in one of SimGrid's styles; the expected values are
computed by hand from SimGrid's rules (docs/families/platforms.md).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from lpsched.errors import ParseError
from lpsched.platforms import (
    NoRoute,
    parse_deployment,
    parse_platform,
    read_deployment,
    read_platform,
    xmlfile,
)

HEAD = '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'


def plat(body: str, version: str = "4.1") -> str:
    return f'{HEAD}<platform version="{version}">\n{body}\n</platform>\n'


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


HOSTS = plat("""<zone id="z" routing="Full">
  <prop id="site" value="lyon"/>
  <host id="a" speed="1Gf,500Mf,0f" pstate="1" core="4" coordinates="1 2 3">
    <prop id="role" value="compute_node"/>
  </host>
  <host id="b" speed="2000000000" speed_file="b.profile"/>
  <router id="r"/>
  <link id="l1" bandwidth="100Mbps" latency="1ms"><prop id="kind" value="wan"/></link>
  <link id="l2" bandwidth="4MiBps" latency="50us" sharing_policy="SPLITDUPLEX"/>
  <link id="l3" bandwidth="1GBps" sharing_policy="FATPIPE"/>
  <link id="l4" bandwidth="1GBps" sharing_policy="FULLDUPLEX"/>
  <route src="a" dst="r"><link_ctn id="l1"/><link_ctn id="l2" direction="UP"/></route>
  <route src="r" dst="b" symmetrical="NO"><link_ctn id="l3"/></route>
  <route src="b" dst="r" symmetrical="NO"><link_ctn id="l4" direction="DOWN"/></route>
</zone>""")


def test_hosts_keep_every_pstate_the_current_one_cores_and_properties() -> None:
    p = parse_platform(HOSTS, "h.xml")
    a, b = p.hosts["a"], p.hosts["b"]
    assert a.speeds == (1e9, 5e8, 0.0) and a.pstate == 1 and a.speed == 5e8
    assert a.cores == 4 and dict(a.properties) == {"role": "compute_node"}
    assert a.zone == "z" and a.line == line_of(HOSTS, 'id="a"')
    assert a.declared == "<host id='a'>" and a.current_speed_text == "500Mf"
    assert b.speeds == (2e9,) and b.pstate == 0 and b.cores == 1
    assert p.routers == ("r",) and p.version == "4.1" and p.path == "h.xml"
    assert dict(p.zones["z"].properties) == {"site": "lyon"}
    assert p.zones["z"].routing == "Full" and p.zones["z"].parent is None
    assert p.unitless == ("b speed='2000000000'",)
    assert p.profiles == ("host b speed_file",)
    assert p.multicore == ("a (4 cores)",)
    notes = p.reading_notes("each core apart")
    assert "1 value(s) without unit" in notes[0] and "ignored 1" in notes[1]
    assert notes[2] == "multicore host(s) a (4 cores): each core apart"


def test_links_keep_their_policy_and_a_route_its_links_latency_and_bottleneck() -> None:
    p = parse_platform(HOSTS)
    assert p.links["l1"] == dataclasses.replace(p.links["l1"], bandwidth=12.5e6, latency=1e-3,
                                               sharing_policy="SHARED")
    assert dict(p.links["l1"].properties) == {"kind": "wan"}
    assert p.links["l2"].sharing_policy == "SPLITDUPLEX" and not p.links["l2"].properties
    assert p.links["l4"].sharing_policy == "SPLITDUPLEX"  # SimGrid's older spelling
    there = p.route("a", "r")
    assert there.links == ("l1", "l2_UP") and there.latency == pytest.approx(1.05e-3)
    assert there.bandwidth == 4 * 1024.0**2
    back = p.route("r", "a")  # symmetrical: reversed, the split-duplex link's other side
    assert back.links == ("l2_DOWN", "l1")
    assert p.resource("l2_DOWN") is p.links["l2"]
    assert p.route("b", "r").links == ("l4_DOWN",) and p.route("r", "b").links == ("l3",)


def test_an_undeclared_full_route_has_no_link_and_says_so() -> None:
    p = parse_platform(HOSTS)
    r = p.route("a", "b")  # a -> r is declared, a -> b is not: SimGrid takes no link
    assert r.links == () and math.isinf(r.bandwidth)
    assert r.missing == ("zone 'z' (routing=\"Full\") declares no route from 'a' to 'b'",)
    assert not p.reaches("a", "b") and p.reaches("a", "r")


NESTED = plat("""<zone id="root" routing="Full">
  <zone id="left" routing="Full">
    <host id="m" speed="1Gf"/><router id="gl"/>
    <link id="ml" bandwidth="100MBps" latency="1ms"/>
    <route src="m" dst="gl"><link_ctn id="ml"/></route>
  </zone>
  <zone id="right" routing="Dijkstra">
    <host id="a" speed="2Gf"/><router id="gr"/><router id="hop"/>
    <link id="ra" bandwidth="10MBps" latency="2ms"/>
    <link id="x" bandwidth="10MBps" latency="1ms"/><link id="y" bandwidth="10MBps"/>
    <route src="gr" dst="a"><link_ctn id="ra"/></route>
    <route src="gr" dst="hop"><link_ctn id="x"/></route>
    <route src="hop" dst="a"><link_ctn id="y"/></route>
  </zone>
  <link id="wan" bandwidth="50MBps" latency="10ms" sharing_policy="FATPIPE"/>
  <link id="direct" bandwidth="70MBps" latency="1us"/>
  <zoneRoute src="left" dst="right" gw_src="gl" gw_dst="gr"><link_ctn id="wan"/></zoneRoute>
  <bypassRoute src="gl" dst="hop"><link_ctn id="direct"/></bypassRoute>
</zone>""")


def test_zones_route_through_their_gateways_and_dijkstra_takes_fewest_links() -> None:
    p = parse_platform(NESTED)
    r = p.route("m", "a")  # gr -> a: one link (ra) beats gr -> hop -> a (two)
    assert r.links == ("ml", "wan", "ra") and r.latency == pytest.approx(13e-3)
    assert r.bandwidth == 10e6
    assert p.zones["right"].parent == "root" and p.zone_of("a").name == "right"
    assert p.route("gl", "hop").links == ("direct",)  # the bypass route, as it is
    assert p.routings == {"Full", "Dijkstra"}


CLUSTER = plat("""<zone id="world" routing="Full">
  <cluster id="c" prefix="n-" suffix=".lab" radical="0-1,5" speed="2Gf,1Gf" core="8"
           bw="125MBps" lat="10us" bb_bw="1GBps" bb_lat="5us" limiter_link="100MBps"
           loopback_bw="10GBps" loopback_lat="1us">
    <prop id="role" value="storage"/>
  </cluster>
</zone>""")


def test_a_cluster_names_its_hosts_and_links_as_simgrid_does() -> None:
    p = parse_platform(CLUSTER)
    assert list(p.hosts) == ["n-0.lab", "n-1.lab", "n-5.lab"]
    h = p.hosts["n-5.lab"]
    assert h.speeds == (2e9, 1e9) and h.pstate == 0 and h.cores == 8
    assert dict(h.properties) == {"role": "storage"}  # a cluster's props go to each host
    assert h.declared == "<cluster id='c'>" and h.zone == "c"
    assert p.zones["c"].routing == "Star" and p.routers == ("n-c_router.lab",)
    assert {"c_backbone", "c_link_5", "c_link_5_limiter", "c_link_5_loopback"} <= set(p.links)
    r = p.route("n-0.lab", "n-5.lab")
    assert r.links == ("c_link_0_limiter", "c_link_0_UP", "c_backbone", "c_link_5_DOWN",
                       "c_link_5_limiter")
    assert r.bandwidth == 100e6 and r.latency == pytest.approx(25e-6)
    assert p.multicore == ("the hosts of cluster c (8 cores)",)


@pytest.mark.parametrize(("topology", "params", "hosts", "links"), [
    ("TORUS", "3,2", 6, 12),  # one link per dimension per host
    # 4 hosts x 1 parent x 1 link, then 2 switches x 2 parents x 2 parallel links
    ("FAT_TREE", "2;2,2;1,2;1,2", 4, 12),
    # a node link per router (4), a green link per chassis (2), one blue link
    ("DRAGONFLY", "2,1;1,1;2,2;1", 4, 7),
])
def test_cluster_topologies_give_their_hosts(topology: str, params: str, hosts: int,
                                             links: int) -> None:
    p = parse_platform(plat(f"""<zone id="w" routing="Full">
  <cluster id="t" topology="{topology}" topo_parameters="{params}" prefix="n" suffix=""
           radical="0-{hosts - 1}" speed="1Gf" bw="1GBps" lat="1us" sharing_policy="SHARED"/>
</zone>"""))
    assert list(p.hosts) == [f"n{i}" for i in range(hosts)]
    assert len(p.links) == links
    assert p.route("n0", f"n{hosts - 1}").links


def test_a_cluster_zone_builds_cabinets_at_its_end_behind_the_backbone() -> None:
    p = parse_platform(plat("""<zone id="cl" routing="Cluster">
  <cabinet id="cab" prefix="k" suffix="" radical="1-2" speed="2Gf" bw="20MBps" lat="30us"/>
  <host id="m" speed="1Gf"/>
  <link id="lm" bandwidth="100MBps" latency="10us" sharing_policy="SPLITDUPLEX"/>
  <host_link id="m" up="lm_UP" down="lm_DOWN"/>
  <backbone id="bb" bandwidth="1GBps" latency="5us"/>
</zone>"""))
    assert list(p.hosts) == ["m", "k1", "k2"]  # SimGrid creates a cabinet's hosts last
    assert p.route("m", "k2").links == ("lm_UP", "bb", "link_k2_DOWN")
    with pytest.raises(ParseError, match="a cabinet has one speed"):
        parse_platform(plat('<zone id="cl" routing="Cluster"><cabinet id="c" prefix="k" '
                            'suffix="" radical="1" speed="2Gf,1Gf" bw="1Bps" lat="0s"/>'
                            "</zone>"))


def test_vivaldi_peers_are_hosts_with_links_and_coordinates() -> None:
    p = parse_platform(plat("""<zone id="v" routing="Vivaldi">
  <peer id="m" coordinates="0 0 1" speed="1Gf" bw_in="1GBps" bw_out="40MBps"/>
  <peer id="a" coordinates="3 4 2" speed="2Gf" bw_in="25MBps" bw_out="1GBps"/>
</zone>"""))
    assert [h.speed for h in p.hosts.values()] == [1e9, 2e9]
    r = p.route("m", "a")  # sqrt(3^2 + 4^2) + |1| + |2| = 8 ms
    assert r.links == ("link_m_UP", "link_a_DOWN") and r.latency == pytest.approx(8e-3)
    assert r.bandwidth == 25e6


def test_a_wifi_zone_keeps_every_rate_level() -> None:
    p = parse_platform(plat("""<zone id="cell" routing="Wifi">
  <prop id="access_point" value="ap"/>
  <host id="s1" speed="100Mf"/><host id="s2" speed="50Mf"/>
  <link id="air" sharing_policy="WIFI" bandwidth="54Mbps,36Mbps" latency="1ms"/>
  <router id="ap"/>
</zone>"""))
    assert p.links["air"].bandwidths == (54e6 / 8, 36e6 / 8)
    assert p.route("s1", "s2").links == ("air@s1", "air@s2")
    assert p.resource("air@s1") is p.links["air"]


def test_a_zone_of_routing_none_reads_and_has_no_route() -> None:
    p = parse_platform(plat('<zone id="z" routing="None"><host id="m" speed="1Gf"/>'
                            '<host id="a" speed="1Gf"/></zone>'))
    assert list(p.hosts) == ["m", "a"]
    with pytest.raises(NoRoute, match="routing=\"None\": SimGrid computes no route"):
        p.route("m", "a")
    assert not p.reaches("m", "a")


def test_a_speed_of_zero_is_read_as_simgrid_reads_it() -> None:
    p = parse_platform(plat('<zone id="z" routing="Full"><host id="pfs" speed="0f">'
                            '<prop id="role" value="storage"/></host></zone>'))
    assert p.hosts["pfs"].speed == 0.0


def test_the_platform_is_immutable() -> None:
    p = parse_platform(HOSTS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.path = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.hosts["a"].pstate = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.hosts["c"] = p.hosts["a"]  # type: ignore[index]
    with pytest.raises(TypeError):
        p.hosts["a"].properties["role"] = "master"  # type: ignore[index]


def test_actors_of_a_platform_file_and_of_a_deployment(tmp_path) -> None:
    actors = ('<actor host="a" function="master"><argument value="20"/></actor>'
              '<actor host="b" function="worker"/>')
    p = parse_platform(plat(f'<zone id="z" routing="Full"><host id="a" speed="1Gf"/>'
                            f'<host id="b" speed="1Gf"/></zone>{actors}'))
    assert [(a.host, a.function, a.arguments) for a in p.actors] == [
        ("a", "master", ("20",)), ("b", "worker", ())]
    (tmp_path / "d.xml").write_text(plat(actors))
    assert read_deployment(tmp_path / "d.xml") == parse_deployment(plat(actors),
                                                                   str(tmp_path / "d.xml"))
    with pytest.raises(ParseError, match="<zone> in a deployment file"):
        parse_deployment(HOSTS)


@pytest.mark.parametrize(("body", "needle", "words"), [
    ('<cluster id="c" prefix="n" suffix="" radical="0" speed="1Gf,2Gf" pstate="1" bw="1Bps" '
     'lat="0s"/>', "<cluster", "attribute 'pstate' is not one SimGrid reads on <cluster>"),
    ('<host id="a" speed="1Gf" bandwith="1Bps"/>', '"a"', "attribute 'bandwith'"),
    ('<host id="a" speed="1Gf" core="2.5"/>', '"a"', r"core='2.5': must be a whole number"),
    ('<host id="a" speed="1Gf" pstate="3"/>', '"a"', "pstate index from 0 to 0"),
    ('<host id="a" speed="fast"/>', '"a"', "speed='fast': speed 'fast' is not a SimGrid"),
    ('<include file="other.xml"/>', "include", "cannot read <include>"),
    ('<link id="l" bandwidth="1MBps" sharing_policy="WIFI"/>', '"l"', "WIFI link outside"),
    ('<host id="a" speed="1Gf"/><route src="a" dst="a" symmetrical="maybe"/>', "maybe",
     "symmetrical='maybe': expected YES or NO"),
])
def test_errors_name_the_file_the_line_and_what_to_fix(body: str, needle: str,
                                                       words: str) -> None:
    lines = body.replace("><", ">\n<")
    text = plat(f'<zone id="z" routing="Full">\n{lines}\n</zone>')
    with pytest.raises(ParseError, match=words) as err:
        parse_platform(text, "p.xml")
    assert err.value.path == "p.xml"
    assert err.value.line == line_of(text, needle)


@pytest.mark.parametrize(("text", "words"), [
    (plat('<zone id="z" routing="Full"/>', version="3"), "version 4 or 4.1"),
    (HEAD + "<plateform/>", "not a SimGrid platform file"),
    (HEAD + '<platform version="4.1"><zone id="z" routing="Full">',
     "not a SimGrid platform: not valid XML \\(not well-formed XML"),
    ("\n\n" + plat('<zone id="z" routing="Full"><host id="a" speed="1Gf"/></zone>'), None),
])
def test_file_level_errors_and_leading_blank_lines(text: str, words: str | None) -> None:
    if words is None:
        assert list(parse_platform(text).hosts) == ["a"]
    else:
        with pytest.raises(ParseError, match=words):
            parse_platform(text)


def test_size_limit_and_missing_file(tmp_path, monkeypatch) -> None:
    (tmp_path / "p.xml").write_text(HOSTS)
    assert list(read_platform(tmp_path / "p.xml").hosts) == ["a", "b"]
    monkeypatch.setattr(xmlfile, "MAX_PLATFORM_BYTES", 100)
    with pytest.raises(ParseError, match="larger than the 100 bytes lpsched reads as a "
                       "platform file"):
        read_platform(tmp_path / "p.xml")
    with pytest.raises(ParseError, match="cannot read file"):
        read_platform(tmp_path / "missing.xml")
