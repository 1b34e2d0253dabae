"""PTG files: the issue's JSON form and a DOT form (seed 004 §1.2); :func:`load_ptg` also
reads the workflow files other tools write (:mod:`lpsched.ptg.wfformats`: daggen's DOT and
text outputs, WfCommons JSON, Pegasus DAX), and says so when a file is in none of these
formats.

JSON: ``{"tasks": [{"id": "t0", "work": 1.2e10, "alpha": 0.1}, ...], "edges": [["t0",
"t1"], ...]}``; extra keys (top level and per task) are kept on a round trip. DOT: a
``digraph`` whose nodes carry ``work`` and ``alpha`` attributes, as :func:`to_dot` writes it
(the reader accepts that subset of DOT: one node or edge statement per line).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from lpsched.errors import InvalidInstanceError, ParseError
from lpsched.ptg.model import PTG, make_ptg
from lpsched.ptg.wfformats import (
    REFERENCE_SPEED,
    from_daggen_text,
    from_dax,
    from_dot_any,
    from_wfcommons,
    is_daggen_text,
    is_wfcommons,
    unknown_format,
    unquote_id,
)


def ptg_from_dict(data: Any, name: str = "", alpha: float | None = None) -> PTG:
    """A validated :class:`PTG` from the JSON form (InvalidInstanceError naming the field).

    Parameters
    ----------
    data : object
        The parsed JSON document (a mapping with ``tasks`` and ``edges``; extra keys kept).
    name : str
        Name used when the document has none, and in error messages.
    alpha : float, optional
        α of the tasks that give none (``--alpha``); default 0
        (:attr:`PTG.alpha_from` says ``"absent"``).

    Returns
    -------
    PTG
        Tasks in topological order with their work (flop) and ``α``.
    """
    if not isinstance(data, dict):
        raise InvalidInstanceError("ptg", type(data).__name__, "must be a JSON object")
    tasks, edges = data.get("tasks"), data.get("edges", [])
    if not isinstance(tasks, list) or not tasks:
        raise InvalidInstanceError("tasks", tasks, "must be a non-empty list of tasks")
    if not isinstance(edges, list):
        raise InvalidInstanceError("edges", edges, "must be a list of [from, to] pairs")
    ids, work, alphas, extra, origin = [], [], [], [], []
    for i, t in enumerate(tasks):
        if not isinstance(t, dict):
            raise InvalidInstanceError(f"tasks[{i}]", t, "must be an object")
        for key in ("id", "work"):
            if key not in t:
                raise InvalidInstanceError(f"tasks[{i}].{key}", None, "missing")
        ids.append(t["id"])
        work.append(t["work"])
        given = "alpha" in t
        alphas.append(t["alpha"] if given else 0.0 if alpha is None else alpha)
        origin.append("file" if given else "absent" if alpha is None else "option")
        extra.append({k: v for k, v in t.items() if k not in ("id", "work", "alpha")})
    top = {k: v for k, v in data.items() if k not in ("tasks", "edges", "name")}
    label = data.get("name", name)
    return make_ptg(ids, work, alphas, [tuple(e) if isinstance(e, list) else e for e in edges],
                    label if isinstance(label, str) else name, top, extra,
                    alpha_from=origin, read_from="json")


def _reject_constant(token: str) -> None:
    raise ValueError(f"{token} is not a JSON number")


def detect_format(path: str | Path, text: str) -> str:
    """The format of a workflow file, from its content, its suffix or its first character.

    ``"daggen"`` when its content is daggen's text output
    (:func:`~lpsched.ptg.wfformats.is_daggen_text`: ``NODE`` lines after ``//`` comments,
    whatever the suffix), else ``"json"``, ``"dot"`` or ``"dax"``, from its suffix (``.json``;
    ``.dot``/``.gv``; ``.dax``/``.xml``), else from its first character (``{``, ``<``, or a
    ``digraph`` keyword or ``//`` comment); ``""`` when none fits.

    Parameters
    ----------
    path : str or Path
        The file (its suffix).
    text : str
        Its content.

    Returns
    -------
    str
        ``"daggen"``, ``"json"``, ``"dot"``, ``"dax"`` or ``""``.

    Notes
    -----
    The detection and its one-line error are decision 374.
    """
    if is_daggen_text(text):
        return "daggen"
    suffix = Path(path).suffix.lower()
    if suffix in (".dot", ".gv"):
        return "dot"
    if suffix in (".dax", ".xml"):
        return "dax"
    if suffix == ".json":
        return "json"
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith(("{", "[")):
        return "json"
    if head.startswith("<"):
        return "dax"
    first = re.split(r"[\s{]", head, maxsplit=2)
    if (first and first[0].lower() in ("digraph", "strict")) or head.startswith(("//", "/*")):
        return "dot"
    return ""


def ptg_from_document(data: Any, name: str = "", source: str | None = None,
                      speed: float = REFERENCE_SPEED, alpha: float | None = None) -> PTG:
    """A PTG from a parsed JSON document in either JSON format lpsched reads: its own or a
    WfCommons instance.

    lpsched's format has a top-level ``tasks`` list (:func:`ptg_from_dict`), a WfCommons
    instance a ``workflow`` object. Anything else raises the one-line unknown-format
    :class:`ParseError` naming the formats read.

    Parameters
    ----------
    data : Any
        The parsed JSON.
    name : str
        The PTG name when the document has none.
    source : str, optional
        The file named in errors.
    speed : float
        Flop/s of a processor of the target cluster (used by WfCommons runtimes only).
    alpha : float, optional
        α of the tasks that give none (``--alpha``); ``None``: 1/recorded cores for a
        WfCommons task, 0 for an lpsched task.

    Returns
    -------
    PTG
        The validated graph.

    Notes
    -----
    WfCommons runtimes become work by decision 371; the unknown-format error is decision 374.
    """
    if is_wfcommons(data):
        return from_wfcommons(data, name, source, speed, alpha)
    if isinstance(data, dict) and "tasks" in data:
        return ptg_from_dict(data, name, alpha)
    what = (f"a JSON object with keys {', '.join(sorted(map(str, data))[:6]) or '(none)'}"
            if isinstance(data, dict) else f"a JSON {type(data).__name__}")
    raise unknown_format(source or name or "json", what)


def load_ptg(path: str | Path, speed: float = REFERENCE_SPEED,
             alpha: float | None = None) -> PTG:
    """Read a PTG from a workflow file in any format lpsched reads.

    Parameters
    ----------
    path : str or Path
        lpsched's JSON, DOT (lpsched's or daggen's ``--dot``), daggen's text output, a
        WfCommons JSON instance or a Pegasus DAX; the format comes from
        :func:`detect_format`.
    speed : float
        Flop/s of a processor of the cluster the PTG will be scheduled on: WfCommons and DAX
        files record runtimes, turned into work by
        :func:`~lpsched.ptg.wfformats.amdahl_from_trace` (default
        :data:`~lpsched.ptg.wfformats.REFERENCE_SPEED`).
    alpha : float, optional
        Amdahl's non-parallel fraction of every task whose file gives none (``--alpha``);
        ``None``: 1/recorded cores for a WfCommons or DAX task (1, sequential, on one core),
        0 for a DOT or lpsched JSON task.

    Returns
    -------
    PTG
        The validated graph (seed 004 §1.2).

    Raises
    ------
    ParseError
        An unreadable or malformed file (with its line or field), or one in no format
        lpsched reads (one line naming those formats).
    InvalidInstanceError
        lpsched's own JSON holding an invalid graph (naming the field).
    """
    from lpsched.core.inputs import max_json_bytes, read_input

    p = Path(path)
    raw = read_input(p, max_json_bytes(), "graph file")  # a file or a pipe, size-checked
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError(str(p), "not UTF-8 text") from None
    fmt = detect_format(p, text)
    if fmt == "daggen":
        return from_daggen_text(text, p.stem, str(p))
    if fmt == "dot":
        return from_dot_any(text, p.stem, str(p), alpha)
    if fmt == "dax":
        return from_dax(text, p.stem, str(p), speed, alpha)
    if fmt != "json":
        raise unknown_format(str(p), "neither JSON, XML nor a DOT digraph")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ParseError(str(p), f"not valid JSON: {exc}") from None
    return ptg_from_document(data, p.stem, str(p), speed, alpha)


def to_json(ptg: PTG) -> str:
    """The JSON text of :meth:`PTG.to_dict`.

    Parameters
    ----------
    ptg : PTG
        The graph to write.

    Returns
    -------
    str
        The JSON document, read back by :func:`ptg_from_dict`.
    """
    return json.dumps(ptg.to_dict(), indent=1)


def to_dot(ptg: PTG) -> str:
    """A DOT ``digraph`` (dummy tasks omitted).

    Parameters
    ----------
    ptg : PTG
        The graph to write.

    Returns
    -------
    str
        The DOT text, each task with its work and ``α`` as attributes; read back by
        :func:`from_dot`.
    """
    d = ptg.to_dict()
    lines = [f"digraph {json.dumps(ptg.name or 'ptg')} {{"]
    lines += [f'  {json.dumps(t["id"])} [work={t["work"]!r}, alpha={t["alpha"]!r}];'
              for t in d["tasks"]]
    lines += [f"  {json.dumps(u)} -> {json.dumps(v)};" for u, v in d["edges"]]
    lines.append("}")
    return "\n".join(lines) + "\n"


_NODE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*\[(.*)\]\s*;?\s*$')
_EDGE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*->\s*"((?:[^"\\]|\\.)*)"\s*;?\s*$')
_ATTR = re.compile(r"(\w+)\s*=\s*\"?([^,\"\]]+)\"?")


_unquote = unquote_id


def from_dot(text: str, name: str = "", source: str | None = None) -> PTG:
    """Parse the DOT subset :func:`to_dot` writes (ParseError on any other line, located
    in ``source``, default ``name``).

    Parameters
    ----------
    text : str
        The DOT document.
    name : str
        The PTG's name when the ``digraph`` has none.
    source : str, optional
        Where the text comes from (a file name), for error messages.

    Returns
    -------
    PTG
        The validated graph.
    """
    where = source or name or "dot"
    tasks: list[dict[str, Any]] = []
    edges: list[list[str]] = []
    for k, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith(("digraph", "}", "//")):
            continue
        if m := _EDGE.match(s):
            edges.append([_unquote(m[1], where, k), _unquote(m[2], where, k)])
        elif m := _NODE.match(s):
            attrs = dict(_ATTR.findall(m[2]))
            tid = _unquote(m[1], where, k)
            try:
                tasks.append({"id": tid, "work": float(attrs["work"]),
                              **({"alpha": float(attrs["alpha"])} if "alpha" in attrs
                                 else {})})
            except (KeyError, ValueError):
                raise ParseError(where, "a node needs numeric work and alpha", k) from None
        else:
            raise ParseError(where, f"unsupported DOT statement {s[:40]!r}", k)
    if not tasks:
        raise ParseError(where, "no task node: declare each task as "
                         '"id" [work=..., alpha=...]; before the edges')
    return ptg_from_dict({"tasks": tasks, "edges": edges}, name)
