"""``lpsched online`` answers the same with its compiled kernels (the event loop and the exact
bounds' maximum flow) as with the Python paths (``LPSCHED_PURE_PYTHON=1``): the installed
command run as a user runs it, its JSON compared without the fields that time it."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import numpy as np
import pytest

from lpsched.tasks import bounds, simulator
from tests.cli.test_cli_subprocess import LPSCHED

pytestmark = pytest.mark.skipif(simulator._online_c is None or bounds._flow_c is None,
                                reason="the compiled kernels are not built")


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _online(path: str, pure: bool) -> Any:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k != "LPSCHED_PURE_PYTHON"}
    if pure:
        env["LPSCHED_PURE_PYTHON"] = "1"
    proc = subprocess.run([LPSCHED, "online", path, "--policy", "all", "--md", "1",
                           "--tau", "2", "--c", "0.5", "--bounds", "exact", "--json"],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def test_online_json_equal_with_and_without_the_kernels(tmp_path):
    rng = np.random.default_rng(7)
    release = np.sort(rng.integers(0, 300, 250)).astype(float)
    p = rng.integers(1, 40, 250).astype(float)
    p[rng.random(250) < 0.05] *= 30
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"processors": 4, "tasks": [
        {"release": float(r), "p": float(q)} for r, q in zip(release, p, strict=True)]}))
    compiled, pure = _online(str(path), False), _online(str(path), True)
    assert _untimed(compiled) == _untimed(pure)
    assert "spt-rd" in json.dumps(compiled)
