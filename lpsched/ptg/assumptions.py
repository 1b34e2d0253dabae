"""The modelling defaults behind a PTG command's numbers, stated where the numbers come out.

A workflow file may leave out what seed 004's model needs (§1.1, §1.3 [L493-498]): a task's
Amdahl fraction α, the unit of its cost (a recorded runtime in seconds, not flop), the
processor speed of a cluster given as a bare count. lpsched fills each gap with a default
(:mod:`lpsched.ptg.wfformats`, decisions 371, 373 and 484), and every default that changes
the answer is one :class:`Assumption`: a line the command line prints on stderr
(``lpsched: note: ...``) and a record of its ``--json`` output (``"assumptions"``), so a
researcher sees it without reading the code:

* ``alpha_sequential`` — tasks recorded on one core run sequentially (α = 1);
* ``alpha_recorded_cores`` — tasks recorded on ``c > 1`` cores take α = 1/c;
* ``alpha_absent`` — DOT or lpsched JSON tasks without ``alpha`` take α = 0;
* ``recorded_runtimes`` — WfCommons/DAX runtimes are seconds on the recorded cores of the
  cluster used, whatever its speed (the file's machines are not used);
* ``zero_runtimes`` — tasks recorded with a runtime of 0 s take
  :data:`~lpsched.ptg.wfformats.MIN_RUNTIME`;
* ``speed`` — ``--cluster P`` without a speed: processors of
  :data:`~lpsched.ptg.model.DEFAULT_SPEED` flop/s run the work (flop) of the files that
  give work;
* ``reference_speed`` — ``ptg generate --class wfcommons:*`` wrote runtimes as work at that
  reference speed.

The numbers come from the graphs as read (:attr:`~lpsched.ptg.model.PTG.alpha_from`,
:attr:`~lpsched.ptg.model.PTG.read_from`, ``task_extra``); a file written by lpsched gives
every α itself, so reading it back states no α default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lpsched.ptg.model import PTG, Cluster, speed_is_default
from lpsched.ptg.wfformats import MIN_RUNTIME

#: the formats whose task costs are recorded runtimes (seconds), not work (flop)
TRACE_FORMATS = ("wfcommons", "dax")

#: how a note tells the user to set α
ALPHA_HINT = "--alpha A sets the non-parallel fraction of every task without its own alpha"


@dataclass(frozen=True)
class Assumption:
    """One modelling default that changes a command's numbers.

    ``key`` names it (the module docstring's list), ``note`` is the line printed on stderr
    and ``detail`` its numbers (task counts per PTG, the value used)."""

    key: str
    note: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` record.

        Returns
        -------
        dict
            ``key``, the detail's fields, then ``note``.
        """
        return {"key": self.key, **self.detail, "note": self.note}


def _counts(per: dict[str, int]) -> str:
    """``"a.dax: 3, b.json: 9"``: the task count of each PTG that has some (just the
    PTG when there is one)."""
    if len(per) == 1:
        return next(iter(per))
    return ", ".join(f"{label}: {n}" for label, n in per.items())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def alpha_assumptions(ptgs: Sequence[PTG], labels: Sequence[str] | None = None,
                      ) -> list[Assumption]:
    """The α defaults the readings used: tasks recorded on one core (α = 1), on ``c > 1``
    cores (α = 1/c), and tasks of a DOT or lpsched JSON file without ``alpha`` (α = 0).

    Parameters
    ----------
    ptgs : sequence of PTG
        The graphs as read (their :attr:`~lpsched.ptg.model.PTG.alpha_from`).
    labels : sequence of str, optional
        How to name each graph (the file as typed); default the graphs' names.

    Returns
    -------
    list of Assumption
        Up to three, each only when some task used that default.

    Examples
    --------
    >>> from lpsched.ptg.wfformats import from_dax
    >>> g = from_dax('<adag><job id="a" runtime="5"/><job id="b" runtime="2"/></adag>', "w")
    >>> [a.key for a in alpha_assumptions([g])]
    ['alpha_sequential']
    >>> alpha_assumptions([g])[0].detail["tasks"]
    2
    """
    names = list(labels) if labels is not None else [g.name or f"PTG {i}"
                                                     for i, g in enumerate(ptgs)]
    one: dict[str, int] = {}
    many: dict[str, int] = {}
    absent: dict[str, int] = {}
    cores: list[float] = []
    for g, label in zip(ptgs, names, strict=True):
        for v, origin in enumerate(g.alpha_from):
            if origin == "cores":
                c = float(g.task_extra[v].get("cores", 1.0))
                per = one if c == 1.0 else many
                per[label] = per.get(label, 0) + 1
                if c != 1.0:
                    cores.append(c)
            elif origin == "absent":
                absent[label] = absent.get(label, 0) + 1
    out = []
    if one:
        n = sum(one.values())
        out.append(Assumption("alpha_sequential", "alpha = 1 (sequential: the recorded "
                              "runtime on any number of processors) for "
                              f"{_plural(n, 'task')} recorded on 1 core ({_counts(one)}); "
                              f"{ALPHA_HINT}", {"alpha": 1.0, "tasks": n, "per_ptg": one}))
    if many:
        n = sum(many.values())
        lo, hi = min(cores), max(cores)
        span = f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}"
        out.append(Assumption("alpha_recorded_cores", "alpha = 1/cores (the recorded runtime "
                              "on the recorded cores, a speed-up of at most the core count) "
                              f"for {_plural(n, 'task')} recorded on {span} cores "
                              f"({_counts(many)}); {ALPHA_HINT}",
                              {"alpha": "1/cores", "tasks": n, "cores": [lo, hi],
                               "per_ptg": many}))
    if absent:
        n = sum(absent.values())
        out.append(Assumption("alpha_absent", "alpha = 0 (perfectly parallel) for "
                              f"{_plural(n, 'task')} without alpha ({_counts(absent)}); "
                              f"{ALPHA_HINT}", {"alpha": 0.0, "tasks": n, "per_ptg": absent}))
    return out


