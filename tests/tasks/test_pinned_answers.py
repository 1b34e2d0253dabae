"""Every answer of ``lpsched online`` on two CEA-Curie windows, pinned byte for byte.

The digests are those of the instance, the schedule of each policy (task, processor,
start, end, kind of every piece and every completion time) and the three lower bounds
with the number of feasibility tests, on two windows of ``lpsched tasks`` (the 60-day
window of seed 1: 71,756 tasks on 96 processors). The simulator's own event heap and
the speed-m bisection's proven segments (decisions 400-401) must keep them. They skip
without ../shared/data.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched.tasks.bounds import lower_bounds
from lpsched.tasks.instance import TaskInstance, instance_from_trace
from lpsched.tasks.policies import ALL_POLICIES, get_policy
from lpsched.tasks.simulator import simulate
from tests.shared_data import needs_shared, shared_file

CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"


LPSCHED = str(Path(sys.executable).parent / "lpsched")


pytestmark = needs_shared(CURIE)


EXPECTED = {
    ("random:15d", 0): {
        "instance": "bd688c4f8b190ae0d022733bb9c0e11e0a4d7189b6a655e70ac6333743aadabd",
        "bounds": {"max_flow": "3133401.9069380867", "max_stretch": "1.0",
                   "sum_flow": "160409386.6657021"},
        "tests": 1,
        "sched": {
            "fcfs": "90d310fb65ab0c231381c2a899fa725c94faa32f6368fe61a97ce14a3d3600df",
            "gspt": "5e2ad0d470f5885f1154c82f8d3e89138e5c4ecfa1d107dda3dccd43422fe833",
            "gspt-rd": "010c5fccc2fc9f39f86b0a234fbfad1ec02aa0fd158b0b014cfd86197fd291c6",
            "gspt-rr": "93edda024385125ae867dc3c37a7d43d19bd7e09daef2f18a728f44e1a558a46",
            "gsrpt": "6cf23e9fcb8e82daf0620b76f73401300579edbc8d5dd3a0b105b62c4d6e6fc3",
            "spt": "6fc9ddda94720222586cca83c8c99a755e666c953d0d0522582fbe92aa0d98b6",
            "spt-rd": "f6d12c00a0ff9ae2ebce38f3eed2daf08f21eb561410cc74326911d5c5259519",
            "spt-rr": "e08ff4163edc3748817b93832c11c0149958f537af312aabb254898f1b4cccc6",
            "srpt": "723265c24ca581b8718da18fb1f7f739978534d67389c2961e8dc37e65cb25d1",
        },
    },
    ("random:60d", 1): {
        "instance": "012d529ba61bd72c22efd763923628d308398e55ae74d159e551ac6b30082fe9",
        "bounds": {"max_flow": "7414856.148747488", "max_stretch": "1.0084553222656252",
                   "sum_flow": "394768972.0637597"},
        "tests": 18,
        "sched": {
            "fcfs": "73a31a18b2972b6a129944dc04620907c0a43c99eb55ebd43f4b602b3fafc78c",
            "gspt": "4ab06cf1ce9dec83025c66c843e6077a5a2084229599052b7a9b15437d0cb6a6",
            "gspt-rd": "3af34d7bdf50e9a7e058052adf058e464e9f62c552eed33cf568bec01a6c4414",
            "gspt-rr": "bb75205c571d90fe8cf9eaa8a0b209dad5a20b02d124c849d6190edb8ad453c1",
            "gsrpt": "a9d2a9d1ebc598be57e84b7b2580a9bcadd5f8b0b12b44a7552d63e37673ee3e",
            "spt": "322bb2f240c2a29a9bd4393c9352323878036797b99e81f8132c70ecb1f7274e",
            "spt-rd": "9c695e04aedc981cb4b13456c1a03c729715d8a89cb9a5edbb9f1bcab08bfe50",
            "spt-rr": "5fec699d11554292950e8239ad68c01edf2be494b75bac3249412adf75d90472",
            "srpt": "64856880317b30c114b781fafa5bac50ad403bfd762de2fb05292fca082dcd8e",
        },
    },
}


_CACHE: dict[tuple[str, int], TaskInstance] = {}


def _instance(window: str, seed: int) -> TaskInstance:
    if (window, seed) not in _CACHE:
        inst = instance_from_trace(str(shared_file(CURIE)), window, seed)
        digest = hashlib.sha256(inst.release.tobytes() + inst.p.tobytes()).hexdigest()
        assert digest == EXPECTED[window, seed]["instance"]
        _CACHE[window, seed] = inst
    return _CACHE[window, seed]


def _digest(inst: TaskInstance, name: str) -> str:
    sched = simulate(inst, get_policy(name, md=10, tau=4, c=0.8))
    h = hashlib.sha256()
    for arr in (sched.task, sched.proc, sched.start, sched.end, sched.kind,
                sched.completion):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def _bounds(window: str, seed: int) -> None:
    want = EXPECTED[window, seed]
    got = lower_bounds(_instance(window, seed))
    assert {k: repr(v.value) for k, v in got.items()} == want["bounds"]
    assert got["max_stretch"].tests == want["tests"]


def test_bounds_of_the_60_day_window_are_unchanged() -> None:
    """The speed-m bisection (18 EDF tests, segments skipped once proven) gives the same
    bound from the same tests."""
    _bounds("random:60d", 1)


def test_spt_rd_schedule_is_unchanged() -> None:
    inst = _instance("random:15d", 0)
    assert _digest(inst, "spt-rd") == EXPECTED["random:15d", 0]["sched"]["spt-rd"]


@pytest.mark.slow
@pytest.mark.parametrize("window,seed", list(EXPECTED))
def test_every_policy_and_bound_is_unchanged(window: str, seed: int) -> None:
    inst = _instance(window, seed)
    _bounds(window, seed)
    got = {name: _digest(inst, name) for name in ALL_POLICIES}
    assert got == EXPECTED[window, seed]["sched"]


@pytest.mark.slow
def test_the_online_command_prints_the_pinned_row(tmp_path: Path) -> None:
    """``lpsched tasks`` + ``lpsched online --policy spt-rd --json`` as a user runs them:
    the row (less its timings) is the pinned one."""
    path = tmp_path / "curie60.json"
    subprocess.run([LPSCHED, "tasks", str(shared_file(CURIE)), "--window", "random:60d",
                    "--seed", "1", "-o", str(path)], check=True, capture_output=True)
    proc = subprocess.run([LPSCHED, "online", str(path), "--policy", "spt-rd", "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    row = json.loads(proc.stdout)
    for b in row["lower_bounds"].values():
        b.pop("seconds")
    row.pop("seconds")
    assert row == {
        "policy": "spt-rd", "md": 10, "tau": 10.0, "valid": True,
        "max_stretch": 1742.006235261217, "sum_stretch": 294082.9701844921,
        "l2_stretch": 3560.831809511038, "max_flow": 7414856.148747489,
        "sum_flow": 525890071.5094219, "l2_flow": 15803541.96088601, "preemptions": 0,
        "interruptions": 855, "redirections": 855, "wasted_work": 16847553.402811572,
        "dedicated_utilisation": 0.18341346699112, "status": "ok",
        "lower_bounds": {
            "max_stretch": {"value": 1.0084553222656252, "bound": "speed-m-edf",
                            "upper": None, "tests": 18},
            "max_flow": {"value": 7414856.148747488, "bound": "speed-m-edf", "upper": None,
                         "tests": 1},
            "sum_flow": {"value": 394768972.0637597, "bound": "srpt-speed-m", "upper": None,
                         "tests": 1}},
        "max_stretch_over_lb": 1727.4005072902733, "max_flow_over_lb": 1.0000000000000002,
        "sum_flow_over_lb": 1.33214641657421}
