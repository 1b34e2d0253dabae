"""The interconnects of SimGrid's ``<cluster topology=...>``: fat tree and dragonfly.

A ``FAT_TREE`` cluster (``topo_parameters="L;c1,..,cL;p1,..,pL;m1,..,mL"``, SimGrid's
``FatTreeZone``) labels host ``i`` by its digits in the radix of the children counts; a
route goes up by SimGrid's d-mod-k rule to the first switch whose subtree holds the target,
then down, each node's limiter link around its hops. A ``DRAGONFLY`` cluster
(``topo_parameters="groups,blue;chassis,black;blades,green;nodes"``, ``DragonflyZone``) has
one router per blade; a route leaves the node's router, reaches the router holding the blue
link to the target's group (green then black links), crosses it, then goes to the target's
blade (green) and chassis (black); green, black and blue links carry their count times the
cluster's bandwidth. The torus, whose route needs no structure of its own, is routed in
:mod:`lpsched.platforms.routing`. Checked route by route against SimGrid (decision 357).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from lpsched.platforms.errors import NoRoute

__all__ = ["DragonRouter", "Dragonfly", "FatLink", "FatNode", "FatTree"]


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
