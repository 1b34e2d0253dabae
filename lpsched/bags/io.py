"""JSON files for star-platform instances (the format of issue #2).

```json
{"platform": {"speeds": [1.0, 0.5], "bandwidths": [10.0, 2.0],
              "master_bandwidth": null, "port": "one-port"},
 "applications": [{"release": 0.0, "tasks": 100, "work": 3.1, "size": 40.0}]}
```

``speeds`` may be a list of lists (one row per application); ``master_bandwidth: null`` means
unbounded. Unknown keys at every level are kept and written back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lpsched.bags.instance import Application, Instance
from lpsched.bags.platform import StarPlatform
from lpsched.errors import InvalidInstanceError, ParseError

_PLATFORM_KEYS = ("speeds", "bandwidths", "master_bandwidth", "port")
_APP_KEYS = ("release", "tasks", "work", "size")


def _require(obj: Any, where: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    if not isinstance(obj, Mapping):
        raise InvalidInstanceError(where, obj, "must be a JSON object")
    for key in keys:
        if key not in obj and key not in optional:
            raise InvalidInstanceError(f"{where}.{key}", None, "missing required key")


def instance_from_dict(data: Any) -> Instance:
    """Build an :class:`Instance` from the parsed JSON document ``data``.

    Raises :class:`InvalidInstanceError` naming the first missing or bad field.
    """
    _require(data, "instance", ("platform", "applications"))
    plat = data["platform"]
    _require(plat, "platform", _PLATFORM_KEYS, optional=("master_bandwidth", "port"))
    platform = StarPlatform(
        speeds=plat["speeds"],
        bandwidths=plat["bandwidths"],
        master_bandwidth=plat.get("master_bandwidth"),
        port=plat.get("port", "one-port"),
        extra={k: v for k, v in plat.items() if k not in _PLATFORM_KEYS},
    )
    apps_raw = data["applications"]
    if not isinstance(apps_raw, list):
        raise InvalidInstanceError("applications", apps_raw, "must be a JSON list")
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
    return Instance(platform, tuple(apps), extra)


def instance_to_dict(inst: Instance) -> dict[str, Any]:
    """The JSON document of ``inst`` (inverse of :func:`instance_from_dict`)."""
    plat = inst.platform
    bw = None if math.isinf(plat.master_bandwidth) else plat.master_bandwidth
    platform = {
        "speeds": plat.speeds.tolist(),
        "bandwidths": plat.bandwidths.tolist(),
        "master_bandwidth": bw,
        "port": plat.port,
        **plat.extra,
    }
    apps = [
        {"release": a.release, "tasks": a.tasks, "work": a.work, "size": a.size, **a.extra}
        for a in inst.applications
    ]
    return {"platform": platform, "applications": apps, **inst.extra}


def load_instance(path: str | Path) -> Instance:
    """Read an instance from a JSON file.

    Raises :class:`ParseError` (with file and line) when the file is not valid JSON and
    :class:`InvalidInstanceError` when the document is not a valid instance.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(str(p), f"invalid JSON: {exc.msg}", line=exc.lineno) from None
    return instance_from_dict(data)


def save_instance(inst: Instance, path: str | Path) -> None:
    """Write ``inst`` as JSON to ``path`` (indent 1, keys in the documented order)."""
    Path(path).write_text(json.dumps(instance_to_dict(inst), indent=1) + "\n", encoding="utf-8")
