"""A platform (or deployment) file's bytes and XML tree, hardened, with each element's line.

Reading is hardened like lpsched's other readers: at most :data:`MAX_PLATFORM_BYTES` bytes
(a regular file is refused from its size, a pipe after that many bytes), no ``DOCTYPE``
internal subset (so no entity or attribute declarations: no "billion laughs" expansion, no
injected defaults; the usual external ``<!DOCTYPE platform SYSTEM
"https://simgrid.org/simgrid.dtd">`` is accepted and never fetched). Blank lines before the
XML declaration are skipped, as SimGrid's parser does (Batsim ships such files). Every
attribute must be one SimGrid's DTD declares for its element (:data:`ATTRIBUTES`): SimGrid's
parser refuses any other (``Bad attribute``), and so does lpsched, naming it and the line,
so that a misspelt attribute is never silently ignored.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.parsers import expat

from lpsched.errors import ParseError

__all__ = ["ATTRIBUTES", "MAX_PLATFORM_BYTES", "parse_xml", "read_bytes"]

#: The largest platform file read, in bytes (a star of 100,000 workers takes about 30 MB).
MAX_PLATFORM_BYTES = 128 * 2**20

_GATEWAYS = frozenset({"src", "dst", "gw_src", "gw_dst"})
_ROUTES = frozenset({"src", "dst", "gw_src", "gw_dst", "symmetrical"})
_ACTORS = frozenset({"host", "function", "start_time", "kill_time", "on_failure"})
#: The attributes SimGrid's DTD (``simgrid.dtd``, version 4.1) declares for each element.
ATTRIBUTES: dict[str, frozenset[str]] = {
    "platform": frozenset({"version"}),
    "include": frozenset({"file"}),
    "trace": frozenset({"id", "file", "periodicity"}),
    "random": frozenset({"id", "min", "max", "mean", "std_deviation", "seed", "radical",
                         "generator"}),
    "trace_connect": frozenset({"kind", "trace", "element"}),
    "AS": frozenset({"id", "routing"}),
    "zone": frozenset({"id", "routing"}),
    "storage_type": frozenset({"id", "model", "size", "content"}),
    "storage": frozenset({"id", "typeId", "content", "attach"}),
    "mount": frozenset({"storageId", "name"}),
    "host": frozenset({"id", "speed", "core", "speed_file", "availability_file", "state_file",
                       "coordinates", "pstate"}),
    "disk": frozenset({"id", "read_bw", "write_bw"}),
    "host_link": frozenset({"id", "up", "down"}),
    "cluster": frozenset({"id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat",
                          "sharing_policy", "topology", "topo_parameters", "bb_bw", "bb_lat",
                          "bb_sharing_policy", "router_id", "limiter_link", "loopback_bw",
                          "loopback_lat"}),
    "cabinet": frozenset({"id", "prefix", "suffix", "radical", "speed", "bw", "lat"}),
    "peer": frozenset({"id", "speed", "bw_in", "bw_out", "lat", "coordinates", "speed_file",
                       "availability_file", "state_file"}),
    "router": frozenset({"id", "coordinates"}),
    "backbone": frozenset({"id", "bandwidth", "latency"}),
    "link": frozenset({"id", "bandwidth", "bandwidth_file", "latency", "latency_file",
                       "state_file", "sharing_policy"}),
    "route": frozenset({"src", "dst", "symmetrical"}),
    "ASroute": _ROUTES,
    "zoneRoute": _ROUTES,
    "bypassASroute": _GATEWAYS,
    "bypassZoneRoute": _GATEWAYS,
    "bypassRoute": frozenset({"src", "dst"}),
    "link_ctn": frozenset({"id", "direction"}),
    "process": _ACTORS,
    "actor": _ACTORS,
    "argument": frozenset({"value"}),
    "config": frozenset({"id"}),
    "prop": frozenset({"id", "value"}),
    "model_prop": frozenset({"id", "value"}),
}


def read_bytes(path: str | Path, what: str = "a platform file") -> bytes:
    """Read the bytes of a platform or deployment file, refusing one too large.

    Parameters
    ----------
    path : str or Path
        A regular file or a stream (``/dev/stdin``, a pipe).
    what : str
        What the file is, for the refusal.

    Returns
    -------
    bytes
        The whole content.

    Raises
    ------
    ParseError
        The file cannot be read, or is larger than :data:`MAX_PLATFORM_BYTES`.
    """
    p = Path(path)
    limit = MAX_PLATFORM_BYTES
    try:
        if p.is_file() and p.stat().st_size > limit:
            raise ParseError(str(p), f"{p.stat().st_size} bytes: larger than the {limit} "
                             f"bytes lpsched reads as {what}")
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ParseError(str(p), f"more than {limit} bytes: larger than the {limit} bytes "
                         f"lpsched reads as {what}")
    return data


def parse_xml(raw: bytes, path: str) -> tuple[ET.Element, dict[ET.Element, int]]:
    """Parse a platform file's bytes into an element tree, with the line of each element.

    Parameters
    ----------
    raw : bytes
        The document (decoded by expat, honouring its encoding declaration).
    path : str
        The file name in error messages.

    Returns
    -------
    tuple of (Element, dict)
        The root element and the line of every element.

    Raises
    ------
    ParseError
        Not well-formed XML, a DOCTYPE internal subset or an entity declaration, or an
        attribute SimGrid's DTD does not declare for its element.
    """
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    lines: dict[ET.Element, int] = {}
    skipped = 0
    body = raw.lstrip()
    if body[:5] == b"<?xml" and len(body) < len(raw):
        skipped = raw[:len(raw) - len(body)].count(b"\n")
        raw = body

    def start(tag: str, attrs: dict[str, str]) -> None:
        line = parser.CurrentLineNumber + skipped
        lines[builder.start(tag, attrs)] = line
        _check_attributes(tag, attrs, path, line)

    def doctype(name: str, sysid: str | None, pubid: str | None, internal: int) -> None:
        if internal:
            raise ParseError(path, "a DOCTYPE with an internal subset ([...]: entity or "
                             "attribute declarations) is not accepted; SimGrid files use "
                             "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">",
                             parser.CurrentLineNumber + skipped)

    def entity(*_: Any) -> None:
        raise ParseError(path, "entity declarations are not accepted in a platform file",
                         parser.CurrentLineNumber + skipped)

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as exc:
        raise ParseError(path, f"not a SimGrid platform: not valid XML (not well-formed XML "
                         f"at column {exc.offset + 1}: {expat.ErrorString(exc.code)})",
                         exc.lineno + skipped) from None
    except RecursionError:
        raise ParseError(path, "XML nested too deeply") from None
    return builder.close(), lines


def _check_attributes(tag: str, attrs: dict[str, str], path: str, line: int) -> None:
    """Refuse an attribute SimGrid's DTD does not declare for ``tag`` (unknown tags pass:
    the reader names them in their context)."""
    allowed = ATTRIBUTES.get(tag)
    if allowed is None:
        return
    extra = sorted(set(attrs) - allowed)
    if extra:
        ident = attrs.get("id")
        what = f"<{tag} id={ident!r}>" if ident else f"<{tag}>"
        raise ParseError(path, f"{what}: attribute {extra[0]!r} is not one SimGrid reads on "
                         f"<{tag}> (SimGrid refuses the file; its attributes are "
                         f"{', '.join(sorted(allowed))})", line)
