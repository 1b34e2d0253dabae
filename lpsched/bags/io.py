"""JSON files for star-platform instances::

    {"platform": {"speeds": [1.0, 0.5], "bandwidths": [10.0, 2.0],
                  "master_bandwidth": null, "port": "one-port"},
     "applications": [{"release": 0.0, "tasks": 100, "work": 3.1, "size": 40.0}]}

``speeds`` may be a list of lists (one row per application); ``master_bandwidth: null`` means
unbounded. ``latencies`` (optional, seconds, one per worker, default all zero) is the latency
of each worker's link (read from SimGrid platform files, :mod:`lpsched.bags.simgrid`); it is
written only when some latency is nonzero, so the files of platforms without latency (and
their hashes) are those written before it existed. Unknown keys at every level are kept and
written back.

Reading validates in two layers, each error naming the field: :func:`parse_json` (UTF-8
text, JSON syntax, nesting depth, and numbers: ``NaN``/``Infinity`` literals and numbers
outside the float range are rejected with their path, e.g. ``platform.speeds[1]``), then
:func:`instance_from_dict` (keys, types, signs and ranges, see
:class:`~lpsched.bags.platform.StarPlatform` and :class:`~lpsched.bags.instance.Instance`).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.bags.instance import Application, Instance
from lpsched.bags.platform import StarPlatform, shown
from lpsched.core import tolerances
from lpsched.errors import InvalidInstanceError, ParseError

_PLATFORM_KEYS = ("speeds", "bandwidths", "master_bandwidth", "port", "latencies")
_APP_KEYS = ("release", "tasks", "work", "size")


def _require(obj: Any, where: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    if not isinstance(obj, Mapping):
        raise InvalidInstanceError(where, shown(obj), "must be a JSON object")
    for key in keys:
        if key not in obj and key not in optional:
            raise InvalidInstanceError(f"{where}.{key}", None, "missing required key")


def instance_from_dict(data: Any) -> Instance:
    """Build an :class:`Instance` from the parsed JSON document ``data``.

    Raises :class:`InvalidInstanceError` naming the first missing or bad field.

    Parameters
    ----------
    data : object
        The decoded document: ``platform`` (``speeds``, ``bandwidths``, optional
        ``master_bandwidth``, ``port``, ``latencies``) and ``applications`` (each
        ``release``, ``tasks``, ``work``, ``size``); other keys are kept as extra data.

    Returns
    -------
    Instance
        The validated instance, its times rebased when needed (:func:`fit_time_origin`).

    Raises
    ------
    InvalidInstanceError
        A missing or bad field (named with its position).
    """
    _require(data, "instance", ("platform", "applications"))
    plat = data["platform"]
    _require(plat, "platform", _PLATFORM_KEYS,
             optional=("master_bandwidth", "port", "latencies"))
    platform = StarPlatform(
        speeds=plat["speeds"],
        bandwidths=plat["bandwidths"],
        master_bandwidth=plat.get("master_bandwidth"),
        port=plat.get("port", "one-port"),
        extra={k: v for k, v in plat.items() if k not in _PLATFORM_KEYS},
        latencies=plat.get("latencies"),
    )
    apps_raw = data["applications"]
    if not isinstance(apps_raw, list):
        raise InvalidInstanceError("applications", shown(apps_raw), "must be a JSON list")
    apps = []
    for k, raw in enumerate(apps_raw):
        where = f"applications[{k}]"
        _require(raw, where, _APP_KEYS)
        try:
            app = Application(**{key: raw[key] for key in _APP_KEYS},
                              extra={x: v for x, v in raw.items() if x not in _APP_KEYS})
        except InvalidInstanceError as exc:  # name the field with its position in the file
            field = exc.field.replace("application", where, 1)
            raise InvalidInstanceError(field, exc.value, exc.reason) from None
        apps.append(app)
    extra = {k: v for k, v in data.items() if k not in ("platform", "applications")}
    return fit_time_origin(Instance(platform, tuple(apps), extra))


#: Relative resolution (of an application's ``MS*``) below which absolute dates are kept as
#: they are; coarser, the times are counted from the first release (:func:`fit_time_origin`).
#: A hundredth of :data:`~lpsched.core.tolerances.CRITICAL_MERGE`, the finest relative
#: comparison the max-stretch search makes.
REBASE_RESOLUTION = tolerances.CRITICAL_MERGE * 1e-2
#: Coarsest relative resolution of an application's times (its release plus its ``MS*``,
#: relative to that ``MS*``) accepted once rebased: a thousandth of
#: :data:`~lpsched.core.tolerances.PLAN_CHECK`, the tolerance of the plan and schedule
#: checks, so that rounding errors accumulated over a schedule's events stay below it.
TIME_RESOLUTION = tolerances.PLAN_CHECK * 1e-3


def time_resolution(inst: Instance) -> np.ndarray:
    """Per application, the spacing of the floats at ``r_k + MS*_k`` (the earliest date its
    last task can end) divided by ``MS*_k``: how finely its flow, so its stretch, can be
    told apart at the dates the instance uses (seed 003 §2.2: stretch = flow / ``MS*``).

    Parameters
    ----------
    inst : Instance
        The instance.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, relative (dimensionless); 0 where ``MS*`` is not finite.
    """
    from lpsched.bags.steady_state import dedicated_makespans

    ms = dedicated_makespans(inst)
    with np.errstate(all="ignore"):
        res = np.asarray(np.spacing(inst.release + ms) / ms, float)
    return np.where(np.isfinite(res), res, 0.0)  # MS* not finite: condition() says so


def fit_time_origin(inst: Instance) -> Instance:
    """``inst`` with its times counted from its first release when absolute dates lose precision.

    The threshold is :data:`REBASE_RESOLUTION`; the offset is kept in
    :attr:`Instance.origin` (:meth:`Instance.rebased`; makespans and the saved file give
    absolute dates back). Refused when, even so, an application's times cannot be told
    apart to :data:`TIME_RESOLUTION` of its ``MS*`` (a release date far beyond the others
    relative to that application's duration). Release dates of 1e17 s lost the durations,
    and a simulation reported a max-stretch below its own LP bound.

    Parameters
    ----------
    inst : Instance
        The instance as read.

    Returns
    -------
    Instance
        ``inst`` itself when its dates are precise enough, else its rebased copy.

    Raises
    ------
    InvalidInstanceError
        Names the application and its release date.

    Notes
    -----
    Decision 251.

    Examples
    --------
    >>> from lpsched.bags import random_bags
    >>> inst = random_bags(3, 2, seed=1)
    >>> fit_time_origin(inst) is inst  # dates of a few hundred seconds: kept as they are
    True
    """
    if float(time_resolution(inst).max()) <= REBASE_RESOLUTION:
        return inst
    out = inst.rebased()
    res = time_resolution(out)
    if float(res.max()) > TIME_RESOLUTION:
        k = int(np.argmax(res))
        raise InvalidInstanceError(
            f"applications[{k}].release", float(out.release[k] + out.origin),
            f"{float(out.release[k]):.6g} s after the first release, its dates are spaced "
            f"{float(res[k]):.2g} of its dedicated makespan MS* apart (more than "
            f"{TIME_RESOLUTION:g}): its stretch cannot be computed to the checks' precision; "
            "solve it apart from the applications released much earlier, or rescale units")
    return out


def instance_to_dict(inst: Instance) -> dict[str, Any]:
    """The JSON document of ``inst`` (inverse of :func:`instance_from_dict`).

    Parameters
    ----------
    inst : Instance
        The instance.

    Returns
    -------
    dict
        JSON-ready ``platform`` and ``applications`` (absolute release dates: the origin
        added back) and the extra keys.
    """
    plat = inst.platform
    bw = None if math.isinf(plat.master_bandwidth) else plat.master_bandwidth
    platform: dict[str, Any] = {
        "speeds": plat.speeds.tolist(),
        "bandwidths": plat.bandwidths.tolist(),
        "master_bandwidth": bw,
        "port": plat.port,
    }
    if plat.has_latency:  # only then: files without latency stay byte for byte as before
        platform["latencies"] = np.asarray(plat.latencies).tolist()
    platform.update(plat.extra)
    apps = [
        {"release": a.release + inst.origin, "tasks": a.tasks, "work": a.work, "size": a.size,
         **a.extra}
        for a in inst.applications
    ]
    return {"platform": platform, "applications": apps, **inst.extra}


_FLOAT_MAX = sys.float_info.max


class _NotFinite:
    """Stands, while a document is parsed, for a number token that is not a finite float."""

    __slots__ = ("token",)

    def __init__(self, token: str) -> None:
        self.token = token


def _locate(data: Any, target: object) -> str:
    """The path (``platform.speeds[1]``) of ``target`` inside ``data`` (iterative walk)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        obj, path = stack.pop()
        if obj is target:
            return path or "the document"
        if isinstance(obj, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in obj.items())
        elif isinstance(obj, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(obj))
    return "the document"


def parse_json(raw: str | bytes, path: str) -> Any:
    """Parse the JSON document ``raw`` read from ``path``, hardened against hostile files.

    Validated: UTF-8 text (a byte-order mark is allowed), JSON syntax, nesting depth
    (Python's recursion limit), and every number: ``NaN``, ``Infinity`` and ``-Infinity``
    (not JSON, although Python writes them) and numbers outside the float range (``1e400``,
    an integer of 400 digits) are rejected with the path of the first one. Raises
    :class:`ParseError` (file, and line when known) naming what is wrong.

    >>> parse_json('{"a": [1, 2.5]}', "x.json")
    {'a': [1, 2.5]}

    Parameters
    ----------
    raw : str or bytes
        The file's content.
    path : str
        The file name used in error messages.

    Returns
    -------
    object
        The decoded document (dicts, lists, str, int, float, bool, None).

    Raises
    ------
    ParseError
        Not UTF-8, not JSON, nested too deeply, or a number that is not finite.
    """
    if isinstance(raw, bytes):
        data = raw
        try:
            raw = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ParseError(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                             f"{exc.start})", line) from None
    bad: list[_NotFinite] = []

    def mark(token: str) -> _NotFinite:
        bad.append(_NotFinite(token))
        return bad[-1]

    def number(token: str) -> float | _NotFinite:
        v = float(token)
        return v if math.isfinite(v) else mark(token)

    def integer(token: str) -> int | _NotFinite:
        try:
            v = int(token)
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            return mark(token)
        return v if abs(v) <= _FLOAT_MAX else mark(token)

    try:
        data = json.loads(raw, parse_constant=mark, parse_float=number, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except RecursionError:
        raise ParseError(path, "invalid JSON: nested too deeply (arrays or objects inside "
                         f"each other more than about {sys.getrecursionlimit()} levels)") from None
    if bad:
        token = bad[0].token
        token = token if len(token) <= 24 else f"{token[:10]}...({len(token)} characters)"
        raise ParseError(path, f"{_locate(data, bad[0])} = {token}: not a finite number "
                         "(JSON has no NaN or Infinity, and numbers must lie within "
                         "about ±1.8e308)")
    return data


def read_json_file(path: str | Path) -> Any:
    """Read and parse the JSON file ``path`` with :func:`parse_json`.

    Raises :class:`ParseError` when the file cannot be read or is not valid JSON.

    Parameters
    ----------
    path : str or Path
        The JSON file.

    Returns
    -------
    object
        The decoded document.

    Raises
    ------
    ParseError
        The file cannot be read or is not valid JSON.
    """
    from lpsched.core.inputs import max_json_bytes, read_input

    p = Path(path)
    raw = read_input(p, max_json_bytes(), "JSON file")  # a file or a pipe, size-checked
    return parse_json(raw, str(p))


def load_instance(path: str | Path) -> Instance:
    """Read an instance from a JSON file.

    Raises :class:`ParseError` (with file and line) when the file is not valid JSON
    (:func:`parse_json`: encoding, syntax, nesting, non-finite numbers, each with its
    field) and :class:`InvalidInstanceError` when the document is not a valid instance.

    Parameters
    ----------
    path : str or Path
        The instance JSON file.

    Returns
    -------
    Instance
        The validated instance.

    Raises
    ------
    ParseError
        The file cannot be read or is not valid JSON.
    InvalidInstanceError
        The document is not a valid instance.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from lpsched.bags import random_bags, save_instance
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "inst.json"
    >>> save_instance(random_bags(3, 2, seed=1), path)
    >>> inst = load_instance(path)
    >>> inst.n, inst.p, inst.platform.port, inst.tasks.tolist()
    (3, 2, 'one-port', [42.0, 18.0, 34.0])
    >>> tmp.cleanup()
    """
    return instance_from_dict(read_json_file(path))


def instance_to_json(inst: Instance) -> str:
    """The text :func:`save_instance` writes: indent 1, keys in the documented order, an
    unbounded master bandwidth as ``null`` (strict JSON: no ``NaN`` or ``Infinity``).

    Parameters
    ----------
    inst : Instance
        The instance.

    Returns
    -------
    str
        The JSON text, ending with a newline.
    """
    return json.dumps(instance_to_dict(inst), indent=1, allow_nan=False) + "\n"


def save_instance(inst: Instance, path: str | Path) -> None:
    """Write ``inst`` as JSON to ``path`` (:func:`instance_to_json`).

    Parameters
    ----------
    inst : Instance
        The instance.
    path : str or Path
        The file to write (replaced if it exists), UTF-8.
    """
    Path(path).write_text(instance_to_json(inst), encoding="utf-8")