def runtime_assumptions(ptgs: Sequence[PTG], labels: Sequence[str] | None = None, *,
                        replayed: bool = True) -> list[Assumption]:
    """The unit defaults of recorded runtimes: seconds on the recorded cores of the cluster
    used (``replayed``), and runtimes of 0 s raised to
    :data:`~lpsched.ptg.wfformats.MIN_RUNTIME`.

    Parameters
    ----------
    ptgs : sequence of PTG
        The graphs as read (:attr:`~lpsched.ptg.model.PTG.read_from`, ``task_extra``).
    labels : sequence of str, optional
        How to name each graph; default the graphs' names.
    replayed : bool
        State that runtimes are replayed on the cluster (``ptg schedule``); ``False`` when
        they are written as work instead (``ptg generate``: :func:`reference_speed_note`).

    Returns
    -------
    list of Assumption
        ``recorded_runtimes`` and ``zero_runtimes``, each only when it applies.
    """
    names = list(labels) if labels is not None else [g.name for g in ptgs]
    traces = [label for g, label in zip(ptgs, names, strict=True)
              if g.read_from in TRACE_FORMATS]
    zero: dict[str, int] = {}
    for g, label in zip(ptgs, names, strict=True):
        if g.read_from in TRACE_FORMATS:
            n = sum("recorded_runtime" in t for t in g.task_extra)
            if n:
                zero[label] = n
    out = []
    if traces and replayed:
        out.append(Assumption("recorded_runtimes", f"recorded runtimes ({', '.join(traces)}) "
                              "are seconds on the recorded cores of this cluster's processors, "
                              "whatever their speed (the machines the file describes are not "
                              "used)", {"unit": "s", "ptgs": traces}))
    if zero:
        n = sum(zero.values())
        out.append(Assumption("zero_runtimes", f"a runtime of {MIN_RUNTIME:g} s (seed 004's "
                              f"work is > 0) for {_plural(n, 'task')} recorded with 0 s "
                              f"({_counts(zero)})", {"seconds": MIN_RUNTIME, "tasks": n,
                                                     "per_ptg": zero}))
    return out


