"""SimGrid platform files as seed 003's star: read a star from any platform, write one back.

Seed 003's experiments ran in SimGrid (§4, [L802]), and researchers keep their star
platforms as SimGrid platform files. :func:`read_simgrid_platform` reads a star from such a
file (and, optionally, a deployment file naming the master and the workers): the file is
read by :func:`lpsched.platforms.read_platform`, as every command reads it, then projected
onto the star by :func:`star_from_platform`. :func:`simgrid_platform_xml` /
:func:`write_simgrid_platform` write a star as a platform file (``lpsched export
simgrid``), and :func:`simgrid_deployment_xml` the matching deployment file (the
applications as the master actor's arguments).

**How the star is read.** The master is the host named by ``master=`` (``--master``),
else the host of the deployment's ``master`` actor (``deployment=``: a SimGrid deployment
file; the ``<actor>`` elements of the platform file itself when one is the master's),
else the only host with a route of at least one link to every other host (among several,
the only one with an ``lpsched.*`` property, as in the files lpsched writes). The workers
are the hosts of the deployment's ``worker`` actors, in its order, else the other hosts
in the file's order; a master that also runs a worker actor is a worker of the star with
its own speed, a link of :data:`SELF_BANDWIDTH` and latency 0. A worker's speed is its
host's in the pstate it starts in (one core's: an lpsched worker computes one task at a
time); its latency is the sum of the latencies of the links of its route (what SimGrid
charges, plus the coordinates' distance in Vivaldi zones); its bandwidth is the smallest
bandwidth of those links (one flow through a route gets its bottleneck, ``FATPIPE`` or
not), except links on the route to *every* worker (declared ``SHARED`` or ``SPLITDUPLEX``,
not ``FATPIPE``): those are the master's outgoing port, and their smallest bandwidth is the
master bandwidth ``BW`` (bounded multiport) - in a cluster whose master is inside, its
private link up and a ``SHARED`` backbone. Under ``port="one-port"`` a master link still
limits each (single) transfer, so the worker's bandwidth is the minimum over its whole
route there; under ``"multiport"`` it is the minimum over the worker's own links. With a
single worker no link can be told to be the master's, unless the file names it (the
``lpsched.master_link`` property the writer adds). The port model is ``port=`` if given,
else the master's ``lpsched.port`` property, else ``default_port``. Nominal values are
read: SimGrid's network model corrections (LV08's bandwidth factor 0.97 and latency
factor 13.01, the TCP window bound, cross-traffic on ``SHARED`` links) are not applied. A
SimGrid transfer takes lpsched's ``latency + size/bandwidth`` only with all of
``network/model:CM02`` (no factors), ``network/TCP-gamma:0`` (or a value as large as
``1e100``: CM02 alone still bounds each flow by ``gamma / (2 latency)``),
``network/crosstraffic:0`` unless the links are ``SPLITDUPLEX`` (as written here), and, for
one-port, a master program that sends one message at a time; ``exact_network=True``
(``--exact-network``) writes the three settings.

A file that is not a star (no host reaches every other, several could be the master, a
host of speed 0, a route without link) is refused with
:func:`lpsched.platforms.refuse`'s words: ``FILE: not usable as a star platform: ...``.

**What is written.** A ``Full`` zone with a host ``master`` and one host per worker
(``worker0``, ``worker1``, ... unless the platform came from a SimGrid file, whose host
names it keeps in ``platform.extra["simgrid"]``), one ``SPLITDUPLEX`` link per worker with
its bandwidth and latency (full-duplex links, as seed 003 assumes; the return traffic of
SimGrid's cross-traffic model then never slows the master's sends), and a route
``master -> worker``. A bounded-multiport master (``port="multiport"``, finite ``BW``)
gets a ``SPLITDUPLEX`` link ``master_port`` of bandwidth ``BW`` and latency 0 at the head of
every route: SimGrid shares it among the concurrent transfers (its own max-min rule, not
the proportional rule of lpsched's simulator). The master host carries ``<prop>`` entries
``lpsched.port`` (and ``lpsched.master_link``, or ``lpsched.master_bandwidth`` for a
one-port platform whose ``BW`` has no link), so that reading the file back gives the same
platform: speeds, bandwidths, latencies and ``BW`` bit for bit (numbers are written with
Python's shortest round-trip ``repr`` in the base units ``f``, ``Bps``, ``s``). The
master's speed is the fastest worker's (seed 003's master computes nothing). Unrelated
speeds (one row per application) cannot be written: a SimGrid host has one speed.

The readings are decisions 184-188, 208 and 355-364 (docs/families/platforms.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.platform import PORTS, StarPlatform
from lpsched.errors import InvalidInstanceError
from lpsched.platforms import (
    Actor,
    NoRoute,
    Platform,
    PlatformRefused,
    parse_deployment,
    parse_platform,
    parse_quantity,
    read_deployment,
    read_platform,
    refuse,
    zero_speed,
)
from lpsched.platforms.units import BANDWIDTH_UNITS, SPEED_UNITS, TIME_UNITS
from lpsched.platforms.xmlfile import MAX_PLATFORM_BYTES

__all__ = ["BANDWIDTH_UNITS", "MASTER_PORT_LINK", "MAX_PLATFORM_BYTES", "PROP_MASTER_BANDWIDTH",
           "PROP_MASTER_LINK", "PROP_PORT", "SELF_BANDWIDTH", "SPEED_UNITS", "STAR", "TIME_UNITS",
           "Actor", "SimgridPlatform", "parse_quantity", "parse_simgrid_deployment",
           "parse_simgrid_platform", "read_simgrid_deployment", "read_simgrid_platform",
           "simgrid_deployment_xml", "simgrid_platform_xml", "star_from_platform",
           "with_platform", "write_simgrid_platform"]

#: The link the writer adds for a bounded-multiport master.
MASTER_PORT_LINK = "master_port"
#: Host properties the writer sets on the master (read back by the reader).
PROP_PORT = "lpsched.port"
PROP_MASTER_LINK = "lpsched.master_link"
PROP_MASTER_BANDWIDTH = "lpsched.master_bandwidth"
#: What the star projection needs of a platform file, in its refusals.
STAR = "a star platform"
#: The bandwidth (bytes/s) of the master's link to itself when it computes (decision 358):
#: a star's bandwidths are finite; at 1e30 B/s a petabyte takes 1e-15 s, and the LPs and the
#: simulator's arithmetic stay far from overflow (the largest float overflows there).
SELF_BANDWIDTH = 1e30
#: What an lpsched worker does with a host of several cores (the note on multicore hosts).
MULTICORE = "an lpsched worker computes one task at a time at the host's (per-core) speed"


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


def _names(items: Sequence[str], limit: int = 4) -> str:
    """The first ``limit`` of ``items``, quoted, and how many more."""
    shown = ", ".join(repr(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _refuse(plat: Platform, why: str, line: int | None = None) -> PlatformRefused:
    """The refusal of ``plat`` as a star."""
    return refuse(plat.path, STAR, why, line)


def _why_not(plat: Platform, src: str, dst: str) -> str:
    """Why ``src`` does not reach ``dst``: no route, a missing Full route, or no link."""
    try:
        r = plat.route(src, dst)
    except NoRoute as exc:
        return str(exc)
    if r.missing:
        return "; ".join(r.missing)
    return _no_link(plat, src, dst) if not r.links else ""


def _no_link(plat: Platform, src: str, dst: str) -> str:
    """The refusal of a route without link (its bandwidth would be unbounded)."""
    hint = ""
    if "Vivaldi" in (plat.zone_of(src).routing, plat.zone_of(dst).routing):
        hint = (" (in a Vivaldi zone a host has links only as a <peer>, with bw_in and bw_out, "
                "or through a route declared for it)")
    return f"the route from {src!r} to {dst!r} has no link: its bandwidth would be unbounded{hint}"


def _check_master(plat: Platform, master: str) -> str:
    """``master`` (``--master``), checked: a host that reaches every other host."""
    hosts = list(plat.hosts)
    if master not in plat.hosts:
        raise _refuse(plat, f"--master {master!r}: no such host (hosts: {_names(hosts)})")
    missing = [h for h in hosts if h != master and not plat.reaches(master, h)]
    if missing:
        why = _why_not(plat, master, missing[0])
        raise _refuse(plat, f"not a star with master {master!r}: no route from {master!r} to "
                      f"{_names(missing)} ({why})", plat.hosts[missing[0]].line)
    return master


def _choose_master(plat: Platform, master: str | None) -> str:
    """The master: ``master`` checked, else the only host that reaches every other."""
    hosts = list(plat.hosts)
    if len(hosts) < 2:
        raise _refuse(plat, f"a star needs a master and at least one worker host; the file "
                      f"declares {len(hosts)} host(s)")
    if master is not None:
        return _check_master(plat, master)
    complete = len(hosts) <= 200  # count every candidate (else stop at two)
    candidates: list[str] = []
    for h in hosts:
        if all(o == h or plat.reaches(h, o) for o in hosts):
            candidates.append(h)
            if not complete and len(candidates) > 1:
                break
    marked = [h for h in candidates
              if any(k.startswith("lpsched.") for k in plat.hosts[h].properties)]
    if len(marked) == 1:  # the master of a file lpsched wrote (e.g. one worker, symmetric)
        return marked[0]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        count = f"{len(candidates)}" if complete else "several"
        raise _refuse(plat, f"{count} hosts have a route to every other host "
                      f"({_names(candidates)}): name the master with --master (API: "
                      "master=) or give a deployment file")
    raise _refuse(plat, _no_candidate(plat, hosts, complete))


def _no_candidate(plat: Platform, hosts: list[str], complete: bool) -> str:
    """Why no host can be the master (the best candidate and what it misses)."""
    if not complete:
        first = next(o for o in hosts[1:] if not plat.reaches(hosts[0], o))
        return (f"not a star: no host has a route to every other host "
                f"({_why_not(plat, hosts[0], first)}); a star platform has a route from the "
                "master to each worker")
    reach = {h: sum(1 for o in hosts if o != h and plat.reaches(h, o)) for h in hosts}
    best = max(hosts, key=lambda h: reach[h])
    miss = next(o for o in hosts if o != best and not plat.reaches(best, o))
    return (f"not a star: no host has a route to every other host (the best, {best!r}, "
            f"reaches {reach[best]} of the {len(hosts) - 1} others; "
            f"{_why_not(plat, best, miss)}); "
            "a star platform declares a route from the master to each worker")


def parse_simgrid_deployment(raw: str | bytes, path: str = "<string>") -> tuple[Actor, ...]:
    """Read the actors of a SimGrid deployment file's text, in the file's order.

    Parameters
    ----------
    raw : str or bytes
        The XML document (a ``<platform>`` holding ``<actor>`` elements).
    path : str
        The file name used in error messages.

    Returns
    -------
    tuple of Actor
        The actors (:func:`lpsched.platforms.parse_deployment`).

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
    return parse_deployment(raw, path)


