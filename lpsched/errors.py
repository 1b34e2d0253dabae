"""The exceptions and warnings lpsched raises.

Every error a researcher can cause (a bad instance file, an infeasible request, a solver
that gave up) is an :class:`LpschedError`, so a caller can catch the whole family at once and
the CLI can print one line and exit non-zero instead of a traceback. Every warning lpsched
issues on purpose (a reading the user should know of: a header line given twice, a workflow
node defined twice) is an :class:`LpschedWarning`, so a caller can filter them all at once
(``warnings.simplefilter("error", LpschedWarning)``); the CLI prints each distinct warning of
a command on stderr once it has succeeded (:mod:`lpsched.cli`).
"""

from __future__ import annotations


class LpschedError(Exception):
    """Base class of every error lpsched raises on purpose."""


class LpschedWarning(UserWarning):
    """Base class of every warning lpsched issues on purpose.

    A warning says that lpsched read or computed something with a choice the user should
    know of, and went on (the choice and the file or value are in the message); a problem
    it cannot go on from is an :class:`LpschedError` instead. The families' warnings derive
    from it (e.g. :class:`lpsched.core.swf.SwfHeaderWarning`).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("a choice was made", LpschedWarning)
    >>> issubclass(caught[0].category, UserWarning)
    True
    """


class InvalidInstanceError(LpschedError, ValueError):
    """An instance (platform or workload) is malformed.

    ``field`` names the offending field with its path (e.g. ``applications[3].tasks``) and
    ``value`` the value found, so the message says what to fix.
    """

    def __init__(self, field: str, value: object, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"invalid instance: {field} = {shown}: {reason}")


class ParseError(LpschedError, ValueError):
    """A file could not be read; ``path`` and ``line`` (1-based, when known) locate it."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


class StoreError(ParseError):
    """A result store cannot be used: not an lpsched store, unreadable, or in use by another run.

    Not an lpsched store: corrupt, truncated, another schema. ``path`` names the ``.sqlite``
    file; the message says what to do. A bad-input error (the CLI exits with status 2).
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)


class InfeasibleError(LpschedError):
    """The requested schedule or bound does not exist (e.g. a state with no finite stretch)."""


class SolverError(LpschedError):
    """A solver did not return a trustworthy answer (error, time limit, unexpected status).

    ``status`` carries the :class:`lpsched.solvers.Status` when there is one.
    """

    def __init__(self, message: str, status: object | None = None) -> None:
        self.status = status
        super().__init__(message)


class InvalidPlanError(LpschedError):
    """A plan (per-interval amounts) violates a constraint of (K)/(K1); the message names it."""


class InvalidScheduleError(LpschedError):
    """A schedule breaks a rule of its platform model.

    ``rule`` names it, ``task`` points at the first offending task (index into the
    schedule's arrays) when there is one.
    """

    def __init__(self, rule: str, message: str, task: int | None = None) -> None:
        self.rule = rule
        self.task = task
        super().__init__(f"invalid schedule ({rule}): {message}")


class SwfParseError(ParseError):
    """A malformed line of a Standard Workload Format file (file and line in the message)."""
