"""SimGrid platform files (XML, DTD version 4.1) for star platforms (issue 17).

Seed 003's experiments ran in SimGrid (§4, [L802]), and researchers keep their star
platforms as SimGrid platform files. :func:`read_simgrid_platform` reads a star platform
from such a file; :func:`simgrid_platform_xml` / :func:`write_simgrid_platform` write one
from a :class:`~lpsched.bags.platform.StarPlatform` (``lpsched export simgrid``), and
:func:`simgrid_deployment_xml` the matching deployment file (the applications as the
master actor's arguments).

**What is read.** One ``<zone>`` (or the older ``<AS>``) with ``routing="Full"`` holding
``<host id speed>`` (``core``, ``pstate``, ``<prop>``), ``<router>``, ``<link id bandwidth
latency sharing_policy>`` and ``<route src dst symmetrical>`` of ``<link_ctn id
direction>``; ``<config>`` items are kept in :attr:`SimgridPlatform.config` and do not
change what is read. Routes are symmetrical unless ``symmetrical="NO"``: a route declared
``worker -> master`` also gives ``master -> worker`` (reversed, ``UP``/``DOWN`` of split-duplex
links swapped), and a route declared twice is an error, as in SimGrid's Full zones. Nested
zones, ``<cluster>``, ``<cabinet>``, ``<peer>``, ``<zoneRoute>``, ``<bypassRoute>``,
``<include>`` and routings other than ``Full`` are refused with an error naming the
element and its line (describe the star with explicit hosts, links and routes instead).

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

**How the star is read.** The master is the host named by ``master=`` (``--master``), or
else the only host with a route to every other host (among several, the only one with an
``lpsched.*`` property, as in the files lpsched writes); the workers are the other hosts,
in the file's order. A worker's latency is the sum of the latencies of the links of its route
(what SimGrid charges); its bandwidth is the smallest bandwidth of those links, except
links on the route to *every* worker (declared ``SHARED`` or ``SPLITDUPLEX``, not
``FATPIPE``): those are the master's outgoing port, and their smallest bandwidth is the
master bandwidth ``BW`` (bounded multiport). Under ``port="one-port"`` a master link still
limits each (single) transfer, so the worker's bandwidth is the minimum over its whole route
there; under ``"multiport"`` it is the minimum over the worker's own links. With a single
worker no link can be told to be the master's, unless the file names it (the
``lpsched.master_link`` property the writer adds). The port model is ``port=`` if given,
else the master's ``lpsched.port`` property, else ``default_port``. Nominal values are read:
SimGrid's network model corrections (LV08's bandwidth factor 0.97 and latency factor 13.01,
the TCP window bound, cross-traffic on ``SHARED`` links) are not applied. A SimGrid transfer
takes lpsched's ``latency + size/bandwidth`` only with all of ``network/model:CM02`` (no
factors), ``network/TCP-gamma:0`` (or a value as large as ``1e100``: CM02 alone still
bounds each flow by ``gamma / (2 latency)``), ``network/crosstraffic:0`` unless the links
are ``SPLITDUPLEX`` (as written here), and, for one-port, a master program that sends one
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


@dataclass
class _Link:
    line: int
    bandwidth: float
    latency: float
    policy: str


@dataclass
class _Hop:
    """One link of a route: its declared name and the resource used (``key``)."""

    name: str
    key: str  # SimGrid's resource name: name, or name_UP / name_DOWN for split-duplex


class _Reader:
    """The state of one read (module doc); every error names ``path`` and the line."""

    #: elements refused, with what to do instead
    UNSUPPORTED: ClassVar[dict[str, str]] = {
        "cluster": "a <cluster> (describe the star with <host>, <link> and <route>)",
        "cabinet": "a <cabinet> (describe the star with <host>, <link> and <route>)",
        "peer": "a <peer> (Vivaldi zones are not stars; use <host>, <link> and <route>)",
        "include": "<include> (SimGrid itself refuses it since v3.18)",
        "zoneRoute": "routes between zones (<zoneRoute>): put every host in one zone",
        "ASroute": "routes between zones (<ASroute>): put every host in one zone",
        "bypassRoute": "<bypassRoute>: declare the route itself",
        "bypassZoneRoute": "<bypassZoneRoute>: put every host in one zone",
        "bypassASroute": "<bypassASroute>: put every host in one zone",
        "host_link": "<host_link> (cluster zones): declare each route",
        "backbone": "<backbone> (cluster zones): declare a <link> on each route",
    }

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: dict[ET.Element, int] = {}
        self.hosts: dict[str, _Host] = {}
        self.routers: set[str] = set()
        self.links: dict[str, _Link] = {}
        self.routes: dict[tuple[str, str], tuple[int, list[_Hop]]] = {}
        self.config: dict[str, str] = {}
        self.unitless: list[str] = []
        self.profiles: list[str] = []
        self.cores: list[str] = []
        self.ignored: list[str] = []

    def fail(self, message: str, element: ET.Element | None = None) -> ParseError:
        line = self.lines.get(element) if element is not None else None
        return ParseError(self.path, message, line)

    # -- XML -------------------------------------------------------------------------------
    def parse_xml(self, raw: bytes) -> ET.Element:
        """The element tree of ``raw`` (expat feeding an ElementTree builder, recording the
        line of each element); entity and attribute declarations are refused."""
        builder = ET.TreeBuilder()
        parser = expat.ParserCreate()

        def start(tag: str, attrs: dict[str, str]) -> None:
            self.lines[builder.start(tag, attrs)] = parser.CurrentLineNumber

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
            raise self.fail_at(exc.lineno, f"not well-formed XML: "
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

    # -- elements --------------------------------------------------------------------------
    def read(self, root: ET.Element) -> ET.Element:
        """Check ``<platform>`` and its children; return the zone."""
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
            if tag in ("zone", "AS"):
                zones.append(child)
            elif tag == "config":
                for prop in child:
                    if prop.tag != "prop":
                        raise self.fail(f"<{prop.tag}> inside <config>: only <prop> is "
                                        "allowed", prop)
                    self.config[self.attr(prop, "id")] = self.attr(prop, "value")
            elif tag in ("trace", "trace_connect"):
                self.profiles.append(f"<{tag}>")
            elif tag in ("actor", "process", "random"):
                self.ignored.append(f"<{tag}>")
            elif tag in self.UNSUPPORTED:
                raise self.fail(f"lpsched cannot read {self.UNSUPPORTED[tag]}", child)
            else:
                raise self.fail(f"unknown element <{tag}> in <platform>", child)
        if len(zones) != 1:
            raise self.fail(f"expected one <zone> (or <AS>) holding the star, found "
                            f"{len(zones)}", root if not zones else zones[1])
        return zones[0]

    def read_zone(self, zone: ET.Element) -> None:
        routing = self.attr(zone, "routing")
        if routing != "Full":
            raise self.fail(f"<{zone.tag} id={zone.get('id')!r} routing={routing!r}>: lpsched "
                            "reads zones with routing=\"Full\", where each route "
                            "master -> worker is declared with its links", zone)
        for child in zone:
            tag = child.tag
            if tag == "host":
                self.read_host(child)
            elif tag == "router":
                self.routers.add(self.new_name(child))
            elif tag == "link":
                self.read_link(child)
            elif tag == "route":
                self.read_route(child)
            elif tag in ("zone", "AS"):
                raise self.fail(f"a <{tag}> inside a <{zone.tag}>: lpsched reads one zone "
                                "holding the master, the workers, their links and routes",
                                child)
            elif tag in ("trace", "trace_connect"):
                self.profiles.append(f"<{tag}>")
            elif tag in ("prop", "storage_type", "storage"):
                if tag != "prop":
                    self.ignored.append(f"<{tag}>")
            elif tag in self.UNSUPPORTED:
                raise self.fail(f"lpsched cannot read {self.UNSUPPORTED[tag]}", child)
            else:
                raise self.fail(f"unknown element <{tag}> in <{zone.tag}>", child)

    def new_name(self, el: ET.Element) -> str:
        name = self.attr(el, "id")
        if name in self.hosts or name in self.routers:
            raise self.fail(f"<{el.tag} id={name!r}>: a host or router of that name is "
                            "already declared", el)
        return name

    def read_host(self, el: ET.Element) -> None:
        name = self.new_name(el)
        speeds = self.attr(el, "speed").split(",")
        raw_pstate = el.get("pstate", "0")
        try:
            pstate = float(raw_pstate)
        except ValueError:
            raise self.fail(f"<host id={name!r}> pstate={raw_pstate!r}: not a number",
                            el) from None
        if pstate != int(pstate) or not 0 <= pstate < len(speeds):
            raise self.fail(f"<host id={name!r}> pstate={raw_pstate!r}: must be a pstate "
                            f"index from 0 to {len(speeds) - 1} (one per speed)", el)
        values = [self.quantity(el, "speed", "speed", text=s) for s in speeds]
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
        self.hosts[name] = _Host(self.lines[el], values[int(pstate)], props)

    def read_link(self, el: ET.Element) -> None:
        name = self.attr(el, "id")
        if name in self.links:
            raise self.fail(f"<link id={name!r}>: a link of that name is already declared "
                            f"(line {self.links[name].line})", el)
        policy = el.get("sharing_policy", "SHARED")
        if policy == "FULLDUPLEX":  # SimGrid's deprecated spelling of SPLITDUPLEX
            policy = "SPLITDUPLEX"
        if policy not in ("SHARED", "SPLITDUPLEX", "FATPIPE", "WIFI"):
            raise self.fail(f"<link id={name!r}> sharing_policy={policy!r}: expected SHARED, "
                            "SPLITDUPLEX, FATPIPE or WIFI", el)
        if policy == "WIFI":  # several bandwidths (one per rate level): not a star link
            raise self.fail(f"<link id={name!r}> is a WIFI link: lpsched reads wired links "
                            "(SHARED, SPLITDUPLEX or FATPIPE)", el)
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
        self.links[name] = _Link(self.lines[el], bandwidth, latency, policy)

    def read_route(self, el: ET.Element) -> None:
        src, dst = self.attr(el, "src"), self.attr(el, "dst")
        for end in (src, dst):
            if end not in self.hosts and end not in self.routers:
                raise self.fail(f"<route src={src!r} dst={dst!r}>: no host or router "
                                f"{end!r} declared before it", el)
        sym = el.get("symmetrical", "YES")
        if sym not in ("YES", "NO", "yes", "no"):
            raise self.fail(f"<route src={src!r} dst={dst!r}> symmetrical={sym!r}: expected "
                            "YES or NO", el)
        hops: list[_Hop] = []
        for ctn in el:
            if ctn.tag != "link_ctn":
                raise self.fail(f"<{ctn.tag}> inside <route>: expected <link_ctn>", ctn)
            name = self.attr(ctn, "id")
            if name not in self.links:
                raise self.fail(f"<link_ctn id={name!r}>: no link of that name declared "
                                "before this route", ctn)
            direction = ctn.get("direction", "NONE")
            if direction not in ("UP", "DOWN", "NONE"):
                raise self.fail(f"<link_ctn id={name!r}> direction={direction!r}: expected "
                                "UP, DOWN or NONE", ctn)
            if self.links[name].policy == "SPLITDUPLEX":
                hops.append(_Hop(name, f"{name}_{'DOWN' if direction == 'DOWN' else 'UP'}"))
            else:
                hops.append(_Hop(name, name))
        self.add_route(el, src, dst, hops)
        if sym.upper() == "YES" and src != dst:
            back = [_Hop(h.name, _swap(h.key, self.links[h.name].policy))
                    for h in reversed(hops)]
            self.add_route(el, dst, src, back, reverse=True)

    def add_route(self, el: ET.Element, src: str, dst: str, hops: list[_Hop],
                  reverse: bool = False) -> None:
        if (src, dst) in self.routes:
            first = self.routes[(src, dst)][0]
            why = (" (the route declared here is symmetrical: set symmetrical=\"NO\" on both "
                   "or declare one)" if reverse else " (routes are symmetrical by default)")
            raise self.fail(f"the route from {src!r} to {dst!r} is declared twice (first at "
                            f"line {first}){why}", el)
        self.routes[(src, dst)] = (self.lines[el], hops)


def _swap(key: str, policy: str) -> str:
    """The resource a split-duplex hop uses in the reverse direction."""
    if policy != "SPLITDUPLEX":
        return key
    return key[:-3] + "_DOWN" if key.endswith("_UP") else key[:-5] + "_UP"


def _names(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(repr(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _choose_master(rd: _Reader, master: str | None) -> str:
    hosts = list(rd.hosts)
    if len(hosts) < 2:
        raise rd.fail_at(None, f"a star needs a master and at least one worker host; the file "
                         f"declares {len(hosts)} host(s)")
    reach = {h: set() for h in hosts}  # type: dict[str, set[str]]
    for src, dst in rd.routes:
        if src in reach and dst in rd.hosts:
            reach[src].add(dst)
    if master is not None:
        if master not in rd.hosts:
            raise rd.fail_at(None, f"--master {master!r}: no such host (hosts: "
                             f"{_names(hosts)})")
        missing = [h for h in hosts if h != master and h not in reach[master]]
        if missing:
            raise rd.fail_at(rd.hosts[missing[0]].line, f"not a star with master {master!r}: "
                             f"no route from {master!r} to {_names(missing)}")
        return master
    others = len(hosts) - 1
    candidates = [h for h in hosts if len(reach[h] - {h}) == others]
    marked = [h for h in candidates if any(k.startswith("lpsched.") for k in rd.hosts[h].props)]
    if len(marked) == 1:  # the master of a file lpsched wrote (e.g. one worker, symmetric)
        return marked[0]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise rd.fail_at(None, f"{len(candidates)} hosts have a route to every other host "
                         f"({_names(candidates)}): name the master with --master (API: "
                         "master=)")
    best = max(hosts, key=lambda h: len(reach[h] - {h}))
    raise rd.fail_at(None, f"not a star: no host has a route to every other host (the best, "
                     f"{best!r}, reaches {len(reach[best] - {best})} of the {others} others); "
                     "a star platform declares a route from the master to each worker")


def parse_simgrid_platform(raw: str | bytes, path: str = "<string>", *,
                           master: str | None = None, port: str | None = None,
                           default_port: str = "one-port") -> SimgridPlatform:
    """Read a star platform from the text of a SimGrid platform file (module doc).

    Parameters
    ----------
    raw : str or bytes
        The XML document (bytes are decoded by the XML parser, honouring its encoding
        declaration).
    path : str
        The file name used in error messages.
    master : str, optional
        The master host; by default the only host with a route to every other host.
    port : str, optional
        ``"one-port"`` or ``"multiport"``: the communication model, overriding the file's
        ``lpsched.port`` property.
    default_port : str
        The model when neither ``port`` nor the file says.

    Returns
    -------
    SimgridPlatform
        The star platform, host names, routes and notes.

    Raises
    ------
    ParseError
        Naming the file, the line and what to fix: not XML, not a version 4/4.1 platform,
        an unsupported element, a bad unit or value, an unknown host or link in a route, a
        route declared twice, no master or several candidates, a worker without a route
        from the master.
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
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    rd = _Reader(path)
    if len(data) > MAX_PLATFORM_BYTES:
        raise rd.fail_at(None, f"{len(data)} bytes: larger than the {MAX_PLATFORM_BYTES} "
                         "bytes lpsched reads as a platform file")
    paused = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: the cyclic collector only costs time
    try:
        rd.read_zone(rd.read(rd.parse_xml(data)))
        return _star(rd, _choose_master(rd, master), port, default_port)
    finally:
        if paused:
            gc.enable()


