"""Conservative backfilling's plan: free processors over time as breakpoints (seed 000 §4.5).

:class:`Profile` holds ``free[i]`` processors on ``[times[i], times[i+1])``, the last to
infinity, in numpy arrays: a reservation is two breakpoints and a slice add, a search for
the earliest fit one pass over the breakpoints. :func:`_first_fit` and
:func:`_earlier_fit` are the searches on plain arrays that
:class:`lpsched.batch.simulator._BatchSim` calls directly.
"""

from __future__ import annotations

import math

import numpy as np

from lpsched.errors import InvalidInstanceError


class Profile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i+1])``, the last to
    infinity; numpy arrays, so every operation is a few C passes over the breakpoints."""

    def __init__(self, now: float, free_now: int) -> None:
        self.times = np.array([float(now)])
        self.free = np.array([int(free_now)], dtype=np.int64)

    @classmethod
    def from_releases(cls, now: float, free_now: int, ends: np.ndarray,
                      sizes: np.ndarray) -> Profile:
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
        Profile
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
