"""A fuzzer over every command family, with metamorphic pairs (decision 257).

``tests/cli/test_fuzz.py`` mutates the bags instances and SWF traces field by field; this
module covers what it does not:

* **metamorphic pairs** — the same question asked twice in forms the model says are
  equivalent must get the same answer: every time shifted by a constant (seed 003 §2.2:
  flows and stretches depend on differences of dates only; seed 000 ch. 3 the same for
  tasks; seed 002: campaign submissions), the input order reversed (applications,
  tasks, jobs: the models index them, they do not rank them), and every time scaled by a
  power of two (exact in floating point: stretches and ratios unchanged, makespans and
  flows scaled);
* **bad and extreme files** for the commands of the other families (``approx``, ``online``,
  ``ptg schedule``, ``campaigns run``): empty documents, wrong types, ``1e308``, ``-1``,
  ``5e-324``, empty lists. Every run must end with exit 0 (stdout one strict JSON value)
  or exit 1/2 with exactly one ``lpsched: error:`` line — never the internal-error status
  3, a traceback or a hang.

Each draw comes from ``numpy.random.default_rng(SEED + i)``: deterministic. The suite runs
``FAST`` draws per relation (a few seconds); ``-m slow`` runs ``SLOW`` of them. Commands run
in this process through :func:`lpsched.cli.main`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lpsched.cli import main

SEED = 2028
FAST = 2
SLOW = 25


def lp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``lpsched argv`` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str) -> Any:
    """``text`` as one strict JSON value (no NaN/Infinity)."""
    def bad(token: str) -> None:
        raise AssertionError(f"non-finite number {token} in the JSON output")

    return json.loads(text, parse_constant=bad)


def well_behaved(code: int, out: str, err: str, what: str) -> Any:
    """The contract of every run: exit 0 and one JSON value, or exit 1/2 and one error
    line. Returns the JSON value (``None`` on an error)."""
    assert "Traceback" not in err, f"{what}: {err}"
    assert code in (0, 1, 2), f"{what}: exit {code}: {err}"
    if code == 0:
        return strict_json(out)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), f"{what}: {err!r}"
    return None


def draws(n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(SEED + i) for i in range(n)]


# --------------------------------------------------------------------------------------
# bags (seed 003): shift, reverse, scale
# --------------------------------------------------------------------------------------

def bags_doc(rng: np.random.Generator) -> dict[str, Any]:
    """A small bags instance; releases on a grid of 1/4 s so that shifting them by up to
    2**50 s is exact (the spacing of the floats there is 1/4)."""
    n, p = int(rng.integers(2, 5)), int(rng.integers(2, 4))
    speeds = (rng.uniform(0.5, 2.0, p) * 1e9).tolist()
    bws = (rng.uniform(0.5, 2.0, p) * 1e7).tolist()
    apps = [{"release": float(np.round(rng.uniform(0, 200) * 4) / 4),
             "tasks": int(rng.integers(3, 30)), "work": float(rng.uniform(1, 20) * 1e9),
             "size": float(rng.uniform(1, 20) * 1e7)} for _ in range(n)]
    return {"platform": {"speeds": speeds, "bandwidths": bws, "master_bandwidth": None,
                         "port": str(rng.choice(["one-port", "multiport"]))},
            "applications": apps}


def shifted(doc: dict[str, Any], by: float) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    for a in out["applications"]:
        a["release"] += by
    return out


def reversed_apps(doc: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    out["applications"].reverse()
    return out


def scaled(doc: dict[str, Any], c: float) -> dict[str, Any]:
    """Every time times ``c``: work and size per task times ``c`` (speeds and bandwidths
    kept), releases times ``c``."""
    out = json.loads(json.dumps(doc))
    for a in out["applications"]:
        a["release"] *= c
        a["work"] *= c
        a["size"] *= c
    return out


def write(folder: Path, name: str, doc: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


BAGS_RELATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "shift-1e3": lambda d: shifted(d, 1000.0),
    "shift-2^30": lambda d: shifted(d, 2.0**30),
    "shift-2^50": lambda d: shifted(d, 2.0**50),
    "reverse": reversed_apps,
    "scale-8": lambda d: scaled(d, 8.0),
}


def _bags_metamorphic(capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int) -> None:
    for i, rng in enumerate(draws(n)):
        doc = bags_doc(rng)
        base = write(tmp_path, f"b{i}.json", doc)
        solve = well_behaved(*lp(capsys, "solve", base, "--json"), f"solve {doc}")
        sim = well_behaved(*lp(capsys, "simulate", base, "--policy",
                               "cbs3m-edf-online,spt-mct", "--json"), f"simulate {doc}")
        assert solve is not None and sim is not None
        for name, rel in BAGS_RELATIONS.items():
            other = write(tmp_path, f"b{i}-{name}.json", rel(doc))
            what = f"draw {i} {name}: {other.read_text()}"
            s2 = well_behaved(*lp(capsys, "solve", other, "--json"), what)
            assert s2 is not None, what
            assert s2["stretch"] == pytest.approx(solve["stretch"], rel=1e-6), what
            if name == "reverse":
                continue  # the simulator's ties follow the input order
            m2 = well_behaved(*lp(capsys, "simulate", other, "--policy",
                                  "cbs3m-edf-online,spt-mct", "--json"), what)
            assert m2 is not None, what
            for a, b in zip(sim, m2, strict=True):
                assert a["policy"] == b["policy"] and b["valid"], what
                assert b["max_stretch"] == pytest.approx(a["max_stretch"], rel=1e-6), what
                assert b["max_stretch"] >= b["lp_bound"] * (1 - 1e-6), what


def test_bags_metamorphic_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _bags_metamorphic(capsys, tmp_path, FAST)


@pytest.mark.slow
def test_bags_metamorphic_slow(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _bags_metamorphic(capsys, tmp_path, SLOW)


# --------------------------------------------------------------------------------------
# approx (seeds 000 ch. 2, 004 §5): reverse (distinct times) and scale by 2
# --------------------------------------------------------------------------------------

def _approx_metamorphic(capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int) -> None:
    for i, rng in enumerate(draws(n)):
        times = rng.permutation(np.arange(1, int(rng.integers(3, 12)) + 1) * 1.5).tolist()
        m = int(rng.integers(1, 4))
        runs = {}
        for name, t in (("base", times), ("reverse", times[::-1]),
                        ("scale", [2 * x for x in times])):
            f = write(tmp_path, f"i{i}-{name}.json", {"times": t, "machines": m})
            runs[name] = well_behaved(*lp(capsys, "approx", "identical", f, "--json"),
                                      f"identical {t} m={m}")
        b, r, s = runs["base"], runs["reverse"], runs["scale"]
        assert r["makespan"] == b["makespan"] and r["lower_bound"] == b["lower_bound"]
        assert s["makespan"] == 2 * b["makespan"] and s["lower_bound"] == 2 * b["lower_bound"]
        cpu = rng.uniform(1, 10, 6).round(3).tolist()
        gpu = rng.uniform(1, 10, 6).round(3).tolist()
        hyb = {}
        for name, (c, g) in (("base", (cpu, gpu)), ("scale", ([2 * x for x in cpu],
                                                              [2 * x for x in gpu]))):
            f = write(tmp_path, f"h{i}-{name}.json", {"cpu_times": c, "gpu_times": g})
            hyb[name] = well_behaved(*lp(capsys, "approx", "hybrid", f, "--cpus", "2",
                                         "--gpus", "1", "--json"), f"hybrid {c} {g}")
        assert hyb["scale"]["makespan"] == 2 * hyb["base"]["makespan"]


def test_approx_metamorphic_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _approx_metamorphic(capsys, tmp_path, FAST)


@pytest.mark.slow
def test_approx_metamorphic_slow(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _approx_metamorphic(capsys, tmp_path, SLOW)


# --------------------------------------------------------------------------------------
# online tasks (seed 000 ch. 3): shift and scale
# --------------------------------------------------------------------------------------

def _online_metamorphic(capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int) -> None:
    for i, rng in enumerate(draws(n)):
        k = int(rng.integers(3, 12))
        rel = np.sort(np.round(rng.uniform(0, 50, k) * 4) / 4)
        p = np.round(rng.uniform(0.25, 20, k) * 4) / 4
        m = int(rng.integers(1, 4))

        def doc(shift: float, c: float, m: int = m, rel: np.ndarray = rel,
                p: np.ndarray = p) -> dict[str, Any]:
            return {"processors": m, "tasks": [{"release": float(r * c + shift),
                                                "p": float(q * c)}
                                               for r, q in zip(rel, p, strict=True)]}

        out = {}
        for name, d in (("base", doc(0, 1)), ("shift", doc(2.0**20, 1)),
                        ("scale", doc(0, 4))):
            f = write(tmp_path, f"o{i}-{name}.json", d)
            out[name] = well_behaved(*lp(capsys, "online", f, "--policy", "fcfs,srpt",
                                         "--json"), f"online {d}")
        for a, b, c in zip(out["base"], out["shift"], out["scale"], strict=True):
            what = f"draw {i} {a['policy']}"
            assert b["valid"] and c["valid"], what
            assert b["max_flow"] == pytest.approx(a["max_flow"], rel=1e-9), what
            assert b["max_stretch"] == pytest.approx(a["max_stretch"], rel=1e-9), what
            assert c["max_flow"] == pytest.approx(4 * a["max_flow"], rel=1e-9), what


def test_online_metamorphic_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _online_metamorphic(capsys, tmp_path, FAST)


@pytest.mark.slow
def test_online_metamorphic_slow(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _online_metamorphic(capsys, tmp_path, SLOW)


# --------------------------------------------------------------------------------------
# PTGs (seed 004): every work times 4 -> makespans times 4, stretches unchanged
# --------------------------------------------------------------------------------------

def ptg_doc(rng: np.random.Generator, name: str) -> dict[str, Any]:
    k = int(rng.integers(2, 6))
    tasks = [{"id": f"{name}{j}", "work": float(rng.integers(1, 60)) * 1e9,
              "alpha": float(rng.integers(0, 30)) / 100} for j in range(k)]
    edges = [[f"{name}{j}", f"{name}{i}"] for i in range(1, k) for j in range(i)
             if rng.random() < 0.4]
    return {"tasks": tasks, "edges": edges}


def _ptg_metamorphic(capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int) -> None:
    for i, rng in enumerate(draws(n)):
        graphs = [ptg_doc(rng, name) for name in ("a", "b", "c")[: int(rng.integers(1, 4))]]
        files: dict[str, list[Path]] = {"base": [], "x4": []}
        for g, doc in enumerate(graphs):
            files["base"].append(write(tmp_path, f"p{i}-{g}.json", doc))
            big = json.loads(json.dumps(doc))
            for t in big["tasks"]:
                t["work"] *= 4
            files["x4"].append(write(tmp_path, f"p{i}-{g}x4.json", big))
        for algorithm in ("cra-work", "selfish", "cafm-cra"):
            out = {name: well_behaved(*lp(capsys, "ptg", "schedule", "--cluster", "grelon",
                                          "--algorithm", algorithm, *paths, "--json",
                                          "--no-lp"), f"ptg {algorithm} {graphs}")
                   for name, paths in files.items()}
            what = f"draw {i} {algorithm}: {graphs}"
            assert out["base"]["valid"] and out["x4"]["valid"], what
            assert out["x4"]["makespan"] == pytest.approx(4 * out["base"]["makespan"],
                                                          rel=1e-9), what
            assert out["x4"]["max_stretch"] == pytest.approx(out["base"]["max_stretch"],
                                                             rel=1e-9), what


def test_ptg_metamorphic_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _ptg_metamorphic(capsys, tmp_path, FAST)


@pytest.mark.slow
def test_ptg_metamorphic_slow(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _ptg_metamorphic(capsys, tmp_path, SLOW)


# --------------------------------------------------------------------------------------
# campaigns (seed 002): submissions shifted, every time scaled
# --------------------------------------------------------------------------------------

def _campaigns_metamorphic(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                           n: int) -> None:
    for i, rng in enumerate(draws(n)):
        m = int(rng.integers(1, 6))
        camps = [(int(rng.integers(0, 3)), float(rng.integers(0, 100)),
                  rng.integers(1, 50, int(rng.integers(1, 6))).tolist()) for _ in range(5)]

        def doc(shift: float, c: float, m: int = m,
                camps: list[tuple[int, float, list[int]]] = camps) -> dict[str, Any]:
            return {"processors": m, "campaigns": [
                {"user": u, "submit": s * c + shift, "think": 0.0,
                 "jobs": [{"p": float(p * c), "q": 1} for p in jobs]}
                for u, s, jobs in camps]}

        for policy in ("faircamp", "ostrich", "fcfs"):
            out = {}
            for name, d in (("base", doc(0, 1)), ("shift", doc(2.0**20, 1)),
                            ("scale", doc(0, 4))):
                f = write(tmp_path, f"c{i}-{policy}-{name}.json", d)
                out[name] = well_behaved(*lp(capsys, "campaigns", "run", f, "--policy",
                                             policy, "--json"), f"campaigns {policy} {d}")
            what = f"draw {i} {policy}: {camps} on {m}"
            for name in ("shift", "scale"):
                assert out[name]["valid"], what
                for key in ("max_campaign_stretch", "mean_user_stretch", "max_job_stretch"):
                    assert out[name][key] == pytest.approx(out["base"][key], rel=1e-9), \
                        (what, name, key)


def test_campaigns_metamorphic_fast(capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    _campaigns_metamorphic(capsys, tmp_path, FAST)


@pytest.mark.slow
def test_campaigns_metamorphic_slow(capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    _campaigns_metamorphic(capsys, tmp_path, SLOW)


# --------------------------------------------------------------------------------------
# bad and extreme files for the commands of every other family
# --------------------------------------------------------------------------------------

EXTREMES = [0, -1, 5e-324, 1e-308, 1e308, 1.5, "x", None, True, [], {}]


def _mutations(doc: Any, rng: np.random.Generator, k: int) -> list[Any]:
    """``k`` copies of ``doc`` with one leaf (or list) replaced by an extreme value."""
    leaves: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, value in items:
            leaves.append((node, key))
            walk(value)

    out = []
    for _ in range(k):
        copy = json.loads(json.dumps(doc))
        leaves.clear()
        walk(copy)
        node, key = leaves[int(rng.integers(len(leaves)))]
        node[key] = EXTREMES[int(rng.integers(len(EXTREMES)))]
        out.append(copy)
    return out


FAMILY_INPUTS: dict[str, tuple[list[str], Any]] = {
    "approx-identical": (["approx", "identical", "{f}", "--json"],
                         {"times": [3, 1, 2, 5], "machines": 2}),
    "approx-hybrid": (["approx", "hybrid", "{f}", "--cpus", "2", "--gpus", "1", "--json"],
                      {"cpu_times": [3, 1, 2], "gpu_times": [1, 2, 1]}),
    "approx-moldable": (["approx", "moldable", "{f}", "--json"],
                        {"times": [[4, 2.5, 2], [3, 2, 1.5]], "processors": 3}),
    "online": (["online", "{f}", "--policy", "fcfs,srpt", "--json"],
               {"processors": 2, "tasks": [{"release": 0, "p": 3}, {"release": 1, "p": 1},
                                           {"release": 2, "p": 2}]}),
    "campaigns": (["campaigns", "run", "{f}", "--policy", "faircamp", "--json"],
                  {"processors": 3, "campaigns": [
                      {"user": 0, "submit": 0.0, "think": 0.0, "jobs": [{"p": 5.0, "q": 1}]},
                      {"user": 1, "submit": 2.0, "think": 0.0,
                       "jobs": [{"p": 3.0, "q": 1}, {"p": 4.0, "q": 1}]}]}),
    "ptg": (["ptg", "schedule", "{f}", "--cluster", "grelon", "--algorithm", "cra-work",
             "--json", "--no-lp"],
            {"tasks": [{"id": "a", "work": 1e10, "alpha": 0.1},
                       {"id": "b", "work": 2e10, "alpha": 0.2}], "edges": [["a", "b"]]}),
}
RAW_FILES = ["", "{", "[]", "{}", "null", "1e999", '{"times": []}', "\x00", "\ufeff{}"]


def _family_files(capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int) -> None:
    rng = np.random.default_rng(SEED)
    for name, (argv, doc) in FAMILY_INPUTS.items():
        cases: list[Any] = [doc, *_mutations(doc, rng, n), *RAW_FILES[: max(2, n)]]
        for j, case in enumerate(cases):
            f = write(tmp_path, f"{name}-{j}.json", case if isinstance(case, str)
                      else json.dumps(case))
            args = [a.replace("{f}", str(f)) for a in argv]
            out = well_behaved(*lp(capsys, *args), f"{name} on {f.read_text()[:200]!r}")
            if j == 0:
                assert out is not None, f"{name}: the valid base failed"


def test_family_files_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _family_files(capsys, tmp_path, 4)


@pytest.mark.slow
def test_family_files_slow(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _family_files(capsys, tmp_path, 60)


def test_json_outputs_are_finite() -> None:
    """The helper itself: a non-finite number is caught, a finite document passes."""
    assert strict_json('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    with pytest.raises(AssertionError):
        strict_json('{"a": NaN}')
    assert math.isfinite(strict_json("1e308"))