def read_simgrid_deployment(path: str | Path) -> tuple[Actor, ...]:
    """Read the actors of the SimGrid deployment file ``path``.

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
    return read_deployment(path)


@dataclass(frozen=True)
class _Roles:
    """The master and workers named by a deployment (``None``: not given)."""

    master: str | None
    workers: list[str] | None


def _roles(plat: Platform, deployment: str | bytes | Sequence[Actor] | None, where: str,
           master_function: str, worker_function: str, master: str | None) -> _Roles:
    """The master and workers a deployment names (module doc; decision 359).

    The master is the host of the ``master_function`` actor, the workers the hosts of the
    ``worker_function`` actors, in order (all other hosts when there is none); the
    deployment is ``deployment``, else the platform file's actors when one is the master's.
    """
    actors: Sequence[Actor] | None
    if isinstance(deployment, (str, bytes)):
        actors = parse_deployment(deployment, where)
    elif deployment is not None:
        actors = tuple(deployment)
    elif any(a.function == master_function for a in plat.actors):
        actors, where = plat.actors, plat.path
    else:
        return _Roles(master, None)
    for a in actors:
        if a.host not in plat.hosts:
            raise refuse(where, STAR, f"actor {a.function!r} is on host {a.host!r}, which the "
                         f"platform file does not declare (hosts: {_names(list(plat.hosts))})",
                         a.line)
    masters = [a for a in actors if a.function == master_function]
    if master is None:
        if not masters:
            functions = sorted({a.function for a in actors})
            raise refuse(where, STAR, f"no actor with function {master_function!r} (the "
                         f"master's): the functions are {_names(functions)}; name the "
                         "master's function (API: master_function=) or the master host")
        hosts = sorted({a.host for a in masters})
        if len(hosts) > 1:
            raise refuse(where, STAR, f"actors {master_function!r} on several hosts "
                         f"({_names(hosts)}): a star has one master; name it (API: "
                         "master=)", masters[1].line)
        master = hosts[0]
    workers: list[str] = []
    for a in actors:
        if a.function == worker_function and a.host not in workers:
            workers.append(a.host)
    return _Roles(master, workers or None)


def star_from_platform(plat: Platform, *, master: str | None = None, port: str | None = None,
                       default_port: str = "one-port",
                       deployment: str | bytes | Sequence[Actor] | None = None,
                       deployment_path: str = "<deployment>",
                       master_function: str = "master",
                       worker_function: str = "worker") -> SimgridPlatform:
    """Project a platform onto seed 003's star (module doc).

    Parameters
    ----------
    plat : Platform
        A platform read by :func:`lpsched.platforms.read_platform`.
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
        actor, the workers the ``worker_function`` ones.
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
    PlatformRefused
        Naming the file and the property that fails (no master or several, a worker the
        master cannot reach, a host of speed 0, a route without link).
    InvalidInstanceError
        When ``port`` or ``default_port`` is not a model of :data:`~lpsched.bags.PORTS`.
    """
    for name, value in (("port", port), ("default_port", default_port)):
        if value is not None and value not in PORTS:
            raise InvalidInstanceError(name, value, f"must be one of {PORTS}")
    roles = _roles(plat, deployment, deployment_path, master_function, worker_function,
                   master)
    named = [] if roles.workers is None else [roles.master or "", *roles.workers]
    used = (plat.hosts.values() if roles.workers is None else  # every host is a worker
            [plat.hosts[h] for h in named if h in plat.hosts])
    idle = zero_speed(used)
    if idle is not None:
        raise _refuse(plat, idle[1], idle[0].line)
    if roles.workers is not None:
        return _star(plat, roles.master or "", port, default_port, roles.workers)
    return _star(plat, _choose_master(plat, roles.master), port, default_port, None)


def _worker_routes(plat: Platform, chosen: str,
                   workers: list[str]) -> tuple[list[list[str]], list[float]]:
    """The links and latency of the route from the master to each worker."""
    routes: list[list[str]] = []
    lats: list[float] = []
    for w in workers:
        if w == chosen:  # the master computes too (decision 358)
            routes.append([])
            lats.append(0.0)
            continue
        try:
            r = plat.route(chosen, w)
        except NoRoute as exc:
            raise _refuse(plat, f"not a star with master {chosen!r}: no route from {chosen!r} "
                          f"to {w!r} ({exc})", exc.line or plat.hosts[w].line) from None
        if not r.links and r.missing:
            raise _refuse(plat, f"not a star with master {chosen!r}: no route from {chosen!r} "
                          f"to {w!r} ({'; '.join(r.missing)})", plat.hosts[w].line)
        if not r.links:
            raise _refuse(plat, _no_link(plat, chosen, w), plat.hosts[w].line)
        routes.append(list(r.links))
        lats.append(r.latency)
    return routes, lats


def _bandwidths(plat: Platform, model: str, routes: list[list[str]],
                master_keys: set[str]) -> list[float]:
    """Each worker's bandwidth: the bottleneck of its route (one-port), of its own links
    (multiport: the master's port is ``BW``), :data:`SELF_BANDWIDTH` for the master."""
    bws = []
    for hops in routes:
        if not hops:
            bws.append(SELF_BANDWIDTH)
            continue
        own = [h for h in hops if h not in master_keys]
        limit = hops if model == "one-port" or not own else own
        bws.append(min(plat.resource_bandwidth(h) for h in limit))
    return bws


def _star(plat: Platform, chosen: str, port: str | None, default_port: str,
          named: list[str] | None) -> SimgridPlatform:
    """The star of master ``chosen`` (module doc: bandwidths, latencies, the master port);
    ``named``: the workers of a deployment (else every other host)."""
    if chosen not in plat.hosts:
        raise _refuse(plat, f"--master {chosen!r}: no such host (hosts: "
                      f"{_names(list(plat.hosts))})")
    workers = [h for h in plat.hosts if h != chosen] if named is None else list(named)
    if not workers:
        raise _refuse(plat, f"a star needs at least one worker; the deployment names none "
                      f"besides the master {chosen!r}")
    props = plat.hosts[chosen].properties
    model = port or props.get(PROP_PORT) or default_port
    if model not in PORTS:
        raise _refuse(plat, f"host {chosen!r}: property {PROP_PORT}={model!r} must be one of "
                      f"{PORTS}", plat.hosts[chosen].line)
    routes, lats = _worker_routes(plat, chosen, workers)
    remote = [hops for w, hops in zip(workers, routes, strict=True) if w != chosen]
    master_keys = _master_links(plat, chosen, remote)
    bw = math.inf
    if master_keys:
        bw = min(plat.resource_bandwidth(h) for h in remote[0] if h in master_keys)
    elif PROP_MASTER_BANDWIDTH in props:
        bw = _prop_bandwidth(plat, chosen, props[PROP_MASTER_BANDWIDTH])
    platform = StarPlatform(np.array([plat.hosts[w].speed for w in workers]),
                            np.array(_bandwidths(plat, model, routes, master_keys)), bw,
                            model,  # type: ignore[arg-type]
                            {"simgrid": {"master": chosen, "workers": workers}},
                            np.array(lats))
    extra = []
    if model == "multiport":
        shared = _partly_shared(plat, [w for w in workers if w != chosen], remote, master_keys)
        if shared:
            extra.append(shared)
    if chosen in workers:
        extra.append(f"the master {chosen!r} also runs a worker actor: it is worker "
                     f"{workers.index(chosen)} of the star, at its own speed, with an "
                     "unbounded link of zero latency (SimGrid sends its messages through the "
                     "loopback link; decision 358)")
    extra += _route_notes(plat, chosen, workers)
    return SimgridPlatform(
        platform, chosen, tuple(workers), tuple(tuple(hops) for hops in routes),
        tuple(sorted(master_keys)), dict(plat.config),
        plat.reading_notes(MULTICORE) + tuple(extra), plat.path)


def _route_notes(plat: Platform, master: str, workers: list[str]) -> list[str]:
    """Notes on the routings the routes went through (ties, Vivaldi, Wifi)."""
    out = []
    partial = [w for w in workers if w != master and plat.route(master, w).missing]
    if partial:
        first = plat.route(master, partial[0]).missing[0]
        out.append(f"the routes from {master!r} to {_names(partial)} cross a Full zone "
                   f"without a declared route ({first}): SimGrid puts no link there, as "
                   "lpsched does")
    tied = [w for w in workers if w != master and plat.ties(master, w)]
    if tied:
        out.append(f"several shortest routes (Floyd/Dijkstra, equal link counts) from "
                   f"{master!r} to {_names(tied)}: lpsched takes networkx's, SimGrid may take "
                   "another of the same length")
    if "Wifi" in plat.routings:
        out.append("Wifi links are read at their first rate level (a SimGrid program sets "
                   "each station's with Link.set_host_wifi_rate) and the stations of a zone "
                   "share its medium, which lpsched's star does not model")
    if "Vivaldi" in plat.routings:
        out.append("Vivaldi routes: latency = links + the coordinates' distance (ms), as "
                   "SimGrid computes it")
    return out


def _partly_shared(plat: Platform, workers: list[str], routes: list[list[str]],
                   master_keys: set[str]) -> str:
    """A note on the links that some workers' routes cross but not all (decision 208).

    Bounded multiport has no such link (a worker's own link, or the master's port shared by
    all), so lpsched bounds each worker by the minimum over its route and does not limit
    the concurrent transfers through the link together, where SimGrid shares its bandwidth
    among them. ``FATPIPE`` links and the master's port are left out; empty when there is
    none. (Under one-port the master sends one message at a time: nothing is shared.)
    """
    users: dict[str, list[str]] = {}
    for w, hops in zip(workers, routes, strict=True):
        for h in hops:
            if h in master_keys or plat.resource(h).sharing_policy == "FATPIPE":
                continue
            if w not in users.setdefault(h, []):
                users[h].append(w)
    partly = [(plat.resource(k).name, ws) for k, ws in users.items()
              if 1 < len(ws) < len(workers)]
    if not partly:
        return ""
    which = "; ".join(f"{name!r} by {_names(ws)}" for name, ws in partly[:4])
    more = f"; and {len(partly) - 4} more link(s)" if len(partly) > 4 else ""
    return (f"link(s) shared by the routes of some workers but not all ({which}{more}): "
            "lpsched's star model has no link shared by a subset of workers (only the "
            "master's port, shared by all), so each worker's bandwidth is the minimum over "
            "its route and concurrent transfers through such a link are not limited "
            "together (SimGrid shares its bandwidth among them)")


def _master_links(plat: Platform, master: str, routes: list[list[str]]) -> set[str]:
    """The resources of the master's port: the link the file names, or (two workers or
    more) the non-FATPIPE links on every route."""
    named = plat.hosts[master].properties.get(PROP_MASTER_LINK)
    line = plat.hosts[master].line
    if named is not None:
        if named not in plat.links:
            raise _refuse(plat, f"host {master!r}: property {PROP_MASTER_LINK}={named!r} "
                          "names no declared link", line)
        keys = {h for h in routes[0] if plat.resource(h).name == named} if routes else set()
        for hops in routes:
            if not keys & set(hops):
                raise _refuse(plat, f"host {master!r}: property {PROP_MASTER_LINK}={named!r} "
                              "names a link that is not on every route from the master", line)
        return keys
    if len(routes) < 2:
        return set()
    common = set.intersection(*(set(hops) for hops in routes))
    return {k for k in common if plat.resource(k).sharing_policy != "FATPIPE"}


def _prop_bandwidth(plat: Platform, master: str, text: str) -> float:
    """The master bandwidth the ``lpsched.master_bandwidth`` property gives."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0):
        raise _refuse(plat, f"host {master!r}: property {PROP_MASTER_BANDWIDTH}={text!r} must "
                      "be a number of bytes/s > 0", plat.hosts[master].line)
    return value


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
        Naming the file, the line and what to fix: a file that is not a platform
        (:func:`lpsched.platforms.parse_platform`), or a :class:`PlatformRefused` for a
        platform that is not a star (no master or several, a worker the master cannot
        reach).
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
    return star_from_platform(parse_platform(raw, path), master=master, port=port,
                              default_port=default_port, deployment=deployment,
                              deployment_path=deployment_path,
                              master_function=master_function,
                              worker_function=worker_function)


def read_simgrid_platform(path: str | Path, *, master: str | None = None,
                          port: str | None = None,
                          default_port: str = "one-port",
                          deployment: str | Path | None = None,
                          master_function: str = "master",
                          worker_function: str = "worker") -> SimgridPlatform:
    """Read a star platform from the SimGrid platform file ``path``.

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
        When a file cannot be read, is larger than
        :data:`~lpsched.platforms.MAX_PLATFORM_BYTES`, is not a platform, or is not a star
        (see :func:`parse_simgrid_platform`).
    """
    for name, value in (("port", port), ("default_port", default_port)):
        if value is not None and value not in PORTS:
            raise InvalidInstanceError(name, value, f"must be one of {PORTS}")
    plat = read_platform(path)
    actors = read_deployment(deployment) if deployment is not None else None
    return star_from_platform(plat, master=master, port=port, default_port=default_port,
                              deployment=actors, deployment_path=str(deployment or ""),
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