def speed_note(ptgs: Sequence[PTG], cluster: Cluster, typed: str | None,
               labels: Sequence[str] | None = None) -> list[Assumption]:
    """The default processor speed of ``--cluster P`` when it changes the answer: some graph gives
    its tasks' work in flop (recorded runtimes do not depend on the speed).

    Parameters
    ----------
    ptgs : sequence of PTG
        The graphs as read.
    cluster : Cluster
        The cluster used.
    typed : str or None
        ``--cluster`` as typed; its speed is a default when it names none
        (:func:`~lpsched.ptg.model.speed_is_default`); ``None`` for a platform file given
        by ``--platform`` (its own speeds).
    labels : sequence of str, optional
        How to name each graph; default the graphs' names.

    Returns
    -------
    list of Assumption
        One ``speed`` assumption, or none.

    Notes
    -----
    The reference speed is decision 373's; recorded runtimes are replayed at any speed
    (decision 371).
    """
    names = list(labels) if labels is not None else [g.name for g in ptgs]
    flop = [label for g, label in zip(ptgs, names, strict=True)
            if g.read_from not in TRACE_FORMATS]
    if not flop or typed is None or not speed_is_default(typed):
        return []
    count = typed.partition("@")[0].strip()
    return [Assumption("speed", f"--cluster {typed} names no speed: processors of "
                       f"{cluster.speed:g} flop/s (lpsched's reference, not a measured "
                       f"speed) run the work (flop) of {', '.join(flop)}; --cluster "
                       f"{count}@SPEED sets it", {"flop_per_s": cluster.speed,
                                                  "default": True, "ptgs": flop})]


def reference_speed_note(ptg: PTG, label: str) -> list[Assumption]:
    """How ``ptg generate --class wfcommons:*`` wrote recorded runtimes as work: at the
    reference speed, so a cluster of another speed scales every time.

    Parameters
    ----------
    ptg : PTG
        The graph drawn from the recipe (``extra["reference_speed"]``).
    label : str
        How to name it (``wfcommons:montage``).

    Returns
    -------
    list of Assumption
        One ``reference_speed`` assumption (none for a graph not read from runtimes).
    """
    speed = ptg.extra.get("reference_speed")
    if ptg.read_from not in TRACE_FORMATS or speed is None:
        return []
    return [Assumption("reference_speed", f"{label}: recorded runtimes written as work at "
                       f"{speed:g} flop/s (lpsched's reference speed): on processors of "
                       f"that speed (--cluster P, or P@{speed:g}) each task takes its "
                       "recorded runtime on its recorded cores; a cluster of speed S "
                       f"scales every time by {speed:g}/S", {"flop_per_s": speed})]


def schedule_assumptions(ptgs: Sequence[PTG], cluster: Cluster, typed: str | None,
                         labels: Sequence[str] | None = None) -> list[Assumption]:
    """Every default behind ``ptg schedule``'s numbers: α (:func:`alpha_assumptions`),
    runtimes (:func:`runtime_assumptions`) and the processor speed (:func:`speed_note`).

    Parameters
    ----------
    ptgs : sequence of PTG
        The graphs as read.
    cluster : Cluster
        The cluster used.
    typed : str or None
        ``--cluster`` as typed; ``None`` for a ``--platform`` file.
    labels : sequence of str, optional
        How to name each graph (the files as typed); default the graphs' names.

    Returns
    -------
    list of Assumption
        In that order; empty when every number comes from the files and the seed.
    """
    return [*alpha_assumptions(ptgs, labels), *runtime_assumptions(ptgs, labels),
            *speed_note(ptgs, cluster, typed, labels)]