def _star(rd: _Reader, chosen: str, port: str | None, default_port: str) -> SimgridPlatform:
    """The star of master ``chosen`` (module doc: bandwidths, latencies, the master port)."""
    workers = [h for h in rd.hosts if h != chosen]
    props = rd.hosts[chosen].props
    model = port or props.get(PROP_PORT) or default_port
    if model not in PORTS:
        raise rd.fail_at(rd.hosts[chosen].line, f"host {chosen!r}: property {PROP_PORT}="
                         f"{model!r} must be one of {PORTS}")
    routes: list[list[_Hop]] = []
    for w in workers:
        line, hops = rd.routes[(chosen, w)]
        if not hops:
            raise rd.fail_at(line, f"the route from {chosen!r} to {w!r} has no link: its "
                             "bandwidth would be unbounded")
        routes.append(hops)
    master_keys = _master_links(rd, chosen, routes)
    speeds, bws, lats = [], [], []
    for w, hops in zip(workers, routes, strict=True):
        speeds.append(rd.hosts[w].speed)
        own = [h for h in hops if h.key not in master_keys]
        limit = hops if model == "one-port" or not own else own
        bws.append(min(rd.links[h.name].bandwidth for h in limit))
        lat = 0.0
        for h in hops:  # in route order, as SimGrid adds them
            lat += rd.links[h.name].latency
        lats.append(lat)
    bw = math.inf
    if master_keys:
        bw = min(rd.links[h.name].bandwidth for h in routes[0] if h.key in master_keys)
    elif PROP_MASTER_BANDWIDTH in props:
        bw = _prop_bandwidth(rd, chosen, props[PROP_MASTER_BANDWIDTH])
    platform = StarPlatform(np.array(speeds), np.array(bws), bw, model,  # type: ignore[arg-type]
                            {"simgrid": {"master": chosen, "workers": workers}},
                            np.array(lats))
    shared = _partly_shared(rd, workers, routes, master_keys) if model == "multiport" else ""
    return SimgridPlatform(
        platform, chosen, tuple(workers), tuple(tuple(h.key for h in hops) for hops in routes),
        tuple(sorted(master_keys)), dict(rd.config),
        _notes(rd) + ((shared,) if shared else ()), rd.path)


