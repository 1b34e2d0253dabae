"""Read a SimGrid platform file (DTD version 4 or 4.1) into one :class:`Platform`.

**What is read**: the whole zone tree as SimGrid defines it. ``<zone>`` (or the older
``<AS>``) of every routing SimGrid's parser accepts (``Full``, ``Floyd``, ``Dijkstra``,
``DijkstraCache``, ``Vivaldi``, ``Wifi``, ``Cluster``, ``None``; the name is
case-insensitive), nested to any depth, with ``<host id speed>`` (``core``, ``pstate``,
``coordinates``, ``<prop>``), ``<router>``, ``<link id bandwidth latency sharing_policy>``,
``<route src dst symmetrical>`` of ``<link_ctn id direction>``, ``<zoneRoute>``/``<ASroute>``
with gateways, ``<bypassRoute>``/``<bypassZoneRoute>``, the cluster elements
(:mod:`lpsched.platforms.clusters`), ``<config>`` items, and the ``<actor>`` elements a
platform file may end with. Routes are symmetrical unless ``symmetrical="NO"``: a route
declared ``b -> a`` also gives ``a -> b`` (reversed, ``UP``/``DOWN`` of split-duplex links
swapped); a route declared twice is an error, as in SimGrid's Full zones. ``<include>`` is
refused (SimGrid removed it in v3.22); profiles (``*_file`` attributes, ``<trace>``) and
storage elements are read and ignored, each noted.

**Pstates**: a host's ``speed`` lists one speed per pstate (``"1Gf,500Mf"``); the host starts
in the pstate its ``pstate`` attribute names (default 0; a cluster's hosts in 0). Speeds are
>= 0: SimGrid accepts ``0f`` (a host that is off or booting in that pstate, a Batsim storage
host); a command that computes on such a host refuses it (:func:`~lpsched.platforms.refuse`).

Units are SimGrid's (:mod:`lpsched.platforms.units`). Errors are
:class:`~lpsched.errors.ParseError`\\ s naming the file, the line and what to fix.
"""

from __future__ import annotations

import gc
import xml.etree.ElementTree as ET
from pathlib import Path
from types import MappingProxyType

from lpsched.errors import ParseError
from lpsched.platforms import xmlfile
from lpsched.platforms.builder import SPLIT, swap
from lpsched.platforms.clusters import ClusterBuilder, ClusterZoneParts
from lpsched.platforms.deployment import actor_of
from lpsched.platforms.model import NO_PROPERTIES, Link, Platform, Zone, frozen_mapping
from lpsched.platforms.routing import ROUTINGS, STAR_ROUTINGS, ZoneRoute, ZoneTable

__all__ = ["VERSIONS", "Reader", "parse_platform", "read_platform"]

#: The DTD versions read (SimGrid accepts 4 and 4.1 files; 4 has ``<AS>``, 4.1 ``<zone>``).
VERSIONS = (4.0, 4.1)
#: Elements refused, with why.
UNSUPPORTED = {"include": "<include> (SimGrid itself refuses it since v3.22)"}


