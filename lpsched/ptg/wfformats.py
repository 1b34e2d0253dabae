"""Workflow files other tools write, read as PTGs (seed 004 §1.2-§1.3).

* **DOT** as graph tools write it: daggen's ``--dot`` output (``1 [size="2e9", alpha="0.05"]``,
  ``1 -> 2 [size ="8e6"]``; decision 370), unquoted or quoted ids, ``;`` or newlines between
  statements, chained edges ``a -> b -> c``, ``node [...]`` defaults, comments. Work comes
  from ``work`` or daggen's ``size`` (flop), α from ``alpha`` (else ``--alpha``, else 0). A
  node stated twice with different values of one attribute keeps the later value (DOT's
  rule) and says so in a :class:`WorkflowFileWarning` naming the node, the attribute and
  both lines; identical repetitions are silent.
* **daggen's text format** (its default output, :func:`from_daggen_text`), as daggen's
  ``outputDAG`` writes it (``daggen_commons.c``, frs69wq/daggen): ``NODE_COUNT n``, then one
  ``NODE <index> <children|-> <type> <cost> <alpha>`` line per node, ``type`` one of
  ``ROOT`` (the zero-cost entry), ``COMPUTATION`` (cost: the sequential work in flop; the
  last field: Amdahl's α), ``TRANSFER`` (cost: the bytes sent to its one child), ``END``
  (the zero-cost exit). A computation's children are its transfers; each transfer's child is
  the task receiving the data: the edge ``u -> v`` with its bytes.
* **WfCommons JSON** instances, schema 1.4 (``workflow.tasks``) and 1.5
  (``workflow.specification.tasks`` + ``workflow.execution.tasks``), and **Pegasus DAX**
  (XML ``<job id runtime>``, ``<child ref><parent ref/></child>``; decision 372), mapped to
  Amdahl tasks by :func:`amdahl_from_trace`.

**Recorded runtimes as Amdahl tasks** (decision 371; the default α is decision 484). A task
recorded as ``r`` seconds on ``c`` cores (1 when the file gives no cores) runs as the file
records it: ``r`` seconds on ``c`` processors of the cluster used. Its work is
``w = r · s / (α + (1 − α)/c)`` for a processor speed ``s``, so that
``T(c) = w/s · (α + (1 − α)/c) = r`` whatever ``s`` (seed 004's Amdahl time [L493-498]). α is,
first found: the task's own ``alpha`` (not a WfCommons field; some generated files add
it); the user's ``--alpha`` (``alpha=`` here) for every task without one; else
``α = 1/c``. A record shows a task using its ``c`` cores and says nothing of more, so the
default puts Amdahl's speed-up limit ``1/α`` at those ``c`` cores:

* a task recorded on **one core is sequential** (α = 1): ``T(p) = r`` on any ``p`` — more
  processors gain it nothing, which is all a one-core record supports;
* a task recorded on ``c > 1`` cores takes ``r`` on ``c`` processors, ``r·c²/(2c − 1)`` on
  one (work ``c·r`` core-seconds on ``c``, as recorded) and never less than
  ``r·c/(2c − 1)`` (more than ``r/2``) however many it gets.

``--alpha 0`` is the perfectly parallel reading (``w = r·c·s``: one core's work times the
cores); a seed-like value (α in [0, 0.25] [L494-497]) lets seed 004's
moldable algorithms spread the tasks. A runtime of 0 s (real WfCommons traces have some) is
raised to :data:`MIN_RUNTIME`, since seed 004's work is > 0. Each task's recorded runtime
and cores stay in ``task_extra`` (``runtime``, ``cores``, ``type``; ``recorded_runtime``
when raised), the speed in ``extra["reference_speed"]``, where each α came from in
:attr:`~lpsched.ptg.model.PTG.alpha_from`; :mod:`lpsched.ptg.assumptions` states every such
default where a command prints its numbers.

Seed 004 models no communication [L121-134]: edge data sizes (daggen's edge ``size``, a
transfer's cost) are kept in ``PTG.extra["edge_data"]`` (``[from, to, bytes]``) and unused
by the algorithms.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import PurePath
from typing import Any

from lpsched.errors import InvalidInstanceError, LpschedWarning, ParseError
from lpsched.ptg.model import PTG, make_ptg

#: flop/s used to turn recorded runtimes into work when no cluster speed is given
REFERENCE_SPEED = 1e9

#: the formats :func:`lpsched.ptg.io.load_ptg` reads, named in the unknown-format error
FORMATS = ("lpsched PTG JSON", "DOT (lpsched, daggen --dot)", "daggen text (NODE lines)",
           "WfCommons JSON (schema 1.4, 1.5)", "Pegasus DAX (XML)")

#: where a task's α came from (:attr:`lpsched.ptg.model.PTG.alpha_from`): the file gives it;
#: ``--alpha``; 1/recorded cores (a WfCommons or DAX task without one); 0 because a DOT or
#: lpsched JSON task gives none; a dummy entry/exit
ALPHA_ORIGINS = ("file", "option", "cores", "absent", "dummy")


class WorkflowFileWarning(LpschedWarning):
    """A workflow file read with a choice the user should know of (e.g. a DOT node defined twice
    with different attributes: the later one kept).

    The command line sums warnings up in one ``lpsched: note:`` line on stderr.
    """


def unknown_format(where: str, what: str) -> ParseError:
    """The one-line error for a file in no format lpsched reads.

    Parameters
    ----------
    where : str
        The file named in the message.
    what : str
        What the file was found to be (e.g. ``"a JSON object with keys foo"``).

    Returns
    -------
    ParseError
        To raise; its message lists :data:`FORMATS`.

    Notes
    -----
    The error's form is decision 374.
    """
    return ParseError(where, f"{what}: not a workflow format lpsched reads; it reads "
                      f"{', '.join(FORMATS)}")


# --------------------------------------------------------------------------- DOT

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)
  | (?P<arrow>->|--)
  | (?P<punct>[{}\[\];,=:])
  | (?P<quoted>"(?:[^"\\]|\\.)*")
  | (?P<html><[^>]*>)
  | (?P<id>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
          |[A-Za-z_\x80-\uffff][\w.\x80-\uffff]*)
""", re.VERBOSE | re.DOTALL)


