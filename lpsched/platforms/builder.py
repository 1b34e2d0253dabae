"""The state of one platform read and the steps every element shares.

:class:`Builder` holds what has been read so far (hosts, routers, links, the zones'
routing tables) and the checks every element goes through: a required attribute, a
quantity in SimGrid's units, a speed per pstate, a core count, a name not yet taken. Each
error is a :class:`~lpsched.errors.ParseError` naming the file, the element's line and what
to fix. :mod:`lpsched.platforms.clusters` and :mod:`lpsched.platforms.reader` build on it.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from types import MappingProxyType

from lpsched.errors import ParseError
from lpsched.platforms.model import NO_PROPERTIES, Actor, Host
from lpsched.platforms.routing import Network, Resource, ZoneTable
from lpsched.platforms.units import parse_quantity

__all__ = ["MAX_CLUSTER_HOSTS", "SPLIT", "Builder", "swap"]

#: The most hosts a ``<cluster>``/``<cabinet>`` radical may expand to (a guard on memory).
MAX_CLUSTER_HOSTS = 1_000_000
#: SimGrid's split-duplex sharing policy: one resource per direction, ``_UP`` and ``_DOWN``.
SPLIT = "SPLITDUPLEX"


def swap(key: str, policy: str) -> str:
    """The resource a split-duplex hop uses in the reverse direction.

    Parameters
    ----------
    key : str
        A resource (``l_UP``, ``l_DOWN``, or a link of another policy).
    policy : str
        Its link's sharing policy.

    Returns
    -------
    str
        ``l_DOWN`` for ``l_UP`` and back; ``key`` itself for other policies.
    """
    if policy != SPLIT:
        return key
    return key[:-3] + "_DOWN" if key.endswith("_UP") else key[:-5] + "_UP"


class Builder:
    """What one read has gathered, and the checks every element shares (module doc).

    Parameters
    ----------
    path : str
        The file read, named in every error.
    lines : dict
        The line of each element of the file's tree.
    """

    def __init__(self, path: str, lines: dict[ET.Element, int]) -> None:
        self.path = path
        self.lines = lines
        self.hosts: dict[str, Host] = {}
        self.routers: list[str] = []
        self.router_set: set[str] = set()
        self.coords: dict[str, tuple[float, float, float]] = {}
        self.net = Network(self.coords.get)
        self.links: dict[str, Resource] = {}  # declared links (a split-duplex one: its UP)
        self.wifi: dict[str, list[float]] = {}
        self.link_props: dict[str, dict[str, str]] = {}
        self.config: dict[str, str] = {}
        self.unitless: list[str] = []
        self.profiles: list[str] = []
        self.cores: list[str] = []
        self.ignored: list[str] = []
        self.actors: list[Actor] = []

    def fail(self, message: str, element: ET.Element | None = None) -> ParseError:
        """The error ``message`` at ``element``'s line.

        Parameters
        ----------
        message : str
            What is wrong and what to do.
        element : Element, optional
            The element concerned.

        Returns
        -------
        ParseError
            Naming the file and the line.
        """
        line = self.lines.get(element) if element is not None else None
        return ParseError(self.path, message, line)

    def attr(self, el: ET.Element, name: str, default: str | None = None) -> str:
        """Attribute ``name`` of ``el``, or ``default``; an error when neither is given.

        Parameters
        ----------
        el : Element
            The element.
        name : str
            The attribute.
        default : str, optional
            Its value when absent.

        Returns
        -------
        str
            The value.
        """
        value = el.get(name, default)
        if value is None:
            ident = el.get("id")
            what = f"<{el.tag} id={ident!r}>" if ident else f"<{el.tag}>"
            raise self.fail(f"{what} has no {name} attribute", el)
        return value

    def quantity(self, el: ET.Element, name: str, kind: str, text: str | None = None,
                 positive: bool = True) -> float:
        """Attribute ``name`` of ``el`` (or ``text``) read as ``kind``, finite and > 0.

        Parameters
        ----------
        el : Element
            The element.
        name : str
            The attribute.
        kind : str
            ``"speed"``, ``"bandwidth"`` or ``"latency"`` (:func:`parse_quantity`).
        text : str, optional
            The text to read instead of the attribute (one pstate of a speed list).
        positive : bool
            ``False`` accepts 0 as well.

        Returns
        -------
        float
            The value in SimGrid's base units; a value without unit is recorded.
        """
        raw = self.attr(el, name) if text is None else text
        what = f"<{el.tag} id={el.get('id')!r}> {name}"
        try:
            value, had_unit = parse_quantity(raw, kind)
        except ValueError as exc:
            raise self.fail(f"{what}={el.get(name, raw)!r}: {exc}", el) from None
        if not math.isfinite(value):
            raise self.fail(f"{what} = {raw!r} is outside the float range", el)
        if value < 0 or (positive and value == 0):
            raise self.fail(f"{what} = {raw!r} must be {'> 0' if positive else '>= 0'}", el)
        if not had_unit and value != 0:
            self.unitless.append(f"{el.get('id')} {name}={raw!r}")
        return value

    def speeds(self, el: ET.Element, pstate: int = 0) -> tuple[float, ...]:
        """The speed of each pstate of ``el`` (``"1Gf,500Mf"``), pstate ``pstate`` valid.

        Parameters
        ----------
        el : Element
            A ``<host>``, ``<cluster>``, ``<cabinet>`` or ``<peer>``.
        pstate : int
            The pstate the host starts in.

        Returns
        -------
        tuple of float
            flop/s per pstate, each >= 0 (SimGrid allows ``0f``: a host that is off, a
            Batsim storage host; a command that computes on it refuses it).
        """
        texts = self.attr(el, "speed").split(",")
        if not 0 <= pstate < len(texts):
            raise self.fail(f"<{el.tag} id={el.get('id')!r}> pstate={el.get('pstate')!r}: "
                            f"must be a pstate index from 0 to {len(texts) - 1} (one per "
                            "speed)", el)
        return tuple(self.quantity(el, "speed", "speed", text=t.strip(), positive=False)
                     for t in texts)

    def whole(self, el: ET.Element, name: str, default: str, low: int) -> int:
        """Attribute ``name`` of ``el`` as a whole number >= ``low`` (``"4"``, ``"4.0"``).

        Parameters
        ----------
        el : Element
            The element.
        name : str
            The attribute (``core``, ``pstate``).
        default : str
            Its value when absent.
        low : int
            The smallest value allowed.

        Returns
        -------
        int
            The number.
        """
        raw = el.get(name, default)
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value == int(value) and value >= low):
            raise self.fail(f"<{el.tag} id={el.get('id')!r}> {name}={raw!r}: must be a whole "
                            f"number >= {low}", el)
        return int(value)

    def new_zone(self, el: ET.Element, routing: str, parent: ZoneTable | None) -> ZoneTable:
        """Declare the zone of ``el`` (a ``<zone>``, ``<AS>`` or ``<cluster>``).

        Parameters
        ----------
        el : Element
            The element.
        routing : str
            Its routing (:data:`~lpsched.platforms.routing.ROUTINGS`, or a cluster's kind).
        parent : ZoneTable, optional
            The enclosing zone.

        Returns
        -------
        ZoneTable
            The new zone, registered in its parent.
        """
        name = self.attr(el, "id")
        if name in self.net.zones or name in self.hosts or name in self.router_set:
            raise self.fail(f"<{el.tag} id={name!r}>: a zone, host or router of that name is "
                            "already declared", el)
        zone = ZoneTable(name, routing, parent, self.lines[el])
        self.net.zones[name] = zone
        if parent is not None:
            parent.members.append(name)
            parent.hierarchy = True
        return zone

    def new_name(self, el: ET.Element, name: str | None = None) -> str:
        """A host or router name not yet taken (the ``id`` of ``el`` by default).

        Parameters
        ----------
        el : Element
            The element declaring it.
        name : str, optional
            The name (a cluster's hosts and router).

        Returns
        -------
        str
            The name.
        """
        name = self.attr(el, "id") if name is None else name
        if name in self.hosts or name in self.router_set or name in self.net.zones:
            raise self.fail(f"<{el.tag} id={name!r}>: a host or router of that name is "
                            "already declared", el)
        return name

    def add_router(self, el: ET.Element, zone: ZoneTable, name: str | None = None) -> str:
        """Declare a router of ``zone``.

        Parameters
        ----------
        el : Element
            The element declaring it.
        zone : ZoneTable
            Its zone.
        name : str, optional
            Its name (default: the ``id`` of ``el``).

        Returns
        -------
        str
            The router's name.
        """
        name = self.new_name(el, name)
        self.routers.append(name)
        self.router_set.add(name)
        self.net.where[name] = zone
        zone.members.append(name)
        return name

    def add_host(self, el: ET.Element, zone: ZoneTable, name: str, speeds: tuple[float, ...],
                 props: MappingProxyType[str, str] | None = None, pstate: int = 0,
                 cores: int = 1) -> None:
        """Declare host ``name`` of ``zone``.

        Parameters
        ----------
        el : Element
            The element declaring it (a ``<cluster>`` for its hosts).
        zone : ZoneTable
            Its zone.
        name : str
            Its name.
        speeds : tuple of float
            flop/s per pstate.
        props : MappingProxyType, optional
            Its properties.
        pstate : int
            The pstate it starts in.
        cores : int
            Its core count.
        """
        name = self.new_name(el, name)
        ident = el.get("id")
        self.hosts[name] = Host(name, speeds, pstate, cores, zone.name,
                                props if props is not None else NO_PROPERTIES, self.lines[el],
                                f"<{el.tag} id={ident!r}>", el.get("speed", ""))
        self.net.where[name] = zone
        zone.members.append(name)

    def read_coords(self, el: ET.Element, name: str) -> None:
        """Record the Vivaldi coordinates ``"x y h"`` of netpoint ``name``, if given.

        Parameters
        ----------
        el : Element
            A ``<host>``, ``<router>`` or ``<peer>``.
        name : str
            The netpoint.
        """
        text = el.get("coordinates", "").strip()
        if not text:
            return
        try:
            values = [float(p) for p in text.split()]
        except ValueError:
            values = []
        if len(values) != 3 or not all(math.isfinite(v) for v in values):
            raise self.fail(f"<{el.tag} id={name!r}> coordinates={text!r}: SimGrid expects "
                            "three numbers \"x y h\" (milliseconds)", el)
        self.coords[name] = (values[0], values[1], values[2])

    def add_link(self, el: ET.Element, name: str, bandwidth: float, latency: float,
                 policy: str) -> str:
        """Declare link ``name``; return its resource (``name_UP`` when split-duplex).

        Parameters
        ----------
        el : Element
            The element declaring it.
        name : str
            The link.
        bandwidth, latency : float
            bytes/s and seconds.
        policy : str
            ``SHARED``, ``SPLITDUPLEX``, ``FATPIPE`` or ``WIFI``.

        Returns
        -------
        str
            The resource a route crossing it upwards uses.
        """
        if name in self.links or name in self.net.resources:
            first = (self.links.get(name) or self.net.resources[name]).line
            raise self.fail(f"<{el.tag} id={name!r}>: a link of that name is already "
                            f"declared (line {first})", el)
        res = Resource(name, bandwidth, latency, policy, self.lines[el])
        self.links[name] = res
        if policy == SPLIT:
            for side in ("_UP", "_DOWN"):
                self.net.resources[name + side] = res
            return name + "_UP"
        self.net.resources[name] = res
        return name

    def radicals(self, el: ET.Element) -> list[int]:
        """SimGrid's radical ``"0-3,7,10-11"``: the host numbers, in order.

        Parameters
        ----------
        el : Element
            A ``<cluster>`` or ``<cabinet>``.

        Returns
        -------
        list of int
            The numbers (a group ``N-M`` with ``M < N`` gives none, as in SimGrid).
        """
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
