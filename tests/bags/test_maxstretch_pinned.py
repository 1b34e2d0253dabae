"""The max-stretch search's answers, pinned byte for byte (decision 450).

Each case hashes (SHA-256, first 16 hex digits) three things of ``max_stretch(inst)``:

* the answer: ``stretch`` and ``lower`` and every array of the plan (epochs, deadlines,
  windows, initial state, ``comm``, ``comp``, ``buffers``, ``apps``), as raw float bytes;
* the schedule ``lpsched schedule`` realises from that plan (``reconstruct_op_ac`` on a
  one-port instance, ``reconstruct_bmp(..., "atomic")`` on a multiport one: its JSON form,
  deadlines, lateness and bound);
* the LP path: the number of checks, column-generation rounds, generated columns, coarse
  LPs, simplex iterations, and each probe's kind, verdict and iterations (a speed change
  that feeds HiGHS the same LPs keeps this one too).

The digests are those of commit 5b54b5e. The five balanced 100x20 one-port instances are
the benchmark's (``lpsched generate bags --profile balanced --apps 100 --workers 20 --seed
S``, the same instances as ``random_bags(100, 20, profile="balanced", seed=S)``), whose
optima are also pinned as numbers (:data:`OPTIMA`, commit c34351f), whatever the
dependencies' versions.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched import check_plan, max_stretch, random_bags
from lpsched.bags import Instance
from lpsched.bags.reconstruct import reconstruct_bmp, reconstruct_op_ac

#: the installed command, beside the interpreter running the tests
LPSCHED = Path(sys.executable).with_name("lpsched")


def _digest(*arrays: np.ndarray) -> str:
    """SHA-256 of the arrays' dtypes, shapes and raw bytes (16 hex digits)."""
    d = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        d.update(str(a.dtype).encode())
        d.update(str(a.shape).encode())
        d.update(a.tobytes())
    return d.hexdigest()[:16]


def digests(inst: Instance) -> tuple[str, str, str]:
    """``(answer, schedule, lp path)`` digests of ``max_stretch(inst)`` (module docstring)."""
    res = max_stretch(inst)
    p = res.plan
    answer = _digest(np.array([res.stretch, res.lower]), p.epochs, p.deadlines, p.start,
                     p.remaining, p.buffered, p.comm, p.comp, p.buffers, p.apps)
    if inst.platform.port == "one-port":
        rec = reconstruct_op_ac(inst, p)
    else:
        rec = reconstruct_bmp(inst, p, "atomic")
    text = json.dumps(rec.schedule.to_dict(), sort_keys=True).encode()
    schedule = _digest(np.frombuffer(text, np.uint8), np.asarray(rec.deadlines, float),
                       np.asarray(rec.lateness, float), np.asarray(rec.bound, float))
    path = (res.lp_solves, res.column_rounds, res.columns, res.coarse_solves, res.iterations,
            tuple((q.kind, q.feasible, q.iterations) for q in res.probes))
    return answer, schedule, hashlib.sha256(repr(path).encode()).hexdigest()[:16]


#: ``(applications, workers, profile, seed, port)`` -> ``(answer, schedule, lp path)``
SMALL = {
    (6, 4, "mpi", 0, "one-port"): ("e089d85797b95c29", "257781130a8163ed", "713a61968db2c436"),
    (6, 4, "mpi", 0, "multiport"): ("f182134a591b082f", "860f7fd0207a9e8d", "10b422daff26941e"),
    (6, 4, "mpi", 3, "one-port"): ("849b8b691f302856", "2cd956ae3035058d", "5254160fa27ae797"),
    (6, 4, "mpi", 3, "multiport"): ("2d24134163915b01", "d47dd9f2d5d961e6", "242100fb1c7608ca"),
    (12, 6, "mpi", 0, "one-port"): ("2b30850f6bb1ade2", "8af8b362e89e254f", "7ceff07075e7c454"),
    (12, 6, "mpi", 0, "multiport"): ("b5f51503773f09ad", "cbd3df4a8a16a3ba", "49aed3f7b1cfb070"),
    (12, 6, "mpi", 3, "one-port"): ("385edac937497e44", "09d9153b8b00daf0", "5e48e7a887b278a3"),
    (12, 6, "mpi", 3, "multiport"): ("273fa952f3256cfe", "41f3b6ae167f2d90", "615ee6bf11625eeb"),
    (20, 10, "balanced", 0, "one-port"): ("02b56154a8045811", "07a3ac62c453f3fe",
                                          "dd74556f2817254b"),
    (20, 10, "balanced", 0, "multiport"): ("014085bbf893a3b2", "8a2f851156a2f4eb",
                                           "5d617ff0c8e15673"),
    (20, 10, "balanced", 3, "one-port"): ("0a2d3a78dd4b3a5d", "370d28dd499f6795",
                                          "80067acff96136b5"),
    (20, 10, "balanced", 3, "multiport"): ("5684566fe1aceea2", "ee7857b7f80452b9",
                                           "e6c8cfd5b8525ef5"),
    (20, 10, "simgrid", 0, "one-port"): ("ea02c71fa0ef5785", "94c451ea56a18473",
                                         "09b88b46ff189053"),
    (20, 10, "simgrid", 0, "multiport"): ("29a688d5a9d1c9ef", "dc53a203c06aeadf",
                                          "5b732946049a083a"),
    (20, 10, "simgrid", 3, "one-port"): ("9e09a64c6890070c", "5e2334abc87fd0cc",
                                         "0b222c48b6459c45"),
    (20, 10, "simgrid", 3, "multiport"): ("5a5eabc09359dea6", "8e37fa5da197d659",
                                          "997e78c8852ec636"),
}
#: the versions the digests were taken with: another HiGHS may pivot to another optimal
#: vertex, another numpy may round a reduction differently (the pins guard the code's
#: changes, not the dependencies')
PINNED = {"highspy": "1.16.0", "numpy": "2.4.6"}