class Reader(ClusterBuilder):
    """One read of a platform file: the elements, in document order (module doc)."""

    def read(self, root: ET.Element) -> str:
        """Check ``<platform>`` and read its children (the root zone, actors, config).

        Parameters
        ----------
        root : Element
            The document's root.

        Returns
        -------
        str
            The ``version`` attribute.
        """
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
        zones = [child for child in root if self.platform_child(child)]
        if len(zones) != 1:
            raise self.fail(f"expected one <zone> (or <AS>, or <cluster>) as the root of the "
                            f"platform, found {len(zones)}", root if not zones else zones[1])
        if zones[0].tag == "cluster":
            self.read_cluster(zones[0], None)
        else:
            self.read_zone(zones[0], None)
        return raw or ""

    def platform_child(self, child: ET.Element) -> bool:
        """Read a child of ``<platform>`` other than its zone; ``True`` for the zone.

        Parameters
        ----------
        child : Element
            A child of the root.

        Returns
        -------
        bool
            Whether it is a zone (``<zone>``, ``<AS>``, ``<cluster>``), read by the caller.
        """
        tag = child.tag
        if tag in ("zone", "AS", "cluster"):
            return True
        if tag == "config":
            for prop in child:
                if prop.tag != "prop":
                    raise self.fail(f"<{prop.tag}> inside <config>: only <prop> is allowed",
                                    prop)
                self.config[self.attr(prop, "id")] = self.attr(prop, "value")
        elif tag in ("trace", "trace_connect"):
            self.profiles.append(f"<{tag}>")
        elif tag in ("actor", "process"):
            self.actors.append(actor_of(child, self.lines[child], self.fail))
        elif tag == "random":
            self.ignored.append(f"<{tag}>")
        elif tag in UNSUPPORTED:
            raise self.fail(f"lpsched cannot read {UNSUPPORTED[tag]}", child)
        else:
            raise self.fail(f"unknown element <{tag}> in <platform>", child)
        return False

    def read_zone(self, el: ET.Element, parent: ZoneTable | None) -> None:
        """Read a ``<zone>`` (or ``<AS>``) and everything it declares.

        Parameters
        ----------
        el : Element
            The zone.
        parent : ZoneTable, optional
            The enclosing zone.
        """
        raw = self.attr(el, "routing")
        routing = ROUTINGS.get(raw.lower())
        if routing is None:
            raise self.fail(f"<{el.tag} id={el.get('id')!r} routing={raw!r}>: SimGrid's "
                            f"routings are {', '.join(sorted(set(ROUTINGS.values())))}", el)
        zone = self.new_zone(el, routing, parent)
        parts = ClusterZoneParts()
        for child in el:
            self.zone_child(child, zone, parts, el.tag)
        if routing == "Cluster":
            self.populate_cluster(zone, parts)
        if routing == "Wifi":
            ap = zone.props.get("access_point")
            if ap is not None and self.net.where.get(ap) is not zone:
                raise self.fail(f"Wifi zone {zone.name!r}: access_point={ap!r} is no host or "
                                "router of the zone", el)

    def zone_child(self, child: ET.Element, zone: ZoneTable, parts: ClusterZoneParts,
                   zone_tag: str) -> None:
        """Read one element of a zone.

        Parameters
        ----------
        child : Element
            The element.
        zone : ZoneTable
            The zone.
        parts : ClusterZoneParts
            Where a ``routing="Cluster"`` zone keeps its host links, cabinets and backbone.
        zone_tag : str
            The zone's element (``zone`` or ``AS``), for the messages.
        """
        tag = child.tag
        if tag == "host":
            self.read_host(child, zone)
        elif tag == "router":
            self.read_coords(child, self.add_router(child, zone))
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
            self.cluster_zone_child(child, zone, parts)
        elif tag in ("trace", "trace_connect"):
            self.profiles.append(f"<{tag}>")
        elif tag == "prop":
            zone.props[self.attr(child, "id")] = self.attr(child, "value")
        elif tag in ("storage_type", "storage"):
            self.ignored.append(f"<{tag}>")
        elif tag in UNSUPPORTED:
            raise self.fail(f"lpsched cannot read {UNSUPPORTED[tag]}", child)
        else:
            raise self.fail(f"unknown element <{tag}> in <{zone_tag}>", child)

    def cluster_zone_child(self, child: ET.Element, zone: ZoneTable,
                           parts: ClusterZoneParts) -> None:
        """A ``<host_link>``, ``<backbone>`` or ``<cabinet>``: only in Cluster zones.

        Parameters
        ----------
        child : Element
            The element.
        zone : ZoneTable
            The zone.
        parts : ClusterZoneParts
            The zone's host links, cabinets and backbone.
        """
        if zone.routing != "Cluster":
            raise self.fail(f"<{child.tag}> is only allowed in a zone with routing="
                            f"\"Cluster\", not {zone.routing!r}", child)
        if child.tag == "host_link":
            parts.host_links.append(child)
        elif child.tag == "cabinet":
            parts.cabinets.append(child)
        else:
            parts.backbone = self.read_link(child, zone, policy="SHARED")

    def read_host(self, el: ET.Element, zone: ZoneTable) -> None:
        """Read a ``<host>``: speeds per pstate, pstate, cores, properties, coordinates.

        Parameters
        ----------
        el : Element
            The ``<host>``.
        zone : ZoneTable
            Its zone.
        """
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
        speeds = self.speeds(el, int(pstate))
        cores = self.whole(el, "core", "1", 1)
        if cores != 1:
            self.cores.append(f"{name} ({el.get('core')} cores)")
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
        self.add_host(el, zone, name, speeds, MappingProxyType(props), int(pstate), cores)
        self.read_coords(el, name)

    def read_link(self, el: ET.Element, zone: ZoneTable, policy: str | None = None) -> str:
        """Read a ``<link>`` (or a Cluster zone's ``<backbone>``, of ``policy``).

        Parameters
        ----------
        el : Element
            The element.
        zone : ZoneTable
            Its zone (a ``WIFI`` link must be in a Wifi zone).
        policy : str, optional
            The sharing policy to use instead of the attribute.

        Returns
        -------
        str
            The resource a route crossing it upwards uses.
        """
        name = self.attr(el, "id")
        policy = policy or el.get("sharing_policy", "SHARED")
        if policy == "FULLDUPLEX":  # SimGrid's deprecated spelling of SPLITDUPLEX
            policy = SPLIT
        if policy not in ("SHARED", SPLIT, "FATPIPE", "WIFI"):
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
            self.wifi[name] = rates
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
            self.link_props.setdefault(name, {})[self.attr(child, "id")] = self.attr(child,
                                                                                    "value")
        return self.add_link(el, name, bandwidth, latency, policy)

    def hops(self, el: ET.Element) -> list[str]:
        """The resources of a route's ``<link_ctn>``\\ s, in order.

        Parameters
        ----------
        el : Element
            A route element.

        Returns
        -------
        list of str
            The resources.
        """
        out = []
        for ctn in el:
            if ctn.tag != "link_ctn":
                raise self.fail(f"<{ctn.tag}> inside <{el.tag}>: expected <link_ctn>", ctn)
            name = self.attr(ctn, "id")
            direction = ctn.get("direction", "NONE")
            if direction not in ("UP", "DOWN", "NONE"):
                raise self.fail(f"<link_ctn id={name!r}> direction={direction!r}: expected "
                                "UP, DOWN or NONE", ctn)
            out.append(self.route_resource(ctn, name, direction))
        return out

    def netpoint(self, el: ET.Element, name: str, zone: ZoneTable | None, what: str) -> None:
        """Check that ``name`` is a host or router (or, ``zone`` given, a zone of it).

        Parameters
        ----------
        el : Element
            The route element.
        name : str
            One end or gateway.
        zone : ZoneTable, optional
            The zone whose child zone ``name`` must be.
        what : str
            The role of ``name`` in the route, for the message.
        """
        if zone is not None:
            if name not in self.net.zones or self.net.zones[name].parent is not zone:
                raise self.fail(f"<{el.tag} src={el.get('src')!r} dst={el.get('dst')!r}>: "
                                f"{what} {name!r} is no zone declared inside zone "
                                f"{zone.name!r} before it", el)
        elif name not in self.hosts and name not in self.router_set:
            raise self.fail(f"<{el.tag} src={el.get('src')!r} dst={el.get('dst')!r}>: no host "
                            f"or router {name!r} declared before it", el)

    def route_ends(self, el: ET.Element, zone: ZoneTable,
                   between_zones: bool) -> tuple[str, str, str | None, str | None]:
        """The ends and gateways of a route element, checked.

        Parameters
        ----------
        el : Element
            A ``<route>``, ``<zoneRoute>`` or ``<ASroute>``.
        zone : ZoneTable
            The zone declaring it.
        between_zones : bool
            A zone route (ends: child zones; gateways required).

        Returns
        -------
        tuple
            ``(src, dst, gw_src, gw_dst)`` (no gateways for a ``<route>``).
        """
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
        return src, dst, gw_src, gw_dst

    def read_route(self, el: ET.Element, zone: ZoneTable, between_zones: bool) -> None:
        """Read a route element into its zone's table (and its reverse when symmetrical).

        Parameters
        ----------
        el : Element
            A ``<route>``, ``<zoneRoute>`` or ``<ASroute>``.
        zone : ZoneTable
            The zone declaring it.
        between_zones : bool
            A zone route.
        """
        src, dst, gw_src, gw_dst = self.route_ends(el, zone, between_zones)
        sym = el.get("symmetrical", "YES")
        if sym not in ("YES", "NO", "yes", "no"):
            raise self.fail(f"<{el.tag} src={src!r} dst={dst!r}> symmetrical={sym!r}: expected "
                            "YES or NO", el)
        hops = self.hops(el)
        res = self.net.resources
        back = ([swap(h, res[h].policy) for h in reversed(hops)]
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

    def add_route(self, el: ET.Element, zone: ZoneTable, src: str, dst: str, route: ZoneRoute,
                  reverse: bool = False) -> None:
        """Put ``route`` in ``zone``'s table; a route declared twice is an error.

        Parameters
        ----------
        el : Element
            The route element.
        zone : ZoneTable
            Its zone.
        src, dst : str
            The ends.
        route : ZoneRoute
            The resources and gateways.
        reverse : bool
            The route is the reverse of a symmetrical one (said in the error).
        """
        if (src, dst) in zone.routes:
            first = zone.routes[(src, dst)].line
            why = (" (the route declared here is symmetrical: set symmetrical=\"NO\" on both "
                   "or declare one)" if reverse else " (routes are symmetrical by default)")
            raise self.fail(f"the route from {src!r} to {dst!r} is declared twice (first at "
                            f"line {first}){why}", el)
        zone.routes[(src, dst)] = route

    def read_bypass(self, el: ET.Element, zone: ZoneTable) -> None:
        """Read a ``<bypassRoute>`` (or ``<bypassZoneRoute>``) of ``zone``.

        Parameters
        ----------
        el : Element
            The element.
        zone : ZoneTable
            The zone declaring it.
        """
        src, dst = self.attr(el, "src"), self.attr(el, "dst")
        for end in (src, dst):
            if (end not in self.hosts and end not in self.router_set
                    and end not in self.net.zones):
                raise self.fail(f"<{el.tag} src={src!r} dst={dst!r}>: no host, router or zone "
                                f"{end!r} declared before it", el)
        zone.bypass[(src, dst)] = ZoneRoute(self.hops(el), el.get("gw_src"), el.get("gw_dst"),
                                            self.lines[el])

    def platform(self, version: str) -> Platform:
        """The immutable platform of what was read.

        Parameters
        ----------
        version : str
            The file's ``<platform version>``.

        Returns
        -------
        Platform
            Hosts, routers, links, zones, config, actors, remarks and routing tables.
        """
        links = {name: Link(name, r.bandwidth, r.latency, r.policy, r.line,
                            tuple(self.wifi.get(name, (r.bandwidth,))),
                            frozen_mapping(self.link_props[name]) if name in self.link_props
                            else NO_PROPERTIES)
                 for name, r in self.links.items()}
        zones = {name: Zone(name, z.routing, z.parent.name if z.parent else None, z.line,
                            frozen_mapping(z.props))
                 for name, z in self.net.zones.items()}
        return Platform(self.path, version, MappingProxyType(self.hosts), tuple(self.routers),
                        MappingProxyType(links), MappingProxyType(zones),
                        frozen_mapping(self.config), tuple(self.actors), tuple(self.unitless),
                        tuple(self.profiles), tuple(self.cores), tuple(self.ignored),
                        self.net)


def parse_platform(raw: str | bytes, path: str = "<string>") -> Platform:
    """Read a platform from the text of a SimGrid platform file (module doc).

    Parameters
    ----------
    raw : str or bytes
        The XML document (bytes are decoded by the XML parser, honouring its encoding
        declaration).
    path : str
        The file name used in error messages.

    Returns
    -------
    Platform
        Hosts, links, zones and routes as SimGrid defines them.

    Raises
    ------
    ParseError
        Naming the file, the line and what to fix (not XML, an element or attribute SimGrid
        refuses, a bad unit or value, an unknown host or link, a route declared twice).

    Examples
    --------
    >>> xml = '''<?xml version="1.0"?>
    ... <platform version="4.1"><zone id="z" routing="Full">
    ...   <host id="a" speed="1Gf,500Mf" pstate="1"/><host id="b" speed="2Gf" core="4"/>
    ...   <link id="l" bandwidth="10MBps" latency="1ms"/>
    ...   <route src="a" dst="b"><link_ctn id="l"/></route>
    ... </zone></platform>'''
    >>> p = parse_platform(xml)
    >>> [(h.name, h.speed, h.cores) for h in p.hosts.values()]
    [('a', 500000000.0, 1), ('b', 2000000000.0, 4)]
    >>> r = p.route("b", "a")
    >>> r.links, r.latency, r.bandwidth
    (('l',), 0.001, 10000000.0)
    """
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    limit = xmlfile.MAX_PLATFORM_BYTES
    if len(data) > limit:
        raise ParseError(path, f"{len(data)} bytes: larger than the {limit} bytes "
                         "lpsched reads as a platform file")
    paused = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: the cyclic collector only costs time
    try:
        root, lines = xmlfile.parse_xml(data, path)
        rd = Reader(path, lines)
        return rd.platform(rd.read(root))
    finally:
        if paused:
            gc.enable()


def read_platform(path: str | Path) -> Platform:
    """Read the SimGrid platform file ``path``.

    Parameters
    ----------
    path : str or Path
        A SimGrid platform file (XML, version 4 or 4.1), or a stream.

    Returns
    -------
    Platform
        Hosts, links, zones and routes as SimGrid defines them (:func:`parse_platform`).

    Raises
    ------
    ParseError
        When the file cannot be read, is larger than
        :data:`~lpsched.platforms.xmlfile.MAX_PLATFORM_BYTES`, or is not a SimGrid
        platform file.
    """
    return parse_platform(xmlfile.read_bytes(path), str(path))
