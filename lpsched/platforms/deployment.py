"""SimGrid deployment files: the actors, each on a host, with its function and arguments.

A deployment file is a ``<platform>`` of ``<actor host function>`` elements (the older
``<process>`` too) with ``<argument value>`` children; SimGrid also accepts actors at the end
of a platform file itself (:attr:`lpsched.platforms.Platform.actors`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from lpsched.errors import ParseError
from lpsched.platforms import xmlfile
from lpsched.platforms.model import Actor

__all__ = ["actor_of", "parse_deployment", "read_deployment"]


def actor_of(el: ET.Element, line: int,
             fail: Callable[[str, ET.Element], ParseError]) -> Actor:
    """One ``<actor host function>`` (or ``<process>``) with its ``<argument value>``\\ s.

    Parameters
    ----------
    el : Element
        The ``<actor>``.
    line : int
        Its line.
    fail : callable
        ``fail(message, element)``: the error to raise at an element's line.

    Returns
    -------
    Actor
        The actor.
    """
    args = []
    for child in el:
        if child.tag == "argument":
            if child.get("value") is None:
                raise fail("<argument> has no value attribute", child)
            args.append(child.get("value", ""))
        elif child.tag != "prop":
            raise fail(f"<{child.tag}> inside <{el.tag}>: expected <argument> or <prop>", child)
    for name in ("host", "function"):
        if el.get(name) is None:
            raise fail(f"<{el.tag}> has no {name} attribute", el)
    return Actor(el.get("host", ""), el.get("function", ""), tuple(args), line)


def parse_deployment(raw: str | bytes, path: str = "<string>") -> tuple[Actor, ...]:
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
        The actors.

    Raises
    ------
    ParseError
        Not XML, not a ``<platform>``, or an element other than ``<actor>``/``<process>``
        (a platform file given as the deployment).

    Examples
    --------
    >>> xml = '''<platform version="4.1"><actor host="a" function="master">
    ...   <argument value="20"/></actor><actor host="b" function="worker"/></platform>'''
    >>> [(a.host, a.function, a.arguments) for a in parse_deployment(xml)]
    [('a', 'master', ('20',)), ('b', 'worker', ())]
    """
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > xmlfile.MAX_PLATFORM_BYTES:
        raise ParseError(path, f"{len(data)} bytes: larger than the "
                         f"{xmlfile.MAX_PLATFORM_BYTES} bytes lpsched reads as a deployment "
                         "file")
    root, lines = xmlfile.parse_xml(data, path)

    def fail(message: str, element: ET.Element) -> ParseError:
        return ParseError(path, message, lines.get(element))

    if root.tag != "platform":
        raise fail(f"the root element is <{root.tag}>, not <platform>: not a SimGrid "
                   "deployment file", root)
    actors = []
    for child in root:
        if child.tag in ("actor", "process"):
            actors.append(actor_of(child, lines[child], fail))
        elif child.tag != "config":
            raise fail(f"<{child.tag}> in a deployment file: expected <actor> elements "
                       "(is this the platform file?)", child)
    return tuple(actors)


def read_deployment(path: str | Path) -> tuple[Actor, ...]:
    """Read the actors of the SimGrid deployment file ``path``.

    Parameters
    ----------
    path : str or Path
        A SimGrid deployment file.

    Returns
    -------
    tuple of Actor
        The actors, in the file's order (:func:`parse_deployment`).

    Raises
    ------
    ParseError
        When the file cannot be read or is not a deployment file.
    """
    return parse_deployment(xmlfile.read_bytes(path, "a deployment file"), str(path))
