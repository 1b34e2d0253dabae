"""SimGrid's routing, as its platform files define it (issue 33): the links of a route.

:mod:`lpsched.bags.simgrid` reads a platform file into a :class:`Network` (the tree of
zones, its hosts, routers and links, each zone's routes) and asks it for the route from the
master to each worker (:meth:`Network.route`). The rules are SimGrid's
(``src/kernel/routing/*.cpp``; docs/source/Platform_routing.rst), restated here:

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
  route is empty is refused when it starts). :attr:`Route.missing` lists such parts.
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
* **Fat-tree** clusters (``topo_parameters="L;c1,..;p1,..;m1,.."``, ``FatTreeZone``): host
  ``i`` is labelled by its digits in the radix of the children counts; a route goes up by
  SimGrid's d-mod-k rule to the first switch whose subtree holds the target, then down;
  links ``link_from_{child}_{parent}_{n}`` (SimGrid's names for the first fat tree of a
  run), each node's limiter around its hops.
* **Dragonfly** clusters (``topo_parameters="groups,blue;chassis,black;blades,green;nodes"``,
  ``DragonflyZone``): a route leaves the node's router, reaches the router holding the blue
  link to the target's group (green then black links), crosses it, then goes to the
  target's blade (green) and chassis (black); green, black and blue links carry their count
  times the cluster's bandwidth.
* **Wifi**: the zone's ``WIFI`` link is crossed once from or to the access point (the
  zone's ``access_point`` property) and twice between two stations.
* **None**: no route at all (SimGrid's constant network model): an error here.

Each link of a route is a *resource*: a split-duplex link ``l`` is two, ``l_UP`` and
``l_DOWN`` (SimGrid's names); a Wifi link crossed by station ``s`` is ``link@s``, of the
bandwidth of the rate level SimGrid's program sets for ``s`` (level 0 here, the first of the
link's bandwidths).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

#: The routings SimGrid's XML parser accepts (case-insensitive), with the name used here.
ROUTINGS = {"full": "Full", "floyd": "Floyd", "dijkstra": "Dijkstra",
            "dijkstracache": "Dijkstra", "none": "None", "vivaldi": "Vivaldi",
            "wifi": "Wifi", "cluster": "Cluster"}
#: The routings whose zones are SimGrid star zones (links up and down per netpoint).
STAR_ROUTINGS = ("Cluster", "Vivaldi", "Star")


class NoRoute(Exception):
    """No route between two netpoints; ``line`` locates the cause when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


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
class Zone:
    """One ``<zone>`` (or ``<cluster>``, a star zone): members and local routing."""

    name: str
    routing: str
    parent: Zone | None
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

    def path(self) -> list[Zone]:
        """The zones from the root down to this one.

        Returns
        -------
        list of Zone
            The root zone first, this zone last.
        """
        out: list[Zone] = []
        z: Zone | None = self
        while z is not None:
            out.append(z)
            z = z.parent
        return out[::-1]


@dataclass
class FatNode:
    """A node of a fat tree: a host (level 0) or a switch."""

    id: int
    level: int
    position: int
    label: list[int]
    limiter: str | None
    parents: list[FatLink | None] = field(default_factory=list)
    children: list[FatLink | None] = field(default_factory=list)


@dataclass
class FatLink:
    """A fat-tree link between ``child`` and ``parent`` (its up and down resources)."""

    child: FatNode
    parent: FatNode
    up: str
    down: str