def unquote_id(token: str, where: str, line: int) -> str:
    """The DOT id inside a pair of quotes, decoded with JSON's escapes, as
    :func:`lpsched.ptg.io.to_dot` writes them (ParseError on an escape JSON does not accept,
    e.g. ``"a\\q"``).

    Parameters
    ----------
    token : str
        The text between the quotes.
    where, line : str, int
        The file and line named in the error.

    Returns
    -------
    str
        The decoded id.
    """
    try:
        value = json.loads(f'"{token}"')
    except ValueError as exc:
        why = getattr(exc, "msg", str(exc))
        raise ParseError(where, f"invalid quoted id {token[:40]!r}: {why} (use JSON "
                         "string escapes: \\\\, \\\", \\n, \\uXXXX)", line) from None
    return str(value)


def _tokens(text: str, where: str) -> list[tuple[str, str, int]]:
    """``(kind, value, line)`` of every DOT token (ParseError on a character DOT has not)."""
    out: list[tuple[str, str, int]] = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(where, f"unexpected character {text[pos]!r} in DOT", line)
        kind, value = m.lastgroup or "", m.group()
        if kind == "quoted":
            out.append(("id", unquote_id(value[1:-1].replace("\\\n", ""), where, line), line))
        elif kind in ("id", "arrow", "punct"):
            out.append((kind if kind != "punct" else value, value, line))
        elif kind == "html":
            raise ParseError(where, "HTML-like DOT labels are not read", line)
        line += value.count("\n")
        pos = m.end()
    return out


def _number(attrs: dict[str, str], key: str, where: str, line: int, what: str) -> float:
    raw = attrs[key]
    try:
        x = float(raw)
    except ValueError:
        raise ParseError(where, f"{what} {key}={raw!r} is not a number", line) from None
    if not math.isfinite(x):
        raise ParseError(where, f"{what} {key}={raw!r} is not a finite number", line)
    return x


def from_dot_any(text: str, name: str = "", source: str | None = None,
                 alpha: float | None = None) -> PTG:
    """A PTG from DOT as graph tools write it: daggen's ``--dot`` output and lpsched's own
    ``to_dot``.

    Parameters
    ----------
    text : str
        The DOT text: one ``digraph``; node statements carry ``work`` or ``size`` (flop,
        seed 004 §1.3 [L493-498]) and optionally ``alpha``; edge statements may carry
        ``size`` (bytes, kept as ``extra["edge_data"]``, unused: no communication model
        [L121-134]).
    name : str
        The PTG's name when the graph has none.
    source : str, optional
        The file named in errors.
    alpha : float, optional
        α of the nodes that give none (``--alpha``); default 0.

    Returns
    -------
    PTG
        The validated graph (dummy entry/exit added where needed).

    Raises
    ------
    ParseError
        With the line: a statement that is not DOT, a subgraph, a node without work, a
        non-numeric attribute, an edge to an undeclared node.

    Warns
    -----
    WorkflowFileWarning
        Nodes stated twice with different values of an attribute (the later kept).

    Notes
    -----
    What is read and refused is decision 370; a node stated twice is decision 484.
    """
    where = source or name or "dot"
    parser = _DotParser(_tokens(text, where), where)
    graph_name, nodes, edges = parser.graph()
    if parser.conflicts:
        warnings.warn(_conflict_message(where, parser.conflicts), WorkflowFileWarning,
                      stacklevel=2)
    ids, work, alphas, origin = _dot_tasks(nodes, where, alpha)
    edge_data = []
    for u, v, attrs, line in edges:
        for end in (u, v):
            if end not in nodes:
                raise ParseError(where, f"edge {u} -> {v}: node {end!r} is not declared "
                                 "with its work", line)
        if "size" in attrs:
            edge_data.append([u, v, _number(attrs, "size", where, line, f"edge {u} -> {v}")])
    extra: dict[str, Any] = {"edge_data": edge_data} if edge_data else {}
    try:
        return make_ptg(ids, work, alphas, [(u, v) for u, v, _, _ in edges],
                        name or graph_name, extra, alpha_from=origin, read_from="dot")
    except InvalidInstanceError as exc:
        raise ParseError(where, str(exc)) from None


