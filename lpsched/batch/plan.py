"""Conservative backfilling's plan: free processors over time as breakpoints (seed 000 §4.5).

:class:`Profile` holds ``free[i]`` processors on ``[times[i], times[i+1])``, the last to
infinity, in numpy arrays: a reservation is two breakpoints and a slice add, a search for
the earliest fit one pass over the breakpoints. :func:`_first_fit` and
:func:`_earlier_fit` are the searches on plain arrays that
:class:`lpsched.batch.simulator._BatchSim` calls directly.

Two plans give these answers. :class:`PythonProfile` (numpy) is the reference;
``lpsched/batch/_plan_c.pyx`` is the same plan compiled (the optional extension
``lpsched.batch._plan_c``: the same comparisons and float operations in the same order,
one C loop a call where the Python plan makes a handful of numpy calls). :class:`Profile`,
the plan the simulator keeps, builds the compiled one when it is built and
``LPSCHED_PURE_PYTHON`` is not set; :func:`kernel_in_use` says which.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from lpsched.core.kernels import PURE_PYTHON, compiled, kernel_state  # noqa: F401
from lpsched.errors import InvalidInstanceError

try:  # the compiled plan (optional: without Cython or a C compiler the Python class runs)
    from lpsched.batch import _plan_c
except ImportError:  # pragma: no cover - depends on the build
    _plan_c = None  # type: ignore[assignment]



def kernel_in_use() -> str:
    """Say which plan :class:`Profile` builds.

    Returns
    -------
    str
        ``"compiled"`` (the extension ``lpsched.batch._plan_c``, built from
        ``lpsched/batch/_plan_c.pyx``), ``"python (LPSCHED_PURE_PYTHON is set)"`` or
        ``"python (the extension lpsched.batch._plan_c is not built)"``.

    Notes
    -----
    Decision 633: the compiled plan is optional, the Python class the reference.
    """
    return kernel_state(_plan_c, "lpsched.batch._plan_c")


def _compiled() -> bool:
    """Whether :class:`Profile` builds the compiled plan."""
    return compiled(_plan_c)


class PythonProfile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i+1])``, the last to
    infinity; numpy arrays, so every operation is a few C passes over the breakpoints.

    The reference plan: :class:`Profile` builds the compiled one (``_plan_c.pyx``, the same
    answers bit for bit) where it is built, this one otherwise."""

    def __init__(self, now: float, free_now: int) -> None:
        self.times = np.array([float(now)])
        self.free = np.array([int(free_now)], dtype=np.int64)

    @classmethod
    def from_releases(cls, now: float, free_now: int, ends: np.ndarray,
                      sizes: np.ndarray) -> PythonProfile:
        """The profile where ``sizes[i]`` processors come back at ``max(ends[i], now)``:
        one sort and a cumulative sum (what :meth:`add` to infinity per job would give).

        Parameters
        ----------
        now : float
            The profile's start (s).
        free_now : int
            Processors free at ``now``.
        ends : numpy.ndarray
            Estimated ends (s) of the running jobs (before ``now``: released at ``now``).
        sizes : numpy.ndarray
            Their processors.

        Returns
        -------
        PythonProfile
            Free processors from ``now`` on, growing at each release.
        """
        prof = cls(now, free_now)
        if ends.size:
            at = np.maximum(ends, now)
            times, inv = np.unique(at, return_inverse=True)
            gained = np.cumsum(np.bincount(inv, weights=sizes, minlength=times.size))
            gained = gained.astype(np.int64)
            if times[0] == now:
                prof.free[0] += gained[0]
                times, gained = times[1:], gained[1:]
            prof.times = np.concatenate([prof.times, times])
            prof.free = np.concatenate([prof.free, free_now + gained])
        return prof

    def _split(self, at: float) -> int:
        """Index of the breakpoint at ``at`` (inserted if needed; ``at >= times[0]``)."""
        i = int(self.times.searchsorted(at, side="right")) - 1
        if self.times[i] == at:
            return i
        k = i + 1  # np.concatenate: np.insert's argument handling costs more than its copy
        times, free = self.times, self.free
        self.times = np.concatenate((times[:k], (at,), times[k:]))
        self.free = np.concatenate((free[:k], free[i:k], free[k:]))
        return k

    def add(self, start: float, end: float, delta: int) -> None:
        """``delta`` more free processors during ``[start, end)`` (clipped to the profile's
        start; ``end`` may be infinite).

        Parameters
        ----------
        start, end : float
            The interval (s); ``end`` may be ``inf``.
        delta : int
            Processors added to the free count there (negative: taken).
        """
        times, free = self.times, self.free
        first = float(times[0])
        if start < first:
            start = first
        if not end > start:
            return
        # the breakpoints :meth:`_split` would insert, inserted in one copy of each array
        i = int(times.searchsorted(start, "right")) - 1
        cat, i1 = np.concatenate, i + 1
        if not end < math.inf:
            if times[i] != start:
                self.times = cat((times[:i1], (start,), times[i1:]))
                free = self.free = cat((free[:i1], free[i:i1], free[i1:]))
                i = i1
            free[i:] += delta
            return
        k = int(times.searchsorted(end, "right")) - 1
        k1 = k + 1
        if times[i] != start:
            if times[k] != end:
                self.times = cat((times[:i1], (start,), times[i1:k1], (end,), times[k1:]))
                free = self.free = cat((free[:i1], free[i:i1], free[i1:k1], free[k:k1],
                                        free[k1:]))
                free[i1:k1 + 1] += delta
            else:
                self.times = cat((times[:i1], (start,), times[i1:]))
                free = self.free = cat((free[:i1], free[i:i1], free[i1:]))
                free[i1:k1] += delta
        elif times[k] != end:
            self.times = cat((times[:k1], (end,), times[k1:]))
            free = self.free = cat((free[:k1], free[k:k1], free[k1:]))
            free[i:k1] += delta
        else:
            free[i:k] += delta

    def reserve(self, start: float, length: float, size: int) -> None:
        """Take ``size`` processors during ``[start, start + length)``.

        Parameters
        ----------
        start : float
            The reservation's start (s).
        length : float
            Its length (s; the job's estimate).
        size : int
            Its processors.
        """
        self.add(start, start + length, -size)

    def trim(self, now: float) -> None:
        """Forget the past and merge the breakpoints that change nothing.

        The profile starts at ``now``; the breakpoints whose free count equals the previous
        one's are merged (reservations added and let go leave them: on KTH offline, 5,700
        breakpoints for 1,000 jobs). Merging changes no answer: every search reads maximal
        runs of breakpoints with enough free processors, the first breakpoint with too few,
        or the first where a running minimum or maximum changes, and a merged breakpoint is
        none of these.

        Parameters
        ----------
        now : float
            The new start of the profile (s), at least its current start.

        Notes
        -----
        Decision 381: the merge is part of forced conservative backfilling's speed.
        """
        i = int(self.times.searchsorted(now, side="right")) - 1
        if i > 0 or self.times[0] < now:
            self.times, self.free = self.times[i:].copy(), self.free[i:].copy()
            self.times[0] = now
        free = self.free
        if free.size > 64:
            same = free[1:] == free[:-1]
            if same.any():
                keep = np.concatenate(([True], ~same))
                self.times, self.free = self.times[keep], free[keep]

    def earliest(self, size: int, length: float, after: float | None = None) -> float:
        """Find the earliest start where ``size`` processors stay free for ``length``.

        From ``after`` when given, else from the profile's start: the first maximal run of
        breakpoints with enough free processors that lasts ``length`` (a slot ending where
        a reservation starts is compared with a relative tolerance, since ``start +
        length`` rounds differently from that boundary). The first run is tested alone,
        then every later run at once (:func:`_first_fit`).

        Parameters
        ----------
        size : int
            Processors wanted.
        length : float
            For how long (s).
        after : float, optional
            No earlier than this (s); default the profile's start.

        Returns
        -------
        float
            The earliest start (s); :class:`~lpsched.errors.InvalidInstanceError` when no time
            ever has ``size`` free for ``length``.
        """
        times, free = self.times, self.free
        if after is not None and after > times[0]:
            i = int(times.searchsorted(after, side="right")) - 1
            times, free = times[i:].copy(), free[i:]
            times[0] = after
        # the first run alone first (decision 279): a fit is often there, and the test
        # costs a third of the vectorised search over every run
        ok = free >= size
        s = int(ok.argmax())
        if not ok[s]:
            raise InvalidInstanceError("size", size, "no time ever has enough processors")
        bad = ~ok[s:]
        e = int(bad.argmax())
        at = float(times[s])
        want = at + length
        tol = 1e-9 * max(1.0, abs(want))
        end = float(times[s + e]) if bad[e] else math.inf
        if end >= want - tol:
            return at
        if not bad[e]:  # the last run, lasting forever, does not fit (length not finite)
            raise InvalidInstanceError("size", size, "no time ever has enough processors")
        lo = s + e  # a breakpoint without enough: the later runs start after it
        return _first_fit(times[lo:], free[lo:], size, length)


    def earlier_fit(self, size: int, length: float, rs: float, re: float) -> float:
        """:func:`_earlier_fit` on this plan: the start of the first fitting run before
        ``rs`` for a job holding ``[rs, re)``, its own slot let go, else ``inf``.

        Parameters
        ----------
        size : int
            The job's processors.
        length : float
            Its estimate (s).
        rs, re : float
            Its reserved slot (s), ``times[0] <= rs < re``.

        Returns
        -------
        float
            The earlier start (s), or ``inf``.
        """
        return _earlier_fit(self.times, self.free, size, length, rs, re)

    def held_until(self, top: int, least_size: int = 0) -> np.ndarray:
        """Tabulate, per size ``s``, when the free count first drops below ``s``.

        ``h[s]`` for ``s = 0..top``: the breakpoint time where the free count first drops
        below ``s`` from the profile's start (``inf`` if never, ``-inf`` if already at the
        start). A breakpoint ``k`` has ``s`` free on every breakpoint up to it exactly when
        ``times[k] < h[s]`` or ``k = 0 < h[s]``: one table of ``top + 1`` entries answers
        that test for every job instead of a search of the breakpoints per job. Entries
        below ``least_size`` are not wanted: the running minimum stops at the first
        breakpoint with fewer free (found by doubling chunks), since the later ones cannot
        change the entries from ``least_size`` up.

        Parameters
        ----------
        top : int
            The largest size asked about.
        least_size : int
            The smallest size asked about (entries below it may be wrong; default 0).

        Returns
        -------
        numpy.ndarray
            float, ``top + 1`` entries (``h[s]``, seconds, ``±inf`` as described).

        Notes
        -----
        Decision 279: one table for every job in place of a search per job.
        """
        return self._held(np.arange(top + 1), least_size)

    def held_for(self, sizes: np.ndarray) -> np.ndarray:
        """Give :meth:`held_until`'s entries at ``sizes`` only.

        ``held_until(sizes.max(), sizes.min())[sizes]``, without the table of every size up
        to the largest (on 80,640 processors the table cost more than the test it serves).

        Parameters
        ----------
        sizes : numpy.ndarray
            Job sizes (int, non-negative, at least one).

        Returns
        -------
        numpy.ndarray
            float, one per size: ``h[size]`` of :meth:`held_until`.

        Notes
        -----
        Decision 461.
        """
        return self._held(sizes, int(sizes.min()))

    def _held(self, sizes: np.ndarray, least_size: int) -> np.ndarray:
        """``h[s]`` of :meth:`held_until` for each ``s`` of ``sizes`` (all ``>= least_size``)."""
        free, lo, step = self.free, 0, 256
        while lo < free.size:
            hit = (free[lo:lo + step] < least_size).nonzero()[0]
            if hit.size:
                free = free[:lo + int(hit[0]) + 1]
                break
            lo, step = lo + step, 2 * step
        least = np.minimum.accumulate(free)
        first = (-least).searchsorted(-sizes, side="right")
        h = np.concatenate((self.times, (math.inf,)))[first]
        h[first == 0] = -math.inf
        return h

    def reached_at(self, sizes: np.ndarray) -> np.ndarray:
        """Give, per size, the breakpoint time where the free count first reaches it.

        ``-inf`` at the profile's start, ``inf`` if never: some breakpoint before a time
        ``t`` has that many free exactly when this is ``< t``. A table over the sizes when
        there are fewer sizes than entries.

        Parameters
        ----------
        sizes : numpy.ndarray
            Job sizes (int, non-negative).

        Returns
        -------
        numpy.ndarray
            float, one per size: the first breakpoint time with at least that many free
            (``-inf`` at the start, ``inf`` if never).

        Notes
        -----
        Decision 279: one table for every job in place of a search per job.
        """
        most = np.maximum.accumulate(self.free)
        top = int(sizes.max()) if sizes.size else 0
        if top + 1 < sizes.size:
            first = most.searchsorted(np.arange(top + 1), side="left")[sizes]
        else:
            first = most.searchsorted(sizes, side="left")
        t = np.concatenate((self.times, (math.inf,)))[first]
        t[first == 0] = -math.inf
        return t

    def reassign_test(self, ok: np.ndarray, rs: np.ndarray, size: np.ndarray,
                      until: np.ndarray, now: float) -> None:
        """Reassign's test of the plan on the waiting jobs ``ok`` lets through, in place.

        A job with ``ok`` true keeps it when its slot is after ``now`` and its ``size``
        processors stay free in the plan up to ``until`` (:meth:`held_until` or
        :meth:`held_for`, whichever costs less): the plan's half of the test of
        :meth:`lpsched.batch.simulator._BatchSim.movable`, one call for every job.

        Parameters
        ----------
        ok : numpy.ndarray
            bool, one per job: the jobs the free processors allow (narrowed in place).
        rs : numpy.ndarray
            Their slot starts (s).
        size : numpy.ndarray
            Their sizes (int).
        until : numpy.ndarray
            The times (s) their processors must stay free until.
        now : float
            The current time (s).

        Notes
        -----
        Decision 635: one call for what was a dozen numpy calls a pass.
        """
        pick = ok.nonzero()[0]
        if pick.size:
            sz = size[pick]
            top = int(sz.max())
            held = self.held_until(top, int(sz.min()))[sz] if top < sz.size else \
                self.held_for(sz)
            ok[pick] = (rs[pick] > now) & (until[pick] <= held)

    def reassign_scan(self, ranks: np.ndarray, resv_r: np.ndarray, size_r: np.ndarray,
                      len_r: np.ndarray, now: float, start: int, cap: int,
                      best: np.ndarray | None = None, cluster: int = 1) -> list[int]:
        """Reassign's whole test of the waiting jobs ``ranks[start:]``: the positions it
        lets through.

        Per job (rank ``r``): the free processors allow it (``size_r[r] <= cap`` and, given
        ``best``, the ``ceil(size / cluster)`` fullest clusters hold it: ``loc``'s
        :func:`~lpsched.batch.allocation.placeable`), its slot starts after ``now``
        (``resv_r[r]``) and its processors stay free in the plan up to the earlier of its
        slot's start and ``now + len_r[r]`` (read with :meth:`earliest`'s tolerance):
        :meth:`reassign_test` on what :meth:`lpsched.batch.simulator._BatchSim.movable`
        gathered, in one call.

        Parameters
        ----------
        ranks : numpy.ndarray
            The waiting jobs' submission ranks (int), in queue order.
        resv_r, size_r, len_r : numpy.ndarray
            Slot start (s), size and estimate (s, at least ``1e-12``) per rank.
        now : float
            The current time (s).
        start : int
            The first position tested.
        cap : int
            The largest size the free processors may allow.
        best : numpy.ndarray, optional
            ``loc``: the free processors of the ``k`` fullest clusters, ``k = 0, 1, ...``.
        cluster : int
            ``loc``'s cluster size.

        Returns
        -------
        list of int
            The positions (``>= start``, increasing) that may move.

        Notes
        -----
        Decisions 680 and 681: one call per test in place of a gather and a dozen numpy
        calls.
        """
        pick = ranks[start:]
        rs, size = resv_r[pick], size_r[pick]
        ends = now + np.maximum(len_r[pick], 0.0)
        ends = ends - 1e-9 * np.maximum(1.0, np.abs(ends))
        ok = size <= cap
        if best is not None:
            ok &= best[np.minimum(-(-size // cluster), best.size - 1)] >= size
        self.reassign_test(ok, rs, size, np.minimum(rs, ends), now)
        return cast("list[int]", (ok.nonzero()[0] + start).tolist())

    def reassign_next(self, ranks: np.ndarray, resv_r: np.ndarray, size_r: np.ndarray,
                      len_r: np.ndarray, now: float, start: int, stop: int, cap: int,
                      best: np.ndarray | None = None, cluster: int = 1) -> int:
        """The first position of ``[start, stop)`` that :meth:`reassign_scan` lets through.

        Parameters
        ----------
        ranks : numpy.ndarray
            The waiting jobs' submission ranks (int), in queue order.
        resv_r, size_r, len_r : numpy.ndarray
            Slot start (s), size and estimate (s) per rank.
        now : float
            The current time (s).
        start, stop : int
            The positions read.
        cap : int
            The largest size the free processors may allow.
        best : numpy.ndarray, optional
            As for :meth:`reassign_scan`.
        cluster : int
            ``loc``'s cluster size.

        Returns
        -------
        int
            The first position let through, or ``stop`` when none is.

        Notes
        -----
        Decision 683: the compiled plan reads the jobs only up to that position.
        """
        hits = self.reassign_scan(ranks[:stop], resv_r, size_r, len_r, now, start, cap, best,
                                  cluster)
        return hits[0] if hits else stop

class Profile(PythonProfile):
    """The plan :class:`lpsched.batch.simulator._BatchSim` keeps, compiled where it can be.

    The compiled ``lpsched.batch._plan_c.Profile`` when it is built and
    ``LPSCHED_PURE_PYTHON`` is not set, else a :class:`PythonProfile`; both have the same
    methods and the same answers, bit for bit, and give ``times`` and ``free`` as numpy
    arrays (the compiled one as copies: edit a plan through its methods only).

    Notes
    -----
    Decision 633: on a plan of a few hundred breakpoints each numpy call of the Python
    class costs more in overhead than in work; the compiled one makes one C loop a call.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Profile:
        # no arguments: a copy or an unpickling of a Python plan, which stays one
        if cls is Profile and (args or kwargs) and _compiled():
            return cast(Profile, _plan_c.Profile(*args, **kwargs))
        return super().__new__(cls)

    @classmethod
    def from_releases(cls, now: float, free_now: int, ends: np.ndarray,
                      sizes: np.ndarray) -> Profile:
        """:meth:`PythonProfile.from_releases` in the plan :class:`Profile` builds.

        Parameters
        ----------
        now : float
            The profile's start (s).
        free_now : int
            Processors free at ``now``.
        ends : numpy.ndarray
            Estimated ends (s) of the running jobs (before ``now``: released at ``now``).
        sizes : numpy.ndarray
            Their processors.

        Returns
        -------
        Profile
            Free processors from ``now`` on, growing at each release.
        """
        if cls is Profile and _compiled():
            return cast(Profile, _plan_c.Profile.from_releases(now, free_now, ends, sizes))
        return cast(Profile, super().from_releases(now, free_now, ends, sizes))


def _first_fit(times: np.ndarray, free: np.ndarray, size: int, length: float,
               strict: bool = True) -> float:
    """:meth:`Profile.earliest` on breakpoints ``times`` / free counts ``free``, every run
    at once (vectorised); the last run is taken to last forever.

    Parameters
    ----------
    times, free : numpy.ndarray
        Breakpoint times (s, increasing) and the free processors from each.
    size : int
        Processors wanted.
    length : float
        For how long (s).
    strict : bool
        Raise when no run fits (the default); else return ``inf``.

    Returns
    -------
    float
        The start of the first run of breakpoints with ``size`` free that lasts
        ``length`` (the same relative tolerance as :meth:`Profile.earliest`).
    """
    ok = free >= size
    starts = (ok & ~np.concatenate([[False], ok[:-1]])).nonzero()[0]
    if not starts.size:
        if not strict:
            return math.inf
        raise InvalidInstanceError("size", size, "no time ever has enough processors")
    bad = (~ok).nonzero()[0]
    nxt = bad.searchsorted(starts)
    ends = np.concatenate((times, (math.inf,)))[np.concatenate((bad, (times.size,)))[nxt]]
    want = times[starts] + length
    fits = ends >= want - 1e-9 * np.maximum(1.0, np.abs(want))
    if not fits.any():
        if not strict:
            return math.inf
        raise InvalidInstanceError("size", size, "no time ever has enough processors")
    return float(times[starts[int(fits.argmax())]])


def _earlier_fit(times: np.ndarray, free: np.ndarray, size: int, length: float,
                 rs: float, re: float) -> float:
    """:func:`_first_fit` of a job holding ``[rs, re)`` in the plan (``times``, ``free``),
    its own slot let go, over the breakpoints before ``re``, stopped at ``rs``: the start
    of the first fitting run if it is before ``rs``, else ``inf`` (no earlier slot). In
    plain Python over the few breakpoints before ``re`` (a textbook compression tries
    every waiting job at each early end, and numpy's call overhead on arrays this short
    was most of the cost: decision 381); the same comparisons, so the same answer.

    Parameters
    ----------
    times, free : numpy.ndarray
        The plan's breakpoints (s) and free processors from each.
    size : int
        The job's processors.
    length : float
        Its estimate (s).
    rs, re : float
        Its reserved slot (s), ``times[0] <= rs < re``.

    Returns
    -------
    float
        The earlier start (s), or ``inf``.
    """
    hi = int(times.searchsorted(re, side="left"))
    a = int(times.searchsorted(rs, side="left"))
    tl, fl = times[:hi].tolist(), free[:hi].tolist()
    if a == hi or tl[a] != rs:  # the slot starts inside the segment before it
        tl.insert(a, rs)
        fl.insert(a, fl[a - 1])
    for k in range(a, len(fl)):
        fl[k] += size
    inf = math.inf
    start = inf
    for k, f in enumerate(fl):
        if f >= size:
            if start == inf:
                start = tl[k]
                if start >= rs:
                    return inf
        elif start != inf:
            want = start + length  # > 0: ``1e-9 * max(1, |want|)`` without the calls
            if tl[k] >= want - (1e-9 * want if want > 1.0 else 1e-9):
                return start
            start = inf
    return start