def _same_dependencies() -> bool:
    from importlib.metadata import version

    return all(version(name) == pinned for name, pinned in PINNED.items())


needs_pinned_dependencies = pytest.mark.skipif(not _same_dependencies(), reason=(
    "the digests were taken with highspy 1.16.0 and numpy 2.4.6; other versions may land "
    "on another optimal plan"))

#: the benchmark's balanced 100x20 one-port instances, by seed
LARGE = {
    0: ("45052089ea094b84", "5dfc66b0f11b9cdf", "ca0224923b3223ae"),
    1: ("3624d1584f21fd84", "8e33d7015eb73694", "2d75e701e9d25690"),
    2: ("dc695687b6c14ebf", "5e976314cf78808b", "f624676a7e09e277"),
    3: ("d1209536a13f2a33", "b99d77166e794ef7", "7cc8641aca02b020"),
    4: ("9f65ea07d9982a32", "0846d799720b1827", "644db82b1eceb722"),
}
#: SHA-256 of the stdout of ``lpsched schedule s3.json --model op-ac --json --schedule``,
#: ``s3.json`` from ``lpsched generate bags --profile balanced --apps 20 --workers 10 --seed 3``
SCHEDULE_STDOUT = "a0b805aacbb88bde891fae9cc051601612c7100069aa155f4ddcf3189f4b017d"


@needs_pinned_dependencies
@pytest.mark.parametrize("case", sorted(SMALL), ids=lambda c: "-".join(map(str, c)))
def test_small_profiles_answer_as_before(case: tuple[int, int, str, int, str]) -> None:
    apps, workers, profile, seed, port = case
    inst = random_bags(apps, workers, profile=profile, seed=seed, port=port)
    assert digests(inst) == SMALL[case]


@needs_pinned_dependencies
@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(LARGE))
def test_benchmark_instances_answer_as_before(seed: int) -> None:
    inst = random_bags(100, 20, profile="balanced", seed=seed)
    assert digests(inst) == LARGE[seed]


@needs_pinned_dependencies
def test_the_realised_schedule_command_prints_the_same_bytes(tmp_path: Path) -> None:
    """The installed ``lpsched schedule`` (one-port atomic, Theorem 6), end to end."""
    inst = tmp_path / "s3.json"
    gen = subprocess.run([str(LPSCHED), "generate", "bags", "--profile", "balanced", "--apps",
                          "20", "--workers", "10", "--seed", "3", "-o", str(inst)],
                         capture_output=True, text=True, check=False)
    assert gen.returncode == 0, gen.stderr
    run = subprocess.run([str(LPSCHED), "schedule", str(inst), "--model", "op-ac", "--json",
                          "--schedule"], capture_output=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr == b""
    assert json.loads(run.stdout)["valid"] is True
    assert hashlib.sha256(run.stdout).hexdigest() == SCHEDULE_STDOUT


#: ``max_stretch(random_bags(100, 20, profile="balanced", seed=s))`` at commit c34351f, the
#: seeds of ``benchmarks/bench_maxstretch.py --family balanced --large``
OPTIMA = {0: 40.35254265960282, 1: 39.279927816868216, 2: 42.27362106329687,
          3: 39.61863350695236, 4: 41.96719298219813}


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(OPTIMA))
def test_balanced_100x20_optimum_unchanged(seed: int) -> None:
    inst = random_bags(100, 20, profile="balanced", seed=seed)
    res = max_stretch(inst)
    assert res.stretch == pytest.approx(OPTIMA[seed], rel=1e-9)
    assert check_plan(inst, res.plan).ok
