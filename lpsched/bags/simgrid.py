"""SimGrid platform files (XML, DTD version 4.1) for star platforms (issues 17 and 33).

Seed 003's experiments ran in SimGrid (§4, [L802]), and researchers keep their star
platforms as SimGrid platform files. :func:`read_simgrid_platform` reads a star platform
from such a file (and, optionally, a deployment file naming the master and the workers);
:func:`simgrid_platform_xml` / :func:`write_simgrid_platform` write one from a
:class:`~lpsched.bags.platform.StarPlatform` (``lpsched export simgrid``), and
:func:`simgrid_deployment_xml` the matching deployment file (the applications as the
master actor's arguments).

**What is read** (issue 33): the whole zone tree as SimGrid defines it. ``<zone>`` (or the
older ``<AS>``) of every routing SimGrid's parser accepts (``Full``, ``Floyd``,
``Dijkstra``, ``DijkstraCache``, ``Vivaldi``, ``Wifi``, ``Cluster``, ``None``; the name
is case-insensitive), nested to any depth, with ``<host id speed>`` (``core``, ``pstate``,
``coordinates``, ``<prop>``), ``<router>``, ``<link id bandwidth latency
sharing_policy>``, ``<route src dst symmetrical>`` of ``<link_ctn id direction>``,
``<zoneRoute>``/``<ASroute>`` with gateways, ``<bypassRoute>``/``<bypassZoneRoute>``,
``<cluster>`` (flat: hosts behind a backbone, with limiter and loopback links; torus,
fat tree and dragonfly topologies),
``<cabinet>``, ``<host_link>`` and ``<backbone>`` in ``routing="Cluster"`` zones, and
``<peer>`` in Vivaldi zones. The route from the master to each worker is resolved by each
zone's own rule (:mod:`lpsched.bags.simgrid_routing`, decisions 355-363); ``<include>``
and zones of routing ``None`` (no route) are refused with an error naming the element and its line.
``<config>`` items are kept in :attr:`SimgridPlatform.config` and do not change what is
read. Routes are symmetrical unless ``symmetrical="NO"``: a route declared ``worker ->
master`` also gives ``master -> worker`` (reversed, ``UP``/``DOWN`` of split-duplex links
swapped), and a route declared twice is an error, as in SimGrid. Blank lines before the
XML declaration are skipped (SimGrid's parser reads such files; Batsim ships some).
**Pstates**: a host (or cluster) with comma-separated speeds runs at the one its
``pstate`` attribute names (default 0), which must be > 0; the others may be ``0f``
(SimGrid's pstates of a host that is off or booting).

**Units** are SimGrid's (``src/xbt/parse_units.cpp``): speeds ``f``, ``kf``, ``Mf``, ``Gf``,
``Tf``, ``Pf``, ``Ef``, ``Zf``, ``Yf`` (and ``flops``, ``kiloflops``, ... ``yottaflops``; no
binary prefixes for speeds); bandwidths ``Bps`` with the decimal prefixes ``k M G T P E Z
Y`` or the binary ``Ki Mi Gi Ti Pi Ei Zi Yi`` (``KiBps`` = 1024 B/s), and the same in bits
(``bps``, ``kbps``, ``Mibps``, ... = 1/8 of the byte unit); latencies ``s``, ``ms``,
``us``, ``ns``, ``ps``, ``m``, ``h``, ``d``, ``w``. The unit is case-sensitive and must be
exactly one of these (``KBps`` is an error, as in SimGrid). A number without unit is read in
the base unit (``f``, ``Bps``, ``s``) as SimGrid does, which warns that unit-less values are
deprecated: lpsched reports it in :attr:`SimgridPlatform.notes`. A host with several
comma-separated speeds (pstates) runs at the one its ``pstate`` attribute names (default 0).

**How the star is read.** The master is the host named by ``master=`` (``--master``),
else the host of the deployment's ``master`` actor (``deployment=``: a SimGrid deployment
file; the ``<actor>`` elements of the platform file itself when one is the master's),
else the only host with a route of at least one link to every other host (among several,
the only one with an ``lpsched.*`` property, as in the files lpsched writes). The workers
are the hosts of the deployment's ``worker`` actors, in its order, else the other hosts
in the file's order; a master that also runs a worker actor is a worker of the star with
its own speed, a link of :data:`SELF_BANDWIDTH` and latency 0 (decision 358). A worker's
latency is the sum of the latencies of the links of its route (what SimGrid charges, plus
the coordinates' distance in Vivaldi zones); its bandwidth is the smallest bandwidth of
those links (one flow through a route gets its bottleneck, ``FATPIPE`` or not: decision
356), except links on the route to *every* worker (declared ``SHARED`` or
``SPLITDUPLEX``, not ``FATPIPE``): those are the master's outgoing port, and their
smallest bandwidth is the master bandwidth ``BW`` (bounded multiport) - in a cluster
whose master is inside, its private link up and a ``SHARED`` backbone. Under
``port="one-port"`` a master link still limits each (single) transfer, so the worker's
bandwidth is the minimum over its whole route there; under ``"multiport"`` it is the
minimum over the worker's own links. With a single worker no link can be told to be the
master's, unless the file names it (the ``lpsched.master_link`` property the writer adds).
The port model is ``port=`` if given, else the master's ``lpsched.port`` property, else
``default_port``. Nominal values are read: SimGrid's network model corrections (LV08's
bandwidth factor 0.97 and latency factor 13.01, the TCP window bound, cross-traffic on
``SHARED`` links) are not applied. A SimGrid transfer takes lpsched's ``latency +
size/bandwidth`` only with all of ``network/model:CM02`` (no factors),
``network/TCP-gamma:0`` (or a value as large as ``1e100``: CM02 alone still bounds each
flow by ``gamma / (2 latency)``), ``network/crosstraffic:0`` unless the links are
``SPLITDUPLEX`` (as written here), and, for one-port, a master program that sends one
message at a time; ``exact_network=True`` (``--exact-network``) writes the three settings
(docs/decisions.md, "SimGrid's network model against one-port and bounded multiport").

**What is written.** A ``Full`` zone with a host ``master`` and one host per worker
(``worker0``, ``worker1``, ... unless the platform came from a SimGrid file, whose host
names it keeps in ``platform.extra["simgrid"]``), one ``SPLITDUPLEX`` link per worker with
its bandwidth and latency (full-duplex links, as seed 003 assumes; the return traffic of
SimGrid's cross-traffic model then never slows the master's sends), and a route
``master -> worker``. A bounded-multiport master (``port="multiport"``, finite ``BW``)
gets a ``SPLITDUPLEX`` link ``master_port`` of bandwidth ``BW`` and latency 0 at the head of
every route: SimGrid shares it among the concurrent transfers (its own max-min rule, not
the proportional rule of lpsched's simulator, see docs/decisions.md). The master host
carries ``<prop>`` entries ``lpsched.port`` (and ``lpsched.master_link``, or
``lpsched.master_bandwidth`` for a one-port platform whose ``BW`` has no link), so that
reading the file back gives the same platform: speeds, bandwidths, latencies and ``BW``
bit for bit (numbers are written with Python's shortest round-trip ``repr`` in the base
units ``f``, ``Bps``, ``s``). The master's speed is the fastest worker's (seed 003's master
computes nothing). Unrelated speeds (one row per application) cannot be written: a SimGrid
host has one speed.

Reading is hardened like lpsched's other readers: at most :data:`MAX_PLATFORM_BYTES`
bytes, no ``DOCTYPE`` internal subset (so no entity or attribute declarations: no
"billion laughs" expansion, no injected defaults; the usual external
``<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">`` is accepted and never
fetched), and every error is a :class:`~lpsched.errors.ParseError` naming the file, the
line and what to fix.
"""

from __future__ import annotations

import gc
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from xml.parsers import expat
from xml.sax.saxutils import quoteattr

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.platform import PORTS, StarPlatform
from lpsched.bags.simgrid_routing import (
    ROUTINGS,
    STAR_ROUTINGS,
    Dragonfly,
    FatTree,
    Network,
    NoRoute,
    Resource,
    Route,
    Zone,
    ZoneRoute,
)
from lpsched.errors import InvalidInstanceError, ParseError

#: The largest platform file read, in bytes (a star of 100,000 workers takes about 30 MB).
MAX_PLATFORM_BYTES = 128 * 2**20
#: The link the writer adds for a bounded-multiport master.
MASTER_PORT_LINK = "master_port"
#: Host properties the writer sets on the master (read back by the reader).
PROP_PORT = "lpsched.port"
PROP_MASTER_LINK = "lpsched.master_link"
PROP_MASTER_BANDWIDTH = "lpsched.master_bandwidth"
#: The DTD versions read (SimGrid accepts 4 and 4.1 files; 4 has ``<AS>``, 4.1 ``<zone>``).
VERSIONS = (4.0, 4.1)


def _unit_scale(gens: Sequence[tuple[str, float, int, bool]]) -> dict[str, float]:
    """SimGrid's ``unit_scale``: each unit with its decimal (``k``, ``M``, ... or ``kilo``,
    ``mega``, ...) or binary (``Ki``, ``Mi``, ... or ``kibi``, ...) prefixes; the first
    definition of a name wins (``emplace``)."""
    table: dict[str, float] = {}
    for unit, value, base, abbrev in gens:
        mult = 1024.0 if base == 2 else 1000.0
        if base == 2:
            prefixes = (["Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"] if abbrev else
                        ["kibi", "mebi", "gibi", "tebi", "pebi", "exbi", "zebi", "yobi"])
        else:
            prefixes = (["k", "M", "G", "T", "P", "E", "Z", "Y"] if abbrev else
                        ["kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"])
        table.setdefault(unit, value)
        for prefix in prefixes:
            value *= mult
            table.setdefault(prefix + unit, value)
    return table


#: Speed units (flop/s), as SimGrid's ``xbt_parse_get_speed``.
SPEED_UNITS = _unit_scale([("f", 1.0, 10, True), ("flops", 1.0, 10, False)])
#: Bandwidth units (bytes/s), as SimGrid's ``xbt_parse_get_bandwidth``.
BANDWIDTH_UNITS = _unit_scale([("bps", 0.125, 2, True), ("bps", 0.125, 10, True),
                               ("Bps", 1.0, 2, True), ("Bps", 1.0, 10, True)])
