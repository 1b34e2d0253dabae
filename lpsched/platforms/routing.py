"""SimGrid's routing, as its platform files define it: the links of a route.

:mod:`lpsched.platforms.reader` reads a platform file into a :class:`Network` (the tree of
zones, its hosts, routers and links, each zone's routes) and asks it for the route between
two netpoints (:meth:`Network.route`). The rules are SimGrid's (``src/kernel/routing/*.cpp``;
docs/source/Platform_routing.rst), restated here:

* **Across zones** (``NetZoneImpl::get_global_route``): a bypass route declared for the pair
  is used as it is. Two netpoints of the same zone take that zone's local route. Otherwise
  their first common ancestor zone gives the local route between the two child zones (or the
  netpoint itself when it sits directly in the ancestor), with its gateways ``gw_src`` and
  ``gw_dst`` (the ``<zoneRoute>``'s, else the child zone's default gateway: a
  ``<cluster>``'s router); the route is then *src -> gw_src*, the ancestor's links,
  *gw_dst -> dst*, each part resolved the same way.
* **Full**: the declared ``<route>`` (``symmetrical`` by default: the reverse route has the
  links in reverse order, ``UP``/``DOWN`` of split-duplex links swapped); a route that is
  not declared has no link (SimGrid's ``FullZone``: no error there; a transfer whose whole
  route is empty is refused when it starts). :attr:`Hops.missing` lists such parts.
* **Floyd** and **Dijkstra** (``DijkstraCache``): a shortest path in the graph whose edges
  are the declared routes, each weighing its *number of links* (SimGrid's cost, "count of
  links"), computed with networkx; the links of the path's routes in order. In a zone of
  zones, when a route's source gateway is not the previous route's destination gateway, the
  route between the two gateways is inserted (SimGrid's Floyd does so). Ties between paths
  of equal cost may be broken differently from SimGrid: :meth:`Network.ties` lists them.
* **Cluster** zones, ``<cluster>`` (flat topology) and **Vivaldi** are SimGrid's star
  zones: each netpoint has links *up* (towards the backbone) and *down*; a route is the
  source's up links then the destination's down links, a link already on the route not
  added again (the shared backbone appears once). A ``<cluster>``'s host ``i`` goes up
  through its limiter link ``{id}_link_{i}_limiter`` (if ``limiter_link``), its private link
  ``{id}_link_{i}`` (``_UP`` when split-duplex, the default) and the backbone
  ``{id}_backbone`` (when ``bb_bw`` or ``bb_lat`` is given), and down the same links in
  reverse (``_DOWN``); its router ``{prefix}{id}_router{suffix}`` (or ``router_id``) has
  no link of its own and is the zone's gateway. A ``<peer>`` of a Vivaldi zone goes up
  through ``link_{id}_UP`` (``bw_out``) and down through ``link_{id}_DOWN`` (``bw_in``);
  a Vivaldi route adds to its links' latencies ``(|x1 - x2|^2 + |y1 - y2|^2)^(1/2) +
  |h1| + |h2|`` milliseconds from the ``coordinates="x y h"`` of its two ends.
* **Torus** clusters (``<cluster topology="TORUS" topo_parameters="d1,d2,...">``): host
  ``i`` (``prefix + radical[i] + suffix``) has one link per dimension ``j`` to its next
  neighbour, ``{id}_link_from_{i}_to_{k}`` (``_UP``/``_DOWN`` when split-duplex), and a
  route goes dimension by dimension the short way round (``TorusZone``), each node's
  limiter ``{id}_link_{i}_limiter`` before its hop and the target's last.
* **Fat-tree** and **Dragonfly** clusters: :mod:`lpsched.platforms.topologies`.
* **Wifi**: the zone's ``WIFI`` link is crossed once from or to the access point (the
  zone's ``access_point`` property) and twice between two stations.
* **None**: no route at all (SimGrid's constant network model): :class:`NoRoute`.

Each link of a route is a *resource*: a split-duplex link ``l`` is two, ``l_UP`` and
``l_DOWN`` (SimGrid's names); a Wifi link crossed by station ``s`` is ``link@s``, of the
bandwidth of the rate level SimGrid's program sets for ``s`` (level 0 here, the first of the
link's bandwidths).

These structures are built once by the reader and then only read (the routes computed are
cached); :class:`lpsched.platforms.model.Platform` is the immutable face of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from lpsched.platforms.errors import NoRoute
from lpsched.platforms.topologies import Dragonfly, FatTree

__all__ = ["ROUTINGS", "STAR_ROUTINGS", "Hops", "Network", "Resource", "ZoneRoute",
           "ZoneTable"]

#: The routings SimGrid's XML parser accepts (case-insensitive), with the name used here.
ROUTINGS = {"full": "Full", "floyd": "Floyd", "dijkstra": "Dijkstra",
            "dijkstracache": "Dijkstra", "none": "None", "vivaldi": "Vivaldi",
            "wifi": "Wifi", "cluster": "Cluster"}
#: The routings whose zones are SimGrid star zones (links up and down per netpoint).
STAR_ROUTINGS = ("Cluster", "Vivaldi", "Star")


@dataclass
class Resource:
    """A link as the network model sees it (a split-duplex direction is its own)."""

    name: str  # the declared link
    bandwidth: float
    latency: float
    policy: str  # SHARED, SPLITDUPLEX, FATPIPE or WIFI
    line: int


@dataclass
class ZoneRoute:
    """A declared route of a zone: its resources and gateways (zone routes only)."""

    hops: list[str]
    gw_src: str | None = None
    gw_dst: str | None = None
    line: int = 0


@dataclass
class ZoneTable:
    """One ``<zone>`` (or ``<cluster>``, a star zone): members and local routing."""

    name: str
    routing: str
    parent: ZoneTable | None
    line: int
    members: list[str] = field(default_factory=list)
    routes: dict[tuple[str, str], ZoneRoute] = field(default_factory=dict)
    up: dict[str, ZoneRoute] = field(default_factory=dict)
    down: dict[str, ZoneRoute] = field(default_factory=dict)
    loopback: dict[str, list[str]] = field(default_factory=dict)
    bypass: dict[tuple[str, str], ZoneRoute] = field(default_factory=dict)
    props: dict[str, str] = field(default_factory=dict)
    gateway: str | None = None
    wifi_link: str | None = None
    graph: Any = None
    hierarchy: bool = False  # holds child zones (SimGrid's "recursive" routing mode)
    dims: tuple[int, ...] = ()  # a torus cluster's dimensions
    rank: dict[str, int] = field(default_factory=dict)  # a torus host's position
    torus_links: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    limiters: dict[int, str] = field(default_factory=dict)
    fat_tree: FatTree | None = None
    dragonfly: Dragonfly | None = None

    def path(self) -> list[ZoneTable]:
        """The zones from the root down to this one.

        Returns
        -------
        list of ZoneTable
            The root zone first, this zone last.
        """
        out: list[ZoneTable] = []
        z: ZoneTable | None = self
        while z is not None:
            out.append(z)
            z = z.parent
        return out[::-1]


@dataclass
class Hops:
    """The resources of a route in order, with its latency and the routes it lacked.

    The latency sums the links' (and a Vivaldi distance); ``missing`` names the local routes
    of Full zones the route needed but that are not declared (SimGrid takes no link for
    them).
    """

    hops: list[str]
    latency: float
    missing: tuple[str, ...] = ()


class Network:
    """The netpoints, resources and zones of a platform file; resolves routes (module doc).

    Parameters
    ----------
    coords : callable
        ``coords(netpoint)``: its Vivaldi coordinates ``(x, y, h)`` or ``None``.
    """

    def __init__(self, coords: Callable[[str], tuple[float, float, float] | None]) -> None:
        self.zones: dict[str, ZoneTable] = {}
        self.where: dict[str, ZoneTable] = {}  # host or router -> its zone
        self.resources: dict[str, Resource] = {}
        self.coords = coords
        self.wifi_rates: dict[str, list[float]] = {}
        self._cache: dict[tuple[str, str], Hops] = {}
        self._missing: list[str] = []

    # -- netpoints ---------------------------------------------------------------------------
    def zone_of(self, netpoint: str) -> ZoneTable:
        """The zone holding ``netpoint`` (a zone's own netpoint is in its parent).

        Parameters
        ----------
        netpoint : str
            A host, router or zone name.

        Returns
        -------
        ZoneTable
            The zone whose routing reaches it.

        Raises
        ------
        NoRoute
            ``netpoint`` is the root zone.
        """
        if netpoint in self.where:
            return self.where[netpoint]
        zone = self.zones[netpoint].parent
        if zone is None:
            raise NoRoute(f"zone {netpoint!r} is the root zone: no route leads to it")
        return zone

    # -- routes ------------------------------------------------------------------------------
    def route(self, src: str, dst: str) -> Hops:
        """The route from netpoint ``src`` to ``dst`` (SimGrid's global route; cached).

        Parameters
        ----------
        src, dst : str
            Hosts or routers (or zones) of the platform.

        Returns
        -------
        Hops
            The resources in order, the latency, the undeclared Full routes it crossed.

        Raises
        ------
        NoRoute
            When a zone on the way has no route between the two (message says which).
        """
        key = (src, dst)
        if key not in self._cache:
            hops: list[str] = []
            self._missing = []
            lat = self._global(src, dst, hops, 0)
            self._cache[key] = Hops(hops, lat, tuple(self._missing))
        return self._cache[key]

    def _global(self, src: str, dst: str, hops: list[str], depth: int) -> float:
        if depth > 64:
            raise NoRoute(f"the route from {src!r} to {dst!r} loops through gateways")
        zs, zd = self.zone_of(src), self.zone_of(dst)
        if zs is zd and not zs.bypass:  # the common case, without walking the tree
            r, extra = self._local(zs, src, dst, depth)
            return self._add(hops, r.hops) + extra
        ps, pd = zs.path(), zd.path()
        i = 0
        while i < min(len(ps), len(pd)) and ps[i] is pd[i]:
            i += 1
        if i == 0:
            raise NoRoute(f"{src!r} and {dst!r} have no common zone")
        common = ps[i - 1]
        bypass = self._bypass(common, src, dst, ps[i:], pd[i:])
        lat = 0.0
        if bypass is not None:
            first, last, r = bypass
            if src != first:
                lat += self._global(src, r.gw_src or first, hops, depth + 1)
            lat += self._add(hops, r.hops)
            if dst != last:
                lat += self._global(r.gw_dst or last, dst, hops, depth + 1)
            return lat
        if zs is zd:
            r, extra = self._local(zs, src, dst, depth)
            return self._add(hops, r.hops) + extra
        s_anc = ps[i] if i < len(ps) else None
        d_anc = pd[i] if i < len(pd) else None
        r, extra = self._local(common, s_anc.name if s_anc else src,
                               d_anc.name if d_anc else dst, depth)
        lat += extra
        if s_anc is not None:
            gw = r.gw_src or s_anc.gateway
            if gw is None:
                raise NoRoute(f"no gateway for zone {s_anc.name!r} on the route from {src!r} "
                              f"to {dst!r} (declare gw_src in the <zoneRoute>)", r.line or None)
            if gw != src:
                lat += self._global(src, gw, hops, depth + 1)
        lat += self._add(hops, r.hops)
        if d_anc is not None:
            gw = r.gw_dst or d_anc.gateway
            if gw is None:
                raise NoRoute(f"no gateway for zone {d_anc.name!r} on the route from {src!r} "
                              f"to {dst!r} (declare gw_dst in the <zoneRoute>)", r.line or None)
            if gw != dst:
                lat += self._global(gw, dst, hops, depth + 1)
        return lat

    def _add(self, hops: list[str], new: list[str]) -> float:
        hops.extend(new)
        lat = 0.0
        for h in new:  # in route order, as SimGrid adds them
            lat += self.resources[h].latency
        return lat

    @staticmethod
    def _bypass(common: ZoneTable, src: str, dst: str, src_zones: list[ZoneTable],
                dst_zones: list[ZoneTable]) -> tuple[str, str, ZoneRoute] | None:
        """A bypass route of ``common`` between ``src`` (or one of the zones holding it
        below ``common``, innermost first) and ``dst`` (likewise), the closest pair first."""
        if not common.bypass:
            return None
        a = [src, *(z.name for z in reversed(src_zones))]
        b = [dst, *(z.name for z in reversed(dst_zones))]
        for top in range(max(len(a), len(b))):
            for i in range(top + 1):
                for x, y in ((i, top), (top, i)):
                    if x < len(a) and y < len(b) and (a[x], b[y]) in common.bypass:
                        return a[x], b[y], common.bypass[(a[x], b[y])]
        return None

    def _local(self, zone: ZoneTable, src: str, dst: str, depth: int) -> tuple[ZoneRoute, float]:
        """The local route of ``zone`` between two of its members, and any extra latency."""
        kind = zone.routing
        if kind == "Full":
            r = zone.routes.get((src, dst))
            if r is None:  # SimGrid's FullZone: an undeclared route has no link
                self._missing.append(f"zone {zone.name!r} (routing=\"Full\") declares no "
                                     f"route from {src!r} to {dst!r}")
                return ZoneRoute([]), 0.0
            return r, 0.0
        if kind in ("Floyd", "Dijkstra"):
            return self._shortest(zone, src, dst, depth), 0.0
        if kind in STAR_ROUTINGS:
            return self._star(zone, src, dst)
        if kind == "Wifi":
            return self._wifi(zone, src, dst), 0.0
        if kind == "Torus":
            return self._torus(zone, src, dst), 0.0
        if kind == "FatTree" and zone.fat_tree is not None:
            if src == dst:
                return ZoneRoute(list(zone.loopback.get(src, []))), 0.0
            if src not in zone.fat_tree.hosts or dst not in zone.fat_tree.hosts:
                return ZoneRoute([]), 0.0  # SimGrid: no link to or from a router
            return ZoneRoute(zone.fat_tree.route(src, dst)), 0.0
        if kind == "Dragonfly" and zone.dragonfly is not None:
            if src == dst:
                return ZoneRoute(list(zone.loopback.get(src, []))), 0.0
            if src not in zone.dragonfly.hosts or dst not in zone.dragonfly.hosts:
                return ZoneRoute([]), 0.0
            return ZoneRoute(zone.dragonfly.route(src, dst)), 0.0
        raise NoRoute(f"zone {zone.name!r} has routing=\"None\": SimGrid computes no route in "
                      "it (its constant network model charges no link), so no bandwidth or "
                      "latency can be read", zone.line)

    def _star(self, zone: ZoneTable, src: str, dst: str) -> tuple[ZoneRoute, float]:
        if src == dst and src in zone.loopback:
            return ZoneRoute(list(zone.loopback[src])), 0.0
        up, down = zone.up.get(src), zone.down.get(dst)
        hops: list[str] = []
        for part in (up, down):
            for h in part.hops if part is not None else ():
                if h not in hops:  # StarZone adds a link once
                    hops.append(h)
        extra = 0.0
        if zone.routing == "Vivaldi":
            a, b = self._vivaldi_coords(zone, src), self._vivaldi_coords(zone, dst)
            dist = ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 + abs(a[2]) + abs(b[2])
            extra = dist / 1000.0  # the coordinates are in milliseconds
        gw_src = up.gw_src if up is not None else None
        gw_dst = down.gw_dst if down is not None else None
        if zone.routing == "Vivaldi":
            gw_src = gw_src or (f"router_{src}" if src in self.zones else None)
            gw_dst = gw_dst or (f"router_{dst}" if dst in self.zones else None)
        return ZoneRoute(hops, gw_src, gw_dst), extra

    @staticmethod
    def _torus(zone: ZoneTable, src: str, dst: str) -> ZoneRoute:
        """SimGrid's ``TorusZone::get_local_route``: dimension-order routing, each dimension
        towards the target the short way round (judged from the *source's* coordinates, as
        SimGrid does), a node's limiter before each of its hops and the target's last."""
        if src == dst:
            return ZoneRoute(list(zone.loopback.get(src, [])))
        dims = zone.dims
        s, t = zone.rank[src], zone.rank[dst]
        mine, target = [], []
        prod = 1
        for d in dims:
            mine.append((s // prod) % d)
            target.append((t // prod) % d)
            prod *= d
        hops: list[str] = []
        cur = s
        for _ in range(prod * len(dims) + 1):
            if cur == t:
                break
            dp = 1
            nxt, link = cur, ""
            for j, d in enumerate(dims):
                if (cur // dp) % d != (t // dp) % d:
                    if ((mine[j] < target[j] <= mine[j] + d // 2)
                            or (mine[j] > d // 2 and (mine[j] + d // 2) % d >= target[j])):
                        nxt = cur + dp - dp * d if (cur // dp) % d == d - 1 else cur + dp
                        link = zone.torus_links[(cur, j)][0]
                    else:
                        nxt = cur - dp + dp * d if (cur // dp) % d == 0 else cur - dp
                        link = zone.torus_links[(nxt, j)][1]
                    break
                dp *= d
            if cur in zone.limiters:
                hops.append(zone.limiters[cur])
            hops.append(link)
            cur = nxt
        else:
            raise NoRoute(f"torus {zone.name!r}: no route from {src!r} to {dst!r}", zone.line)
        if t in zone.limiters:
            hops.append(zone.limiters[t])
        return ZoneRoute(hops)

    def _vivaldi_coords(self, zone: ZoneTable, netpoint: str) -> tuple[float, float, float]:
        c = self.coords(netpoint)
        if c is None and netpoint in self.zones:
            c = self.coords(f"router_{netpoint}")
        if c is None:
            raise NoRoute(f"{netpoint!r} in Vivaldi zone {zone.name!r} has no coordinates "
                          "(SimGrid requires coordinates=\"x y h\" on every netpoint there)",
                          zone.line)
        return c

    def _wifi(self, zone: ZoneTable, src: str, dst: str) -> ZoneRoute:
        if zone.wifi_link is None:
            raise NoRoute(f"Wifi zone {zone.name!r} declares no WIFI link", zone.line)
        ap = zone.props.get("access_point")
        hops = []
        for end in (src, dst):
            if end != ap:
                hops.append(self.wifi_hop(zone.wifi_link, end))
        return ZoneRoute(hops)

    def wifi_hop(self, link: str, station: str) -> str:
        """The resource of Wifi link ``link`` used by ``station`` (module doc).

        Parameters
        ----------
        link, station : str
            A Wifi zone's ``WIFI`` link and a host of the zone.

        Returns
        -------
        str
            ``link@station``, declared at the link's first rate level.
        """
        key = f"{link}@{station}"
        if key not in self.resources:
            base = self.resources[link]
            self.resources[key] = Resource(link, self.wifi_rates[link][0], base.latency,
                                           "WIFI", base.line)
        return key

    def _graph(self, zone: ZoneTable) -> Any:
        if zone.graph is None:
            import networkx as nx

            g = nx.DiGraph()
            g.add_nodes_from(zone.members)
            for (s, d), r in zone.routes.items():
                g.add_edge(s, d, weight=len(r.hops))
            zone.graph = g
        return zone.graph

    def _shortest(self, zone: ZoneTable, src: str, dst: str, depth: int) -> ZoneRoute:
        import networkx as nx

        if src == dst and (src, dst) in zone.routes:
            return zone.routes[(src, dst)]
        g = self._graph(zone)
        try:
            path = nx.dijkstra_path(g, src, dst, weight="weight")
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            raise NoRoute(f"zone {zone.name!r} (routing=\"{zone.routing}\"): no path from "
                          f"{src!r} to {dst!r} in the graph of its declared routes",
                          zone.line) from None
        hops: list[str] = []
        prev: ZoneRoute | None = None
        first: ZoneRoute | None = None
        for a, b in pairwise(path):
            r = zone.routes[(a, b)]
            first = first or r
            if (zone.hierarchy and prev is not None and prev.gw_dst is not None
                    and r.gw_src is not None and prev.gw_dst != r.gw_src):
                self._global(prev.gw_dst, r.gw_src, hops, depth + 1)
            hops.extend(r.hops)
            prev = r
        return ZoneRoute(hops, first.gw_src if first else None, prev.gw_dst if prev else None)

    def ties(self, zone_name: str, src: str, dst: str) -> bool:
        """Whether zone ``zone_name`` (Floyd/Dijkstra) has several shortest paths from
        ``src`` to ``dst`` (SimGrid may pick another one than networkx).

        Parameters
        ----------
        zone_name, src, dst : str
            The zone and two of its members.

        Returns
        -------
        bool
            ``True`` when at least two paths have the smallest link count.
        """
        import networkx as nx

        zone = self.zones[zone_name]
        if zone.routing not in ("Floyd", "Dijkstra"):
            return False
        try:
            paths = nx.all_shortest_paths(self._graph(zone), src, dst, weight="weight")
            return next(paths, None) is not None and next(paths, None) is not None
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return False

    def local_ends(self, src: str, dst: str) -> list[tuple[ZoneTable, str, str]]:
        """The (zone, src, dst) of the top-level local route of ``src -> dst`` (for
        :meth:`ties`).

        Parameters
        ----------
        src, dst : str
            Two netpoints.

        Returns
        -------
        list of (ZoneTable, str, str)
            The common zone and the two members (netpoints or child zones) it routes.
        """
        zs, zd = self.zone_of(src), self.zone_of(dst)
        if zs is zd:
            return [(zs, src, dst)]
        ps, pd = zs.path(), zd.path()
        i = 0
        while i < min(len(ps), len(pd)) and ps[i] is pd[i]:
            i += 1
        common = ps[i - 1]
        return [(common, ps[i].name if i < len(ps) else src,
                 pd[i].name if i < len(pd) else dst)]
