"""A seed 004 cluster from a SimGrid or Batsim platform file (``--cluster platform.xml``).

Seed 004's platform is one homogeneous cluster of ``P`` processors of speed ``s`` (§1.1,
Table 1 [L451-470]); communication is not modelled [L121-134], so only the compute
resources of the file matter. The file is read by :func:`lpsched.platforms.read_platform`,
as every command reads it, and projected here: the processors are the cores of its compute
hosts (:func:`lpsched.platforms.compute_hosts`: every host but Batsim's master and storage
hosts), all of one speed, each host's in the pstate it starts in. Links, routes and zones
are not used. A file whose compute hosts have different speeds, or none, is refused with
:func:`lpsched.platforms.refuse`'s words (decision 373).
"""

from __future__ import annotations

from pathlib import Path

from lpsched.platforms import Platform, compute_hosts, read_platform, refuse, zero_speed
from lpsched.ptg.model import Cluster

__all__ = ["CLUSTER", "cluster_from_platform", "cluster_of"]

#: What ``ptg schedule --cluster FILE.xml`` takes from a platform file, in its refusals.
CLUSTER = "a seed 004 cluster (one speed)"
#: The most speeds a refusal of heterogeneous hosts lists.
SHOWN = 6


def cluster_of(plat: Platform, name: str) -> Cluster:
    """Project a platform onto seed 004's homogeneous cluster (module doc).

    Parameters
    ----------
    plat : Platform
        A platform read by :func:`lpsched.platforms.read_platform`.
    name : str
        The cluster's name.

    Returns
    -------
    Cluster
        ``processors``: the cores of the compute hosts; ``speed``: their flop/s.

    Raises
    ------
    PlatformRefused
        No compute host, one of speed 0 in its pstate, or hosts of different speeds
        (seed 004's cluster is homogeneous).
    """
    hosts = compute_hosts(plat)
    if not hosts:
        raise refuse(plat.path, CLUSTER, "no compute host (every host is the master or a "
                     "storage, or there is none)")
    idle = zero_speed(hosts)
    if idle is not None:
        raise refuse(plat.path, CLUSTER, idle[1], idle[0].line)
    speeds: dict[float, int] = {}
    for h in hosts:
        speeds[h.speed] = speeds.get(h.speed, 0) + h.cores
    if len(speeds) > 1:
        parts = [f"{n} at {s:g} flop/s" for s, n in sorted(speeds.items())]
        shown = ", ".join(parts[:SHOWN])
        if len(parts) > SHOWN:
            shown += f" and {len(parts) - SHOWN} more speeds"
        raise refuse(plat.path, CLUSTER, f"hosts of different speeds ({shown}): seed 004's "
                     "cluster is homogeneous")
    (speed, count), = speeds.items()
    return Cluster(name, count, speed)


def cluster_from_platform(path: str | Path) -> Cluster:
    """Read the homogeneous cluster of a SimGrid/Batsim platform file (seed 004 §1.1).

    Parameters
    ----------
    path : str or Path
        A platform XML file.

    Returns
    -------
    Cluster
        Named after the file's stem; ``processors`` is the number of compute cores,
        ``speed`` their flop/s.

    Raises
    ------
    ParseError
        An unreadable or malformed file (naming the line), or a
        :class:`~lpsched.platforms.PlatformRefused`: no compute host, or hosts of
        different speeds (seed 004's cluster is homogeneous).

    Examples
    --------
    >>> import tempfile, os
    >>> xml = ('<platform version="4.1"><zone id="z" routing="Full">'
    ...        '<host id="master_host" speed="1Gf"/>'
    ...        '<cluster id="c" prefix="n" suffix="" radical="0-3" speed="2Gf" core="8" '
    ...        'bw="1GBps" lat="0us"/></zone></platform>')
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     name = os.path.join(tmp, "lab.xml")
    ...     with open(name, "w") as fh:
    ...         _ = fh.write(xml)
    ...     c = cluster_from_platform(name)
    >>> c.name, c.processors, c.speed
    ('lab', 32, 2000000000.0)
    """
    p = Path(path)
    return cluster_of(read_platform(p), p.stem)