_Nodes = dict[str, tuple[dict[str, str], int]]
_Edges = list[tuple[str, str, dict[str, str], int]]
#: a node attribute given twice: node, key, (value, line) kept, (value, line) replaced
_Conflict = tuple[str, str, tuple[str, int], tuple[str, int]]


def _same_value(a: str, b: str) -> bool:
    """Two DOT attribute values say the same (``"2e9"`` and ``"2000000000"`` do)."""
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def _conflict_message(where: str, conflicts: list[_Conflict]) -> str:
    """One line naming every node stated twice with different values (the first five),
    most telling part first; the file by its name."""
    nodes = list(dict.fromkeys(c[0] for c in conflicts))
    shown = "; ".join(f"node {node!r} {key}={new!r} (line {nline}) replaces {old!r} "
                      f"(line {oline})" for node, key, (new, nline), (old, oline)
                      in conflicts[:5])
    more = f"; and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    name = PurePath(where).name
    if len(nodes) == 1:
        return (f"{name}: {shown}{more}: a DOT node defined twice with different values "
                "keeps the later one")
    return (f"{name}: {len(nodes)} DOT nodes defined twice with different values, the later "
            f"kept: {shown}{more}")


def _dot_tasks(nodes: _Nodes, where: str, alpha: float | None,
               ) -> tuple[list[str], list[float], list[float], list[str]]:
    """The ids, work (``work`` or daggen's ``size``, flop), ``alpha`` (``alpha`` when the
    node has one, else the option's, else 0) and where each α came from."""
    ids, work, alphas, origin = [], [], [], []
    for tid, (attrs, line) in nodes.items():
        key = "work" if "work" in attrs else "size" if "size" in attrs else None
        if key is None:
            raise ParseError(where, f"node {tid!r} has no work: give it work=<flop> (or "
                             "daggen's size=<flop>)", line)
        ids.append(tid)
        work.append(_number(attrs, key, where, line, f"node {tid!r}"))
        if "alpha" in attrs:
            alphas.append(_number(attrs, "alpha", where, line, f"node {tid!r}"))
            origin.append("file")
        else:
            alphas.append(0.0 if alpha is None else alpha)
            origin.append("absent" if alpha is None else "option")
    if not ids:
        raise ParseError(where, "no task node: declare each task as id [size=<flop>, "
                         "alpha=<0..1>] (daggen) or id [work=..., alpha=...]")
    return ids, work, alphas, origin


