"""The hosts of a platform that run jobs: Batsim's roles, and the speed they must have.

Batsim (its documentation, "Platform", roles of hosts) gives each host one role: ``master``
(the host that runs the scheduler, not the jobs: the host named ``master_host``, Batsim's
default ``--master-host``, or the one whose ``role`` property is ``master``), ``storage``
(a ``role`` property; it holds data and computes nothing) or ``compute_node`` (every other
host). :func:`compute_hosts` applies these roles as decision 366 reads them: a host whose
``role`` property is ``master`` or ``storage`` is left out; so is the host named
``master_host`` when no host has the role ``master`` and it has no ``role`` of its own (a
role the file gives it is what it is; Batsim itself stops on a file that names two masters
or gives ``master_host`` another role). ``lpsched batch --platform`` and ``lpsched ptg
schedule --cluster FILE.xml`` both take their machine from it, so a Batsim platform gives
them the same hosts.

A host that computes needs a speed > 0 in the pstate it starts in; SimGrid accepts ``0f``
(a host that is off, a storage host), so the commands refuse such a host when they would
compute on it, with :func:`zero_speed`'s words.
"""

from __future__ import annotations

from collections.abc import Iterable

from lpsched.platforms.model import Host, Platform

__all__ = ["MASTER_HOST", "compute_hosts", "zero_speed"]

#: The host Batsim runs its scheduler on when no host has the role ``master``.
MASTER_HOST = "master_host"


def compute_hosts(platform: Platform) -> tuple[Host, ...]:
    """The hosts of ``platform`` that compute, in the file's order (module doc).

    Parameters
    ----------
    platform : Platform
        A platform read by :func:`lpsched.platforms.read_platform`.

    Returns
    -------
    tuple of Host
        Every host but the master (``role`` ``master``, else the host named
        :data:`MASTER_HOST` if it has no ``role``) and the storage hosts (``role``
        ``storage``).

    Examples
    --------
    >>> from lpsched.platforms import parse_platform
    >>> p = parse_platform('<platform version="4.1"><zone id="z" routing="Full">'
    ...                    '<host id="master_host" speed="1Gf"/><host id="a" speed="2Gf"/>'
    ...                    '</zone></platform>')
    >>> [h.name for h in compute_hosts(p)]
    ['a']
    """
    hosts = platform.hosts.values()
    named_master = not any(h.properties.get("role") == "master" for h in hosts)
    return tuple(h for h in hosts if h.properties.get("role") not in ("master", "storage")
                 and not (named_master and h.name == MASTER_HOST
                          and "role" not in h.properties))


def zero_speed(hosts: Iterable[Host]) -> tuple[Host, str] | None:
    """The first host of ``hosts`` whose current speed is 0, and why it cannot compute.

    Parameters
    ----------
    hosts : iterable of Host
        The hosts a command computes on.

    Returns
    -------
    tuple of (Host, str) or None
        The host and the refusal's words (``<host id='a'> speed = '0f' must be > 0 ...``),
        or ``None`` when every host computes.
    """
    for h in hosts:
        if h.speed <= 0:
            return h, (f"{h.declared} speed = {h.current_speed_text!r} must be > 0: host "
                       f"{h.name!r} computes in pstate {h.pstate}")
    return None
