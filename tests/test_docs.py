"""The API reference stays complete (decisions 197-200 and 210).

``make docs`` generates one page per public module, function and class (docs/api.rst,
autosummary, recursive): public means no leading underscore, and a module's ``__all__`` when
it defines one. These tests walk the same API and fail on what the site would show empty: a
public module, function or class without a docstring, a public method or property of a public
class without one (the class page lists them with their summaries), a re-exported name whose
defining module does not export it (its link would go nowhere), a main entry point without a
runnable ``Examples`` section. The Sphinx build itself (about two minutes on 2 cores, plus the
notebooks) is ``make docs``, not part of ``make test``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import re
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the entry points a researcher starts from: each has a numpydoc ``Examples`` section,
#: which ``make test`` runs as a doctest (pyproject: ``--doctest-modules``)
ENTRY_POINTS = (
    "lpsched.max_stretch",
    "lpsched.load_instance",
    "lpsched.throughput",
    "lpsched.check_plan",
    "lpsched.approx.listsched.lpt",
    "lpsched.approx.dual.hybrid_schedule",
    "lpsched.approx.packing.nfdh_ls",
    "lpsched.approx.moldable.mrt",
    "lpsched.approx.moldable.kshelf",
    "lpsched.batch.simulator.simulate_batch",
    "lpsched.ptg.registry.run",
    "lpsched.tasks.simulate",
    "lpsched.tasks.evaluate",
    "lpsched.campaigns.simulator.simulate",
)


def _site_helper() -> ModuleType:
    """docs/_ext/lpsched_api.py, the walk the site's templates use: these tests check what
    the site shows (public modules: no dotted part starting with ``_``, so ``__main__``,
    which runs the CLI when imported, is skipped; public members: ``__all__`` or the names
    a module defines itself)."""
    spec = importlib.util.spec_from_file_location("lpsched_api",
                                                  ROOT / "docs" / "_ext" / "lpsched_api.py")
    assert spec is not None and spec.loader is not None
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)
    return site


SITE = _site_helper()
public_members = SITE.public_members


def own_doc(obj: Any) -> str:
    """The docstring ``obj`` has itself: a class's docstring is not inherited, and the
    signature a dataclass or a named tuple makes up (``Name(a: int, ...)``) is none."""
    if inspect.isclass(obj):
        doc = (obj.__dict__.get("__doc__") or "").strip()
        return "" if doc.startswith(obj.__name__ + "(") else doc
    return (obj.__doc__ or "").strip()


@pytest.fixture(scope="module")
def api() -> list[ModuleType]:
    return list(SITE.public_modules("lpsched"))


def test_every_public_module_function_and_class_has_a_docstring(api: list[ModuleType]) -> None:
    missing = [m.__name__ + " (module)" for m in api if not (m.__doc__ or "").strip()]
    for module in api:
        for name, obj in public_members(module).items():
            if obj.__module__ == module.__name__ and not own_doc(obj):
                missing.append(f"{module.__name__}.{name}")
    assert not missing, "public names without a docstring:\n" + "\n".join(sorted(missing))


def own_methods(cls: type) -> dict[str, Any]:
    """The public methods, class and static methods and properties ``cls`` defines in its own
    ``__dict__`` (no leading ``_``; inherited ones are documented on their own class), each
    name bound to the object whose ``__doc__`` the class page shows: the function, or the
    property (a ``functools.cached_property`` too) itself."""
    found = {}
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(attr, (classmethod, staticmethod)):
            found[name] = attr.__func__
        elif isinstance(attr, (property, functools.cached_property)) or inspect.isfunction(attr):
            found[name] = attr
    return found


def test_every_public_method_and_property_has_a_docstring(api: list[ModuleType]) -> None:
    """A class page lists its methods and properties with their first line as summary:
    none may be empty (no allow-list)."""
    missing = []
    for module in api:
        for name, obj in public_members(module).items():
            if not inspect.isclass(obj) or obj.__module__ != module.__name__:
                continue
            missing += [f"{module.__name__}.{name}.{member}"
                        for member, attr in own_methods(obj).items()
                        if not (attr.__doc__ or "").strip()]
    assert not missing, ("public methods and properties without a docstring:\n"
                         + "\n".join(sorted(missing)))


def test_own_methods_sees_every_kind_of_method() -> None:
    class Sample:
        x: int = 1  # a class attribute is not a method

        def plain(self) -> None:
            """Documented."""

        @classmethod
        def cls_method(cls) -> None:
            pass

        @staticmethod
        def static() -> None:
            pass

        @property
        def prop(self) -> int:
            return 1

        @functools.cached_property
        def cached(self) -> int:
            return 1

        def _private(self) -> None:
            pass

    class Child(Sample):
        pass

    members = own_methods(Sample)
    assert sorted(members) == ["cached", "cls_method", "plain", "prop", "static"]
    assert [n for n, a in members.items() if not (a.__doc__ or "").strip()] == [
        "cls_method", "static", "prop", "cached"]
    assert own_methods(Child) == {}


def test_reexported_names_are_documented_where_they_are_defined(
        api: list[ModuleType]) -> None:
    """A package's page links each re-exported name to the page of its defining module:
    that module must be public and export the name."""
    broken = []
    for module in api:
        for name, obj in public_members(module).items():
            home = obj.__module__
            if home == module.__name__:
                continue
            where = f"{module.__name__}.{name} (defined in {home})"
            if any(part.startswith("_") for part in home.split(".")):
                broken.append(f"{where}: the defining module is private")
            elif public_members(importlib.import_module(home)).get(obj.__name__) is not obj:
                broken.append(f"{where}: {home} does not export {obj.__name__}")
    assert not broken, "\n".join(broken)


def test_the_walk_sees_the_public_api_and_nothing_private(api: list[ModuleType]) -> None:
    names = {m.__name__ for m in api}
    assert {"lpsched", "lpsched.bags.maxstretch", "lpsched.cli", "lpsched.testing"} <= names
    assert "lpsched.cli.__main__" not in names
    top = public_members(importlib.import_module("lpsched"))
    home = top["max_stretch"].__module__  # __all__, lazy names: the function itself
    assert home.startswith("lpsched.bags.maxstretch") and home in names
    bags = public_members(importlib.import_module("lpsched.bags.maxstretch"))
    assert "max_stretch" in bags and not any(n.startswith("_") for n in bags)


def test_the_site_links_reexports_to_their_definition() -> None:
    """The site's helper maps a re-exported name to its defining module's page."""
    import lpsched

    canonical = SITE.canonical_names("lpsched")
    defined = f"{lpsched.max_stretch.__module__}.max_stretch"
    assert canonical["lpsched.max_stretch"] == defined
    assert defined not in canonical  # documented there


def test_own_doc_sees_through_made_up_docstrings() -> None:
    from dataclasses import dataclass

    @dataclass
    class Bare:
        x: int

    class Child(ValueError):
        pass

    assert own_doc(Bare) == "" and own_doc(Child) == ""
    assert own_doc(SITE.public_modules) != ""


def docs_type_aliases() -> dict[str, Any]:
    """docs/conf.py's ``autodoc_type_aliases`` (names imported under ``TYPE_CHECKING``),
    each name bound to the object it names."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "autodoc_type_aliases" for t in node.targets):
            aliases: dict[str, str] = ast.literal_eval(node.value)
            return {name: getattr(importlib.import_module(full.rpartition(".")[0]),
                                  full.rpartition(".")[2]) for name, full in aliases.items()}
    return {}


