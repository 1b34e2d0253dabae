"""The versions that produce a figure: Python, the machine and every dependency.

``lpsched --version --verbose`` prints :func:`versions_report`; the benchmark scripts print
it above their tables so that ``benchmarks/RESULTS.md`` names what measured each figure.
"""

from __future__ import annotations

__all__ = ["DEPENDENCIES", "__version__", "versions", "versions_report"]

__version__ = "0.1.0"  # the one place; pyproject.toml's version must match (tested)

DEPENDENCIES = ("numpy", "scipy", "highspy", "networkx", "pulp", "dask", "matplotlib")


def versions() -> dict[str, str]:
    """Return the version of lpsched, of Python and of every dependency, by name.

    ``{"lpsched": ..., "python": ..., "numpy": ..., ...}``; ``"not installed"`` for a
    dependency that is absent.

    Returns
    -------
    dict of str to str
        The version of lpsched, of Python (with implementation, system and machine) and of
        each distribution of :data:`DEPENDENCIES`, by name.

    Examples
    --------
    >>> sorted(versions())[:3]
    ['dask', 'highspy', 'lpsched']
    """
    import platform  # here, not at the top: ``import lpsched`` stays light (decision 435)
    from importlib import metadata

    found = {"lpsched": __version__,
             "python": f"{platform.python_version()} ({platform.python_implementation()}, "
                       f"{platform.system()} {platform.machine()})"}
    for dist in DEPENDENCIES:
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = "not installed"
    return found


def versions_report(prefix: str = "") -> str:
    """One ``name version`` line per entry of :func:`versions` (each after ``prefix``).

    Parameters
    ----------
    prefix : str
        Put before each line (e.g. ``"# "`` for a comment block); default none.

    Returns
    -------
    str
        The lines joined by newlines, without a trailing newline.
    """
    return "\n".join(f"{prefix}{name} {version}" for name, version in versions().items())
