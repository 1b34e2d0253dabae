"""Instances of the approximation families as small frozen dataclasses.

The algorithms of :mod:`lpsched.approx` take arrays (``lpt(times, machines)``,
``hybrid_schedule(cpu, gpu, cpus, gpus)``, ...); the strategies of
:mod:`lpsched.testing.strategies` produce these objects instead, so that a test reads
``inst.times`` and ``inst.machines`` and a failure can show the instance as the JSON file
that lpsched reads back:

* :class:`IdenticalJobs` — ``{"times", "machines"}``, read by
  :func:`lpsched.approx.exact.makespan` and :func:`load_example`;
* :class:`HybridTasks` — ``{"cpu_times", "gpu_times", "cpus", "gpus"}``: the file of
  ``lpsched approx hybrid FILE --cpus M --gpus K``;
* :class:`RigidJobs` — ``{"jobs": [[time, size], ...], "processors", "cluster_size",
  "local"}``, read by :func:`lpsched.approx.exact.makespan`;
* :class:`MoldableJobs` — ``{"times": [[T(1), ..., T(m)], ...], "processors"}``: the file of
  ``lpsched approx moldable FILE``.

Star-platform instances are lpsched's own :class:`lpsched.bags.Instance` (the file of
``lpsched solve FILE``). Every constructor runs the family's own input checks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.approx.certified import check_count, check_times
from lpsched.approx.moldable import check_table
from lpsched.bags import Instance, instance_from_dict, instance_to_dict
from lpsched.campaigns.instance import Workload
from lpsched.campaigns.instance import from_dict as workload_from_dict
from lpsched.campaigns.instance import to_dict as workload_to_dict
from lpsched.errors import InvalidInstanceError
from lpsched.ptg.problem import Problem
from lpsched.tasks.instance import TaskInstance


def _plain(values: np.ndarray) -> list[Any]:
    """A float array as a JSON list, whole numbers written as integers."""
    out = values.tolist()
    if values.size and np.all(values == np.round(values)) and np.abs(values).max() < 2**53:
        return np.asarray(values, dtype=np.int64).tolist()
    return out


def _frozen(values: np.ndarray) -> np.ndarray:
    values = np.array(values)
    values.setflags(write=False)
    return values


@dataclass(frozen=True, eq=False, repr=False)
class IdenticalJobs:
    """``times[j]`` on any of ``machines`` identical machines (P||Cmax).

    Examples
    --------
    >>> inst = IdenticalJobs([3, 3, 2, 2, 2], 2)
    >>> inst.to_dict()
    {'times': [3, 3, 2, 2, 2], 'machines': 2}
    """

    times: np.ndarray
    machines: int

    family = "identical"

    def __post_init__(self) -> None:
        times = check_times("times", self.times)
        if times.size == 0:
            raise InvalidInstanceError("times", [], "must list at least one job")
        object.__setattr__(self, "times", _frozen(times))
        object.__setattr__(self, "machines", check_count("machines", self.machines))

    def to_dict(self) -> dict[str, Any]:
        """The instance as JSON (keys ``times``, ``machines``).

        Returns
        -------
        dict
            ``{"times": list, "machines": int}``.

        Examples
        --------
        >>> IdenticalJobs([2.5, 1], 3).to_dict()
        {'times': [2.5, 1.0], 'machines': 3}
        """
        return {"times": _plain(self.times), "machines": self.machines}

    def command(self, path: str) -> str:
        """The ``lpsched`` command that runs the file ``path`` (LPT and the MIP optimum).

        Parameters
        ----------
        path : str
            The instance file's path, as written in the command.

        Returns
        -------
        str
            The command line.

        Examples
        --------
        >>> IdenticalJobs([1], 1).command('x.json')
        'lpsched approx identical x.json --exact'
        """
        return f"lpsched approx identical {path} --exact"

    def __repr__(self) -> str:
        return f"IdenticalJobs({json.dumps(self.to_dict())})"


@dataclass(frozen=True, eq=False, repr=False)
class HybridTasks:
    """Task ``j`` takes ``cpu_times[j]`` on any of ``cpus`` CPUs, ``gpu_times[j]`` on any of
    ``gpus`` GPUs (seed 000 ch. 2).

    Examples
    --------
    >>> HybridTasks([4, 4, 1], [1, 1, 4], 1, 1).to_dict()["gpu_times"]
    [1, 1, 4]
    """

    cpu_times: np.ndarray
    gpu_times: np.ndarray
    cpus: int
    gpus: int

    family = "hybrid"

    def __post_init__(self) -> None:
        cpu = check_times("cpu_times", self.cpu_times)
        gpu = check_times("gpu_times", self.gpu_times)
        if cpu.size == 0:
            raise InvalidInstanceError("cpu_times", [], "must list at least one task")
        if gpu.size != cpu.size:
            raise InvalidInstanceError("gpu_times", gpu.size, f"needs one time per task "
                                       f"({cpu.size})")
        object.__setattr__(self, "cpu_times", _frozen(cpu))
        object.__setattr__(self, "gpu_times", _frozen(gpu))
        object.__setattr__(self, "cpus", check_count("cpus", self.cpus))
        object.__setattr__(self, "gpus", check_count("gpus", self.gpus))

    def to_dict(self) -> dict[str, Any]:
        """The file of ``lpsched approx hybrid`` (with ``cpus`` and ``gpus`` kept too).

        Returns
        -------
        dict
            ``cpu_times``, ``gpu_times``, ``cpus`` and ``gpus``.

        Examples
        --------
        >>> HybridTasks([1], [2], 1, 1).to_dict()
        {'cpu_times': [1], 'gpu_times': [2], 'cpus': 1, 'gpus': 1}
        """
        return {"cpu_times": _plain(self.cpu_times), "gpu_times": _plain(self.gpu_times),
                "cpus": self.cpus, "gpus": self.gpus}

    def command(self, path: str) -> str:
        """The ``lpsched`` command that runs the file ``path``.

        Parameters
        ----------
        path : str
            The instance file's path, as written in the command.

        Returns
        -------
        str
            The command line.

        Examples
        --------
        >>> HybridTasks([1], [2], 1, 2).command('t.json')
        'lpsched approx hybrid t.json --cpus 1 --gpus 2'
        """
        return f"lpsched approx hybrid {path} --cpus {self.cpus} --gpus {self.gpus}"

    def __repr__(self) -> str:
        return f"HybridTasks({json.dumps(self.to_dict())})"


@dataclass(frozen=True, eq=False, repr=False)
class RigidJobs:
    """Rigid jobs on clusters of processors in a line (seed 000 ch. 4, ``C^C`` and ``C^{C+L}``).

    Job ``j`` needs ``sizes[j]`` contiguous processors for ``times[j]``, on ``clusters``
    clusters of ``cluster_size`` processors numbered in a line; with ``local`` every job
    stays inside one cluster.

    Examples
    --------
    >>> RigidJobs([1, 1, 1], [2, 2, 2], clusters=2, cluster_size=3).processors
    6
    """

    times: np.ndarray
    sizes: np.ndarray
    clusters: int
    cluster_size: int
    local: bool = True

    family = "rigid"

    def __post_init__(self) -> None:
        from lpsched.approx.packing import _jobs

        times = np.asarray(self.times, dtype=float)
        sizes = np.asarray(self.sizes)
        if times.shape != sizes.shape or times.ndim != 1 or times.size == 0:
            raise InvalidInstanceError("sizes", sizes.shape, f"needs one size per job "
                                       f"({times.shape})")
        p, size = _jobs(np.c_[times, sizes])
        ell = check_count("cluster_size", self.cluster_size)
        k = check_count("clusters", self.clusters)
        if (size > ell).any():
            i = int(np.argmax(size > ell))
            raise InvalidInstanceError(f"sizes[{i}]", int(size[i]), f"wider than a cluster "
                                       f"({ell} processors)")
        object.__setattr__(self, "times", _frozen(p))
        object.__setattr__(self, "sizes", _frozen(size))
        object.__setattr__(self, "clusters", k)
        object.__setattr__(self, "cluster_size", ell)
        object.__setattr__(self, "local", bool(self.local))

    @property
    def processors(self) -> int:
        """``clusters·cluster_size``.

        Examples
        --------
        >>> RigidJobs([1], [2], 3, 2).processors
        6
        """
        return self.clusters * self.cluster_size

    @property
    def jobs(self) -> np.ndarray:
        """Rows ``(time, size)``, the array of :func:`lpsched.approx.packing.nfdh_ls`.

        Examples
        --------
        >>> RigidJobs([1.5], [2], 1, 2).jobs.tolist()
        [[1.5, 2.0]]
        """
        return np.c_[self.times, self.sizes]

    def to_dict(self) -> dict[str, Any]:
        """The instance as JSON (the keys of :func:`lpsched.approx.exact.makespan`).

        Returns
        -------
        dict
            ``jobs`` (rows ``[time, size]``), ``processors``, ``cluster_size`` and ``local``.

        Examples
        --------
        >>> RigidJobs([1], [2], 1, 2, local=False).to_dict()
        {'jobs': [[1, 2]], 'processors': 2, 'cluster_size': 2, 'local': False}
        """
        return {"jobs": [[t, int(s)] for t, s in zip(_plain(self.times), self.sizes.tolist(),
                                                     strict=True)],
                "processors": self.processors, "cluster_size": self.cluster_size,
                "local": self.local}

    def command(self, path: str) -> str:
        """How lpsched reads the file ``path`` back.

        Parameters
        ----------
        path : str
            The instance file's path, as written in the command.

        Returns
        -------
        str
            A Python expression that loads it.

        Examples
        --------
        >>> RigidJobs([1], [1], 1, 1).command('r.json')
        "lpsched.testing.load_example('r.json')"
        """
        return f"lpsched.testing.load_example({path!r})"

    def __repr__(self) -> str:
        return f"RigidJobs({json.dumps(self.to_dict())})"


@dataclass(frozen=True, eq=False, repr=False)
class MoldableJobs:
    """Job ``j`` runs on ``p`` processors in ``times[j, p−1]`` (monotonic: time
    non-increasing, work non-decreasing in ``p``), ``processors`` in all (seed 004 §5).

    Examples
    --------
    >>> MoldableJobs([[4, 2], [3, 3]], 2).to_dict()
    {'times': [[4, 2], [3, 3]], 'processors': 2}
    """

    times: np.ndarray
    processors: int

    family = "moldable"

    def __post_init__(self) -> None:
        table, _ = check_table(self.times, self.processors)
        if table.shape[0] == 0:
            raise InvalidInstanceError("times", [], "must list at least one job")
        object.__setattr__(self, "times", _frozen(table))
        object.__setattr__(self, "processors", int(self.processors))

    @property
    def integral(self) -> bool:
        """Whole-number times (the exact time-indexed MIP needs them).

        Examples
        --------
        >>> MoldableJobs([[3, 1.5]], 2).integral
        False
        """
        return bool(np.all(self.times == np.round(self.times)))

    def to_dict(self) -> dict[str, Any]:
        """The file of ``lpsched approx moldable``.

        Returns
        -------
        dict
            ``{"times": list of rows, "processors": int}``.

        Examples
        --------
        >>> MoldableJobs([[3, 1.5]], 2).to_dict()
        {'times': [[3.0, 1.5]], 'processors': 2}
        """
        return {"times": [_plain(row) for row in self.times], "processors": self.processors}

    def command(self, path: str) -> str:
        """The ``lpsched`` command that runs the file ``path``.

        Parameters
        ----------
        path : str
            The instance file's path, as written in the command.

        Returns
        -------
        str
            The command line.

        Examples
        --------
        >>> MoldableJobs([[2]], 1).command('m.json')
        'lpsched approx moldable m.json'
        """
        return f"lpsched approx moldable {path}"

    def __repr__(self) -> str:
        return f"MoldableJobs({json.dumps(self.to_dict())})"


#: Every instance type the testing helpers accept.
AnyInstance = (IdenticalJobs | HybridTasks | RigidJobs | MoldableJobs | Instance | TaskInstance
               | Workload | Problem)


def family(inst: Any) -> str:
    """Return the family name of an instance.

    ``identical``, ``hybrid``, ``rigid``, ``moldable``, ``star`` (seed 003), ``tasks``
    (seed 000 ch. 3, :class:`~lpsched.tasks.instance.TaskInstance`), ``campaigns`` (seed
    002, :class:`~lpsched.campaigns.instance.Workload`) or ``ptg`` (seed 004,
    :class:`~lpsched.ptg.problem.Problem`).

    Parameters
    ----------
    inst : object
        An instance of one of the families.

    Returns
    -------
    str
        The family's name.

    Raises
    ------
    InvalidInstanceError
        Not an instance lpsched.testing knows.

    Examples
    --------
    >>> family(IdenticalJobs([1, 2], 1))
    'identical'
    """
    if isinstance(inst, Instance):
        return "star"
    if isinstance(inst, TaskInstance):
        return "tasks"
    if isinstance(inst, Workload):
        return "campaigns"
    if isinstance(inst, Problem):
        return "ptg"
    if isinstance(inst, (IdenticalJobs, HybridTasks, RigidJobs, MoldableJobs)):
        return inst.family
    raise InvalidInstanceError("instance", type(inst).__name__, "not an instance lpsched.testing "
                               "knows: IdenticalJobs, HybridTasks, RigidJobs, MoldableJobs, "
                               "lpsched.bags.Instance, lpsched.tasks.TaskInstance, "
                               "lpsched.campaigns.Workload or lpsched.ptg.Problem")


def to_dict(inst: AnyInstance) -> dict[str, Any]:
    """The JSON document of any instance (star instances: :func:`lpsched.bags.io.instance_to_dict`,
    the file of ``lpsched solve``).

    Parameters
    ----------
    inst : AnyInstance
        An instance of any family.

    Returns
    -------
    dict
        JSON-ready; :func:`from_dict` reads it back.

    Raises
    ------
    InvalidInstanceError
        Not an instance lpsched.testing knows.

    Examples
    --------
    >>> to_dict(IdenticalJobs([1, 2], 1))
    {'times': [1, 2], 'machines': 1}
    """
    fam = family(inst)
    if fam == "star":
        return instance_to_dict(inst)  # type: ignore[arg-type]
    if fam == "campaigns":
        return workload_to_dict(inst)  # type: ignore[arg-type]
    if fam == "ptg":
        c = inst.cluster  # type: ignore[union-attr]
        return {"cluster": {"name": c.name, "processors": c.processors, "speed": c.speed},
                "ptgs": [g.to_dict() for g in inst.ptgs]}  # type: ignore[union-attr]
    return inst.to_dict()  # type: ignore[union-attr]


def command(inst: AnyInstance, path: str) -> str:
    """The way lpsched runs or reads the instance file ``path``.

    Parameters
    ----------
    inst : AnyInstance
        An instance of any family.
    path : str
        The instance file's path.

    Returns
    -------
    str
        A command line, or a Python expression for the families without a command.

    Examples
    --------
    >>> command(MoldableJobs([[2]], 1), "x.json")
    'lpsched approx moldable x.json'
    """
    if family(inst) == "star":
        return f"lpsched solve {path}"
    if family(inst) == "tasks":
        return f"lpsched online {path} --policy all --table"
    if family(inst) == "campaigns":
        return f"lpsched campaigns run {path} --policy ostrich --json"
    if family(inst) == "ptg":
        return f"lpsched.testing.instances.load_example('{path}')"
    return inst.command(path)  # type: ignore[union-attr]


def from_dict(data: Mapping[str, Any]) -> AnyInstance:
    """The instance a JSON document describes (its keys choose the family, as in
    :func:`lpsched.approx.exact.makespan`); validated by the family's checks.

    Parameters
    ----------
    data : mapping
        A decoded instance JSON.

    Returns
    -------
    AnyInstance
        The validated instance of the family its keys name.

    Raises
    ------
    InvalidInstanceError
        Not an object, keys of no family, or a bad field.

    Examples
    --------
    >>> from_dict({"times": [3, 3, 2, 2, 2], "machines": 2})
    IdenticalJobs({"times": [3, 3, 2, 2, 2], "machines": 2})
    """
    if not isinstance(data, Mapping):
        raise InvalidInstanceError("instance", type(data).__name__, "must be a JSON object")
    keys = set(data)
    if {"platform", "applications"} <= keys:
        return instance_from_dict(data)
    if {"processors", "tasks"} <= keys:
        return TaskInstance.from_dict(dict(data))
    if {"processors", "campaigns"} <= keys:
        return workload_from_dict(dict(data))
    if {"cluster", "ptgs"} <= keys:
        return _problem_from_dict(data)
    if {"cpu_times", "gpu_times", "cpus", "gpus"} <= keys:
        return HybridTasks(data["cpu_times"], data["gpu_times"], data["cpus"], data["gpus"])
    if {"jobs", "processors", "cluster_size"} <= keys:
        jobs = np.asarray(data["jobs"], dtype=float).reshape(-1, 2)
        ell = data["cluster_size"]
        if not isinstance(ell, int) or isinstance(ell, bool) or ell < 1 \
                or data["processors"] % ell:
            raise InvalidInstanceError("cluster_size", ell, "must divide processors")
        return RigidJobs(jobs[:, 0], jobs[:, 1], data["processors"] // ell, ell,
                         bool(data.get("local", True)))
    if {"times", "processors"} <= keys:
        return MoldableJobs(data["times"], data["processors"])
    if {"times", "machines"} <= keys:
        return IdenticalJobs(data["times"], data["machines"])
    raise InvalidInstanceError("instance", sorted(keys), "expected the keys of one family: "
                               "times+machines, cpu_times+gpu_times+cpus+gpus, "
                               "jobs+processors+cluster_size, times (table)+processors, or "
                               "platform+applications")


def load_example(path: str | Path) -> AnyInstance:
    """Read an instance file (written by ``--lpsched-examples`` or by hand).

    Parameters
    ----------
    path : str or Path
        The JSON file.

    Returns
    -------
    AnyInstance
        The validated instance.

    Raises
    ------
    ParseError
        The file cannot be read or is not valid JSON.
    InvalidInstanceError
        The document is not an instance of a known family.

    Examples
    --------
    >>> import json, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.json")
    >>> _ = open(path, "w").write(json.dumps({"times": [2, 1], "machines": 1}))
    >>> load_example(path).machines
    1
    """
    from lpsched.bags.io import read_json_file

    return from_dict(read_json_file(path))


def _problem_from_dict(data: Mapping[str, Any]) -> Problem:
    """The :class:`~lpsched.ptg.problem.Problem` of :func:`to_dict`'s ``ptg`` document."""
    from lpsched.ptg.io import ptg_from_dict
    from lpsched.ptg.model import Cluster

    c = data["cluster"]
    if not isinstance(c, Mapping) or not isinstance(data["ptgs"], list):
        raise InvalidInstanceError("cluster", c, "expected {cluster: {name, processors, "
                                   "speed}, ptgs: [...]}")
    processors: Any = c.get("processors")  # JSON values: Cluster checks them
    speed: Any = c.get("speed")
    return Problem([ptg_from_dict(g) for g in data["ptgs"]],
                   Cluster(str(c.get("name", "")), processors, speed))