def test_every_signature_resolves(api: list[ModuleType]) -> None:
    """Autodoc shows a signature with links only when ``typing.get_type_hints`` resolves
    all its annotations; otherwise every name stays a bare string and one defined twice
    (``Workload``: lpsched.core.swf and lpsched.campaigns.instance) fails the build. A name
    imported only under ``TYPE_CHECKING`` must be imported at run time instead: docs/conf.py
    has no ``autodoc_type_aliases`` (an alias renames that name in every module; decision
    200)."""
    aliases = docs_type_aliases()
    broken = []
    for module in api:
        for obj in public_members(module).values():
            if obj.__module__ != module.__name__:
                continue
            funcs = [obj] if inspect.isfunction(obj) else [
                f for n, f in vars(obj).items()
                if inspect.isfunction(f) and (not n.startswith("_") or n == "__init__")]
            for func in funcs:
                try:
                    typing.get_type_hints(func, localns=aliases)
                except Exception as exc:  # NameError, or a bad annotation
                    broken.append(f"{module.__name__}.{func.__qualname__}: {exc}")
    assert not broken, "unresolvable annotations:\n" + "\n".join(broken)


@pytest.mark.parametrize("dotted", ENTRY_POINTS)
def test_entry_point_has_a_runnable_examples_section(dotted: str) -> None:
    module, _, name = dotted.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    doc = inspect.getdoc(obj) or ""
    section = re.search(r"^Examples\n-{8}\n(.*)", doc, re.M | re.S)
    assert section, f"{dotted}: no numpydoc 'Examples' section"
    assert ">>> " in section.group(1), f"{dotted}: its Examples section has no doctest"


