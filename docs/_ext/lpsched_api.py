"""Helpers of the API reference (docs/conf.py and docs/_templates/autosummary).

A package re-exports names defined in its modules (``lpsched.max_stretch`` is
``lpsched.bags.maxstretch.max_stretch``). Each object gets one page, under the module that
defines it; a package's page links there (``canonical_names``). Kept in an importable
module so that conf.py stays short.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType
from typing import Any


def public_modules(package: str) -> list[ModuleType]:
    """``package`` and every submodule whose dotted name has no part with a leading ``_``."""
    root = importlib.import_module(package)
    found = [root]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue  # private, and ``__main__`` runs the command line when imported
        found.append(importlib.import_module(info.name))
    return found


def public_members(module: ModuleType) -> dict[str, Any]:
    """The functions and classes ``module`` makes public: its ``__all__`` when it has one,
    otherwise the names without a leading ``_`` defined in the module itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]
    members = {name: getattr(module, name) for name in names}
    return {n: v for n, v in members.items() if inspect.isfunction(v) or inspect.isclass(v)}


def canonical_names(package: str) -> dict[str, str]:
    """``module.name`` of every public function and class -> where it is defined
    (``module.qualname``), for the names whose two differ."""
    found = {}
    for module in public_modules(package):
        for name, obj in public_members(module).items():
            home = f"{obj.__module__}.{obj.__qualname__}"
            if home != f"{module.__name__}.{name}":
                found[f"{module.__name__}.{name}"] = home
    return found
