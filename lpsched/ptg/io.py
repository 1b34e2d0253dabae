"""PTG files: the issue's JSON form and a DOT form (seed 004 §1.2).

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


def ptg_from_dict(data: Any, name: str = "") -> PTG:
    """A validated :class:`PTG` from the JSON form (InvalidInstanceError naming the field)."""
    if not isinstance(data, dict):
        raise InvalidInstanceError("ptg", type(data).__name__, "must be a JSON object")
    tasks, edges = data.get("tasks"), data.get("edges", [])
    if not isinstance(tasks, list) or not tasks:
        raise InvalidInstanceError("tasks", tasks, "must be a non-empty list of tasks")
    if not isinstance(edges, list):
        raise InvalidInstanceError("edges", edges, "must be a list of [from, to] pairs")
    ids, work, alpha, extra = [], [], [], []
    for i, t in enumerate(tasks):
        if not isinstance(t, dict):
            raise InvalidInstanceError(f"tasks[{i}]", t, "must be an object")
        for key in ("id", "work"):
            if key not in t:
                raise InvalidInstanceError(f"tasks[{i}].{key}", None, "missing")
        ids.append(t["id"])
        work.append(t["work"])
        alpha.append(t.get("alpha", 0.0))
        extra.append({k: v for k, v in t.items() if k not in ("id", "work", "alpha")})
    top = {k: v for k, v in data.items() if k not in ("tasks", "edges", "name")}
    label = data.get("name", name)
    return make_ptg(ids, work, alpha, [tuple(e) if isinstance(e, list) else e for e in edges],
                    label if isinstance(label, str) else name, top, extra)


def _reject_constant(token: str) -> None:
    raise ValueError(f"{token} is not a JSON number")


def load_ptg(path: str | Path) -> PTG:
    """Read a PTG from a ``.json`` or ``.dot``/``.gv`` file (ParseError on an unreadable
    file, InvalidInstanceError on an invalid graph)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParseError(str(p), exc.strerror or str(exc)) from None
    if p.suffix.lower() in (".dot", ".gv"):
        return from_dot(text, p.stem, str(p))
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ParseError(str(p), f"not valid JSON: {exc}") from None
    return ptg_from_dict(data, p.stem)


def to_json(ptg: PTG) -> str:
    """The JSON text of :meth:`PTG.to_dict`."""
    return json.dumps(ptg.to_dict(), indent=1)


def to_dot(ptg: PTG) -> str:
    """A DOT ``digraph`` (dummy tasks omitted)."""
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


def _unquote(token: str, where: str, line: int) -> str:
    """The DOT id inside a pair of quotes, decoded with JSON's escapes (ParseError on an
    escape or character JSON does not accept, e.g. ``"a\\q"``)."""
    try:
        value = json.loads(f'"{token}"')
    except ValueError as exc:
        why = getattr(exc, "msg", str(exc))
        raise ParseError(where, f"invalid quoted id {token[:40]!r}: {why} (use JSON "
                         "string escapes: \\\\, \\\", \\n, \\uXXXX)", line) from None
    return str(value)


def from_dot(text: str, name: str = "", source: str | None = None) -> PTG:
    """Parse the DOT subset :func:`to_dot` writes (ParseError on any other line, located
    in ``source``, default ``name``)."""
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
                              "alpha": float(attrs.get("alpha", 0.0))})
            except (KeyError, ValueError):
                raise ParseError(where, "a node needs numeric work and alpha", k) from None
        else:
            raise ParseError(where, f"unsupported DOT statement {s[:40]!r}", k)
    if not tasks:
        raise ParseError(where, "no task node: declare each task as "
                         '"id" [work=..., alpha=...]; before the edges')
    return ptg_from_dict({"tasks": tasks, "edges": edges}, name)