# -- the build configuration ------------------------------------------------------------------

def pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_docs_pages_notebooks_and_build_are_wired() -> None:
    """Every page of docs/ and every notebook is reachable from the site's index; the
    Makefile builds with warnings as errors; doctests run in ``make test``."""
    docs = ROOT / "docs"
    index = (docs / "index.md").read_text()
    for page in ("readme", "testing", "architecture", "decisions", "api"):
        assert re.search(rf"^{page}$", index, re.M), f"docs/index.md: no toctree entry {page}"
    assert "notebooks/*" in index
    linked = sorted(p.name for p in (docs / "notebooks").glob("*.ipynb"))
    assert linked == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) != []
    assert "../README.md" in (docs / "readme.md").read_text()
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"sphinx-build -W --keep-going .*docs docs/_build/html", make)
    assert "$(BIN)/mypy lpsched" in make.split("\ntest:")[1].split("\n\n")[0]
    config = pyproject()
    pytest_ini = config["tool"]["pytest"]["ini_options"]
    assert "lpsched" in pytest_ini["testpaths"] and "--doctest-modules" in pytest_ini["addopts"]


def test_the_package_is_marked_typed() -> None:
    """PEP 561: ``py.typed`` ships in the wheel (package data) and mypy is configured."""
    assert (ROOT / "lpsched" / "py.typed").is_file()
    config = pyproject()
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["lpsched"]
    assert config["tool"]["mypy"]["files"] == ["lpsched"]
    assert any(req.startswith("mypy") for req in config["project"]["optional-dependencies"]["dev"])


def test_cli_reference_lists_every_command_and_option() -> None:
    """The command-line reference (``make docs`` writes it to docs/cli.md from the parsers)
    has a section per command and a row per option, with defaults."""
    from lpsched.cli.reference import commands, markdown

    page = markdown()
    cmds = list(commands())
    assert len(cmds) > 30
    names = {c.name for c in cmds}
    assert {"lpsched solve", "lpsched reproduce cbs3m", "lpsched batch",
            "lpsched ptg schedule"} <= names
    for cmd in cmds:
        assert f"`{cmd.name}`" in page
        for action in cmd.actions():
            for flag in action.option_strings:
                assert f"`{flag}" in page, (cmd.name, flag)
    # a default is shown (batch --policy has one) and a help text reaches the page
    assert "| `--solver-log FILE` |  | append the solver's log to FILE" in page


def test_every_option_has_a_help_text_and_shows_its_default() -> None:
    """No option of any command without a help text; an option with a value shows its
    default."""
    from lpsched.cli import build_parser
    from lpsched.cli.reference import commands, options_without_help

    assert options_without_help() == []
    parser = build_parser(["ptg"])
    for cmd in commands(parser):
        for action in cmd.actions():
            if action.option_strings and action.nargs != 0 and action.default is not None:
                assert "default" in (action.help or ""), (cmd.name, action.option_strings)
