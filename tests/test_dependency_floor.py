"""The declared dependency floor stays honest: ``constraints/oldest.txt`` (what
``make test-oldest`` installs) is exactly what ``scripts/oldest_constraints.py``
generates from ``pyproject.toml``, and every runtime dependency has a lower bound."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "oldest_constraints.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("oldest_constraints", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oc = _load_script()


def test_committed_constraints_match_pyproject():
    problem = oc.drift()
    assert problem is None, problem + "\nRegenerate: python scripts/oldest_constraints.py --write"


def test_every_runtime_dependency_has_a_lower_bound():
    deps = oc.runtime_dependencies()
    assert deps, "no [project].dependencies found in pyproject.toml"
    pins = {}
    for req in deps:
        name, floor = oc.lower_bound(req)  # raises FloorError without a '>=X'
        assert floor[0].isdigit(), f"{req!r}: floor {floor!r} is not a version"
        pins[name.lower()] = floor
    committed = {}
    for line in oc.generated_part(oc.CONSTRAINTS.read_text()).splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            committed[name.strip().lower()] = version.strip()
    assert committed == pins


def test_the_constraints_file_says_it_is_generated():
    text = oc.CONSTRAINTS.read_text()
    assert text.startswith(oc.HEADER)
    assert "scripts/oldest_constraints.py --write" in text


def test_extras_are_not_pinned():
    pinned = {line.partition("==")[0].lower() for line in oc.generate().splitlines()
              if line and not line.startswith("#")}
    assert pinned == {oc.lower_bound(req)[0].lower() for req in oc.runtime_dependencies()}
    assert not pinned & {"matplotlib", "dask", "pytest", "hypothesis", "ruff"}


def test_check_flag_passes_on_the_committed_file():
    res = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                         text=True, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""


@pytest.mark.parametrize(("req", "floor"), [
    ("numpy>=1.24", ("numpy", "1.24")),
    ("pulp>=3.3,<4", ("pulp", "3.3")),
    ("pulp <4 , >= 3.3.2", ("pulp", "3.3.2")),
    ("dask[distributed]>=2024.1", ("dask", "2024.1")),
    ("foo==2.0; python_version < '3.12'", ("foo", "2.0")),
])
def test_lower_bound_parses(req, floor):
    assert oc.lower_bound(req) == floor


@pytest.mark.parametrize("req", ["numpy", "numpy<3", "numpy~=1.24", "numpy>=1.24,>=1.25",
                                 "numpy==1.*"])
def test_a_dependency_without_a_single_floor_is_refused(req):
    with pytest.raises(oc.FloorError):
        oc.lower_bound(req)


def _project(tmp_path: Path, deps: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[build-system]\nrequires = ["setuptools"]\n\n'
        f'[project]\nname = "x"\ndependencies = [\n{deps}\n]\n\n'
        '[project.optional-dependencies]\ndev = ["pytest>=7"]\n'
    )
    return path


def test_drift_is_reported_with_a_diff(tmp_path):
    pyproject = _project(tmp_path, '    "numpy>=1.24",\n    "scipy>=1.10",')
    constraints = tmp_path / "oldest.txt"
    constraints.write_text(oc.generate(pyproject))
    assert oc.drift(pyproject, constraints) is None
    # a manual section for dev tools is kept out of the comparison
    constraints.write_text(oc.generate(pyproject) + "\n" + oc.MANUAL_MARKER + "\nfoo==1\n")
    assert oc.drift(pyproject, constraints) is None
    pyproject = _project(tmp_path, '    "numpy>=1.26",\n    "scipy>=1.10",')
    problem = oc.drift(pyproject, constraints)
    assert problem is not None and "-numpy==1.24" in problem and "+numpy==1.26" in problem
    assert "does not exist" in oc.drift(pyproject, tmp_path / "missing.txt")


def test_regex_fallback_agrees_with_tomllib(tmp_path):
    """Python 3.10 without tomli parses [project].dependencies with a regex."""
    text = (ROOT / "pyproject.toml").read_text()
    assert oc._regex_dependencies(text) == oc.runtime_dependencies()
    pyproject = _project(
        tmp_path, '    "a>=1",  # comment, with "quotes" ]\n    \'b[x,y]>=2\',\n  # "c>=3"')
    assert oc._regex_dependencies(pyproject.read_text()) == ["a>=1", "b[x,y]>=2"]
