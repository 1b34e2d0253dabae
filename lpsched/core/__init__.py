"""The shared core every family builds on, and that imports no family.

It holds the numerical tolerances, the event engine, the SWF reader, the input streams, the
experiment runner and its resumable result store, the ``to_frame()`` helpers and the
versions. ``run_cells`` and ``ResultStore`` are loaded on first use (PEP 562
``__getattr__``, decision 435), so that importing a light module of the core
(``lpsched.core.versions``, which ``import lpsched`` reads, or ``lpsched.core.swf``) does not
import the runner's ``concurrent.futures`` and sockets nor the store: a command that needs
neither (``lpsched batch``) starts faster. ``from lpsched.core import run_cells`` works all
the same.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lpsched.core.runner import run_cells
    from lpsched.core.store import ResultStore

__all__ = ["ResultStore", "run_cells"]

#: lazily re-exported name -> the module that defines it
_LAZY = {"run_cells": "lpsched.core.runner", "ResultStore": "lpsched.core.store"}
#: the submodules reachable as attributes of the package, imported on first use
#: (``lpsched.core.store`` after ``import lpsched.core``)
_SUBMODULES = ("runner", "store", "store_columns")


def __getattr__(name: str) -> Any:
    """Load a re-exported name (or a submodule of :data:`_SUBMODULES`) on first use and keep
    it (PEP 562)."""
    if name in _SUBMODULES:
        return import_module(f"lpsched.core.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpsched.core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
