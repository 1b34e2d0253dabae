"""Every public function and method documents its arguments and its result.

The API reference (``make docs``, numpydoc) shows a ``Parameters`` and a ``Returns`` table
only when the docstring has those sections. These tests walk the public API as the site does
(docs/_ext/lpsched_api.py: public modules, a module's ``__all__`` or the names it defines)
and require, of every public function and of every public method, class method and static
method a public class defines itself (properties need only their one-line summary, which
tests/test_docs.py checks):

* a ``Parameters`` section when it takes an argument besides ``self``/``cls``;
* a ``Returns`` section (``Yields`` for a generator or context manager) when its return
  annotation is anything but ``None``.

The modules of :data:`STILL_TO_CHECK` are documented by other hands and are skipped until
their owners complete them; an entry names one module (a package's ``__init__`` only), or
ends with ``.*`` for a package and every module under it. Empty the set as they land: a
stale entry (a module that no longer exists, or one already complete) fails
:func:`test_still_to_check_lists_only_unfinished_modules`.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: modules (or packages, with everything under them) whose docstrings are not yet required
#: to have the sections; empty: every public module is checked
STILL_TO_CHECK: frozenset[str] = frozenset()

_SECTION = {name: re.compile(rf"^{name}\n-{{{len(name)}}}$", re.M)
            for name in ("Parameters", "Returns", "Yields")}


def _site_helper() -> ModuleType:
    """docs/_ext/lpsched_api.py, the walk the API reference itself uses."""
    spec = importlib.util.spec_from_file_location("lpsched_api",
                                                  ROOT / "docs" / "_ext" / "lpsched_api.py")
    assert spec is not None and spec.loader is not None
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)
    return site


SITE = _site_helper()


def covers(entry: str, module: str) -> bool:
    """Whether the :data:`STILL_TO_CHECK` entry ``entry`` names ``module``."""
    if entry.endswith(".*"):
        package = entry[:-2]
        return module == package or module.startswith(package + ".")
    return module == entry


def pending(module: str) -> bool:
    """Whether some entry of :data:`STILL_TO_CHECK` names ``module``."""
    return any(covers(entry, module) for entry in STILL_TO_CHECK)


def callables(module: ModuleType) -> Iterator[tuple[str, Callable[..., Any]]]:
    """``(dotted name, function)`` of every public function ``module`` defines and every
    public method, class method and static method of the public classes it defines."""
    for name, obj in SITE.public_members(module).items():
        if obj.__module__ != module.__name__:
            continue  # a re-export: checked where it is defined
        where = f"{module.__name__}.{name}"
        if inspect.isfunction(obj):
            yield where, obj
            continue
        for member, attr in vars(obj).items():
            if member.startswith("_"):
                continue
            if isinstance(attr, (classmethod, staticmethod)):
                attr = attr.__func__
            if inspect.isfunction(attr):
                yield f"{where}.{member}", attr


def returns_something(func: Callable[..., Any]) -> bool:
    """Whether the return annotation is present and not ``None`` (a string under
    ``from __future__ import annotations``)."""
    ann = inspect.signature(func).return_annotation
    return ann is not inspect.Signature.empty and ann not in (None, "None", type(None))


def missing_sections(func: Callable[..., Any]) -> list[str]:
    """The sections ``func``'s docstring lacks: ``Parameters`` when it takes an argument
    (``self`` and ``cls`` aside), ``Returns`` (or ``Yields``) when it returns something."""
    doc = inspect.getdoc(func) or ""
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    out = []
    if params and not _SECTION["Parameters"].search(doc):
        out.append("Parameters")
    if returns_something(func) and not (_SECTION["Returns"].search(doc)
                                        or _SECTION["Yields"].search(doc)):
        out.append("Returns")
    return out


@pytest.fixture(scope="module")
def modules() -> list[ModuleType]:
    return list(SITE.public_modules("lpsched"))


def test_every_checked_function_has_parameters_and_returns(modules: list[ModuleType]) -> None:
    missing = []
    checked = 0
    for module in modules:
        if pending(module.__name__):
            continue
        for name, func in callables(module):
            checked += 1
            lacks = missing_sections(func)
            if lacks:
                missing.append(f"{name}: no {' or '.join(lacks)} section")
    assert checked > 300, f"only {checked} functions walked: the walk is broken"
    assert not missing, ("public functions without numpydoc sections:\n"
                         + "\n".join(missing))


def test_still_to_check_lists_only_unfinished_modules(modules: list[ModuleType]) -> None:
    """Each entry names a module that exists and still lacks a section somewhere, so the
    set shrinks as the work lands."""
    names = {m.__name__ for m in modules}
    stale = []
    for entry in sorted(STILL_TO_CHECK):
        under = [m for m in modules if covers(entry, m.__name__)]
        if entry.removesuffix(".*") not in names:
            stale.append(f"{entry}: no such public module")
        elif not any(missing_sections(f) for m in under
                     for _, f in callables(m)):
            stale.append(f"{entry}: complete, remove it from STILL_TO_CHECK")
    assert not stale, "\n".join(stale)


def test_the_check_fails_on_a_missing_section() -> None:
    """The checker itself: each rule fires, and a complete docstring passes."""

    def bare(x: int) -> int:
        """Twice ``x``."""
        return 2 * x

    def only_params(x: int) -> int:
        """Twice ``x``.

        Parameters
        ----------
        x : int
            A number.
        """
        return 2 * x

    def complete(x: int) -> int:
        """Twice ``x``.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int
            ``2x``.
        """
        return 2 * x

    def nothing_back(x: int) -> None:
        """Print ``x``.

        Parameters
        ----------
        x : int
            A number.
        """

    def underlined_wrong(x: int) -> None:
        """Print ``x``.

        Parameters
        ---
        x : int
            A number.
        """

    def generator(n: int) -> Iterator[int]:
        """Count.

        Parameters
        ----------
        n : int
            How far.

        Yields
        ------
        int
            ``0 .. n-1``.
        """
        yield from range(n)

    class Sample:
        def method(self) -> str:
            """A name (no argument, but a result)."""
            return "x"

        @staticmethod
        def static(y: float) -> None:
            """Nothing documented."""

    assert missing_sections(bare) == ["Parameters", "Returns"]
    assert missing_sections(only_params) == ["Returns"]
    assert missing_sections(complete) == []
    assert missing_sections(nothing_back) == []
    assert missing_sections(underlined_wrong) == ["Parameters"]
    assert missing_sections(generator) == []
    assert missing_sections(Sample.method) == ["Returns"]
    assert missing_sections(Sample.static) == ["Parameters"]


def test_pending_matches_modules_and_packages() -> None:
    assert covers("lpsched.batch.*", "lpsched.batch.simulator")
    assert covers("lpsched.batch.*", "lpsched.batch")
    assert not covers("lpsched.batch.*", "lpsched.batchx")
    assert covers("lpsched.cli", "lpsched.cli") and not covers("lpsched.cli", "lpsched.cli.outputs")
    assert not pending("lpsched") and not pending("lpsched.approx.dual")
    assert all(pending(entry.removesuffix(".*")) for entry in STILL_TO_CHECK)
