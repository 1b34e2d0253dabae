"""The compiled modules' one switch: ``LPSCHED_PURE_PYTHON``.

Every ``lpsched/<package>/_<name>_c`` module is an optional compiled copy of a Python loop,
the loop staying the reference and the fallback. Setting ``LPSCHED_PURE_PYTHON`` to any value
but ``""`` and ``"0"`` makes every family run its Python loops; it is read at each use, so a
test or a user can switch between calls.
"""

from __future__ import annotations

import os
from types import ModuleType

#: the environment variable that forces the Python loops
PURE_PYTHON = "LPSCHED_PURE_PYTHON"


def pure_python() -> bool:
    """Whether ``LPSCHED_PURE_PYTHON`` asks for the Python loops.

    Returns
    -------
    bool
        True when the variable is set to anything but ``""`` or ``"0"``.
    """
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


def compiled(module: ModuleType | None) -> bool:
    """Whether a compiled module runs: it is built and the Python loops are not forced.

    Parameters
    ----------
    module : module or None
        The compiled module, ``None`` when its import failed (not built).

    Returns
    -------
    bool
        True when the compiled path is to run.
    """
    return module is not None and not pure_python()


def kernel_state(module: ModuleType | None, name: str) -> str:
    """Say which loop runs, and why.

    Parameters
    ----------
    module : module or None
        The compiled module, ``None`` when it is not built.
    name : str
        Its dotted name (``"lpsched.batch._line_c"``).

    Returns
    -------
    str
        ``"compiled"``, ``"python (LPSCHED_PURE_PYTHON is set)"`` or ``"python (the
        extension NAME is not built)"``.
    """
    if module is None:
        return f"python (the extension {name} is not built)"
    if pure_python():
        return f"python ({PURE_PYTHON} is set)"
    return "compiled"