class _DotParser:
    """A recursive-descent reader of one DOT ``digraph`` over :func:`_tokens`' tokens
    (``(kind, text, line)``), for :func:`from_dot_any`."""

    def __init__(self, toks: list[tuple[str, str, int]], where: str) -> None:
        self.toks, self.where, self.i = toks, where, 0
        #: per node, the attributes its statements gave and the line of each
        self.given: dict[str, dict[str, tuple[str, int]]] = {}
        self.conflicts: list[_Conflict] = []

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        """The token ``k`` ahead (an ``eof`` token past the end)."""
        toks, i = self.toks, self.i
        return toks[i + k] if i + k < len(toks) else ("eof", "", toks[-1][2] if toks else 1)

    def expect(self, kind: str) -> tuple[str, str, int]:
        """The next token, which must be of ``kind``."""
        t = self.peek()
        if t[0] != kind:
            raise ParseError(self.where, f"expected {kind!r}, found "
                             f"{t[1] or 'end of file'!r}", t[2])
        self.i += 1
        return t

    def attr_list(self) -> dict[str, str]:
        """Every ``[key = value, ...]`` block at this point, merged (keys lower-cased)."""
        attrs: dict[str, str] = {}
        while self.peek()[0] == "[":
            self.i += 1
            while self.peek()[0] != "]":
                key = self.expect("id")[1]
                self.expect("=")
                attrs[key.lower()] = self.expect("id")[1]
                if self.peek()[0] in (",", ";"):
                    self.i += 1
            self.i += 1
        return attrs

    def graph(self) -> tuple[str, _Nodes, _Edges]:
        """``[strict] digraph [name] { statements }``: its name, nodes and edges."""
        where = self.where
        if not self.toks:
            raise ParseError(where, "empty DOT file: no 'digraph { ... }'")
        if self.peek()[0] == "id" and self.peek()[1].lower() == "strict":
            self.i += 1
        head = self.peek()
        if head[0] != "id" or head[1].lower() != "digraph":
            raise ParseError(where, "a DOT workflow is a 'digraph { ... }'", head[2])
        self.i += 1
        graph_name = self.expect("id")[1] if self.peek()[0] == "id" else ""
        self.expect("{")
        defaults: dict[str, str] = {}
        nodes: _Nodes = {}
        edges: _Edges = []
        while self.peek()[0] != "}":
            self.statement(defaults, nodes, edges)
        return graph_name, nodes, edges

    def statement(self, defaults: dict[str, str], nodes: _Nodes, edges: _Edges) -> None:
        """One statement: ``;``, a default block, a graph attribute, a node or an edge
        chain."""
        where = self.where
        kind, value, line = self.peek()
        if kind == ";":
            self.i += 1
            return
        if kind == "eof":
            raise ParseError(where, "the digraph is not closed by '}'", line)
        if kind != "id":
            raise ParseError(where, f"unsupported DOT statement starting {value!r}", line)
        low = value.lower()
        if low in ("subgraph", "graph") and self.peek(1)[0] != "=" and (
                low == "subgraph" or self.peek(1)[0] == "{"):
            raise ParseError(where, "DOT subgraphs are not read: list the nodes and "
                             "edges at the top level", line)
        if low in ("graph", "node", "edge") and self.peek(1)[0] == "[":
            self.i += 1
            attrs = self.attr_list()
            if low == "node":
                defaults.update(attrs)
            return
        self.i += 1
        if self.peek()[0] == "=":  # a graph attribute: key = value
            self.i += 1
            self.expect("id")
            return
        if self.peek()[0] == ":":
            raise ParseError(where, "DOT ports (node:port) are not read", self.peek()[2])
        chain = self.chain(value)
        attrs = self.attr_list()
        if len(chain) == 1:
            given = self.given.setdefault(value, {})
            for key, val in attrs.items():
                if key in given and not _same_value(given[key][0], val):
                    self.conflicts.append((value, key, (val, line), given[key]))
                given[key] = (val, line)
            if value in nodes:
                nodes[value][0].update(attrs)
            else:
                nodes[value] = ({**defaults, **attrs}, line)
        else:
            edges.extend((u, v, attrs, line) for u, v in itertools.pairwise(chain))

    def chain(self, first: str) -> list[str]:
        """``first -> b -> c ...``: the node ids of an edge chain (just ``first`` for a
        node statement)."""
        chain = [first]
        while self.peek()[0] == "arrow":
            if self.peek()[1] == "--":
                raise ParseError(self.where, "'--' is an undirected edge; a workflow needs "
                                 "'->'", self.peek()[2])
            self.i += 1
            nxt = self.peek()
            if nxt[0] != "id":
                raise ParseError(self.where, f"an edge needs a node id after '->', found "
                                 f"{nxt[1] or 'end of file'!r}", nxt[2])
            chain.append(nxt[1])
            self.i += 1
        return chain


# ------------------------------------------------------------- runtime -> Amdahl

def amdahl_from_trace(runtime: float, cores: float, speed: float,
                      alpha: float | None = None) -> tuple[float, float]:
    """Work (flop) and α of a task recorded as ``runtime`` seconds on ``cores`` cores (seed 004's
    Amdahl model [L493-498]; the module docstring).

    The work is chosen so that the task takes its recorded runtime on its recorded cores on a
    processor of ``speed``: ``T(cores) = work/speed · (α + (1 − α)/cores) = runtime``. α is
    ``alpha`` when given (the task's own, or ``--alpha``), else ``1/cores``: the speed-up is
    at most the cores the task was recorded on, and a task recorded on one core is sequential
    (α = 1, the same runtime on any number of processors).

    Parameters
    ----------
    runtime : float
        Seconds, > 0 (the readers raise a recorded 0 to :data:`MIN_RUNTIME`).
    cores : float
        Cores the task used, >= 1.
    speed : float
        Flop/s of one processor of the cluster the PTG is scheduled on.
    alpha : float, optional
        The non-parallel fraction when known; ``None``: ``1/cores``.

    Returns
    -------
    tuple of float
        ``(work, alpha)``.

    Notes
    -----
    The mapping is decision 371, the default α decision 484.

    Examples
    --------
    >>> amdahl_from_trace(10.0, 1, 1e9)  # one core: sequential
    (10000000000.0, 1.0)
    >>> work, a = amdahl_from_trace(10.0, 4, 1e9)  # α = 1/4: 10 s on 4 processors
    >>> a, round(work / 1e9 * (a + (1 - a) / 4), 9)
    (0.25, 10.0)
    >>> amdahl_from_trace(10.0, 4, 1e9, alpha=0.0)  # perfectly parallel: 4 cores × 10 s
    (40000000000.0, 0.0)
    """
    a = 1.0 / cores if alpha is None else float(alpha)
    return runtime * speed / (a + (1.0 - a) / cores), a


