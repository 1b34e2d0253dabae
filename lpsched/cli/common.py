"""What every family's subcommands share: JSON output and JSON input files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.errors import ParseError


def dump_json(obj: Any) -> str:
    def default(o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, (np.floating, np.integer)):
            return o.item()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    def clean(o: Any) -> Any:  # JSON has no inf/nan: write null
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    return json.dumps(clean(obj), default=default)


def read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParseError(path, f"cannot read file: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"invalid JSON: {exc.msg}", exc.lineno) from None
