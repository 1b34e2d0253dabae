"""SimGrid's cluster elements: ``<cluster>`` (flat, torus, fat tree, dragonfly), ``<cabinet>``
and ``<host_link>`` in ``routing="Cluster"`` zones, and ``<peer>`` in Vivaldi zones.

A ``<cluster id prefix suffix radical speed bw lat>`` is a zone named ``id`` whose hosts are
``prefix + N + suffix`` for each N of ``radical`` (``"0-3,7"``), each with ``core`` cores,
the cluster's speeds (one per pstate; a cluster's hosts start in pstate 0: SimGrid's DTD
gives ``<cluster>`` no ``pstate``) and the cluster's ``<prop>``\\ s. The flat topology (the
default) is SimGrid's star zone: host N has a private link ``{id}_link_{N}`` of ``bw``/``lat``
(``SPLITDUPLEX`` by default), a limiter ``{id}_link_{N}_limiter`` (``limiter_link``), a
loopback (``loopback_bw``/``loopback_lat``), and goes up through [limiter, private link,
backbone ``{id}_backbone`` (``bb_bw``, ``bb_lat``, ``bb_sharing_policy``)]; the router
``{prefix}{id}_router{suffix}`` (or ``router_id``) is the zone's gateway. ``TORUS``,
``FAT_TREE`` and ``DRAGONFLY`` clusters are routed as SimGrid's ``TorusZone``,
``FatTreeZone`` and ``DragonflyZone`` (:mod:`lpsched.platforms.routing`,
:mod:`lpsched.platforms.topologies`). Decision 357 lists the checks against SimGrid.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType

from lpsched.platforms.builder import MAX_CLUSTER_HOSTS, SPLIT, Builder, swap
from lpsched.platforms.errors import NoRoute
from lpsched.platforms.routing import ZoneRoute, ZoneTable
from lpsched.platforms.topologies import Dragonfly, FatTree

__all__ = ["CLUSTER_KINDS", "ClusterBuilder", "ClusterLinks", "ClusterZoneParts"]

#: A ``<cluster>``'s topology and the kind of zone it makes.
CLUSTER_KINDS = {"FLAT": "Star", "TORUS": "Torus", "FAT_TREE": "FatTree",
                 "DRAGONFLY": "Dragonfly"}


@dataclass
class ClusterLinks:
    """The link attributes of a ``<cluster>``: private links, limiter, loopback, backbone."""

    bw: float
    lat: float
    policy: str
    limiter: float
    loopback_bw: float
    loopback_lat: float
    backbone: str | None


@dataclass
class ClusterZoneParts:
    """What a ``routing="Cluster"`` zone declares before its routes can be built."""

    host_links: list[ET.Element] = field(default_factory=list)
    cabinets: list[ET.Element] = field(default_factory=list)
    backbone: str | None = None


class ClusterBuilder(Builder):
    """The cluster elements of a platform file (module doc)."""

    def read_cluster(self, el: ET.Element, parent: ZoneTable | None) -> None:
        """Read a ``<cluster>``: its zone, hosts, links and router.

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        parent : ZoneTable, optional
            The enclosing zone (``None``: the cluster is the platform's root).
        """
        cid = self.attr(el, "id")
        topology = el.get("topology", "FLAT")
        if topology not in CLUSTER_KINDS:
            raise self.fail(f"<cluster id={cid!r} topology={topology!r}>: expected FLAT, "
                            "TORUS, FAT_TREE or DRAGONFLY", el)
        zone = self.new_zone(el, CLUSTER_KINDS[topology], parent)
        for c in el:
            if c.tag != "prop":
                raise self.fail(f"<{c.tag}> inside <cluster id={cid!r}>: only <prop> is "
                                "allowed", c)
        props = MappingProxyType({self.attr(c, "id"): self.attr(c, "value") for c in el})
        speeds = self.speeds(el)
        cores = self.whole(el, "core", "1", 1)
        links = self.cluster_links(el, cid, topology)
        if cores != 1:
            self.cores.append(f"the hosts of cluster {cid} ({el.get('core')} cores)")
        if topology == "FLAT":
            self.flat_cluster(el, zone, speeds, props, cores, links)
        elif topology == "TORUS":
            self.torus(el, zone, self.topology_hosts(el, zone, "TORUS", speeds, props, cores),
                       links)
        elif topology == "FAT_TREE":
            self.fat_tree(el, zone, speeds, props, cores, links)
        else:
            self.dragonfly(el, zone, speeds, props, cores, links)

    def cluster_links(self, el: ET.Element, cid: str, topology: str) -> ClusterLinks:
        """The link attributes of a ``<cluster>`` (the backbone declared when flat).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        cid : str
            Its id.
        topology : str
            ``FLAT``, ``TORUS``, ``FAT_TREE`` or ``DRAGONFLY``.

        Returns
        -------
        ClusterLinks
            Bandwidths, latencies and policies.
        """
        bw = self.quantity(el, "bw", "bandwidth")
        lat = self.quantity(el, "lat", "latency", positive=False)
        policy = el.get("sharing_policy", SPLIT)
        policy = SPLIT if policy == "FULLDUPLEX" else policy
        if policy not in ("SHARED", SPLIT, "FATPIPE"):
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
        backbone = None
        if (bb_bw > 0 or bb_lat > 0) and topology == "FLAT":
            if bb_bw <= 0:
                raise self.fail(f"<cluster id={cid!r}> bb_lat without bb_bw: the backbone "
                                "would have no bandwidth", el)
            backbone = self.add_link(el, f"{cid}_backbone", bb_bw, bb_lat, bb_policy)
        return ClusterLinks(bw, lat, policy, opt("limiter_link", "bandwidth"),
                            opt("loopback_bw", "bandwidth"), opt("loopback_lat", "latency"),
                            backbone)

    def flat_cluster(self, el: ET.Element, zone: ZoneTable, speeds: tuple[float, ...],
                     props: MappingProxyType[str, str], cores: int,
                     links: ClusterLinks) -> None:
        """A flat ``<cluster>``: SimGrid's star zone (module doc).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        zone : ZoneTable
            Its zone.
        speeds : tuple of float
            flop/s per pstate of each host.
        props : MappingProxyType
            The properties of each host.
        cores : int
            The cores of each host.
        links : ClusterLinks
            The link attributes.
        """
        cid = zone.name
        prefix, suffix = self.attr(el, "prefix"), self.attr(el, "suffix")
        res = self.net.resources
        for rad in self.radicals(el):
            host = prefix + str(rad) + suffix
            self.add_host(el, zone, host, speeds, props, 0, cores)
            link_id = f"{cid}_link_{rad}"
            if links.loopback_bw > 0 or links.loopback_lat > 0:
                zone.loopback[host] = [self.add_link(el, f"{link_id}_loopback",
                                                     links.loopback_bw or math.inf,
                                                     links.loopback_lat, "FATPIPE")]
            hops = []
            if links.limiter > 0:
                hops.append(self.add_link(el, f"{link_id}_limiter", links.limiter, 0.0,
                                          "SHARED"))
            hops.append(self.add_link(el, link_id, links.bw, links.lat, links.policy))
            if links.backbone is not None:
                hops.append(links.backbone)
            zone.up[host] = ZoneRoute(hops)
            zone.down[host] = ZoneRoute([swap(h, res[h].policy) for h in reversed(hops)])
        router = el.get("router_id") or f"{prefix}{cid}_router{suffix}"
        zone.gateway = self.add_router(el, zone, router)

    def topology_hosts(self, el: ET.Element, zone: ZoneTable, kind: str,
                       speeds: tuple[float, ...], props: MappingProxyType[str, str],
                       cores: int, count: int | None = None) -> list[str]:
        """The hosts of a ``kind`` cluster (TORUS, FAT_TREE, DRAGONFLY), in their order.

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        zone : ZoneTable
            Its zone.
        kind : str
            The topology, for the messages.
        speeds : tuple of float
            flop/s per pstate of each host.
        props : MappingProxyType
            The properties of each host.
        cores : int
            The cores of each host.
        count : int, optional
            The number of hosts the topology has (a torus: the product of its dimensions,
            read here when not given).

        Returns
        -------
        list of str
            Host ``i`` is ``prefix + radical[i] + suffix``.
        """
        if count is None:
            count = math.prod(self.torus_dims(el, zone.name))
        rads = self.radicals(el)
        if len(rads) < count or count > MAX_CLUSTER_HOSTS:
            raise self.fail(f"<cluster id={zone.name!r} topology='{kind}'>: {count} hosts "
                            f"need as many radicals, found {len(rads)}", el)
        prefix, suffix = self.attr(el, "prefix"), self.attr(el, "suffix")
        hosts = [prefix + str(rads[i]) + suffix for i in range(count)]
        for host in hosts:
            self.add_host(el, zone, host, speeds, props, 0, cores)
        return hosts

    def torus_dims(self, el: ET.Element, cid: str) -> tuple[int, ...]:
        """A ``TORUS`` cluster's dimensions (``topo_parameters="d1,d2,..."``).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        cid : str
            Its id.

        Returns
        -------
        tuple of int
            The dimensions, each >= 1.
        """
        text = el.get("topo_parameters", "")
        try:
            dims = tuple(int(x) for x in text.split(","))
        except ValueError:
            dims = ()
        if not dims or min(dims) < 1:
            raise self.fail(f"<cluster id={cid!r} topology='TORUS'> topo_parameters={text!r}: "
                            "expected the dimensions, e.g. \"3,3,3\"", el)
        return dims

    def torus(self, el: ET.Element, zone: ZoneTable, hosts: list[str],
              links: ClusterLinks) -> None:
        """A ``TORUS`` cluster's links: one per dimension to each host's next neighbour.

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        zone : ZoneTable
            Its zone.
        hosts : list of str
            Its hosts, host ``i`` at position ``i``.
        links : ClusterLinks
            The link attributes (no backbone: SimGrid ignores ``bb_*`` here).
        """
        cid = zone.name
        dims = zone.dims = self.torus_dims(el, cid)
        for i, host in enumerate(hosts):
            zone.rank[host] = i
            if links.limiter > 0:
                zone.limiters[i] = self.add_link(el, f"{cid}_link_{i}_limiter", links.limiter,
                                                 0.0, "SHARED")
        for i in range(len(hosts)):
            dp = 1
            for j, d in enumerate(dims):
                k = i - (d - 1) * dp if (i // dp) % d == d - 1 else i + dp
                name = f"{cid}_link_from_{i}_to_{k}"
                if links.policy == SPLIT:  # two links of their own, as SimGrid's TorusZone
                    up = self.add_link(el, name + "_UP", links.bw, links.lat, "SHARED")
                    down = self.add_link(el, name + "_DOWN", links.bw, links.lat, "SHARED")
                else:
                    up = down = self.add_link(el, name, links.bw, links.lat, links.policy)
                zone.torus_links[(i, j)] = (up, down)
                dp *= d

    def fat_tree(self, el: ET.Element, zone: ZoneTable, speeds: tuple[float, ...],
                 props: MappingProxyType[str, str], cores: int, links: ClusterLinks) -> None:
        """A ``FAT_TREE`` cluster (``topo_parameters="L;c1,..,cL;p1,..,pL;m1,..,mL"``).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        zone : ZoneTable
            Its zone.
        speeds : tuple of float
            flop/s per pstate of each host.
        props : MappingProxyType
            The properties of each host.
        cores : int
            The cores of each host.
        links : ClusterLinks
            The link attributes.
        """
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
        hosts = self.topology_hosts(el, zone, "FAT_TREE", speeds, props, cores,
                                    math.prod(children))

        def link(child: int, par: int, unique: int) -> tuple[str, str]:
            name = f"link_from_{child}_{par}_{unique}"  # SimGrid's names (one fat tree)
            if links.policy == SPLIT:
                return (self.add_link(el, name + "_UP", links.bw, links.lat, "SHARED"),
                        self.add_link(el, name + "_DOWN", links.bw, links.lat, "SHARED"))
            one = self.add_link(el, name, links.bw, links.lat, links.policy)
            return one, one

        zone.fat_tree = FatTree.build(hosts, children, parents, ports, link,
                                      self.limiter(el, cid, links.limiter))

    def limiter(self, el: ET.Element, cid: str,
                bandwidth: float) -> Callable[[int], str | None]:
        """The function declaring a node's limiter link (``None`` without ``limiter_link``).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        cid : str
            Its id.
        bandwidth : float
            The ``limiter_link`` bandwidth (0: none).

        Returns
        -------
        callable
            ``limiter(node_id)``: the name of the node's limiter link, or ``None``.
        """
        def limit(node: int) -> str | None:
            if bandwidth <= 0:
                return None
            return self.add_link(el, f"{cid}_link_{node}_limiter", bandwidth, 0.0, "SHARED")

        return limit

    def dragonfly(self, el: ET.Element, zone: ZoneTable, speeds: tuple[float, ...],
                  props: MappingProxyType[str, str], cores: int, links: ClusterLinks) -> None:
        """A ``DRAGONFLY`` cluster (``topo_parameters="groups,blue;chassis,black;..."``).

        Parameters
        ----------
        el : Element
            The ``<cluster>``.
        zone : ZoneTable
            Its zone.
        speeds : tuple of float
            flop/s per pstate of each host.
        props : MappingProxyType
            The properties of each host.
        cores : int
            The cores of each host.
        links : ClusterLinks
            The link attributes.
        """
        cid, text = zone.name, el.get("topo_parameters", "")
        try:
            pairs = [tuple(int(x) for x in part.split(",")) for part in text.split(";")]
        except ValueError:
            pairs = []
        if (len(pairs) != 4 or any(len(p) != 2 for p in pairs[:3]) or len(pairs[3]) != 1
                or any(x < 1 for p in pairs for x in p)):
            raise self.fail(f"<cluster id={cid!r} topology='DRAGONFLY'> topo_parameters="
                            f"{text!r}: expected \"groups,links;chassis,links;blades,links;"
                            "nodes\" (all >= 1)", el)
        sizes = (pairs[0][0], pairs[1][0], pairs[2][0], pairs[3][0])
        counts = (pairs[0][1], pairs[1][1], pairs[2][1])
        hosts = self.topology_hosts(el, zone, "DRAGONFLY", speeds, props, cores,
                                    math.prod(sizes))
        split = links.policy == SPLIT

        def link(name: str, times: int) -> tuple[str, str]:
            if split:
                return (self.add_link(el, name + "_UP", links.bw * times, links.lat, "SHARED"),
                        self.add_link(el, name + "_DOWN", links.bw * times, links.lat,
                                      "SHARED"))
            one = self.add_link(el, name, links.bw * times, links.lat, links.policy)
            return one, one

        try:
            zone.dragonfly = Dragonfly.build(hosts, sizes, counts, split, link,
                                             self.limiter(el, cid, links.limiter))
        except NoRoute as exc:
            raise self.fail(f"<cluster id={cid!r} topology='DRAGONFLY'>: {exc}", el) from None

    def read_peer(self, el: ET.Element, zone: ZoneTable) -> None:
        """A ``<peer>`` of a Vivaldi zone: a host with links up and down, no latency.

        Parameters
        ----------
        el : Element
            The ``<peer>``: ``link_{id}_UP`` of ``bw_out``, ``link_{id}_DOWN`` of ``bw_in``
            (the ``lat`` attribute is not used by SimGrid: the coordinates give it).
        zone : ZoneTable
            Its zone.
        """
        name = self.attr(el, "id")
        if zone.routing != "Vivaldi":
            raise self.fail(f"<peer id={name!r}> is only allowed in a zone with "
                            f"routing=\"Vivaldi\", not {zone.routing!r}", el)
        for attr in ("speed_file", "availability_file", "state_file"):
            if el.get(attr):
                self.profiles.append(f"peer {name} {attr}")
        self.add_host(el, zone, name, self.speeds(el))
        self.read_coords(el, name)
        up = self.add_link(el, f"link_{name}_UP",
                           self.quantity(el, "bw_out", "bandwidth"), 0.0, "SHARED")
        down = self.add_link(el, f"link_{name}_DOWN",
                             self.quantity(el, "bw_in", "bandwidth"), 0.0, "SHARED")
        zone.up[name] = ZoneRoute([up])
        zone.down[name] = ZoneRoute([down])

    def populate_cluster(self, zone: ZoneTable, parts: ClusterZoneParts) -> None:
        """The hosts and routes of a ``routing="Cluster"`` zone, built at its end.

        As SimGrid's ``sg_platf_zone_cluster_populate``: the ``<host_link>``\\ s first, then
        each ``<cabinet>``'s hosts (``prefix + N + suffix``, one speed, ``SHARED`` links
        ``link_{host}_UP`` and ``_DOWN`` of ``bw``/``lat``), each behind the zone's backbone.

        Parameters
        ----------
        zone : ZoneTable
            The zone, read to its end.
        parts : ClusterZoneParts
            Its ``<host_link>``\\ s, cabinets and backbone.
        """
        bb_hops = [parts.backbone] if parts.backbone is not None else []
        for el in parts.host_links:
            host = self.attr(el, "id")
            if host not in self.hosts:
                raise self.fail(f"<host_link id={host!r}>: no host of that name", el)
            up = self.route_resource(el, self.attr(el, "up"), "NONE")
            down = self.route_resource(el, self.attr(el, "down"), "NONE")
            zone.up[host] = ZoneRoute([up, *bb_hops])
            zone.down[host] = ZoneRoute([*bb_hops, down])
        for el in parts.cabinets:
            if "," in self.attr(el, "speed"):
                raise self.fail(f"<cabinet id={el.get('id')!r}> speed={el.get('speed')!r}: a "
                                "cabinet has one speed (SimGrid reads no pstates there)", el)
            speeds = self.speeds(el)
            bw = self.quantity(el, "bw", "bandwidth")
            lat = self.quantity(el, "lat", "latency", positive=False)
            for rad in self.radicals(el):
                name = self.attr(el, "prefix") + str(rad) + self.attr(el, "suffix")
                self.add_host(el, zone, name, speeds)
                up = self.add_link(el, f"link_{name}_UP", bw, lat, "SHARED")
                down = self.add_link(el, f"link_{name}_DOWN", bw, lat, "SHARED")
                zone.up[name] = ZoneRoute([up, *bb_hops])
                zone.down[name] = ZoneRoute([*bb_hops, down])

    def route_resource(self, el: ET.Element, name: str, direction: str) -> str:
        """The resource of link ``name`` crossed in ``direction`` (``l_UP``/``l_DOWN`` of
        a split-duplex ``l``, which may also be named so directly, as SimGrid does).

        Parameters
        ----------
        el : Element
            The element naming the link.
        name : str
            The link (or one direction of a split-duplex link).
        direction : str
            ``UP``, ``DOWN`` or ``NONE``.

        Returns
        -------
        str
            The resource.
        """
        link = self.links.get(name)
        if link is not None:
            if link.policy == SPLIT:
                return f"{name}_{'DOWN' if direction == 'DOWN' else 'UP'}"
            if link.policy == "WIFI":
                raise self.fail(f"<{el.tag} id={name!r}>: the WIFI link of a Wifi zone is "
                                "placed on routes by the zone itself, not in a route", el)
            return name
        if name in self.net.resources and self.net.resources[name].policy == SPLIT:
            return name
        raise self.fail(f"<{el.tag} id={name!r}>: no link of that name declared before this "
                        "route", el)
