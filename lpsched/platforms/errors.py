"""The two ways a platform file fails a command: no route, or not usable as the command's model.

A file that is not a SimGrid platform (bad XML, an unknown element, a unit SimGrid refuses)
is a :class:`~lpsched.errors.ParseError` of the reader, naming the file, the line and what
to fix. A file that *is* a platform but not one a command can use (heterogeneous speeds for
a seed 004 cluster, no master for a star, no compute host for Batsim's machine) is a
:class:`PlatformRefused`, built by :func:`refuse` so that every command words it the same
way: ``FILE[:LINE]: not usable as <what the command needs>: <the property that fails>``.
"""

from __future__ import annotations

from lpsched.errors import LpschedError, ParseError

__all__ = ["NoRoute", "PlatformRefused", "refuse"]


class NoRoute(LpschedError):
    """No route between two netpoints of a platform; ``line`` locates the cause when known.

    Parameters
    ----------
    message : str
        Why there is no route (the zone and its routing).
    line : int, optional
        The line of the element that explains it.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class PlatformRefused(ParseError):
    """A platform file a command cannot use as its model (:func:`refuse` builds it).

    Parameters
    ----------
    path : str
        The platform file.
    what : str
        What the command needs (``"a star platform"``, ``"a seed 004 cluster"``).
    why : str
        The property of the file that fails.
    line : int, optional
        The line of the element concerned.
    """

    def __init__(self, path: str, what: str, why: str, line: int | None = None) -> None:
        super().__init__(path, f"not usable as {what}: {why}", line)
        self.what = what
        self.why = why


def refuse(path: str, what: str, why: str, line: int | None = None) -> PlatformRefused:
    """Build the refusal of a platform file that a command cannot use.

    Parameters
    ----------
    path : str
        The platform file.
    what : str
        What the command takes from it, e.g. ``"a seed 004 cluster"``.
    why : str
        The property that fails, e.g. ``"hosts of different speeds (...)"``.
    line : int, optional
        The line of the element concerned.

    Returns
    -------
    PlatformRefused
        The error to raise; its text is ``path[:line]: not usable as what: why``.

    Examples
    --------
    >>> str(refuse("p.xml", "a seed 004 cluster", "no compute host"))
    'p.xml: not usable as a seed 004 cluster: no compute host'
    """
    return PlatformRefused(path, what, why, line)