@dataclass
class FatTree:
    """SimGrid's ``FatTreeZone`` (module doc): levels, per-level children, parents and
    ports, its nodes (hosts first) and the host -> node map."""

    children: tuple[int, ...]
    parents: tuple[int, ...]
    ports: tuple[int, ...]
    nodes: list[FatNode]
    hosts: dict[str, FatNode]

    @classmethod
    def build(cls, hosts: list[str], children: tuple[int, ...], parents: tuple[int, ...],
              ports: tuple[int, ...], link: Callable[[int, int, int], tuple[str, str]],
              limiter: Callable[[int], str | None]) -> FatTree:
        """The tree of ``FatTreeZone::do_seal``: ``link(child_id, parent_id, unique)``
        declares a link, ``limiter(id)`` a node's limiter (or ``None``).

        Parameters
        ----------
        hosts : list of str
            The cluster's host names, in their order (node ``i`` is host ``i``); ``prod(children)``
            of them.
        children : tuple of int
            c_1..c_L, the children of a switch at each level.
        parents : tuple of int
            p_1..p_L, the parents of a node at each level.
        ports : tuple of int
            m_1..m_L, the parallel links between a node and each of its parents, per level.
        link : callable
            ``link(child_id, parent_id, unique)`` declares one link and returns its ``(up, down)``
            resources (the same name twice when not split-duplex).
        limiter : callable
            ``limiter(node_id)``: the name of the node's limiter link, or ``None``.

        Returns
        -------
        FatTree
            The tree: hosts, then switches level by level, linked as SimGrid links them.
        """
        levels = len(children)
        n = len(hosts)
        nodes = [FatNode(i, 0, i, [0] * levels, limiter(i)) for i in range(n)]
        for nd in nodes:
            nd.parents = [None] * (parents[0] * ports[0])
        by_level = [n]
        for i in range(levels):
            count = math.prod(parents[:i + 1]) * math.prod(children[i + 1:])
            by_level.append(count)
        k = 2 * n
        for i in range(levels):
            for j in range(by_level[i + 1]):
                k -= 1
                sw = FatNode(k, i + 1, j, [0] * levels, limiter(k))
                sw.children = [None] * (children[i] * ports[i])
                if i != levels - 1:
                    sw.parents = [None] * (parents[i + 1] * ports[i + 1])
                nodes.append(sw)
        start = 0
        for i in range(levels + 1):  # labels: mixed radix, parents' radix below the level
            top = [children[j] if j + 1 > i else parents[j] for j in range(levels)]
            cur = [0] * levels
            for nd in nodes[start:start + by_level[i]]:
                nd.label = list(cur)
                pos = 0
                while pos < levels:
                    cur[pos] += 1
                    if cur[pos] >= top[pos]:
                        cur[pos] = 0
                        pos += 1
                    else:
                        break
            start += by_level[i]
        unique = 0
        start = 0
        for lev in range(levels):
            above = sum(by_level[:lev + 1])
            for nd in nodes[start:start + by_level[lev]]:
                for par in nodes[above:above + by_level[lev + 1]]:
                    if all(par.label[i] == nd.label[i] or i + 1 == par.level
                           for i in range(levels)):
                        for j in range(ports[lev]):
                            up, down = link(nd.id, par.id, unique)
                            unique += 1
                            fl = FatLink(nd, par, up, down)
                            par.children[nd.label[lev] + j * children[lev]] = fl
                            nd.parents[par.label[lev] + j * parents[lev]] = fl
            start += by_level[lev]
        return cls(children, parents, ports, nodes, dict(zip(hosts, nodes[:n], strict=True)))

    def subtree(self, root: FatNode, node: FatNode) -> bool:
        """SimGrid's ``is_in_sub_tree``: whether ``node`` is below switch ``root``.

        Parameters
        ----------
        root, node : FatNode
            A switch and a node of the tree.

        Returns
        -------
        bool
            ``True`` when ``node`` is in ``root``'s subtree.
        """
        if root.level <= node.level:
            return False
        levels = len(self.children)
        return (all(root.label[i] == node.label[i] for i in range(node.level))
                and all(root.label[i] == node.label[i] for i in range(root.level, levels)))

    def route(self, src: str, dst: str) -> list[str]:
        """``FatTreeZone::get_local_route``: up by d-mod-k to the first switch whose subtree
        holds the target, then down; a node's limiter around each of its hops.

        Parameters
        ----------
        src : str
            The source host.
        dst : str
            The destination host.

        Returns
        -------
        list of str
            The resources crossed, in order.

        Raises
        ------
        NoRoute
            A missing link up or down (a tree that does not connect the two).
        """
        s, t = self.hosts[src], self.hosts[dst]
        hops: list[str] = []
        cur = s
        while not self.subtree(cur, t):
            d = t.position
            for i in range(cur.level):
                d //= self.parents[i]
            d %= self.parents[cur.level] * self.ports[cur.level]
            if cur.limiter:
                hops.append(cur.limiter)
            up = cur.parents[d]
            if up is None:
                raise NoRoute(f"fat tree: no link up from node {cur.id}")
            hops.append(up.up)
            cur = up.parent
        guard = 0
        while cur is not t:
            guard += 1
            if guard > 4 * len(self.nodes):
                raise NoRoute(f"fat tree: no route down from {src!r} to {dst!r}")
            d = s.position % self.ports[cur.level - 1]
            i = d * self.children[cur.level - 1]
            while i < len(cur.children):  # as SimGrid's loop, which goes on below
                if i % self.children[cur.level - 1] == t.label[cur.level - 1]:
                    down = cur.children[i]
                    if down is None:
                        raise NoRoute(f"fat tree: no link down from node {cur.id}")
                    hops.append(down.down)
                    if cur.limiter:
                        hops.append(cur.limiter)
                    cur = down.child
                    if cur.level == 0:
                        break
                i += 1
        if cur.limiter:
            hops.append(cur.limiter)
        return hops