def _partly_shared(rd: _Reader, workers: list[str], routes: list[list[_Hop]],
                   master_keys: set[str]) -> str:
    """A note on the links (not ``FATPIPE``, not the master's port) that the routes of
    several workers but not all of them go through: bounded multiport has no such link (a
    worker's own link, or the master's port shared by all), so lpsched bounds each worker
    by the minimum over its route and does not limit the concurrent transfers through the
    link together, where SimGrid shares its bandwidth among them. Empty when there is
    none. (Under one-port the master sends one message at a time: nothing is shared.)"""
    users: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for w, hops in zip(workers, routes, strict=True):
        for h in hops:
            if h.key in master_keys or rd.links[h.name].policy == "FATPIPE":
                continue
            if w not in users.setdefault(h.key, []):
                users[h.key].append(w)
            names[h.key] = h.name
    partly = [(names[k], ws) for k, ws in users.items() if 1 < len(ws) < len(workers)]
    if not partly:
        return ""
    which = "; ".join(f"{name!r} by {_names(ws)}" for name, ws in partly[:4])
    more = f"; and {len(partly) - 4} more link(s)" if len(partly) > 4 else ""
    return (f"link(s) shared by the routes of some workers but not all ({which}{more}): "
            "lpsched's star model has no link shared by a subset of workers (only the "
            "master's port, shared by all), so each worker's bandwidth is the minimum over "
            "its route and concurrent transfers through such a link are not limited "
            "together (SimGrid shares its bandwidth among them)")


