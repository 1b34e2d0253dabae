"""The package's shape holds: allowed import arrows, no cycles, layer contracts.

The arrows are drawn in docs/architecture.md ("Import rules"); this test parses every module
with ``ast`` (imports inside functions count too) and fails on any import that breaks them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "lpsched"

FAMILIES = {"bags", "approx", "batch", "tasks", "campaigns", "ptg"}
# what each component may import besides itself
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "models": {"core"},
    "solvers": {"core", "models"},
    # the one SimGrid platform reader, shared by every family that takes --platform
    "platforms": {"core"},
    # the seeds' manifests and the report's part types: each family's report hook builds
    # its rows for the manifest's entries; lpsched.report reaches the hooks by name only
    "report": {"core"},
    **{family: {"core", "models", "solvers", "platforms", "report"} for family in FAMILIES},
    # lpsched.experiments: a result store's rows as a DataFrame; reads the store only
    "experiments": {"core"},
}
# the named seams between families: (importing module, imported module) -> why
SEAMS: dict[tuple[str, str], str] = {
    ("lpsched.batch.reproduce", "lpsched.approx.packing"):
        "seed 000 ch. 4 compares backfilling with the NFDH+LS packing of ch. 4 §4.4",
    ("lpsched.ptg.cafm", "lpsched.approx.moldable"):
        "seed 004 §4 CAFM allocates each PTG's processors with the MRT dual approximation "
        "and the K-shelf algorithm of seed 004 §5 (approx.moldable)",
}
TOP = {"lpsched", "lpsched.testing"}  # the public face and the pytest plugin: may import all
# modules that only parse, call and format, or only describe: never print from elsewhere
PRINTING = ("lpsched.cli",)


def is_top(name: str) -> bool:
    """The public face, the pytest plugin and the plugin's own modules."""
    return name in TOP or name.startswith("lpsched.testing.")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text(), str(p)) for p in PACKAGE.rglob("*.py")}


def imported(name: str, tree: ast.Module, is_package: bool) -> list[tuple[str, int, bool]]:
    """(module imported, line, at module level) for every lpsched import in ``tree``."""
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_package else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join([*pkg, base] if base else pkg)
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            if target == "lpsched" or target.startswith("lpsched."):
                found.append((target, node.lineno, id(node) in top_level))
    return found


def component(mod: str) -> str:
    """``lpsched.bags.maxstretch`` -> ``bags``; ``lpsched.errors`` belongs to the core."""
    parts = mod.split(".")
    if len(parts) == 1:
        return "top"
    return "core" if parts[1] == "errors" else parts[1]


def resolve(target: str, known: set[str]) -> str | None:
    """The module ``target`` names (``from pkg import name`` may name a function)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def test_every_import_follows_the_arrows() -> None:
    mods = modules()
    known = set(mods)
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    broken = []
    for name, tree in mods.items():
        if is_top(name) or name.startswith("lpsched.cli"):
            continue
        here = component(name)
        assert here in ALLOWED, f"{name}: module outside the layout (component {here!r})"
        for target, line, _ in imported(name, tree, name in packages):
            mod = resolve(target, known)
            if mod is None or mod == "lpsched":
                if target == "lpsched" or mod == "lpsched":
                    broken.append(f"{name}:{line} imports the top-level package {target}")
                continue
            there = component(mod)
            if there == here or there in ALLOWED[here] or (name, mod) in SEAMS:
                continue
            broken.append(f"{name}:{line} ({here}) imports {mod} ({there})")
    assert not broken, "imports against docs/architecture.md:\n" + "\n".join(sorted(broken))


def import_graph(at_module_level_only: bool) -> nx.DiGraph:
    """Module -> module it imports (a package's ``__init__`` imported by its own modules
    is left out: Python runs it first, whatever the order)."""
    mods = modules()
    known = set(mods)
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    graph = nx.DiGraph()
    for name, tree in mods.items():
        graph.add_node(name)
        for target, _, top in imported(name, tree, name in packages):
            mod = resolve(target, known)
            if (top or not at_module_level_only) and mod and mod != name and not (
                    name.startswith(mod + ".")):
                graph.add_edge(name, mod)
    return graph


def test_no_import_cycles_between_modules() -> None:
    """No circle, imports inside functions included: a function-level import only hides a
    circle from Python's import order, not from the reader."""
    cycles = sorted(nx.simple_cycles(import_graph(at_module_level_only=False)), key=len)
    assert not cycles, f"import cycles: {cycles[:5]}"


def test_models_build_and_never_solve() -> None:
    """Model builders (``lpsched.models`` and every family's ``*_model`` module) never import
    a solver back-end; that is the algorithm's job."""
    mods = modules()
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    builders = [n for n in mods if n.startswith("lpsched.models") or n.endswith("_model")]
    assert "lpsched.bags.maxstretch.buffer_model" in builders
    for name in builders:
        for target, line, _ in imported(name, mods[name], name in packages):
            assert not target.startswith("lpsched.solvers"), f"{name}:{line} imports {target}"


def test_only_the_cli_prints() -> None:
    offenders = []
    for name, tree in modules().items():
        if name.startswith(PRINTING):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "print"):
                offenders.append(f"{name}:{node.lineno}")
    assert not offenders, f"print() outside the CLI: {offenders}"


def test_the_import_checker_catches_a_bad_arrow(tmp_path: Path) -> None:
    """The checker itself: a family importing another family is reported."""
    tree = ast.parse("from lpsched.approx.dual import dual_approximation\n")
    found = imported("lpsched.bags.policies.greedy", tree, False)
    assert found[0][0] == "lpsched.approx.dual"
    assert component("lpsched.approx.dual") == "approx"
    assert "approx" not in ALLOWED[component("lpsched.bags.policies.greedy")]


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines without its docstring: the rule is about code, and the numpydoc
    sections every public function carries (tests/test_docstrings.py) are not code."""
    length = (node.end_lineno or node.lineno) - node.lineno + 1
    first = node.body[0] if node.body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        length -= (first.end_lineno or first.lineno) - first.lineno + 1
    return length


def test_code_lines_leave_the_docstring_out() -> None:
    tree = ast.parse('def f(x):\n    """Doc.\n\n    More.\n    """\n    return x\n')
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef) and code_lines(func) == 2


#: functions long by design, each with the decision that says why (and its test)
LONG_BY_DESIGN: set[str] = set()


def test_no_function_is_longer_than_80_lines() -> None:
    long = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = code_lines(node)
                if length >= 80 and f"{name}.{node.name}" not in LONG_BY_DESIGN:
                    long.append(f"{name}.{node.name}: {length} lines")
    assert not long, "functions of 80 lines or more:\n" + "\n".join(long)


def test_the_version_is_declared_once() -> None:
    """``lpsched.__version__`` (from ``lpsched.core.versions``) matches pyproject.toml."""
    import re

    import lpsched

    text = (PACKAGE.parent / "pyproject.toml").read_text()
    declared = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    assert declared is not None and declared.group(1) == lpsched.__version__
