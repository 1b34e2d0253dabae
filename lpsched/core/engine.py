"""A discrete-event engine: a clock and a heap of timestamped actions.

Nothing in it is platform-specific (DESIGN.md: SimPy-like). Events fire in ``(time,
priority, sequence)`` order — the sequence number is the order in which they were
scheduled, so equal keys resolve the same way on every machine. A cancelled event stays in
the heap and is skipped when popped (O(1) cancellation). The bags and campaigns simulators
run on it; the batch and online-tasks simulators keep their own heaps in the same order
(decisions 162 and 401), which saves an object and two heap operations per event.

>>> eng = Engine()
>>> seen = []
>>> _ = eng.at(2.0, lambda: seen.append("b"))
>>> _ = eng.at(1.0, lambda: seen.append("a"))
>>> late = eng.at(3.0, lambda: seen.append("never"))
>>> eng.cancel(late)
>>> eng.run()
>>> seen, eng.now, eng.processed
(['a', 'b'], 2.0, 2)
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable

from lpsched.errors import LpschedError


class Event:
    """A scheduled action; ``cancelled`` events are skipped."""

    __slots__ = ("action", "cancelled", "priority", "seq", "time")

    def __init__(self, time: float, priority: int, seq: int, action: Callable[[], None]) -> None:
        self.time = time
        self.priority = priority
        self.seq = seq
        self.action = action
        self.cancelled = False



class Engine:
    """A clock ``now`` and a heap of events, run in ``(time, priority, sequence)`` order.

    ``processed`` counts the actions run.
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.processed = 0
        # (time, priority, seq, event): tuples compare in C, seq is unique
        self._heap: list[tuple[float, int, int, Event]] = []
        self._seq = itertools.count()

    def at(self, time: float, action: Callable[[], None], priority: int = 0) -> Event:
        """Run ``action`` at ``time`` (not before ``now``); lower ``priority`` runs first.

        Parameters
        ----------
        time : float
            When to run it (s), at least ``now``.
        action : callable
            Called with no argument when the event runs.
        priority : int
            Order among events of the same time: lower first (default 0); ties in the order
            scheduled.

        Returns
        -------
        Event
            The event, to :meth:`cancel` it.

        Raises
        ------
        LpschedError
            A time before ``now`` or NaN.
        """
        if not time >= self.now or math.isnan(time):
            raise LpschedError(f"cannot schedule an event at {time} before now = {self.now}")
        seq = next(self._seq)
        event = Event(float(time), priority, seq, action)
        heapq.heappush(self._heap, (event.time, priority, seq, event))
        return event

    def after(self, delay: float, action: Callable[[], None], priority: int = 0) -> Event:
        """Run ``action`` ``delay`` seconds from ``now``: :meth:`at` at ``now + delay``.

        Parameters
        ----------
        delay : float
            Seconds from ``now`` (>= 0).
        action : callable
            Called with no argument when the event runs.
        priority : int
            Order among events of the same time: lower first (default 0); ties in the order
            scheduled.

        Returns
        -------
        Event
            The event, to :meth:`cancel` it.

        Raises
        ------
        LpschedError
            A time before ``now`` or NaN.
        """
        return self.at(self.now + delay, action, priority)

    @staticmethod
    def cancel(event: Event | None) -> None:
        """Mark ``event`` cancelled so that it is skipped when its time comes (O(1)).

        ``None`` is ignored.

        Parameters
        ----------
        event : Event or None
            The event returned by :meth:`at` or :meth:`after`.
        """
        if event is not None:
            event.cancelled = True

    def peek(self) -> float:
        """Time of the next live event (``inf`` when none).

        Returns
        -------
        float
            Its time (s), cancelled events discarded on the way.
        """
        while self._heap and self._heap[0][3].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else math.inf

    def step(self) -> bool:
        """Run the next live event (``False`` when there is none).

        Returns
        -------
        bool
            ``True`` when an event ran (``now`` moved to its time).
        """
        while self._heap:
            event = heapq.heappop(self._heap)[3]
            if event.cancelled:
                continue
            self.now = event.time
            self.processed += 1
            event.action()
            return True
        return False

    def run(self, until: float = math.inf) -> None:
        """Run events up to (and including) time ``until``.

        Parameters
        ----------
        until : float
            The last time to run (s); default ``inf``: until no event is left.
        """
        while self.peek() <= until and self.step():
            pass