#: Time units (seconds), as SimGrid's ``xbt_parse_get_time``.
TIME_UNITS = {"w": 7 * 24 * 60 * 60.0, "d": 24 * 60 * 60.0, "h": 60 * 60.0, "m": 60.0,
              "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
_KINDS = {"speed": (SPEED_UNITS, "f"), "bandwidth": (BANDWIDTH_UNITS, "Bps"),
          "latency": (TIME_UNITS, "s")}
_NUMBER = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(\S*)\s*\Z")


def parse_quantity(text: str, kind: str) -> tuple[float, bool]:
    """The value of ``text`` (``"1.5Gf"``, ``"10MBps"``, ``"100us"``) in flop/s, bytes/s or
    seconds for ``kind`` ``"speed"``, ``"bandwidth"`` or ``"latency"``, and whether it had a
    unit (a number alone is read in the base unit, as SimGrid does).

    Parameters
    ----------
    text : str
        A decimal number followed by one of SimGrid's units for ``kind`` (module doc).
    kind : str
        ``"speed"``, ``"bandwidth"`` or ``"latency"``.

    Returns
    -------
    tuple of (float, bool)
        The value in base units and ``True`` when a unit was given.

    Raises
    ------
    ValueError
        When ``text`` is not a number or its unit is not one SimGrid accepts for ``kind``;
        the message names the accepted units.

    Examples
    --------
    >>> parse_quantity("10MBps", "bandwidth")
    (10000000.0, True)
    >>> parse_quantity("100Mbps", "bandwidth")
    (12500000.0, True)
    >>> parse_quantity("1KiBps", "bandwidth")
    (1024.0, True)
    >>> parse_quantity("2.5ms", "latency")
    (0.0025, True)
    >>> parse_quantity("1e9", "speed")
    (1000000000.0, False)
    """
    units, base = _KINDS[kind]
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"cannot read {text!r} as a {kind} (a decimal number and a unit, "
                         f"e.g. {_example(kind)})")
    number, unit = match.groups()
    value = float(number)
    if not unit:
        return value * units[base], False
    if unit not in units:
        raise ValueError(f"unknown {kind} unit {unit!r} in {text!r}{_hint(unit, kind)}")
    return value * units[unit], True


def _example(kind: str) -> str:
    return {"speed": "'1Gf'", "bandwidth": "'125MBps' or '1Gbps'",
            "latency": "'50us'"}[kind]


def _hint(unit: str, kind: str) -> str:
    """What SimGrid accepts instead of ``unit``."""
    if kind == "bandwidth":
        if unit[:1] == "K" and unit[1:] in ("Bps", "bps"):
            return f" (decimal kilo is 'k': k{unit[1:]}; binary: Ki{unit[1:]})"
        return (" (SimGrid accepts Bps or bps with the prefixes k M G T P E Z Y or "
                "Ki Mi Gi Ti Pi Ei Zi Yi, e.g. 10MBps, 1Gbps, 64KiBps)")
    if kind == "speed":
        return (" (SimGrid accepts f or flops with the decimal prefixes k M G T P E Z Y, "
                "e.g. 1Gf, 500Mf; there are no binary prefixes for speeds)")
    return " (SimGrid accepts w d h m s ms us ns ps, e.g. 50us)"


@dataclass(frozen=True)
class SimgridPlatform:
    """A star platform read from a SimGrid platform file (:func:`read_simgrid_platform`).

    Attributes
    ----------
    platform : StarPlatform
        The star: worker ``u`` is host ``workers[u]``; ``platform.extra["simgrid"]`` keeps
        the host names, which :func:`simgrid_platform_xml` reuses.
    master : str
        The master host.
    workers : tuple of str
        The worker hosts, in the file's order.
    routes : tuple of tuple of str
        ``routes[u]``: the links of the route master -> ``workers[u]`` (a split-duplex
        link as ``name_UP`` or ``name_DOWN``, SimGrid's names).
    master_links : tuple of str
        The links read as the master's port (their bandwidth is ``BW``).
    config : dict
        The ``<config>`` items of the file (SimGrid options; not applied).
    notes : tuple of str
        What the reader did that a user should know: values without unit read in base
        units, ignored profiles, multicore hosts.
    path : str
        The file read.
    """

    platform: StarPlatform
    master: str
    workers: tuple[str, ...]
    routes: tuple[tuple[str, ...], ...]
    master_links: tuple[str, ...]
    config: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    path: str = ""


@dataclass
class _Host:
    line: int
    speed: float
    props: dict[str, str]


@dataclass(frozen=True)
class Actor:
    """One ``<actor>`` (or ``<process>``) of a SimGrid deployment file."""

    host: str
    function: str
    arguments: tuple[str, ...]
    line: int


#: The most hosts a ``<cluster>``/``<cabinet>`` radical may expand to (a guard on memory).
MAX_CLUSTER_HOSTS = 1_000_000
_SPLIT = "SPLITDUPLEX"