def _master_links(rd: _Reader, master: str, routes: list[list[_Hop]]) -> set[str]:
    """The resources of the master's port: the link the file names, or (two workers or
    more) the non-FATPIPE links on every route."""
    named = rd.hosts[master].props.get(PROP_MASTER_LINK)
    if named is not None:
        if named not in rd.links:
            raise rd.fail_at(rd.hosts[master].line, f"host {master!r}: property "
                             f"{PROP_MASTER_LINK}={named!r} names no declared link")
        keys = {h.key for h in routes[0] if h.name == named}
        for hops in routes:
            if not keys & {h.key for h in hops}:
                raise rd.fail_at(rd.hosts[master].line, f"host {master!r}: property "
                                 f"{PROP_MASTER_LINK}={named!r} names a link that is not on "
                                 "every route from the master")
        return keys
    if len(routes) < 2:
        return set()
    common = set.intersection(*({h.key for h in hops} for hops in routes))
    return {k for k in common
            if rd.links[next(h.name for h in routes[0] if h.key == k)].policy != "FATPIPE"}


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
                          default_port: str = "one-port") -> SimgridPlatform:
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

    Returns
    -------
    SimgridPlatform
        The star platform, host names, routes and notes.

    Raises
    ------
    ParseError
        When the file cannot be read, is larger than :data:`MAX_PLATFORM_BYTES`, or is not
        a star platform lpsched reads (see :func:`parse_simgrid_platform`).
    """
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_PLATFORM_BYTES:
            raise ParseError(str(p), f"{size} bytes: larger than the {MAX_PLATFORM_BYTES} "
                             "bytes lpsched reads as a platform file")
        raw = p.read_bytes()
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None
    return parse_simgrid_platform(raw, str(p), master=master, port=port,
                                  default_port=default_port)


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
    return Instance(platform, inst.applications, inst.extra)


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
