"""What a SimGrid platform file holds, as immutable records: hosts, links, zones, routes.

:func:`lpsched.platforms.read_platform` builds one :class:`Platform` from a file; every
command that takes a platform projects that same object onto its own model (the star of
seed 003, the homogeneous cluster of seed 004, Batsim's machine), so a file reads the same
hosts, speeds, pstates and units everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from lpsched.platforms.errors import NoRoute
from lpsched.platforms.routing import Network

__all__ = ["Actor", "Host", "Link", "Platform", "Route", "Zone"]

#: an empty read-only mapping (the default properties)
NO_PROPERTIES: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Host:
    """A host: its speed in each pstate, the current pstate, its cores and properties.

    Attributes
    ----------
    name : str
        The host's id (a cluster's hosts: ``prefix + radical + suffix``).
    speeds : tuple of float
        flop/s of one core in each pstate (the ``speed`` attribute, comma-separated).
    pstate : int
        The pstate the host starts in (its ``pstate`` attribute; 0 for clusters,
        cabinets and peers, which have none).
    cores : int
        The ``core`` attribute (1 by default).
    zone : str
        The zone (or cluster) that declares it.
    properties : Mapping of str to str
        Its ``<prop>`` elements (a cluster's go to each of its hosts).
    line : int
        The line of the element that declares it.
    declared : str
        That element as messages name it (``<host id='a'>``, ``<cluster id='c'>``).
    speed_text : str
        The ``speed`` attribute as written.
    """

    name: str
    speeds: tuple[float, ...]
    pstate: int = 0
    cores: int = 1
    zone: str = ""
    properties: Mapping[str, str] = field(default_factory=lambda: NO_PROPERTIES)
    line: int = 0
    declared: str = ""
    speed_text: str = ""

    @property
    def speed(self) -> float:
        """flop/s of one core in the current pstate."""
        return self.speeds[self.pstate]

    @property
    def current_speed_text(self) -> str:
        """The current pstate's speed as written (``"1Gf"``)."""
        parts = self.speed_text.split(",")
        return parts[self.pstate].strip() if self.pstate < len(parts) else self.speed_text


@dataclass(frozen=True, slots=True)
class Link:
    """A link: bandwidth (bytes/s), latency (s), sharing policy.

    Attributes
    ----------
    name : str
        The link's id (a cluster's links: SimGrid's names, ``{id}_link_{N}`` ...).
    bandwidth : float
        bytes/s (a ``WIFI`` link: its first rate level).
    latency : float
        Seconds.
    sharing_policy : str
        ``SHARED``, ``SPLITDUPLEX``, ``FATPIPE`` or ``WIFI``.
    line : int
        The line of the element that declares it.
    bandwidths : tuple of float
        A ``WIFI`` link's rate levels (one bandwidth per level); ``(bandwidth,)`` otherwise.
    properties : Mapping of str to str
        Its ``<prop>`` elements.
    """

    name: str
    bandwidth: float
    latency: float
    sharing_policy: str
    line: int = 0
    bandwidths: tuple[float, ...] = ()
    properties: Mapping[str, str] = field(default_factory=lambda: NO_PROPERTIES)


@dataclass(frozen=True, slots=True)
class Zone:
    """A zone (``<zone>``, ``<AS>``, or the zone a ``<cluster>`` is).

    Attributes
    ----------
    name : str
        Its id.
    routing : str
        ``Full``, ``Floyd``, ``Dijkstra``, ``None``, ``Vivaldi``, ``Wifi``, ``Cluster``, or
        for a ``<cluster>``: ``Star`` (flat), ``Torus``, ``FatTree``, ``Dragonfly``.
    parent : str or None
        The enclosing zone (``None`` for the root).
    line : int
        The line of the element.
    properties : Mapping of str to str
        Its ``<prop>`` elements.
    """

    name: str
    routing: str
    parent: str | None
    line: int = 0
    properties: Mapping[str, str] = field(default_factory=lambda: NO_PROPERTIES)


@dataclass(frozen=True, slots=True)
class Route:
    """The route between two netpoints: its links in order, latency and bottleneck.

    Attributes
    ----------
    src, dst : str
        The two ends.
    links : tuple of str
        The resources crossed, in order (a split-duplex link ``l`` as ``l_UP`` or
        ``l_DOWN``, a Wifi link crossed by station ``s`` as ``link@s``).
    latency : float
        The sum of the links' latencies (plus the coordinates' distance in a Vivaldi zone),
        seconds.
    bandwidth : float
        The smallest bandwidth on the route, bytes/s (``inf`` for a route without link).
    missing : tuple of str
        The local routes of Full zones the route needed but that are not declared (SimGrid
        puts no link there).
    """

    src: str
    dst: str
    links: tuple[str, ...]
    latency: float
    bandwidth: float
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Actor:
    """One ``<actor>`` (or ``<process>``) of a deployment: host, function, arguments.

    Attributes
    ----------
    host : str
        The host it runs on.
    function : str
        The function it runs.
    arguments : tuple of str
        Its ``<argument value>`` elements.
    line : int
        The line of the element.
    """

    host: str
    function: str
    arguments: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Platform:
    """A SimGrid platform file as read: hosts, routers, links, zones, routes, deployment.

    Attributes
    ----------
    path : str
        The file read.
    version : str
        The ``<platform version>`` (``"4"`` or ``"4.1"``).
    hosts : Mapping of str to Host
        Every host (``<host>``, a ``<cluster>``'s or ``<cabinet>``'s, a ``<peer>``), in the
        order SimGrid creates them.
    routers : tuple of str
        The routers (a cluster's router included).
    links : Mapping of str to Link
        Every link declared (a cluster's links included), by name.
    zones : Mapping of str to Zone
        Every zone, the root first.
    config : Mapping of str to str
        The ``<config>`` items (SimGrid options; lpsched applies none).
    actors : tuple of Actor
        The ``<actor>`` elements of the platform file itself.
    unitless : tuple of str
        The values written without unit (read in SimGrid's base units).
    profiles : tuple of str
        The availability, speed, bandwidth, latency and state profiles (``*_file``
        attributes, ``<trace>``), which lpsched does not apply.
    multicore : tuple of str
        The hosts (and clusters) of more than one core.
    ignored : tuple of str
        The elements read and ignored (``<storage>``, ``<random>`` ...).
    network : Network
        The routing tables the routes are computed from (:meth:`route` reads them).
    """

    path: str
    version: str
    hosts: Mapping[str, Host]
    routers: tuple[str, ...]
    links: Mapping[str, Link]
    zones: Mapping[str, Zone]
    config: Mapping[str, str]
    actors: tuple[Actor, ...]
    unitless: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    multicore: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    network: Network = field(default_factory=lambda: Network(lambda _: None), repr=False,
                             compare=False)

    def route(self, src: str, dst: str) -> Route:
        """The route from host (or router) ``src`` to ``dst``, as SimGrid computes it.

        Parameters
        ----------
        src, dst : str
            Two netpoints of the platform.

        Returns
        -------
        Route
            The links in order, the latency and the bottleneck bandwidth.

        Raises
        ------
        NoRoute
            When a zone on the way has no route between them (routing ``None``, a missing
            gateway, a Floyd/Dijkstra graph without path); the message says which.
        KeyError
            When ``src`` or ``dst`` is no netpoint of the platform.
        """
        hops = self.network.route(src, dst)
        res = self.network.resources
        bandwidth = min((res[h].bandwidth for h in hops.hops), default=math.inf)
        return Route(src, dst, tuple(hops.hops), hops.latency, bandwidth, hops.missing)

    def reaches(self, src: str, dst: str) -> bool:
        """Whether a transfer from ``src`` to ``dst`` can start: a route of one link or more.

        Parameters
        ----------
        src, dst : str
            Two hosts of the platform.

        Returns
        -------
        bool
            ``False`` when there is no route or it has no link (SimGrid refuses to send
            through an empty route).
        """
        net = self.network
        zone = net.where.get(src)
        if (zone is not None and zone.routing == "Full" and not zone.bypass
                and net.where.get(dst) is zone):  # one Full zone: its table, quickly
            local = zone.routes.get((src, dst))
            return local is not None and bool(local.hops)
        try:
            return bool(net.route(src, dst).hops)
        except NoRoute:
            return False

    def resource(self, key: str) -> Link:
        """The link a route's resource belongs to (``l_UP`` -> ``l``, ``air@s`` -> ``air``).

        Parameters
        ----------
        key : str
            One of :attr:`Route.links`.

        Returns
        -------
        Link
            The declared link.
        """
        return self.links[self.network.resources[key].name]

    def resource_bandwidth(self, key: str) -> float:
        """The bandwidth a route's resource offers one flow (a Wifi station: its rate level).

        Parameters
        ----------
        key : str
            One of :attr:`Route.links`.

        Returns
        -------
        float
            bytes/s.
        """
        return self.network.resources[key].bandwidth

    def ties(self, src: str, dst: str) -> bool:
        """Whether a Floyd/Dijkstra zone has several shortest routes from ``src`` to ``dst``.

        Parameters
        ----------
        src, dst : str
            Two netpoints.

        Returns
        -------
        bool
            ``True`` when the top-level local route of the pair has two paths of the
            smallest link count (SimGrid may take another one than lpsched).
        """
        net = self.network
        return any(net.ties(z.name, s, d) for z, s, d in net.local_ends(src, dst))

    def zone_of(self, netpoint: str) -> Zone:
        """The zone that declares host or router ``netpoint``.

        Parameters
        ----------
        netpoint : str
            A host or router.

        Returns
        -------
        Zone
            Its zone.
        """
        return self.zones[self.network.zone_of(netpoint).name]

    @property
    def routings(self) -> frozenset[str]:
        """The routings of the platform's zones."""
        return frozenset(z.routing for z in self.zones.values())

    def reading_notes(self, multicore: str | None = None) -> tuple[str, ...]:
        """What a user should know about how the file was read, one sentence each.

        Parameters
        ----------
        multicore : str, optional
            What the command does with hosts of several cores; the multicore hosts are
            noted only when it is given.

        Returns
        -------
        tuple of str
            Values without unit, profiles not applied, multicore hosts, elements ignored.
        """
        notes = []
        if self.unitless:
            notes.append(f"{len(self.unitless)} value(s) without unit read in SimGrid's base "
                         f"units (f, Bps, s), as SimGrid does (it warns they are deprecated): "
                         f"{', '.join(self.unitless[:3])}"
                         f"{' ...' if len(self.unitless) > 3 else ''}")
        if self.profiles:
            notes.append(f"ignored {len(self.profiles)} availability/bandwidth/latency/state "
                         f"profile(s) ({', '.join(self.profiles[:3])}"
                         f"{' ...' if len(self.profiles) > 3 else ''}): lpsched uses the "
                         "constant peak values")
        if self.multicore and multicore is not None:
            notes.append(f"multicore host(s) {', '.join(self.multicore[:3])}: {multicore}")
        if self.ignored:
            notes.append(f"ignored {', '.join(sorted(set(self.ignored)))} in the platform file")
        return tuple(notes)


def frozen_mapping(items: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a copy of ``items``.

    Parameters
    ----------
    items : Mapping
        The entries.

    Returns
    -------
    Mapping
        A :class:`types.MappingProxyType` over a new dict.
    """
    return MappingProxyType(dict(items))