def _positive(value: Any, field: str, where: str, low: float, default: float | None) -> float:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            float(value)) or float(value) < low:
        raise ParseError(where, f"{field} = {value!r}: must be a number >= {low:g}")
    return float(value)


#: a recorded runtime of 0 s (WfCommons has such tasks) becomes this, so work stays > 0
MIN_RUNTIME = 1e-3


def check_alpha(value: float | None, what: str) -> float | None:
    """``value`` when it is ``None`` or a number in [0, 1] (seed 004's α), else a one-line
    error naming ``what``.

    Parameters
    ----------
    value : float or None
        The α given (``--alpha``, or ``alpha=`` of a reader).
    what : str
        What to name in the error (``"--alpha"``).

    Returns
    -------
    float or None
        ``value`` as a float (``None`` unchanged).

    Raises
    ------
    InvalidInstanceError
        Not a finite number in [0, 1].
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0.0 <= float(value) <= 1.0):
        raise InvalidInstanceError(what, value, "must be a number in [0, 1] (Amdahl's "
                                   "non-parallel fraction: 0 perfectly parallel, 1 "
                                   "sequential)")
    return float(value)


def _build(where: str, name: str, rows: list[dict[str, Any]], speed: float,
           extra: dict[str, Any], alpha: float | None = None) -> PTG:
    """The PTG of tasks ``{id, runtime, cores, alpha, parents, field}`` (decisions 371,
    484): α from the task's own ``alpha``, else ``alpha`` (``--alpha``), else 1/cores."""
    ids, work, alphas, origin, edges, tx = [], [], [], [], [], []
    known = {r["id"] for r in rows}
    for r in rows:
        f = r["field"]
        recorded = _positive(r["runtime"], f"{f}.runtime", where, 0.0, None)
        runtime = max(recorded, MIN_RUNTIME)
        cores = _positive(r["cores"], f"{f}.cores", where, 1.0, 1.0)
        a = r.get("alpha")
        if a is not None and (isinstance(a, bool) or not isinstance(a, (int, float))
                              or not 0.0 <= float(a) <= 1.0):
            raise ParseError(where, f"{f}.alpha = {a!r}: must be a number in [0, 1]")
        origin.append("file" if a is not None else "option" if alpha is not None else "cores")
        w, al = amdahl_from_trace(runtime, cores, speed, a if a is not None else alpha)
        ids.append(r["id"])
        work.append(w)
        alphas.append(al)
        tx.append({"runtime": runtime, "cores": cores,
                   **({"recorded_runtime": recorded} if recorded < runtime else {}),
                   **({"type": r["type"]} if r.get("type") else {})})
        for p in r["parents"]:
            if p not in known:
                raise ParseError(where, f"{r.get('pfield', f)}.parents: unknown task {p!r}")
            edges.append((p, r["id"]))
    edges = list(dict.fromkeys(edges))
    try:
        return make_ptg(ids, work, alphas, edges, name,
                        {**extra, "reference_speed": speed}, tx, alpha_from=origin,
                        read_from=str(extra.get("source_format", "")))
    except InvalidInstanceError as exc:
        raise ParseError(where, str(exc)) from None


# ------------------------------------------------------------------- WfCommons

def is_wfcommons(data: Any) -> bool:
    """Whether a JSON document is a WfCommons instance.

    Parameters
    ----------
    data : Any
        A parsed JSON document.

    Returns
    -------
    bool
        ``True`` when it is an object holding a ``workflow`` object.

    Notes
    -----
    The detection is decision 374's.
    """
    return isinstance(data, dict) and isinstance(data.get("workflow"), dict)


