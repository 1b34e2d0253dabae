"""SimGrid platform files, read once and the same way for every command that takes one.

:func:`read_platform` reads a SimGrid 4/4.1 platform file (zones of every routing, clusters
of every topology, hosts with their pstates and cores, links, routes, properties, units as
SimGrid parses them) into one immutable :class:`Platform`; :func:`read_deployment` reads a
deployment file's actors. Each family projects the platform onto its model and refuses,
with :func:`refuse`'s words, a file it cannot use:

* ``lpsched.bags.simgrid``: the star of seed 003 (a master and workers, each with a speed
  and a link), for ``solve``/``generate``/``simulate ... --platform``;
* ``lpsched.batch.batsim.read_platform``: Batsim's machine (:func:`compute_hosts` and their
  speed), for ``batch``/``convert --platform``;
* ``lpsched.ptg.platforms.cluster_from_platform``: seed 004's homogeneous cluster (the
  compute hosts' cores, one speed), for ``ptg schedule --cluster FILE.xml``.

This package imports only the core; every family may import it. Its names are loaded on
first use (PEP 562), so that a module needing one light part (``lpsched.platforms.units``)
does not load the reader.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lpsched.platforms.compute import MASTER_HOST, compute_hosts, zero_speed
    from lpsched.platforms.deployment import parse_deployment, read_deployment
    from lpsched.platforms.errors import NoRoute, PlatformRefused, refuse
    from lpsched.platforms.model import Actor, Host, Link, Platform, Route, Zone
    from lpsched.platforms.reader import parse_platform, read_platform
    from lpsched.platforms.units import parse_quantity, parse_speeds
    from lpsched.platforms.xmlfile import MAX_PLATFORM_BYTES

__all__ = ["MASTER_HOST", "MAX_PLATFORM_BYTES", "Actor", "Host", "Link", "NoRoute", "Platform",
           "PlatformRefused", "Route", "Zone", "compute_hosts", "parse_deployment",
           "parse_platform", "parse_quantity", "parse_speeds", "read_deployment",
           "read_platform", "refuse", "zero_speed"]

#: each re-exported name -> the module that defines it
_LAZY = {
    **dict.fromkeys(("MASTER_HOST", "compute_hosts", "zero_speed"), "compute"),
    **dict.fromkeys(("parse_deployment", "read_deployment"), "deployment"),
    **dict.fromkeys(("NoRoute", "PlatformRefused", "refuse"), "errors"),
    **dict.fromkeys(("Actor", "Host", "Link", "Platform", "Route", "Zone"), "model"),
    **dict.fromkeys(("parse_platform", "read_platform"), "reader"),
    **dict.fromkeys(("parse_quantity", "parse_speeds"), "units"),
    "MAX_PLATFORM_BYTES": "xmlfile",
}


def __getattr__(name: str) -> Any:
    """Load a re-exported name on first use and keep it (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpsched.platforms' has no attribute {name!r}")
    value = getattr(import_module(f"lpsched.platforms.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