@dataclass
class DragonRouter:
    """A dragonfly router (group, chassis, blade): its links up and down to its nodes, its
    green (blade), black (chassis) and blue (group) links, its limiter."""

    group: int
    chassis: int
    blade: int
    limiter: str | None
    nodes: list[str] = field(default_factory=list)
    green: dict[int, str] = field(default_factory=dict)
    black: dict[int, str] = field(default_factory=dict)
    blue: str | None = None


@dataclass
class Dragonfly:
    """SimGrid's ``DragonflyZone``: groups of chassis of blades (one router each) of nodes;
    ``link(name, count)`` declares a link of ``count`` times the cluster's bandwidth and
    returns its (up, down) resources, ``limiter(id)`` a node's or router's limiter."""

    groups: int
    chassis: int
    blades: int
    per_blade: int
    routers: list[DragonRouter]
    hosts: dict[str, int]
    node_limiters: dict[int, str]
    split: bool

    @classmethod
    def build(cls, hosts: list[str], sizes: tuple[int, int, int, int],
              counts: tuple[int, int, int], split: bool,
              link: Callable[[str, int], tuple[str, str]],
              limiter: Callable[[int], str | None]) -> Dragonfly:
        """The routers and links of ``DragonflyZone::build_upper_levels``.

        Parameters
        ----------
        hosts : list of str
            The cluster's host names, node ``i`` being host ``i``.
        sizes : tuple of int
            ``(groups, chassis, blades, nodes)``: chassis per group, blades per chassis, nodes per
            blade.
        counts : tuple of int
            ``(blue, black, green)``: the bandwidth multiples of the links between groups, between
            chassis and between blades.
        split : bool
            Split-duplex links (an up and a down resource for each).
        link : callable
            ``link(name, count)`` declares a link of ``count`` times the cluster's bandwidth and
            returns its ``(up, down)`` resources.
        limiter : callable
            ``limiter(id)``: the name of a node's or router's limiter link, or ``None``.

        Returns
        -------
        Dragonfly
            The routers (one per blade) with their node, green, black and blue links.

        Raises
        ------
        NoRoute
            More groups than routers per group (chassis x blades): a blue link would have no
            router.
        """
        groups, chassis, blades, per_blade = sizes
        blue, black, green = counts
        total = groups * chassis * blades * per_blade
        node_limiters = {i: lim for i in range(total) if (lim := limiter(i)) is not None}
        ident = 2 * total
        routers = []
        for i in range(groups):
            for j in range(chassis):
                for k in range(blades):
                    lim = None
                    if node_limiters:
                        ident -= 1
                        lim = limiter(ident)
                    routers.append(DragonRouter(i, j, k, lim))
        unique = 0
        for i, r in enumerate(routers):
            for j in range(per_blade):
                up, down = link(f"local_link_from_router_{i}_to_node_{j}_{unique}", 1)
                r.nodes += [up, down] if split else [up]
                unique += 1
        for i in range(groups * chassis):
            for j in range(blades):
                for k in range(j + 1, blades):
                    up, down = link(f"green_link_in_chassis_{i % chassis}_between_routers_{j}_"
                                    f"and_{k}_{unique}", green)
                    routers[i * blades + j].green[k] = up
                    routers[i * blades + k].green[j] = down
                    unique += 1
        for i in range(groups):
            for j in range(chassis):
                for k in range(j + 1, chassis):
                    for m in range(blades):
                        up, down = link(f"black_link_in_group_{i}_between_chassis_{j}_and_{k}_"
                                        f"blade_{m}_{unique}", black)
                        routers[i * blades * chassis + j * blades + m].black[k] = up
                        routers[i * blades * chassis + k * blades + m].black[j] = down
                        unique += 1
        for i in range(groups):
            for j in range(i + 1, groups):
                ri, rj = i * blades * chassis + j, j * blades * chassis + i
                up, down = link(f"blue_link_between_group_{i}_and_{j}_routers_{ri}_and_{rj}_"
                                f"{unique}", blue)
                if ri >= len(routers) or rj >= len(routers):
                    raise NoRoute(f"dragonfly: {groups} groups need as many routers per group "
                                  f"(chassis x blades = {chassis * blades})")
                routers[ri].blue = up
                routers[rj].blue = down
                unique += 1
        return cls(groups, chassis, blades, per_blade, routers,
                   {h: i for i, h in enumerate(hosts)}, node_limiters, split)

    def route(self, src: str, dst: str) -> list[str]:
        """``DragonflyZone::get_local_route``: to the target's group over a blue link (its
        router reached by green then black links), then the target's blade and chassis.

        Parameters
        ----------
        src : str
            The source host.
        dst : str
            The destination host.

        Returns
        -------
        list of str
            The resources crossed, in order.

        Raises
        ------
        NoRoute
            A router on the way lacks the green, black or blue link needed.
        """
        per_group = self.chassis * self.blades

        def coords(rank: int) -> tuple[int, int, int, int]:
            g, rank = divmod(rank, per_group * self.per_blade)
            c, rank = divmod(rank, self.blades * self.per_blade)
            b, n = divmod(rank, self.per_blade)
            return g, c, b, n

        s, t = self.hosts[src], self.hosts[dst]
        (mg, mc, mb, mn), (tg, tc, tb, tn) = coords(s), coords(t)
        mine = self.routers[mg * per_group + mc * self.blades + mb]
        target = self.routers[tg * per_group + tc * self.blades + tb]
        cur = mine
        hops: list[str] = []

        def hop(link: str | None, what: str) -> None:
            if link is None:
                raise NoRoute(f"dragonfly: no {what} link from router ({cur.group}, "
                              f"{cur.chassis}, {cur.blade}) on the route {src!r} -> {dst!r}")
            hops.append(link)

        if s in self.node_limiters:
            hops.append(self.node_limiters[s])
        step = 2 if self.split else 1
        hops.append(mine.nodes[mn * step])
        if target is not mine:
            if target.group != cur.group:
                if cur.blade != tg:
                    if cur.limiter:
                        hops.append(cur.limiter)
                    hop(cur.green.get(tg), "green")
                    cur = self.routers[mg * per_group + mc * self.blades + tg]
                if cur.chassis != 0:
                    if cur.limiter:
                        hops.append(cur.limiter)
                    hop(cur.black.get(0), "black")
                    cur = self.routers[mg * per_group + tg]
                hop(cur.blue, "blue")
                if cur.limiter:
                    hops.append(cur.limiter)
                cur = self.routers[tg * per_group + mg]
            if target.blade != cur.blade:
                if cur.limiter:
                    hops.append(cur.limiter)
                hop(cur.green.get(tb), "green")
                cur = self.routers[tg * per_group + tb]
            if target.chassis != cur.chassis:
                if cur.limiter:
                    hops.append(cur.limiter)
                hop(cur.black.get(tc), "black")
        if target.limiter:
            hops.append(target.limiter)
        hops.append(target.nodes[tn * step + step - 1])
        if t in self.node_limiters:
            hops.append(self.node_limiters[t])
        return hops


