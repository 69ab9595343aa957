"""One SIGALRM time limit for code exactdp runs on a user's behalf (``exactdp check``'s
claims, ``exactdp audit``'s audits).

The alarm raises a ``BaseException`` (chosen by the caller) in the main thread, so a
user's ``except Exception`` does not swallow it. Some places swallow even that: a
garbage-collector callback (Hypothesis installs one), a ``__del__`` method, and a weakref
callback run by a collection; an exception raised there is "ignored" by the interpreter,
and the code would run on past its limit with a stray error left behind. When the alarm
lands in such a frame, or anywhere while a collection runs (two GC callbacks of ours,
first and last, mark it), it is re-armed a few milliseconds later instead of raising. Code that catches the
exception itself is met by the repeat: the alarm fires again every ``min(seconds, 1)``
seconds until the block ends.

No limit applies where there is none (no ``setitimer``: Windows), off the main thread,
for ``seconds=None``, or when the caller's own alarm is running (a test's hang guard
governs then).
"""

from __future__ import annotations

import gc
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from exactdp.errors import InvalidArgument

__all__ = ["alarm_after", "usable", "read_seconds", "read_time_limit", "RETRY_SECONDS", "MAX_SECONDS", "CLAIM_TIME_LIMIT"]

MAX_SECONDS = 1_000_000
"""Longest time limit accepted, in seconds (about 11.6 days; the platform's timer holds
far less than 1e300)."""

CLAIM_TIME_LIMIT = 60.0
"""Seconds one claim may take by default (``exactdp check --time-limit``, the pytest plugin's
``--exactdp-time-limit``; :data:`exactdp.claimsfile.DEFAULT_TIME_LIMIT`)."""

RETRY_SECONDS = 0.005
"""How soon an alarm that landed in a finaliser or a GC callback fires again."""


_COLLECTING = [False]
"""Whether a garbage collection is running (set by :func:`_gc_started`, cleared by
:func:`_gc_stopped` while an alarm is set)."""


def _gc_started(phase, info) -> None:
    if phase == "start":
        _COLLECTING[0] = True


def _gc_stopped(phase, info) -> None:
    if phase == "stop":
        _COLLECTING[0] = False


def _swallowing(frame) -> bool:
    """Whether ``frame`` runs where a raised exception would be ignored by the interpreter:
    during a garbage collection (its callbacks, the finalisers and weakref callbacks it
    runs), in a ``__del__`` method, or in a GC callback."""
    if _COLLECTING[0]:
        return True
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or code in callbacks:
            return True
        frame = frame.f_back
    return False


def usable(seconds: float | None) -> bool:
    """Whether :func:`alarm_after` would set an alarm for ``seconds`` here and now."""
    if seconds is None or seconds <= 0 or not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getitimer(signal.ITIMER_REAL)[0] == 0


def read_seconds(text: object, option: str = "time_limit", example: float = 60) -> float:
    """A time limit in seconds from a number or its text: positive, at most
    :data:`MAX_SECONDS`; else one line of :class:`InvalidArgument` naming ``option``.

    >>> read_seconds("1e300", "--time-limit")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: --time-limit='1e300' is not a time limit; give a positive number of seconds up to 1,000,000, such as 60
    """
    try:
        value = float(text) if isinstance(text, (str, int, float)) and not isinstance(text, bool) else None
    except (ValueError, OverflowError):
        value = None
    if value is None or not 0 < value <= MAX_SECONDS:
        raise InvalidArgument(f"{option}={text!r} is not a time limit; give a positive number of seconds "
                              f"up to {MAX_SECONDS:,}, such as {example:g}")
    return value


def read_time_limit(text: object, option: str = "time_limit") -> float:
    """A claim's time limit in seconds: a positive number, at most :data:`MAX_SECONDS`
    (``option`` names it in the error)."""
    return read_seconds(text, option, CLAIM_TIME_LIMIT)


@contextmanager
def alarm_after(seconds: float | None, stop: Callable[[], BaseException]) -> Iterator[bool]:
    """Raise ``stop()`` in the block once ``seconds`` have passed (and again every
    ``min(seconds, 1)`` seconds after, until the block ends). Yields whether an alarm is
    set (see the module's note for where none is)."""
    if seconds is not None and seconds > MAX_SECONDS:
        read_seconds(seconds, "seconds")  # one line, before the timer's OverflowError
    if not usable(seconds):
        yield False
        return
    armed = [True]
    repeat = min(float(seconds), 1.0)

    def alarm(signum, frame):
        if not armed[0]:
            return
        if _swallowing(frame):
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS, repeat)
            return
        raise stop()

    gc.callbacks.insert(0, _gc_started)  # first at the start of a collection
    gc.callbacks.append(_gc_stopped)  # last at its end
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, repeat)
    try:
        yield True
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        for cb in (_gc_started, _gc_stopped):
            if cb in gc.callbacks:
                gc.callbacks.remove(cb)
        _COLLECTING[0] = False