def from_wfcommons(data: Any, name: str = "", source: str | None = None,
                   speed: float = REFERENCE_SPEED, alpha: float | None = None) -> PTG:
    """A PTG from a WfCommons JSON instance (schema 1.4 or 1.5).

    Parameters
    ----------
    data : dict
        The parsed JSON: ``workflow.tasks`` (1.4: ``runtimeInSeconds``/``runtime``,
        ``cores``/``coreCount``, ``parents``) or ``workflow.specification.tasks``
        (``id``, ``parents``) with ``workflow.execution.tasks`` (``id``,
        ``runtimeInSeconds``, ``coreCount``) (1.5).
    name : str
        The PTG name when the instance has none.
    source : str, optional
        The file named in errors.
    speed : float
        Flop/s of a processor of the target cluster (:func:`amdahl_from_trace`, seed 004
        §1.3 [L493-498]).
    alpha : float, optional
        α of the tasks without their own (``--alpha``); ``None``: 1/recorded cores (1, a
        sequential task, for one core).

    Returns
    -------
    PTG
        One task per workflow task; ``task_extra`` keeps the recorded runtime and cores.

    Raises
    ------
    ParseError
        Naming the field: no task list, a task without id or runtime, an unknown parent, a
        cycle.

    Notes
    -----
    The layouts read are decision 372; runtimes become work by decision 371.
    """
    where = source or name or "wfcommons"
    wf = data.get("workflow") if isinstance(data, dict) else None
    if not isinstance(wf, dict):
        raise unknown_format(where, "no 'workflow' object")
    tasks, base, runs = _wfcommons_tasks(wf, where)
    if not isinstance(tasks, list) or not tasks:
        raise ParseError(where, f"{base}: must be a non-empty list of tasks (WfCommons "
                         "1.4: workflow.tasks; 1.5: workflow.specification.tasks)")
    names: dict[str, str] = {}
    for t in tasks:
        if isinstance(t, dict) and isinstance(t.get("name"), str):
            names.setdefault(t["name"], str(t.get("id", t["name"])))
    ids_known = {str(x.get("id", x.get("name"))) for x in tasks if isinstance(x, dict)}
    rows = []
    for k, t in enumerate(tasks):
        f = f"{base}[{k}]"
        if not isinstance(t, dict):
            raise ParseError(where, f"{f}: must be an object")
        tid = t.get("id", t.get("name"))
        if not isinstance(tid, str) or not tid:
            raise ParseError(where, f"{f}.id: missing (a non-empty string)")
        run, rf = runs.get(tid, (t, f))
        if runs and tid not in runs:
            raise ParseError(where, f"{f}: task {tid!r} has no entry in "
                             "workflow.execution.tasks (its runtime)")
        runtime = run.get("runtimeInSeconds", run.get("runtime"))
        if runtime is None:
            raise ParseError(where, f"{rf}.runtimeInSeconds: missing")
        parents = t.get("parents", [])
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
            raise ParseError(where, f"{f}.parents: must be a list of task ids")
        rows.append({"id": tid, "runtime": runtime,
                     "cores": run.get("coreCount", run.get("cores")),
                     "alpha": run.get("alpha", t.get("alpha")),
                     "type": t.get("category") or t.get("name"),
                     "parents": [p if p in ids_known else names.get(p, p) for p in parents],
                     "field": rf, "pfield": f})
    label = data.get("name")
    return _build(where, label if isinstance(label, str) and label else name, rows, speed,
                  {"source_format": "wfcommons",
                   "schema_version": str(data.get("schemaVersion", ""))}, alpha)


def _wfcommons_tasks(wf: dict[str, Any], where: str,
                     ) -> tuple[Any, str, dict[str, tuple[dict[str, Any], str]]]:
    """The task list of a WfCommons instance, the field it is at, and (schema 1.5) the
    execution record of each task id with its field."""
    spec = wf.get("specification")
    if not isinstance(spec, dict):
        key = "tasks" if "tasks" in wf else "jobs"
        return wf.get(key), f"workflow.{key}", {}
    ex = wf.get("execution")
    ex_tasks = ex.get("tasks") if isinstance(ex, dict) else None
    if not isinstance(ex_tasks, list):
        raise ParseError(where, "workflow.execution.tasks: missing; lpsched needs the "
                         "recorded runtimes of a WfCommons 1.5 instance")
    runs = {}
    for k, t in enumerate(ex_tasks):
        if not isinstance(t, dict) or not isinstance(t.get("id"), str):
            raise ParseError(where, f"workflow.execution.tasks[{k}].id: missing")
        runs[t["id"]] = (t, f"workflow.execution.tasks[{k}]")
    return spec.get("tasks"), "workflow.specification.tasks", runs


# ------------------------------------------------------------------------ DAX