@dataclass
class Route:
    """The resources of a route (in order), its latency (links + Vivaldi distance), and the
    local routes of Full zones it needed but that are not declared (SimGrid takes no link
    for them)."""

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
        self.zones: dict[str, Zone] = {}
        self.where: dict[str, Zone] = {}  # host or router -> its zone
        self.resources: dict[str, Resource] = {}
        self.coords = coords
        self.wifi_rates: dict[str, list[float]] = {}
        self._cache: dict[tuple[str, str], Route] = {}
        self._missing: list[str] = []

    # -- netpoints ---------------------------------------------------------------------------
    def zone_of(self, netpoint: str) -> Zone:
        """The zone holding ``netpoint`` (a zone's own netpoint is in its parent).

        Parameters
        ----------
        netpoint : str
            A host, router or zone name.

        Returns
        -------
        Zone
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
    def route(self, src: str, dst: str) -> Route:
        """The route from netpoint ``src`` to ``dst`` (SimGrid's global route; cached).

        Parameters
        ----------
        src, dst : str
            Hosts or routers (or zones) of the platform.

        Returns
        -------
        Route
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
            self._cache[key] = Route(hops, lat, tuple(self._missing))
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
    def _bypass(common: Zone, src: str, dst: str, src_zones: list[Zone],
                dst_zones: list[Zone]) -> tuple[str, str, ZoneRoute] | None:
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

    def _local(self, zone: Zone, src: str, dst: str, depth: int) -> tuple[ZoneRoute, float]:
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

    def _star(self, zone: Zone, src: str, dst: str) -> tuple[ZoneRoute, float]:
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
    def _torus(zone: Zone, src: str, dst: str) -> ZoneRoute:
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

    def _vivaldi_coords(self, zone: Zone, netpoint: str) -> tuple[float, float, float]:
        c = self.coords(netpoint)
        if c is None and netpoint in self.zones:
            c = self.coords(f"router_{netpoint}")
        if c is None:
            raise NoRoute(f"{netpoint!r} in Vivaldi zone {zone.name!r} has no coordinates "
                          "(SimGrid requires coordinates=\"x y h\" on every netpoint there)",
                          zone.line)
        return c

    def _wifi(self, zone: Zone, src: str, dst: str) -> ZoneRoute:
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

    def _graph(self, zone: Zone) -> Any:
        if zone.graph is None:
            import networkx as nx

            g = nx.DiGraph()
            g.add_nodes_from(zone.members)
            for (s, d), r in zone.routes.items():
                g.add_edge(s, d, weight=len(r.hops))
            zone.graph = g
        return zone.graph

    def _shortest(self, zone: Zone, src: str, dst: str, depth: int) -> ZoneRoute:
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

    def local_ends(self, src: str, dst: str) -> list[tuple[Zone, str, str]]:
        """The (zone, src, dst) of the top-level local route of ``src -> dst`` (for
        :meth:`ties`).

        Parameters
        ----------
        src, dst : str
            Two netpoints.

        Returns
        -------
        list of (Zone, str, str)
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
