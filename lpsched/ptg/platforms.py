"""A seed 004 cluster from a SimGrid or Batsim platform file (``--cluster platform.xml``;
decision 373).

Seed 004's platform is one homogeneous cluster of ``P`` processors of speed ``s`` (§1.1,
Table 1 [L451-470]); communication is not modelled [L121-134], so only the compute
resources of the file matter: every ``<host>`` (its ``core`` count, its speed in its
current pstate), every ``<cluster>`` and ``<cabinet>`` (``radical`` hosts of ``core`` cores)
except a host whose ``role`` property is ``master`` (Batsim's convention). Links, routes and
zones are ignored.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from lpsched.errors import ParseError
from lpsched.ptg.model import Cluster


def _count_radical(radical: str, where: str, tag: str) -> int:
    """Hosts named by a SimGrid radical ``"0-63"`` or ``"0-3,8,10-11"``."""
    total = 0
    for part in radical.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            a, b = int(lo), int(hi) if hi else int(lo)
        except ValueError:
            raise ParseError(where, f"<{tag} radical={radical!r}>: not a list of numbers "
                             "and ranges such as 0-63") from None
        if b < a:
            raise ParseError(where, f"<{tag} radical={radical!r}>: range {part!r} is empty")
        total += b - a + 1
    return total


def _speed(el: ET.Element, where: str, tag: str) -> float:
    from lpsched.bags.simgrid import parse_quantity

    raw = el.get("speed")
    if raw is None:
        raise ParseError(where, f"<{tag} id={el.get('id')!r}>: no speed attribute")
    states = [s.strip() for s in raw.split(",")]
    try:
        k = int(el.get("pstate", "0"))
        value, _ = parse_quantity(states[k], "speed")
    except (ValueError, IndexError) as exc:
        raise ParseError(where, f"<{tag} id={el.get('id')!r}> speed={raw!r}: {exc}") from None
    if not math.isfinite(value) or value <= 0:
        raise ParseError(where, f"<{tag} id={el.get('id')!r}> speed={raw!r}: must be > 0")
    return value


def _cores(el: ET.Element, where: str, tag: str) -> int:
    raw = el.get("core", "1")
    try:
        c = int(raw)
    except ValueError:
        c = 0
    if c < 1:
        raise ParseError(where, f"<{tag} id={el.get('id')!r}> core={raw!r}: must be a whole "
                         "number >= 1")
    return c


def cluster_from_platform(path: str | Path) -> Cluster:
    """The homogeneous cluster of a SimGrid/Batsim platform file (seed 004 §1.1).

    Parameters
    ----------
    path : str or Path
        A platform XML file.

    Returns
    -------
    Cluster
        Named after the file; ``processors`` is the number of compute cores, ``speed`` their
        flop/s.

    Raises
    ------
    ParseError
        An unreadable or malformed file, no compute host, or hosts of different speeds
        (seed 004's cluster is homogeneous).
    """
    p = Path(path)
    where = str(p)
    try:
        root = ET.parse(p).getroot()
    except OSError as exc:
        raise ParseError(where, exc.strerror or str(exc)) from None
    except ET.ParseError as exc:
        raise ParseError(where, f"not valid XML: {exc}", exc.position[0]) from None
    if root.tag != "platform":
        raise ParseError(where, f"not a SimGrid platform (root <{root.tag}>, expected "
                         "<platform>)")
    speeds: dict[float, int] = {}
    for el in root.iter():
        if el.tag == "host":
            props = {q.get("id"): q.get("value") for q in el if q.tag == "prop"}
            if props.get("role") == "master":
                continue
            n = _cores(el, where, "host")
        elif el.tag in ("cluster", "cabinet"):
            n = _count_radical(el.get("radical", ""), where, el.tag) * _cores(el, where,
                                                                               el.tag)
        else:
            continue
        s = _speed(el, where, el.tag)
        speeds[s] = speeds.get(s, 0) + n
    if not speeds:
        raise ParseError(where, "no compute host (<host>, <cluster> or <cabinet>) in the "
                         "platform")
    if len(speeds) > 1:
        shown = ", ".join(f"{n} at {s:g} flop/s" for s, n in sorted(speeds.items()))
        raise ParseError(where, f"hosts of different speeds ({shown}): seed 004's cluster "
                         "is homogeneous")
    (speed, count), = speeds.items()
    return Cluster(p.stem, count, speed)