def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _dax_job(el: Any, k: int, by_id: dict[str, Any], where: str) -> dict[str, Any]:
    """The row of the ``k``-th ``<job>`` of a DAX: id, runtime (s), cores (an attribute or a
    ``<profile key="cores">``)."""
    tid = el.get("id")
    if not tid:
        raise ParseError(where, f"<job> #{k + 1}: no id attribute")
    f = f"<job id={tid!r}>"
    if tid in by_id:
        raise ParseError(where, f"{f}: duplicate job id")
    raw = el.get("runtime")
    if raw is None:
        raise ParseError(where, f"{f}: no runtime attribute (seconds)")
    cores: Any = el.get("cores")
    for prof in el:
        if _local(prof.tag) == "profile" and (prof.get("key") or "").lower() == "cores":
            cores = prof.text
    try:
        runtime = float(raw)
        ncores = None if cores is None else float(cores)
    except ValueError:
        raise ParseError(where, f"{f}: runtime {raw!r} / cores {cores!r} must be "
                         "numbers") from None
    return {"id": tid, "runtime": runtime, "cores": ncores, "parents": [],
            "type": el.get("name"), "field": f}


def from_dax(text: str, name: str = "", source: str | None = None,
             speed: float = REFERENCE_SPEED, alpha: float | None = None) -> PTG:
    """A PTG from a Pegasus DAX file (XML).

    Parameters
    ----------
    text : str
        The XML: ``<adag>`` with ``<job id=... runtime=...>`` (cores from a ``cores``
        attribute or a ``<profile key="cores">``, else 1) and
        ``<child ref=...><parent ref=.../></child>`` dependencies.
    name : str
        The PTG name when the ``adag`` has none.
    source : str, optional
        The file named in errors.
    speed : float
        Flop/s of a processor of the target cluster (:func:`amdahl_from_trace`).
    alpha : float, optional
        α of every job (a DAX gives none; ``--alpha``); ``None``: 1/recorded cores (1, a
        sequential job, for one core).

    Returns
    -------
    PTG
        One task per job.

    Raises
    ------
    ParseError
        Malformed XML (with its line), a job without id or runtime, a dependency naming an
        unknown job.

    Notes
    -----
    The layout read is decision 372; runtimes become work by decision 371.
    """
    where = source or name or "dax"
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ParseError(where, f"not valid XML: {exc}", exc.position[0]) from None
    if _local(root.tag) != "adag":
        raise unknown_format(where, f"XML root <{_local(root.tag)}> (a DAX is an <adag>)")
    rows: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    deps: list[tuple[str, str]] = []
    for el in root:
        tag = _local(el.tag)
        if tag in ("job", "dax", "dag"):
            row = _dax_job(el, len(rows), by_id, where)
            rows.append(row)
            by_id[row["id"]] = row
        elif tag == "child":
            child = el.get("ref")
            if not child:
                raise ParseError(where, "<child> without ref")
            for par in el:
                if _local(par.tag) == "parent":
                    if not par.get("ref"):
                        raise ParseError(where, f"<child ref={child!r}>: <parent> without ref")
                    deps.append((str(par.get("ref")), child))
    if not rows:
        raise ParseError(where, "no <job> in the DAX")
    for parent, child in deps:
        if child not in by_id:
            raise ParseError(where, f"<child ref={child!r}>: unknown job")
        by_id[child]["parents"].append(parent)
    label = root.get("name")
    return _build(where, label or name, rows, speed, {"source_format": "dax"}, alpha)


# ------------------------------------------------------------------ daggen text

_DAGGEN_TYPES = ("ROOT", "COMPUTATION", "TRANSFER", "END")


def is_daggen_text(text: str) -> bool:
    """Whether ``text`` is daggen's text output: after its ``//`` header lines, a ``NODE_COUNT``
    or ``NODE`` line.

    Parameters
    ----------
    text : str
        A file's content.

    Returns
    -------
    bool
        ``True`` for daggen's default (non ``--dot``) output.

    Notes
    -----
    Detection by content is decision 374's.
    """
    pos = 1 if text.startswith("\ufeff") else 0
    while pos < len(text):  # line by line, without splitting a large file
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        s = text[pos:end].strip()
        if s and not s.startswith("//"):
            return s.split(None, 1)[0] in ("NODE_COUNT", "NODE")
        pos = end + 1
    return False


def _daggen_node(fields: list[str], where: str, k: int,
                 ) -> tuple[str, list[str], str, float, float]:
    """``(index, children, type, cost, alpha)`` of one ``NODE`` line (ParseError naming
    the line)."""
    if len(fields) != 6:
        raise ParseError(where, f"a NODE line has 6 fields (NODE <index> <children|-> "
                         f"<type> <cost> <alpha>), found {len(fields)}", k)
    _, index, kids, kind, cost, alpha = fields
    if not index.isdigit():
        raise ParseError(where, f"NODE index {index!r} is not a whole number >= 0", k)
    children = [] if kids == "-" else kids.split(",")
    if not all(c.isdigit() for c in children):
        raise ParseError(where, f"NODE {index}: children {kids!r} is not '-' nor a comma "
                         "list of node indices", k)
    if kind not in _DAGGEN_TYPES:
        raise ParseError(where, f"NODE {index}: type {kind!r} is not one of "
                         f"{', '.join(_DAGGEN_TYPES)}", k)
    try:
        c, a = float(cost), float(alpha)
    except ValueError:
        raise ParseError(where, f"NODE {index}: cost {cost!r} and alpha {alpha!r} must be "
                         "numbers", k) from None
    if not (math.isfinite(c) and c >= 0):
        raise ParseError(where, f"NODE {index}: cost {cost!r} must be a finite number >= 0", k)
    if kind == "COMPUTATION" and (c <= 0 or not 0.0 <= a <= 1.0):
        raise ParseError(where, f"NODE {index}: a COMPUTATION needs a cost > 0 (flop) and an "
                         f"alpha in [0, 1]; found {cost} and {alpha}", k)
    return index, children, kind, c, a