class _Reader:
    """The state of one read (module doc); every error names ``path`` and the line."""

    #: elements refused, with what to do instead
    UNSUPPORTED: ClassVar[dict[str, str]] = {
        "include": "<include> (SimGrid itself refuses it since v3.18)",
    }

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: dict[ET.Element, int] = {}
        self.hosts: dict[str, _Host] = {}
        self.routers: set[str] = set()
        self.coords: dict[str, tuple[float, float, float]] = {}
        self.net = Network(self.coords.get)
        self.links: dict[str, Resource] = {}  # declared links (a split-duplex one: its UP)
        self.config: dict[str, str] = {}
        self.unitless: list[str] = []
        self.profiles: list[str] = []
        self.cores: list[str] = []
        self.ignored: list[str] = []
        self.actors: list[Actor] = []
        self.routings: set[str] = set()
        self.cluster_pending: dict[str, dict[str, Any]] = {}

    def fail(self, message: str, element: ET.Element | None = None) -> ParseError:
        line = self.lines.get(element) if element is not None else None
        return ParseError(self.path, message, line)

    # -- XML -------------------------------------------------------------------------------
    def parse_xml(self, raw: bytes) -> ET.Element:
        """The element tree of ``raw`` (expat feeding an ElementTree builder, recording the
        line of each element); entity and attribute declarations are refused."""
        builder = ET.TreeBuilder()
        parser = expat.ParserCreate()
        skipped = 0
        body = raw.lstrip()
        if body[:5] == b"<?xml" and len(body) < len(raw):
            # blank lines before the XML declaration (Batsim's files have them): SimGrid's
            # parser reads such files, expat refuses them
            skipped = raw[:len(raw) - len(body)].count(b"\n")
            raw = body

        def start(tag: str, attrs: dict[str, str]) -> None:
            self.lines[builder.start(tag, attrs)] = parser.CurrentLineNumber + skipped

        def end(tag: str) -> None:
            builder.end(tag)

        def doctype(name: str, sysid: str | None, pubid: str | None, internal: int) -> None:
            if internal:
                raise self.fail_at(parser.CurrentLineNumber, "a DOCTYPE with an internal "
                                   "subset ([...]: entity or attribute declarations) is not "
                                   "accepted; SimGrid files use <!DOCTYPE platform SYSTEM "
                                   "\"https://simgrid.org/simgrid.dtd\">")

        def entity(*_: Any) -> None:
            raise self.fail_at(parser.CurrentLineNumber, "entity declarations are not "
                               "accepted in a platform file")

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.StartDoctypeDeclHandler = doctype
        parser.EntityDeclHandler = entity
        try:
            parser.Parse(raw, True)
        except expat.ExpatError as exc:
            raise self.fail_at(exc.lineno + skipped, f"not well-formed XML: "
                               f"{expat.ErrorString(exc.code)} (column {exc.offset + 1})"
                               ) from None
        except RecursionError:
            raise ParseError(self.path, "XML nested too deeply") from None
        return builder.close()

    def fail_at(self, line: int | None, message: str) -> ParseError:
        return ParseError(self.path, message, line)

    # -- attributes ------------------------------------------------------------------------
    def attr(self, el: ET.Element, name: str, default: str | None = None) -> str:
        value = el.get(name, default)
        if value is None:
            ident = el.get("id")
            what = f"<{el.tag} id={ident!r}>" if ident else f"<{el.tag}>"
            raise self.fail(f"{what} has no {name} attribute", el)
        return value

    def quantity(self, el: ET.Element, name: str, kind: str, text: str | None = None,
                 positive: bool = True) -> float:
        """Attribute ``name`` of ``el`` (or ``text``) read as ``kind``, finite and > 0
        (``>= 0`` unless ``positive``)."""
        raw = self.attr(el, name) if text is None else text
        what = f"<{el.tag} id={el.get('id')!r}> {name}"
        try:
            value, had_unit = parse_quantity(raw, kind)
        except ValueError as exc:
            raise self.fail(f"{what}: {exc}", el) from None
        if not math.isfinite(value):
            raise self.fail(f"{what} = {raw!r} is outside the float range", el)
        if value < 0 or (positive and value == 0):
            raise self.fail(f"{what} = {raw!r} must be {'> 0' if positive else '>= 0'}", el)
        if not had_unit and value != 0:
            self.unitless.append(f"{el.get('id')} {name}={raw!r}")
        return value

    def speeds(self, el: ET.Element, pstate: int = 0) -> float:
        """The speed of ``el`` in pstate ``pstate`` from its comma-separated pstate speeds:
        that one must be > 0, the others >= 0 (SimGrid allows ``0f`` in pstates a host is
        not in, e.g. while it boots or sleeps)."""
        texts = self.attr(el, "speed").split(",")
        if not 0 <= pstate < len(texts):
            raise self.fail(f"<{el.tag} id={el.get('id')!r}> pstate={el.get('pstate')!r}: "
                            f"must be a pstate index from 0 to {len(texts) - 1} (one per "
                            "speed)", el)
        values = [self.quantity(el, "speed", "speed", text=t.strip(), positive=(i == pstate))
                  for i, t in enumerate(texts)]
        return values[pstate]

    # -- elements --------------------------------------------------------------------------
    def read(self, root: ET.Element) -> None:
        """Check ``<platform>`` and read its children (the root zone, actors, config)."""
        if root.tag != "platform":
            raise self.fail(f"the root element is <{root.tag}>, not <platform>: not a SimGrid "
                            "platform file", root)
        raw = root.get("version")
        try:
            version = float(raw) if raw is not None else 0.0
        except ValueError:
            raise self.fail(f"<platform version={raw!r}>: not a number", root) from None
        if version < VERSIONS[0]:
            raise self.fail(f"<platform version={raw!r}>: lpsched reads SimGrid platform "
                            "files of version 4 or 4.1 (SimGrid >= 3.13); convert this one "
                            "with SimGrid's simgrid_update_xml", root)
        if version > VERSIONS[-1]:
            raise self.fail(f"<platform version={raw!r}>: newer than 4.1, the version "
                            "lpsched reads", root)
        zones = []
        for child in root:
            tag = child.tag
            if tag in ("zone", "AS", "cluster"):
                zones.append(child)
            elif tag == "config":
                for prop in child:
                    if prop.tag != "prop":
                        raise self.fail(f"<{prop.tag}> inside <config>: only <prop> is "
                                        "allowed", prop)
                    self.config[self.attr(prop, "id")] = self.attr(prop, "value")
            elif tag in ("trace", "trace_connect"):
                self.profiles.append(f"<{tag}>")
            elif tag in ("actor", "process"):
                self.actors.append(_actor(self, child))
            elif tag == "random":
                self.ignored.append(f"<{tag}>")
            elif tag in self.UNSUPPORTED:
                raise self.fail(f"lpsched cannot read {self.UNSUPPORTED[tag]}", child)
            else:
                raise self.fail(f"unknown element <{tag}> in <platform>", child)
        if len(zones) != 1:
            raise self.fail(f"expected one <zone> (or <AS>, or <cluster>) as the root of the "
                            f"platform, found {len(zones)}", root if not zones else zones[1])
        if zones[0].tag == "cluster":
            self.read_cluster(zones[0], None)
        else:
            self.read_zone(zones[0], None)

    def new_zone(self, el: ET.Element, routing: str, parent: Zone | None) -> Zone:
        name = self.attr(el, "id")
        if name in self.net.zones or name in self.hosts or name in self.routers:
            raise self.fail(f"<{el.tag} id={name!r}>: a zone, host or router of that name is "
                            "already declared", el)
        zone = Zone(name, routing, parent, self.lines[el])
        self.net.zones[name] = zone
        self.routings.add(routing)
        if parent is not None:
            parent.members.append(name)
            parent.hierarchy = True
        return zone

    def read_zone(self, el: ET.Element, parent: Zone | None) -> None:
        raw = self.attr(el, "routing")
        routing = ROUTINGS.get(raw.lower())
        if routing is None:
            raise self.fail(f"<{el.tag} id={el.get('id')!r} routing={raw!r}>: SimGrid's "
                            f"routings are {', '.join(sorted(set(ROUTINGS.values())))}", el)
        zone = self.new_zone(el, routing, parent)
        cluster: dict[str, Any] = {"host_links": [], "cabinets": [], "backbone": None}
        for child in el:
            tag = child.tag
            if tag == "host":
                self.read_host(child, zone)
            elif tag == "router":
                name = self.new_name(child)
                self.routers.add(name)
                self.net.where[name] = zone
                zone.members.append(name)
                self.read_coords(child, name)
            elif tag == "link":
                self.read_link(child, zone)
            elif tag in ("route", "zoneRoute", "ASroute"):
                self.read_route(child, zone, between_zones=(tag != "route"))
            elif tag in ("bypassRoute", "bypassZoneRoute", "bypassASroute"):
                self.read_bypass(child, zone)
            elif tag in ("zone", "AS"):
                self.read_zone(child, zone)
            elif tag == "cluster":
                self.read_cluster(child, zone)
            elif tag == "peer":
                self.read_peer(child, zone)
            elif tag in ("host_link", "backbone", "cabinet"):
                if routing != "Cluster":
                    raise self.fail(f"<{tag}> is only allowed in a zone with routing="
                                    f"\"Cluster\", not {routing!r}", child)
                if tag == "host_link":
                    cluster["host_links"].append(child)
                elif tag == "cabinet":
                    cluster["cabinets"].append(child)
                else:
                    cluster["backbone"] = self.read_link(child, zone, policy="SHARED")
            elif tag in ("trace", "trace_connect"):
                self.profiles.append(f"<{tag}>")
            elif tag == "prop":
                zone.props[self.attr(child, "id")] = self.attr(child, "value")
            elif tag in ("storage_type", "storage"):
                self.ignored.append(f"<{tag}>")
            elif tag in self.UNSUPPORTED:
                raise self.fail(f"lpsched cannot read {self.UNSUPPORTED[tag]}", child)
            else:
                raise self.fail(f"unknown element <{tag}> in <{el.tag}>", child)
        if routing == "Cluster":
            self.populate_cluster(zone, cluster)
        if routing == "Wifi":
            ap = zone.props.get("access_point")
            if ap is not None and self.net.where.get(ap) is not zone:
                raise self.fail(f"Wifi zone {zone.name!r}: access_point={ap!r} is no host or "
                                "router of the zone", el)

    def populate_cluster(self, zone: Zone, cluster: dict[str, Any]) -> None:
        """A ``routing="Cluster"`` zone: host links and cabinets behind the backbone."""
        bb = cluster["backbone"]
        bb_hops = [bb] if bb is not None else []
        for el in cluster["cabinets"]:
            for rad in self.radicals(el):
                name = self.attr(el, "prefix") + str(rad) + self.attr(el, "suffix")
                self.add_host(el, zone, name, self.speeds(el), {})
                bw = self.quantity(el, "bw", "bandwidth")
                lat = self.quantity(el, "lat", "latency", positive=False)
                up = self.add_link(el, f"link_{name}_UP", bw, lat, "SHARED")
                down = self.add_link(el, f"link_{name}_DOWN", bw, lat, "SHARED")
                zone.up[name] = ZoneRoute([up, *bb_hops])
                zone.down[name] = ZoneRoute([*bb_hops, down])
        for el in cluster["host_links"]:
            host = self.attr(el, "id")
            if host not in self.hosts:
                raise self.fail(f"<host_link id={host!r}>: no host of that name", el)
            up = self.resource(el, self.attr(el, "up"), "NONE")
            down = self.resource(el, self.attr(el, "down"), "NONE")
            zone.up[host] = ZoneRoute([up, *bb_hops])
            zone.down[host] = ZoneRoute([*bb_hops, down])

    def new_name(self, el: ET.Element, name: str | None = None) -> str:
        name = self.attr(el, "id") if name is None else name
        if name in self.hosts or name in self.routers or name in self.net.zones:
            raise self.fail(f"<{el.tag} id={name!r}>: a host or router of that name is "
                            "already declared", el)
        return name

    def read_coords(self, el: ET.Element, name: str) -> None:
        text = el.get("coordinates", "").strip()
        if not text:
            return
        parts = text.split()
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != 3 or not all(math.isfinite(v) for v in values):
            raise self.fail(f"<{el.tag} id={name!r}> coordinates={text!r}: SimGrid expects "
                            "three numbers \"x y h\" (milliseconds)", el)
        self.coords[name] = (values[0], values[1], values[2])

    def add_host(self, el: ET.Element, zone: Zone, name: str, speed: float,
                 props: dict[str, str]) -> None:
        name = self.new_name(el, name)
        self.hosts[name] = _Host(self.lines[el], speed, props)
        self.net.where[name] = zone
        zone.members.append(name)

    def read_host(self, el: ET.Element, zone: Zone) -> None:
        name = self.attr(el, "id")
        raw_pstate = el.get("pstate", "0")
        try:
            pstate = float(raw_pstate)
        except ValueError:
            raise self.fail(f"<host id={name!r}> pstate={raw_pstate!r}: not a number",
                            el) from None
        if pstate != int(pstate):
            raise self.fail(f"<host id={name!r}> pstate={raw_pstate!r}: must be a pstate "
                            "index (an integer)", el)
        speed = self.speeds(el, int(pstate))
        cores = el.get("core", "1")
        if cores.strip() not in ("1", "1.0"):
            self.cores.append(f"{name} ({cores} cores)")
        for attr in ("speed_file", "availability_file", "state_file"):
            if el.get(attr):
                self.profiles.append(f"host {name} {attr}")
        props = {}
        for child in el:
            if child.tag == "prop":
                props[self.attr(child, "id")] = self.attr(child, "value")
            elif child.tag not in ("disk", "mount"):
                raise self.fail(f"<{child.tag}> inside <host id={name!r}>: expected <prop>, "
                                "<disk> or <mount>", child)
        self.add_host(el, zone, name, speed, props)
        self.read_coords(el, name)

    def add_link(self, el: ET.Element, name: str, bandwidth: float, latency: float,
                 policy: str) -> str:
        """Declare link ``name``; return its resource (``name_UP`` when split-duplex)."""
        if name in self.links or name in self.net.resources:
            first = (self.links.get(name) or self.net.resources[name]).line
            raise self.fail(f"<{el.tag} id={name!r}>: a link of that name is already "
                            f"declared (line {first})", el)
        res = Resource(name, bandwidth, latency, policy, self.lines[el])
        self.links[name] = res
        if policy == _SPLIT:
            for side in ("_UP", "_DOWN"):
                self.net.resources[name + side] = res
            return name + "_UP"
        self.net.resources[name] = res
        return name

    def read_link(self, el: ET.Element, zone: Zone, policy: str | None = None) -> str:
        name = self.attr(el, "id")
        policy = policy or el.get("sharing_policy", "SHARED")
        if policy == "FULLDUPLEX":  # SimGrid's deprecated spelling of SPLITDUPLEX
            policy = _SPLIT
        if policy not in ("SHARED", _SPLIT, "FATPIPE", "WIFI"):
            raise self.fail(f"<link id={name!r}> sharing_policy={policy!r}: expected SHARED, "
                            "SPLITDUPLEX, FATPIPE or WIFI", el)
        if policy == "WIFI":
            if zone.routing != "Wifi":
                raise self.fail(f"<link id={name!r}> is a WIFI link outside a zone with "
                                f"routing=\"Wifi\" (zone {zone.name!r} is {zone.routing!r})",
                                el)
            rates = [self.quantity(el, "bandwidth", "bandwidth", text=t.strip())
                     for t in self.attr(el, "bandwidth").split(",")]
            bandwidth = rates[0]
            self.net.wifi_rates[name] = rates
            zone.wifi_link = name
        else:
            bandwidth = self.quantity(el, "bandwidth", "bandwidth")
        latency = self.quantity(el, "latency", "latency", text=el.get("latency", "0"),
                                positive=False)
        for attr in ("bandwidth_file", "latency_file", "state_file"):
            if el.get(attr):
                self.profiles.append(f"link {name} {attr}")
        for child in el:
            if child.tag != "prop":
                raise self.fail(f"<{child.tag}> inside <link id={name!r}>: only <prop> is "
                                "allowed", child)
        return self.add_link(el, name, bandwidth, latency, policy)

    def resource(self, el: ET.Element, name: str, direction: str) -> str:
        """The resource of link ``name`` crossed in ``direction`` (``l_UP``/``l_DOWN`` of
        a split-duplex ``l``, which may also be named so directly, as SimGrid does)."""
        link = self.links.get(name)
        if link is not None:
            if link.policy == _SPLIT:
                return f"{name}_{'DOWN' if direction == 'DOWN' else 'UP'}"
            if link.policy == "WIFI":
                raise self.fail(f"<{el.tag} id={name!r}>: the WIFI link of a Wifi zone is "
                                "placed on routes by the zone itself, not in a route", el)
            return name
        if name in self.net.resources and self.net.resources[name].policy == _SPLIT:
            return name
        raise self.fail(f"<{el.tag} id={name!r}>: no link of that name declared before this "
                        "route", el)

    def hops(self, el: ET.Element) -> list[str]:
        out = []
        for ctn in el:
            if ctn.tag != "link_ctn":
                raise self.fail(f"<{ctn.tag}> inside <{el.tag}>: expected <link_ctn>", ctn)
            name = self.attr(ctn, "id")
            direction = ctn.get("direction", "NONE")
            if direction not in ("UP", "DOWN", "NONE"):
                raise self.fail(f"<link_ctn id={name!r}> direction={direction!r}: expected "
                                "UP, DOWN or NONE", ctn)
            out.append(self.resource(ctn, name, direction))
        return out

    def netpoint(self, el: ET.Element, name: str, zone: Zone | None, what: str) -> None:
        """Check that ``name`` is a host or router (or, ``zone`` given, a zone of it)."""
        if zone is not None:
            if name not in self.net.zones or self.net.zones[name].parent is not zone:
                raise self.fail(f"<{el.tag} src={el.get('src')!r} dst={el.get('dst')!r}>: "
                                f"{what} {name!r} is no zone declared inside zone "
                                f"{zone.name!r} before it", el)
        elif name not in self.hosts and name not in self.routers:
            raise self.fail(f"<{el.tag} src={el.get('src')!r} dst={el.get('dst')!r}>: no host "
                            f"or router {name!r} declared before it", el)

    def read_route(self, el: ET.Element, zone: Zone, between_zones: bool) -> None:
        src, dst = self.attr(el, "src"), self.attr(el, "dst")
        gw_src = gw_dst = None
        if between_zones:
            for end in (src, dst):
                self.netpoint(el, end, zone, "src" if end == src else "dst")
            gw_src, gw_dst = self.attr(el, "gw_src"), self.attr(el, "gw_dst")
            for gw in (gw_src, gw_dst):
                self.netpoint(el, gw, None, "gateway")
        else:
            for end in (src, dst):
                self.netpoint(el, end, None, "end")
                if self.net.where.get(end) is not zone:
                    raise self.fail(f"<route src={src!r} dst={dst!r}>: {end!r} is not in zone "
                                    f"{zone.name!r} (a route between zones is a <zoneRoute> "
                                    "with gateways)", el)
        if zone.routing in ("None", "Wifi"):
            raise self.fail(f"<{el.tag}> in zone {zone.name!r} (routing=\"{zone.routing}\"): "
                            "SimGrid declares no routes there", el)
        sym = el.get("symmetrical", "YES")
        if sym not in ("YES", "NO", "yes", "no"):
            raise self.fail(f"<{el.tag} src={src!r} dst={dst!r}> symmetrical={sym!r}: expected "
                            "YES or NO", el)
        hops = self.hops(el)
        back = ([_swap(h, self.net.resources[h].policy) for h in reversed(hops)]
                if sym.upper() == "YES" and src != dst else None)
        line = self.lines[el]
        if zone.routing in STAR_ROUTINGS:  # StarZone::add_route
            if src == dst:
                zone.loopback[src] = hops
                return
            zone.up[src] = ZoneRoute(hops, gw_src, None, line)
            if back is not None:
                zone.down[src] = ZoneRoute(back[::-1], None, gw_src, line)
            zone.down[dst] = ZoneRoute(hops, None, gw_dst, line)
            return
        self.add_route(el, zone, src, dst, ZoneRoute(hops, gw_src, gw_dst, line))
        if back is not None:
            self.add_route(el, zone, dst, src, ZoneRoute(back, gw_dst, gw_src, line),
                           reverse=True)

    def add_route(self, el: ET.Element, zone: Zone, src: str, dst: str, route: ZoneRoute,
                  reverse: bool = False) -> None:
        if (src, dst) in zone.routes:
            first = zone.routes[(src, dst)].line
            why = (" (the route declared here is symmetrical: set symmetrical=\"NO\" on both "
                   "or declare one)" if reverse else " (routes are symmetrical by default)")
            raise self.fail(f"the route from {src!r} to {dst!r} is declared twice (first at "
                            f"line {first}){why}", el)
        zone.routes[(src, dst)] = route

    def read_bypass(self, el: ET.Element, zone: Zone) -> None:
        src, dst = self.attr(el, "src"), self.attr(el, "dst")
        gw_src = el.get("gw_src")
        gw_dst = el.get("gw_dst")
        for end in (src, dst):
            if end not in self.hosts and end not in self.routers and end not in self.net.zones:
                raise self.fail(f"<{el.tag} src={src!r} dst={dst!r}>: no host, router or zone "
                                f"{end!r} declared before it", el)
        zone.bypass[(src, dst)] = ZoneRoute(self.hops(el), gw_src, gw_dst, self.lines[el])

    def radicals(self, el: ET.Element) -> list[int]:
        """SimGrid's radical ``"0-3,7,10-11"``: the host numbers, in order."""
        text = self.attr(el, "radical")
        out: list[int] = []
        for group in text.split(","):
            ends = group.split("-")
            try:
                nums = [int(e.strip()) for e in ends]
            except ValueError:
                nums = []
            if not 1 <= len(nums) <= 2:
                raise self.fail(f"<{el.tag} id={el.get('id')!r}> radical={text!r}: malformed "
                                f"group {group!r} (expected N or N-M)", el)
            out.extend(range(nums[0], nums[-1] + 1))
            if len(out) > MAX_CLUSTER_HOSTS:
                raise self.fail(f"<{el.tag} id={el.get('id')!r}> radical={text!r}: more than "
                                f"{MAX_CLUSTER_HOSTS} hosts", el)
        return out

    def read_cluster(self, el: ET.Element, parent: Zone | None) -> None:
        """``<cluster>``: flat (SimGrid's star zone), torus, fat tree or dragonfly (module
        doc of :mod:`lpsched.bags.simgrid_routing`)."""
        cid = self.attr(el, "id")
        topology = el.get("topology", "FLAT")
        kinds = {"FLAT": "Star", "TORUS": "Torus", "FAT_TREE": "FatTree",
                 "DRAGONFLY": "Dragonfly"}
        if topology not in kinds:
            raise self.fail(f"<cluster id={cid!r} topology={topology!r}>: expected FLAT, "
                            "TORUS, FAT_TREE or DRAGONFLY", el)
        kind = kinds[topology]
        zone = self.new_zone(el, kind, parent)
        props = {self.attr(c, "id"): self.attr(c, "value") for c in el if c.tag == "prop"}
        for c in el:
            if c.tag != "prop":
                raise self.fail(f"<{c.tag}> inside <cluster id={cid!r}>: only <prop> is "
                                "allowed", c)
        speed = self.speeds(el)
        cores = el.get("core", "1")
        bw = self.quantity(el, "bw", "bandwidth")
        lat = self.quantity(el, "lat", "latency", positive=False)
        policy = el.get("sharing_policy", _SPLIT)
        policy = _SPLIT if policy == "FULLDUPLEX" else policy
        if policy not in ("SHARED", _SPLIT, "FATPIPE"):
            raise self.fail(f"<cluster id={cid!r}> sharing_policy={policy!r}: expected "
                            "SHARED, SPLITDUPLEX or FATPIPE", el)
        bb_policy = el.get("bb_sharing_policy", "SHARED")
        if bb_policy not in ("SHARED", "FATPIPE"):
            raise self.fail(f"<cluster id={cid!r}> bb_sharing_policy={bb_policy!r}: expected "
                            "SHARED or FATPIPE", el)

        def opt(name: str, kind: str) -> float:
            text = el.get(name, "")
            return self.quantity(el, name, kind, text=text, positive=False) if text else 0.0

        bb_bw, bb_lat = opt("bb_bw", "bandwidth"), opt("bb_lat", "latency")
        limiter, lo_bw, lo_lat = (opt("limiter_link", "bandwidth"),
                                  opt("loopback_bw", "bandwidth"), opt("loopback_lat", "latency"))
        backbone = None
        if (bb_bw > 0 or bb_lat > 0) and topology == "FLAT":
            if bb_bw <= 0:
                raise self.fail(f"<cluster id={cid!r}> bb_lat without bb_bw: the backbone "
                                "would have no bandwidth", el)
            backbone = self.add_link(el, f"{cid}_backbone", bb_bw, bb_lat, bb_policy)
        if cores.strip() not in ("1", "1.0"):
            self.cores.append(f"the hosts of cluster {cid} ({cores} cores)")
        prefix, suffix = self.attr(el, "prefix"), self.attr(el, "suffix")
        if topology == "TORUS":
            self.torus(el, zone, speed, props, bw, lat, policy, limiter)
            return
        if topology == "FAT_TREE":
            self.fat_tree(el, zone, speed, props, bw, lat, policy, limiter)
            return
        if topology == "DRAGONFLY":
            self.dragonfly(el, zone, speed, props, bw, lat, policy, limiter)
            return
        for rad in self.radicals(el):
            host = prefix + str(rad) + suffix
            self.add_host(el, zone, host, speed, dict(props))
            link_id = f"{cid}_link_{rad}"
            if lo_bw > 0 or lo_lat > 0:
                zone.loopback[host] = [self.add_link(el, f"{link_id}_loopback", lo_bw or math.inf,
                                                     lo_lat, "FATPIPE")]
            hops = []
            if limiter > 0:
                hops.append(self.add_link(el, f"{link_id}_limiter", limiter, 0.0, "SHARED"))
            own = self.add_link(el, link_id, bw, lat, policy)
            hops.append(own)
            if backbone is not None:
                hops.append(backbone)
            zone.up[host] = ZoneRoute(hops)
            zone.down[host] = ZoneRoute([_swap(h, self.net.resources[h].policy)
                                         for h in reversed(hops)])
        router = el.get("router_id") or f"{prefix}{cid}_router{suffix}"
        router = self.new_name(el, router)
        self.routers.add(router)
        self.net.where[router] = zone
        zone.members.append(router)
        zone.gateway = router

    def torus(self, el: ET.Element, zone: Zone, speed: float, props: dict[str, str],
              bw: float, lat: float, policy: str, limiter: float) -> None:
        """A ``TORUS`` cluster (:mod:`lpsched.bags.simgrid_routing`): ``topo_parameters``
        the dimensions; host ``i`` is ``prefix + radical[i] + suffix``."""
        cid, text = zone.name, el.get("topo_parameters", "")
        try:
            dims = tuple(int(x) for x in text.split(","))
        except ValueError:
            dims = ()
        if not dims or min(dims) < 1:
            raise self.fail(f"<cluster id={cid!r} topology='TORUS'> topo_parameters={text!r}: "
                            "expected the dimensions, e.g. \"3,3,3\"", el)
        zone.dims = dims
        count = math.prod(dims)
        for i, host in enumerate(self.topology_hosts(el, zone, "TORUS", count, speed, props)):
            zone.rank[host] = i
            if limiter > 0:
                zone.limiters[i] = self.add_link(el, f"{cid}_link_{i}_limiter", limiter, 0.0,
                                                 "SHARED")
        for i in range(count):
            dp = 1
            for j, d in enumerate(dims):
                k = i - (d - 1) * dp if (i // dp) % d == d - 1 else i + dp
                name = f"{cid}_link_from_{i}_to_{k}"
                if policy == _SPLIT:  # two links of their own, as SimGrid's TorusZone
                    up = self.add_link(el, name + "_UP", bw, lat, "SHARED")
                    down = self.add_link(el, name + "_DOWN", bw, lat, "SHARED")
                else:
                    up = down = self.add_link(el, name, bw, lat, policy)
                zone.torus_links[(i, j)] = (up, down)
                dp *= d

    def fat_tree(self, el: ET.Element, zone: Zone, speed: float, props: dict[str, str],
                 bw: float, lat: float, policy: str, limiter: float) -> None:
        """A ``FAT_TREE`` cluster (:mod:`lpsched.bags.simgrid_routing`): ``topo_parameters``
        ``"L;c1,...,cL;p1,...,pL;m1,...,mL"`` (levels; children, parents and parallel links
        per level); host ``i`` is ``prefix + radical[i] + suffix``."""
        cid, text = zone.name, el.get("topo_parameters", "")
        parts = text.split(";")
        try:
            levels = int(parts[0])
            vecs = [tuple(int(x) for x in part.split(",")) for part in parts[1:]]
        except (ValueError, IndexError):
            levels, vecs = 0, []
        if (levels < 1 or len(vecs) != 3 or any(len(v) != levels for v in vecs)
                or any(x < 1 for v in vecs for x in v)):
            raise self.fail(f"<cluster id={cid!r} topology='FAT_TREE'> topo_parameters="
                            f"{text!r}: expected \"L;c1,..,cL;p1,..,pL;m1,..,mL\" (levels, then "
                            "children, parents and links per level, all >= 1)", el)
        children, parents, ports = vecs
        hosts = self.topology_hosts(el, zone, "FAT_TREE", math.prod(children), speed, props)

        def link(child: int, par: int, unique: int) -> tuple[str, str]:
            name = f"link_from_{child}_{par}_{unique}"  # SimGrid's names (one fat tree)
            if policy == _SPLIT:
                return (self.add_link(el, name + "_UP", bw, lat, "SHARED"),
                        self.add_link(el, name + "_DOWN", bw, lat, "SHARED"))
            one = self.add_link(el, name, bw, lat, policy)
            return one, one

        def limit(node: int) -> str | None:
            if limiter <= 0:
                return None
            return self.add_link(el, f"{cid}_link_{node}_limiter", limiter, 0.0, "SHARED")

        zone.fat_tree = FatTree.build(hosts, children, parents, ports, link, limit)

    def topology_hosts(self, el: ET.Element, zone: Zone, kind: str, count: int,
                       speed: float, props: dict[str, str]) -> list[str]:
        """The ``count`` hosts of a ``kind`` cluster (TORUS, FAT_TREE, DRAGONFLY), host ``i``
        named ``prefix + radical[i] + suffix``, added to ``zone`` in that order."""
        rads = self.radicals(el)
        if len(rads) < count or count > MAX_CLUSTER_HOSTS:
            raise self.fail(f"<cluster id={zone.name!r} topology='{kind}'>: {count} hosts "
                            f"need as many radicals, found {len(rads)}", el)
        prefix, suffix = self.attr(el, "prefix"), self.attr(el, "suffix")
        hosts = [prefix + str(rads[i]) + suffix for i in range(count)]
        for host in hosts:
            self.add_host(el, zone, host, speed, dict(props))
        return hosts

    def dragonfly(self, el: ET.Element, zone: Zone, speed: float, props: dict[str, str],
                  bw: float, lat: float, policy: str, limiter: float) -> None:
        """A ``DRAGONFLY`` cluster (:mod:`lpsched.bags.simgrid_routing`): ``topo_parameters``
        ``"groups,blue;chassis,black;blades,green;nodes"`` (sizes and parallel links per
        level); host ``i`` is ``prefix + radical[i] + suffix``."""
        cid, text = zone.name, el.get("topo_parameters", "")
        parts = text.split(";")
        try:
            pairs = [tuple(int(x) for x in part.split(",")) for part in parts]
        except ValueError:
            pairs = []
        if (len(pairs) != 4 or any(len(p) != 2 for p in pairs[:3]) or len(pairs[3]) != 1
                or any(x < 1 for p in pairs for x in p)):
            raise self.fail(f"<cluster id={cid!r} topology='DRAGONFLY'> topo_parameters="
                            f"{text!r}: expected \"groups,links;chassis,links;blades,links;"
                            "nodes\" (all >= 1)", el)
        sizes = (pairs[0][0], pairs[1][0], pairs[2][0], pairs[3][0])
        counts = (pairs[0][1], pairs[1][1], pairs[2][1])
        hosts = self.topology_hosts(el, zone, "DRAGONFLY", math.prod(sizes), speed, props)

        def link(name: str, times: int) -> tuple[str, str]:
            if policy == _SPLIT:
                return (self.add_link(el, name + "_UP", bw * times, lat, "SHARED"),
                        self.add_link(el, name + "_DOWN", bw * times, lat, "SHARED"))
            one = self.add_link(el, name, bw * times, lat, policy)
            return one, one

        def limit(node: int) -> str | None:
            if limiter <= 0:
                return None
            return self.add_link(el, f"{cid}_link_{node}_limiter", limiter, 0.0, "SHARED")

        try:
            zone.dragonfly = Dragonfly.build(hosts, sizes, counts, policy == _SPLIT, link, limit)
        except NoRoute as exc:
            raise self.fail(f"<cluster id={cid!r} topology='DRAGONFLY'>: {exc}", el) from None

    def read_peer(self, el: ET.Element, zone: Zone) -> None:
        """``<peer>`` of a Vivaldi zone: a host with links ``link_{id}_UP`` (``bw_out``)
        and ``link_{id}_DOWN`` (``bw_in``), no latency but its coordinates'."""
        name = self.attr(el, "id")
        if zone.routing != "Vivaldi":
            raise self.fail(f"<peer id={name!r}> is only allowed in a zone with "
                            f"routing=\"Vivaldi\", not {zone.routing!r}", el)
        self.add_host(el, zone, name, self.speeds(el), {})
        self.read_coords(el, name)
        up = self.add_link(el, f"link_{name}_UP",
                           self.quantity(el, "bw_out", "bandwidth"), 0.0, "SHARED")
        down = self.add_link(el, f"link_{name}_DOWN",
                             self.quantity(el, "bw_in", "bandwidth"), 0.0, "SHARED")
        zone.up[name] = ZoneRoute([up])
        zone.down[name] = ZoneRoute([down])


def _actor(rd: _Reader, el: ET.Element) -> Actor:
    """One ``<actor host function>`` (or ``<process>``) with its ``<argument value>``s."""
    args = []
    for child in el:
        if child.tag == "argument":
            args.append(rd.attr(child, "value"))
        elif child.tag != "prop":
            raise rd.fail(f"<{child.tag}> inside <{el.tag}>: expected <argument> or <prop>",
                          child)
    return Actor(rd.attr(el, "host"), rd.attr(el, "function"), tuple(args), rd.lines[el])


def _swap(key: str, policy: str) -> str:
    """The resource a split-duplex hop uses in the reverse direction."""
    if policy != _SPLIT:
        return key
    return key[:-3] + "_DOWN" if key.endswith("_UP") else key[:-5] + "_UP"


def _names(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(repr(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _route(rd: _Reader, src: str, dst: str) -> Route | ZoneRoute | None:
    """The route ``src -> dst``, or ``None`` when there is none or it has no link (SimGrid
    refuses to send through an empty route)."""
    zone = rd.net.where.get(src)
    if (zone is not None and zone.routing == "Full" and not zone.bypass
            and rd.net.where.get(dst) is zone):  # one Full zone: its table, quickly
        local = zone.routes.get((src, dst))
        return local if local is not None and local.hops else None
    try:
        r = rd.net.route(src, dst)
    except NoRoute:
        return None
    return r if r.hops else None


def _why_not(rd: _Reader, src: str, dst: str) -> str:
    try:
        r = rd.net.route(src, dst)
    except NoRoute as exc:
        return str(exc)
    if r.missing:
        return "; ".join(r.missing)
    return _no_link(rd, src, dst) if not r.hops else ""


def _no_link(rd: _Reader, src: str, dst: str) -> str:
    hint = ""
    if "Vivaldi" in (rd.net.zone_of(src).routing, rd.net.zone_of(dst).routing):
        hint = (" (in a Vivaldi zone a host has links only as a <peer>, with bw_in and bw_out, "
                "or through a route declared for it)")
    return f"the route from {src!r} to {dst!r} has no link: its bandwidth would be unbounded{hint}"


def _choose_master(rd: _Reader, master: str | None) -> str:
    hosts = list(rd.hosts)
    if len(hosts) < 2:
        raise rd.fail_at(None, f"a star needs a master and at least one worker host; the file "
                         f"declares {len(hosts)} host(s)")
    if master is not None:
        if master not in rd.hosts:
            raise rd.fail_at(None, f"--master {master!r}: no such host (hosts: "
                             f"{_names(hosts)})")
        missing = [h for h in hosts if h != master and _route(rd, master, h) is None]
        if missing:
            why = _why_not(rd, master, missing[0])
            raise rd.fail_at(rd.hosts[missing[0]].line, f"not a star with master {master!r}: "
                             f"no route from {master!r} to {_names(missing)} ({why})")
        return master
    others = len(hosts) - 1
    complete = len(hosts) <= 200  # count every candidate (else stop at two)
    candidates: list[str] = []
    for h in hosts:
        if all(o == h or _route(rd, h, o) is not None for o in hosts):
            candidates.append(h)
            if not complete and len(candidates) > 1:
                break
    marked = [h for h in candidates if any(k.startswith("lpsched.") for k in rd.hosts[h].props)]
    if len(marked) == 1:  # the master of a file lpsched wrote (e.g. one worker, symmetric)
        return marked[0]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        count = f"{len(candidates)}" if complete else "several"
        raise rd.fail_at(None, f"{count} hosts have a route to every other host "
                         f"({_names(candidates)}): name the master with --master (API: "
                         "master=) or give a deployment file")
    if not complete:
        raise rd.fail_at(None, f"not a star: no host has a route to every other host "
                         f"({_why_not(rd, hosts[0], next(o for o in hosts[1:] if _route(rd, hosts[0], o) is None))}"  # noqa: E501
                         "); a star platform has a route from the master to each worker")
    reach = {h: sum(1 for o in hosts if o != h and _route(rd, h, o) is not None)
             for h in hosts}
    best = max(hosts, key=lambda h: reach[h])
    miss = next(o for o in hosts if o != best and _route(rd, best, o) is None)
    raise rd.fail_at(None, f"not a star: no host has a route to every other host (the best, "
                     f"{best!r}, reaches {reach[best]} of the {others} others; "
                     f"{_why_not(rd, best, miss)}); "
                     "a star platform declares a route from the master to each worker")


def parse_simgrid_deployment(raw: str | bytes, path: str = "<string>") -> tuple[Actor, ...]:
    """The actors of a SimGrid deployment file (``<actor host function>`` with
    ``<argument value>``; the older ``<process>`` too), in the file's order.

    Parameters
    ----------
    raw : str or bytes
        The XML document (a ``<platform>`` holding ``<actor>`` elements).
    path : str
        The file name used in error messages.

    Returns
    -------
    tuple of Actor
        The actors.

    Raises
    ------
    ParseError
        Not XML, not a ``<platform>``, or an element other than ``<actor>``/``<process>``
        (a platform file given as the deployment).

    Examples
    --------
    >>> xml = '''<platform version="4.1"><actor host="a" function="master">
    ...   <argument value="20"/></actor><actor host="b" function="worker"/></platform>'''
    >>> [(a.host, a.function, a.arguments) for a in parse_simgrid_deployment(xml)]
    [('a', 'master', ('20',)), ('b', 'worker', ())]
    """
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    rd = _Reader(path)
    if len(data) > MAX_PLATFORM_BYTES:
        raise rd.fail_at(None, f"{len(data)} bytes: larger than the {MAX_PLATFORM_BYTES} "
                         "bytes lpsched reads as a deployment file")
    root = rd.parse_xml(data)
    if root.tag != "platform":
        raise rd.fail(f"the root element is <{root.tag}>, not <platform>: not a SimGrid "
                      "deployment file", root)
    actors = []
    for child in root:
        if child.tag in ("actor", "process"):
            actors.append(_actor(rd, child))
        elif child.tag != "config":
            raise rd.fail(f"<{child.tag}> in a deployment file: expected <actor> elements "
                          "(is this the platform file?)", child)
    return tuple(actors)


def read_simgrid_deployment(path: str | Path) -> tuple[Actor, ...]:
    """:func:`parse_simgrid_deployment` of the file ``path``.

    Parameters
    ----------
    path : str or Path
        A SimGrid deployment file.

    Returns
    -------
    tuple of Actor
        The actors, in the file's order.

    Raises
    ------
    ParseError
        When the file cannot be read or is not a deployment file.
    """
    return parse_simgrid_deployment(_read_bytes(Path(path)), str(path))


def _read_bytes(p: Path) -> bytes:
    try:
        size = p.stat().st_size
        if size > MAX_PLATFORM_BYTES:
            raise ParseError(str(p), f"{size} bytes: larger than the {MAX_PLATFORM_BYTES} "
                             "bytes lpsched reads as a platform file")
        return p.read_bytes()
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class _Roles:
    """The master and workers named by a deployment (``None``: not given)."""

    master: str | None
    workers: list[str] | None


def _roles(rd: _Reader, deployment: str | bytes | Sequence[Actor] | None, where: str,
           master_function: str, worker_function: str, master: str | None) -> _Roles:
    """The master (the host of the ``master_function`` actor) and workers (the hosts of
    the ``worker_function`` actors, in order; all other hosts when there is none) of the
    deployment (else of the platform file's actors when one is the master's)."""
    actors: Sequence[Actor] | None
    if isinstance(deployment, (str, bytes)):
        actors = parse_simgrid_deployment(deployment, where)
    elif deployment is not None:
        actors = tuple(deployment)
    elif any(a.function == master_function for a in rd.actors):
        actors, where = rd.actors, rd.path
    else:
        return _Roles(master, None)
    for a in actors:
        if a.host not in rd.hosts:
            raise ParseError(where, f"actor {a.function!r} is on host {a.host!r}, which the "
                             f"platform file does not declare (hosts: {_names(list(rd.hosts))})",
                             a.line)
    masters = [a for a in actors if a.function == master_function]
    if master is None:
        if not masters:
            functions = sorted({a.function for a in actors})
            raise ParseError(where, f"no actor with function {master_function!r} (the "
                             f"master's): the functions are {_names(functions)}; name the "
                             "master's function (API: master_function=) or the master host")
        hosts = sorted({a.host for a in masters})
        if len(hosts) > 1:
            raise ParseError(where, f"actors {master_function!r} on several hosts "
                             f"({_names(hosts)}): a star has one master; name it (API: "
                             "master=)", masters[1].line)
        master = hosts[0]
    workers: list[str] = []
    for a in actors:
        if a.function == worker_function and a.host not in workers:
            workers.append(a.host)
    return _Roles(master, workers or None)


def parse_simgrid_platform(raw: str | bytes, path: str = "<string>", *,
                           master: str | None = None, port: str | None = None,
                           default_port: str = "one-port",
                           deployment: str | bytes | Sequence[Actor] | None = None,
                           deployment_path: str = "<deployment>",
                           master_function: str = "master",
                           worker_function: str = "worker") -> SimgridPlatform:
    """Read a star platform from the text of a SimGrid platform file (module doc).

    Parameters
    ----------
    raw : str or bytes
        The XML document (bytes are decoded by the XML parser, honouring its encoding
        declaration).
    path : str
        The file name used in error messages.
    master : str, optional
        The master host; by default the host of the deployment's master actor, else the
        only host with a route to every other host.
    port : str, optional
        ``"one-port"`` or ``"multiport"``: the communication model, overriding the file's
        ``lpsched.port`` property.
    default_port : str
        The model when neither ``port`` nor the file says.
    deployment : str, bytes or sequence of Actor, optional
        A deployment file's text or actors: the master runs the ``master_function``
        actor, the workers the ``worker_function`` ones (module doc; decision 359).
    deployment_path : str
        The deployment file's name in error messages.
    master_function, worker_function : str
        The actor functions of the master and of the workers.

    Returns
    -------
    SimgridPlatform
        The star platform, host names, routes and notes.

    Raises
    ------
    ParseError
        Naming the file, the line and what to fix (not XML, a bad element, unit or value,
        an unknown host or link, no master or several, a worker the master cannot reach).
    InvalidInstanceError
        When ``port`` or ``default_port`` is not a model of :data:`~lpsched.bags.PORTS`.

    Examples
    --------
    >>> xml = '''<?xml version="1.0"?>
    ... <platform version="4.1"><zone id="z" routing="Full">
    ...   <host id="m" speed="1Gf"/><host id="a" speed="2Gf"/><host id="b" speed="500Mf"/>
    ...   <link id="la" bandwidth="10MBps" latency="1ms"/>
    ...   <link id="lb" bandwidth="80Mbps" latency="2ms"/>
    ...   <route src="m" dst="a"><link_ctn id="la"/></route>
    ...   <route src="b" dst="m"><link_ctn id="lb"/></route>
    ... </zone></platform>'''
    >>> sg = parse_simgrid_platform(xml)
    >>> sg.master, sg.workers
    ('m', ('a', 'b'))
    >>> sg.platform.speeds.tolist(), sg.platform.bandwidths.tolist()
    ([2000000000.0, 500000000.0], [10000000.0, 10000000.0])
    >>> sg.platform.latencies.tolist()
    [0.001, 0.002]
    """
    for name, value in (("port", port), ("default_port", default_port)):
        if value is not None and value not in PORTS:
            raise InvalidInstanceError(name, value, f"must be one of {PORTS}")
    rd, data = _reader(raw, path)
    paused = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: the cyclic collector only costs time
    try:
        rd.read(rd.parse_xml(data))
        roles = _roles(rd, deployment, deployment_path, master_function, worker_function,
                       master)
        if roles.workers is not None:
            return _star(rd, roles.master or "", port, default_port, roles.workers)
        return _star(rd, _choose_master(rd, roles.master), port, default_port, None)
    finally:
        if paused:
            gc.enable()


def _reader(raw: str | bytes, path: str) -> tuple[_Reader, bytes]:
    """A reader for ``raw`` (its bytes), refusing a document over the size limit."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    rd = _Reader(path)
    if len(data) > MAX_PLATFORM_BYTES:
        raise rd.fail_at(None, f"{len(data)} bytes: larger than the {MAX_PLATFORM_BYTES} "
                         "bytes lpsched reads as a platform file")
    return rd, data


#: The bandwidth (bytes/s) of the master's link to itself when it computes (decision 358):
#: a star's bandwidths are finite; at 1e30 B/s a petabyte takes 1e-15 s, and the LPs and the
#: simulator's arithmetic stay far from overflow (the largest float overflows there).
SELF_BANDWIDTH = 1e30


def _star(rd: _Reader, chosen: str, port: str | None, default_port: str,
          named: list[str] | None) -> SimgridPlatform:
    """The star of master ``chosen`` (module doc: bandwidths, latencies, the master port);
    ``named``: the workers of a deployment (else every other host)."""
    if chosen not in rd.hosts:
        raise rd.fail_at(None, f"--master {chosen!r}: no such host (hosts: "
                         f"{_names(list(rd.hosts))})")
    workers = [h for h in rd.hosts if h != chosen] if named is None else list(named)
    if not workers:
        raise rd.fail_at(None, f"a star needs at least one worker; the deployment names none "
                         f"besides the master {chosen!r}")
    props = rd.hosts[chosen].props
    model = port or props.get(PROP_PORT) or default_port
    if model not in PORTS:
        raise rd.fail_at(rd.hosts[chosen].line, f"host {chosen!r}: property {PROP_PORT}="
                         f"{model!r} must be one of {PORTS}")
    routes: list[list[str]] = []
    lats: list[float] = []
    for w in workers:
        if w == chosen:  # the master computes too (decision 358)
            routes.append([])
            lats.append(0.0)
            continue
        try:
            r = rd.net.route(chosen, w)
        except NoRoute as exc:
            raise rd.fail_at(exc.line or rd.hosts[w].line, f"not a star with master "
                             f"{chosen!r}: no route from {chosen!r} to {w!r} ({exc})") from None
        if not r.hops and r.missing:
            raise rd.fail_at(rd.hosts[w].line, f"not a star with master {chosen!r}: no route "
                             f"from {chosen!r} to {w!r} ({'; '.join(r.missing)})")
        if not r.hops:
            raise rd.fail_at(rd.hosts[w].line, _no_link(rd, chosen, w))
        routes.append(r.hops)
        lats.append(r.latency)
    remote = [hops for w, hops in zip(workers, routes, strict=True) if w != chosen]
    master_keys = _master_links(rd, chosen, remote)
    res = rd.net.resources
    speeds, bws = [], []
    for w, hops in zip(workers, routes, strict=True):
        speeds.append(rd.hosts[w].speed)
        if not hops:
            bws.append(SELF_BANDWIDTH)
            continue
        own = [h for h in hops if h not in master_keys]
        limit = hops if model == "one-port" or not own else own
        bws.append(min(res[h].bandwidth for h in limit))
    bw = math.inf
    if master_keys:
        bw = min(res[h].bandwidth for h in remote[0] if h in master_keys)
    elif PROP_MASTER_BANDWIDTH in props:
        bw = _prop_bandwidth(rd, chosen, props[PROP_MASTER_BANDWIDTH])
    platform = StarPlatform(np.array(speeds), np.array(bws), bw, model,  # type: ignore[arg-type]
                            {"simgrid": {"master": chosen, "workers": workers}},
                            np.array(lats))
    extra = []
    if model == "multiport":
        shared = _partly_shared(rd, [w for w in workers if w != chosen], remote, master_keys)
        if shared:
            extra.append(shared)
    if chosen in workers:
        extra.append(f"the master {chosen!r} also runs a worker actor: it is worker "
                     f"{workers.index(chosen)} of the star, at its own speed, with an "
                     "unbounded link of zero latency (SimGrid sends its messages through the "
                     "loopback link; decision 358)")
    extra += _route_notes(rd, chosen, workers)
    return SimgridPlatform(
        platform, chosen, tuple(workers), tuple(tuple(hops) for hops in routes),
        tuple(sorted(master_keys)), dict(rd.config), _notes(rd) + tuple(extra), rd.path)


def _route_notes(rd: _Reader, master: str, workers: list[str]) -> list[str]:
    """Notes on the routings the routes went through (ties, Vivaldi, Wifi)."""
    out = []
    partial = [w for w in workers if w != master and rd.net.route(master, w).missing]
    if partial:
        first = rd.net.route(master, partial[0]).missing[0]
        out.append(f"the routes from {master!r} to {_names(partial)} cross a Full zone "
                   f"without a declared route ({first}): SimGrid puts no link there, as "
                   "lpsched does")
    tied = [w for w in workers if w != master
            and any(rd.net.ties(z.name, s, d) for z, s, d in rd.net.local_ends(master, w))]
    if tied:
        out.append(f"several shortest routes (Floyd/Dijkstra, equal link counts) from "
                   f"{master!r} to {_names(tied)}: lpsched takes networkx's, SimGrid may take "
                   "another of the same length")
    if "Wifi" in rd.routings:
        out.append("Wifi links are read at their first rate level (a SimGrid program sets "
                   "each station's with Link.set_host_wifi_rate) and the stations of a zone "
                   "share its medium, which lpsched's star does not model")
    if "Vivaldi" in rd.routings:
        out.append("Vivaldi routes: latency = links + the coordinates' distance (ms), as "
                   "SimGrid computes it")
    return out


def _partly_shared(rd: _Reader, workers: list[str], routes: list[list[str]],
                   master_keys: set[str]) -> str:
    """A note on the links (not ``FATPIPE``, not the master's port) that the routes of
    several workers but not all of them go through: bounded multiport has no such link (a
    worker's own link, or the master's port shared by all), so lpsched bounds each worker
    by the minimum over its route and does not limit the concurrent transfers through the
    link together, where SimGrid shares its bandwidth among them. Empty when there is
    none. (Under one-port the master sends one message at a time: nothing is shared.)"""
    users: dict[str, list[str]] = {}
    res = rd.net.resources
    for w, hops in zip(workers, routes, strict=True):
        for h in hops:
            if h in master_keys or res[h].policy == "FATPIPE":
                continue
            if w not in users.setdefault(h, []):
                users[h].append(w)
    partly = [(res[k].name, ws) for k, ws in users.items() if 1 < len(ws) < len(workers)]
    if not partly:
        return ""
    which = "; ".join(f"{name!r} by {_names(ws)}" for name, ws in partly[:4])
    more = f"; and {len(partly) - 4} more link(s)" if len(partly) > 4 else ""
    return (f"link(s) shared by the routes of some workers but not all ({which}{more}): "
            "lpsched's star model has no link shared by a subset of workers (only the "
            "master's port, shared by all), so each worker's bandwidth is the minimum over "
            "its route and concurrent transfers through such a link are not limited "
            "together (SimGrid shares its bandwidth among them)")


def _master_links(rd: _Reader, master: str, routes: list[list[str]]) -> set[str]:
    """The resources of the master's port: the link the file names, or (two workers or
    more) the non-FATPIPE links on every route."""
    res = rd.net.resources
    named = rd.hosts[master].props.get(PROP_MASTER_LINK)
    if named is not None:
        if named not in rd.links:
            raise rd.fail_at(rd.hosts[master].line, f"host {master!r}: property "
                             f"{PROP_MASTER_LINK}={named!r} names no declared link")
        keys = {h for h in routes[0] if res[h].name == named} if routes else set()
        for hops in routes:
            if not keys & set(hops):
                raise rd.fail_at(rd.hosts[master].line, f"host {master!r}: property "
                                 f"{PROP_MASTER_LINK}={named!r} names a link that is not on "
                                 "every route from the master")
        return keys
    if len(routes) < 2:
        return set()
    common = set.intersection(*(set(hops) for hops in routes))
    return {k for k in common if res[k].policy != "FATPIPE"}


def _prop_bandwidth(rd: _Reader, master: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0):
        raise rd.fail_at(rd.hosts[master].line, f"host {master!r}: property "
                         f"{PROP_MASTER_BANDWIDTH}={text!r} must be a number of bytes/s > 0")
    return value


def _notes(rd: _Reader) -> tuple[str, ...]:
    notes = []
    if rd.unitless:
        notes.append(f"{len(rd.unitless)} value(s) without unit read in SimGrid's base units "
                     f"(f, Bps, s), as SimGrid does (it warns they are deprecated): "
                     f"{', '.join(rd.unitless[:3])}{' ...' if len(rd.unitless) > 3 else ''}")
    if rd.profiles:
        notes.append(f"ignored {len(rd.profiles)} availability/bandwidth/latency/state "
                     f"profile(s) ({', '.join(rd.profiles[:3])}"
                     f"{' ...' if len(rd.profiles) > 3 else ''}): lpsched uses the constant "
                     "peak values")
    if rd.cores:
        notes.append(f"multicore host(s) {', '.join(rd.cores[:3])}: an lpsched worker "
                     "computes one task at a time at the host's (per-core) speed")
    if rd.ignored:
        notes.append(f"ignored {', '.join(sorted(set(rd.ignored)))} in the platform file")
    return tuple(notes)


def read_simgrid_platform(path: str | Path, *, master: str | None = None,
                          port: str | None = None,
                          default_port: str = "one-port",
                          deployment: str | Path | None = None,
                          master_function: str = "master",
                          worker_function: str = "worker") -> SimgridPlatform:
    """Read a star platform from the SimGrid platform file ``path``.

    :func:`parse_simgrid_platform` on the file's bytes (the parameters are the same).

    Parameters
    ----------
    path : str or Path
        A SimGrid platform file (XML, version 4 or 4.1).
    master : str, optional
        The master host (default: the only host with a route to every other host).
    port : str, optional
        ``"one-port"`` or ``"multiport"``, overriding the file's ``lpsched.port``.
    default_port : str
        The model when neither ``port`` nor the file says.
    deployment : str or Path, optional
        A SimGrid deployment file: the master is the host of its ``master_function``
        actor, the workers those of its ``worker_function`` actors (a master that also
        computes is a worker too; :func:`parse_simgrid_platform`).
    master_function, worker_function : str
        The actor functions of the master and of the workers.

    Returns
    -------
    SimgridPlatform
        The star platform, host names, routes and notes.

    Raises
    ------
    ParseError
        When a file cannot be read, is larger than :data:`MAX_PLATFORM_BYTES`, or is not
        a star platform lpsched reads (see :func:`parse_simgrid_platform`).
    """
    p = Path(path)
    raw = _read_bytes(p)
    actors = read_simgrid_deployment(deployment) if deployment is not None else None
    return parse_simgrid_platform(raw, str(p), master=master, port=port,
                                  default_port=default_port, deployment=actors,
                                  deployment_path=str(deployment or ""),
                                  master_function=master_function,
                                  worker_function=worker_function)


def with_platform(inst: Instance, platform: StarPlatform) -> Instance:
    """``inst``'s applications on ``platform`` (e.g. one read from a SimGrid file).

    Parameters
    ----------
    inst : Instance
        The applications (and the instance's ``extra``) to keep.
    platform : StarPlatform
        The platform replacing ``inst.platform`` (any number of workers).

    Returns
    -------
    Instance
        A new instance, validated.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> inst = random_bags(2, 3, seed=0)
    >>> with_platform(inst, StarPlatform([1e9], [1e7])).p
    1
    """
    return Instance(platform, inst.applications, inst.extra, inst.origin)


# -- writing ----------------------------------------------------------------------------------


def _host_names(platform: StarPlatform, master: str | None,
                workers: Sequence[str] | None) -> tuple[str, list[str]]:
    """The names given, else those kept from a SimGrid file, else ``master``/``worker{u}``."""
    kept = platform.extra.get("simgrid") if isinstance(platform.extra, dict) else None
    p = platform.workers
    if workers is None and isinstance(kept, dict):
        ws = kept.get("workers")
        if (isinstance(ws, list) and len(ws) == p and all(isinstance(w, str) for w in ws)
                and isinstance(kept.get("master"), str)):
            workers = ws
            master = master if master is not None else kept["master"]
    names = list(workers) if workers is not None else [f"worker{u}" for u in range(p)]
    master = "master" if master is None else master
    if len(names) != p:
        raise InvalidInstanceError("workers", names, f"needs one host name per worker ({p})")
    everyone = [master, *names]
    if any(not isinstance(n, str) or not n for n in everyone):
        raise InvalidInstanceError("workers", everyone, "host names must be non-empty strings")
    if len(set(everyone)) != len(everyone):
        raise InvalidInstanceError("workers", everyone, "host names must be distinct")
    return master, names


def _num(x: float) -> str:
    """``x`` written so that SimGrid's ``strtod`` reads back the same double."""
    return repr(float(x))


def simgrid_platform_xml(platform: StarPlatform, *, master: str | None = None,
                         workers: Sequence[str] | None = None, exact_network: bool = False,
                         comment: str | None = None) -> str:
    """The SimGrid platform file (XML, version 4.1) of ``platform`` (module doc).

    Parameters
    ----------
    platform : StarPlatform
        A star platform with related speeds (one per worker).
    master, workers : str and sequence of str, optional
        Host names (default: those kept from a SimGrid file, else ``master`` and
        ``worker0``, ``worker1``, ...).
    exact_network : bool
        Add a ``<config>`` block selecting SimGrid's ``CM02`` network model (no bandwidth
        or latency factor, no flow weighting by bandwidth), a TCP window too large to bound
        any flow (``network/TCP-gamma:1e100``; 0 disables it only in recent SimGrid
        versions) and no cross-traffic, so that a transfer alone takes
        ``latency + size/bandwidth`` in SimGrid as in lpsched (docs/decisions.md).
    comment : str, optional
        A line for the header comment (e.g. the instance file's name).

    Returns
    -------
    str
        The XML document.

    Raises
    ------
    InvalidInstanceError
        Unrelated speeds (a SimGrid host has one speed), or host names that are not
        distinct non-empty strings, one per worker.

    Examples
    --------
    >>> text = simgrid_platform_xml(StarPlatform([1e9, 5e8], [1.25e7, 1e6]))
    >>> parse_simgrid_platform(text).platform.bandwidths.tolist()
    [12500000.0, 1000000.0]
    """
    if platform.unrelated:
        raise InvalidInstanceError(
            "platform.speeds", f"shape {platform.speeds.shape}", "unrelated speeds (one row "
            "per application) cannot be written to a SimGrid platform, whose hosts have one "
            "speed each; write a platform with one speed per worker")
    master, names = _host_names(platform, master, workers)
    port_link = math.isfinite(platform.master_bandwidth) and platform.port == "multiport"
    out = _header(platform, port_link, comment)
    if exact_network:
        out += ["  <config>",
                '    <prop id="network/model" value="CM02"/>',
                '    <prop id="network/TCP-gamma" value="1e100"/>',
                '    <prop id="network/crosstraffic" value="0"/>',
                "  </config>"]
    out += _zone(platform, master, names, port_link)
    out += ["</platform>", ""]
    return "\n".join(out)


def _header(platform: StarPlatform, port_link: bool, comment: str | None) -> list[str]:
    """The XML declaration, DOCTYPE, a comment on the model, and ``<platform>``."""
    model: str = platform.port
    if platform.port == "multiport":
        model += (f", master bandwidth {_num(platform.master_bandwidth)} B/s (link "
                  f"{MASTER_PORT_LINK})" if port_link else ", unbounded master bandwidth")
    out = [
        "<?xml version='1.0'?>",
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
        "<!-- A star platform written by lpsched (seed 003, section 2.1): the master only",
        "     sends, the workers compute. lpsched's communication model:",
        f"     {model}.",
        "     SimGrid's default network model (LV08) multiplies bandwidths by 0.97 and",
        "     latencies by 13.01, and its TCP window (network/TCP-gamma, CM02 included)",
        "     caps each flow at gamma / (2 x latency). A transfer alone takes latency +",
        "     size/bandwidth, as in lpsched, only with all of: network/model:CM02,",
        "     network/TCP-gamma:0 (or 1e100), network/crosstraffic:0 unless every link",
        "     is SPLITDUPLEX (as written here), and, for one-port, a master that sends",
        "     one message at a time. lpsched export simgrid with its exact-network option",
        "     writes the three settings in a config block.",
    ]
    text = (comment or "").replace("--", "- -")  # "--" cannot appear in an XML comment
    if text:
        out.append(f"     {text}")
    return [*out, "-->", '<platform version="4.1">']


def _zone(platform: StarPlatform, master: str, names: list[str],
          port_link: bool) -> list[str]:
    """The ``Full`` zone: hosts, links (one per worker, and the master's port), routes."""
    links = [f"{w}_link" for w in names]
    taken = {*names, master, *([MASTER_PORT_LINK] if port_link else [])}
    for u, name in enumerate(links):  # link names must not repeat a host's or the port's
        while name in taken:
            name = f"_{name}"
        links[u] = name
        taken.add(name)
    out = ['  <zone id="star" routing="Full">',
           f"    <host id={quoteattr(master)} speed=\"{_num(np.max(platform.speeds))}f\">",
           f'      <prop id="{PROP_PORT}" value="{platform.port}"/>']
    if port_link:
        out.append(f'      <prop id="{PROP_MASTER_LINK}" value="{MASTER_PORT_LINK}"/>')
    elif math.isfinite(platform.master_bandwidth):
        out.append(f'      <prop id="{PROP_MASTER_BANDWIDTH}" '
                   f'value="{_num(platform.master_bandwidth)}"/>')
    out.append("    </host>")
    for name, speed in zip(names, platform.speeds, strict=True):
        out.append(f"    <host id={quoteattr(name)} speed=\"{_num(speed)}f\"/>")
    if port_link:
        out.append(f'    <link id="{MASTER_PORT_LINK}" '
                   f'bandwidth="{_num(platform.master_bandwidth)}Bps" latency="0.0s" '
                   'sharing_policy="SPLITDUPLEX"/>')
    lat = np.asarray(platform.latencies, float)
    for link, bw, la in zip(links, platform.bandwidths, lat, strict=True):
        out.append(f"    <link id={quoteattr(link)} bandwidth=\"{_num(bw)}Bps\" "
                   f"latency=\"{_num(la)}s\" sharing_policy=\"SPLITDUPLEX\"/>")
    for name, link in zip(names, links, strict=True):
        out.append(f"    <route src={quoteattr(master)} dst={quoteattr(name)}>")
        if port_link:
            out.append(f'      <link_ctn id="{MASTER_PORT_LINK}" direction="UP"/>')
        out.append(f"      <link_ctn id={quoteattr(link)} direction=\"UP\"/>")
        out.append("    </route>")
    return [*out, "  </zone>"]


def write_simgrid_platform(platform: StarPlatform, path: str | Path, **options: Any) -> None:
    """Write :func:`simgrid_platform_xml` of ``platform`` to ``path`` (UTF-8).

    Parameters
    ----------
    platform : StarPlatform
        A star platform with related speeds.
    path : str or Path
        The file to write.
    **options
        ``master``, ``workers``, ``exact_network``, ``comment`` of
        :func:`simgrid_platform_xml`.
    """
    Path(path).write_text(simgrid_platform_xml(platform, **options), encoding="utf-8")


def simgrid_deployment_xml(inst: Instance, *, master: str | None = None,
                           workers: Sequence[str] | None = None) -> str:
    """A SimGrid deployment file (XML, version 4.1) for ``inst`` on its exported platform.

    One ``<actor function="master">`` on the master host whose arguments are the port
    model, the number of applications ``n``, then ``release tasks work size`` for each
    application (seconds, count, flop per task, bytes per task; ``repr`` floats), then the
    worker host names; and one ``<actor function="worker">`` per worker host. A SimGrid
    program registering the functions ``master`` and ``worker`` reads the workload from
    these arguments (``Engine.load_deployment``). Host names follow
    :func:`simgrid_platform_xml`.

    Parameters
    ----------
    inst : Instance
        The instance (its platform gives the host names).
    master, workers : str and sequence of str, optional
        Host names, as for :func:`simgrid_platform_xml`.

    Returns
    -------
    str
        The XML document.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> text = simgrid_deployment_xml(random_bags(2, 2, seed=0))
    >>> text.count("<actor ")
    3
    """
    master, names = _host_names(inst.platform, master, workers)
    args = [inst.platform.port, str(inst.n)]
    for app in inst.applications:
        args += [_num(app.release), str(int(app.tasks)), _num(app.work), _num(app.size)]
    args += names
    out = ["<?xml version='1.0'?>",
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           "<!-- lpsched deployment: the master's arguments are the port model, n, then",
           "     release tasks work size for each application, then the worker hosts. -->",
           '<platform version="4.1">',
           f'  <actor host={quoteattr(master)} function="master">']
    out += [f"    <argument value={quoteattr(a)}/>" for a in args]
    out.append("  </actor>")
    out += [f'  <actor host={quoteattr(n)} function="worker"/>' for n in names]
    out += ["</platform>", ""]
    return "\n".join(out)