def from_daggen_text(text: str, name: str = "", source: str | None = None) -> PTG:
    """A PTG from daggen's text output (the module docstring; daggen's ``outputDAG``).

    ``ROOT`` and ``END`` (zero-cost, dummy) are dropped: :func:`~lpsched.ptg.model.make_ptg`
    adds an entry or exit where the graph needs one, as for daggen's ``--dot`` output of
    the same graph. Each ``COMPUTATION`` is a task of work ``cost`` flop and α the last
    field; each ``COMPUTATION u -> TRANSFER t -> COMPUTATION v`` is the edge ``u -> v``, the
    transfer's bytes kept in ``extra["edge_data"]`` (unused: no communication model
    [L121-134]). ``NODE_COUNT``, when present, must count the ``NODE`` lines.

    Parameters
    ----------
    text : str
        The file's content (daggen's ``//`` header lines are skipped).
    name : str
        The PTG's name (the format has none: the file's stem).
    source : str, optional
        The file named in errors.

    Returns
    -------
    PTG
        The validated graph, task ids the ``COMPUTATION`` indices.

    Raises
    ------
    ParseError
        With the line: a line that is not ``NODE_COUNT``/``NODE``, a bad field, an unknown
        child, a repeated index, a ``NODE_COUNT`` that does not match, no ``COMPUTATION``.
    """
    where = source or name or "daggen"
    count: tuple[int, int] | None = None
    nodes: dict[str, tuple[list[str], str, float, float, int]] = {}
    for k, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("//"):
            continue
        if fields[0] == "NODE_COUNT" and len(fields) == 2 and fields[1].isdigit():
            count = (int(fields[1]), k)
        elif fields[0] == "NODE":
            index, children, kind, cost, alpha = _daggen_node(fields, where, k)
            if index in nodes:
                raise ParseError(where, f"NODE {index} is defined twice (line "
                                 f"{nodes[index][4]})", k)
            nodes[index] = (children, kind, cost, alpha, k)
        else:
            raise ParseError(where, f"not a daggen line (NODE_COUNT <n> or NODE <index> "
                             f"<children|-> <type> <cost> <alpha>): {line.strip()[:40]!r}", k)
    if count is not None and count[0] != len(nodes):
        raise ParseError(where, f"NODE_COUNT {count[0]} but {len(nodes)} NODE lines (a "
                         "truncated or edited file?)", count[1])
    return _daggen_ptg(nodes, name, where)


def _daggen_ptg(nodes: dict[str, tuple[list[str], str, float, float, int]], name: str,
                where: str) -> PTG:
    """The tasks and edges of daggen's parsed ``NODE`` lines (:func:`from_daggen_text`)."""
    ids = [i for i, n in nodes.items() if n[1] == "COMPUTATION"]
    if not ids:
        raise ParseError(where, "no COMPUTATION node: nothing to schedule")
    edges: list[tuple[str, str]] = []
    edge_data: list[list[Any]] = []
    for u, (children, kind, _, _, line) in nodes.items():
        for c in children:
            if c not in nodes:
                raise ParseError(where, f"NODE {u}: child {c} is not a NODE of the file", line)
            if kind != "COMPUTATION":
                continue
            ckids, ckind, ccost, _, cline = nodes[c]
            if ckind == "TRANSFER":
                if len(ckids) != 1 or ckids[0] not in nodes:
                    raise ParseError(where, f"NODE {c}: a TRANSFER has one child, the task "
                                     "receiving the data", cline)
                target = ckids[0]
                if nodes[target][1] == "COMPUTATION":
                    edges.append((u, target))
                    edge_data.append([u, target, ccost])
            elif ckind == "COMPUTATION":
                edges.append((u, c))
    extra: dict[str, Any] = {"edge_data": edge_data} if edge_data else {}
    try:
        return make_ptg(ids, [nodes[i][2] for i in ids], [nodes[i][3] for i in ids], edges,
                        name, extra, alpha_from=["file"] * len(ids), read_from="daggen")
    except InvalidInstanceError as exc:
        raise ParseError(where, str(exc)) from None
