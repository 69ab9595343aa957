"""The one time limit (exactdp._alarm): an alarm that lands where Python would ignore an
exception (a GC callback, a ``__del__``) is re-armed, not lost.

Regression: CI on 2026-11-26 ran ``exactdp check --time-limit 0.01`` while Hypothesis's GC
callback was running; the alarm's exception was ignored there ("error at teardown"), and
the claim finished before the next alarm a second later (exit 0, not 2)."""

from __future__ import annotations

import gc
import signal
import time

import pytest

from exactdp._alarm import _swallowing, alarm_after, usable


class Stop(BaseException):
    pass


def _spin_until(deadline: float) -> None:
    while time.perf_counter() < deadline:
        pass


def test_an_alarm_in_a_gc_callback_is_rearmed_and_stops_the_block():
    calls = []

    def slow_callback(phase, info):  # the alarm lands here while the collector runs
        if phase == "start" and not calls:  # the first collection outlasts the limit
            calls.append(phase)
            _spin_until(time.perf_counter() + 0.05)

    gc.callbacks.append(slow_callback)
    try:
        start = time.perf_counter()
        with pytest.raises(Stop):
            with alarm_after(0.01, Stop) as armed:
                assert armed
                gc.collect()
                _spin_until(start + 2)
        took = time.perf_counter() - start
    finally:
        gc.callbacks.remove(slow_callback)
    assert calls  # the callback ran, so the first alarm met it
    assert took < 0.5  # re-armed 5 ms later, not at the one-second repeat
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_an_alarm_in_a_finaliser_is_rearmed():
    class Slow:
        def __del__(self):  # outlasts the limit: the alarm lands here
            _spin_until(time.perf_counter() + 0.05)

    start = time.perf_counter()
    with pytest.raises(Stop):
        with alarm_after(0.01, Stop):
            Slow()  # freed at once
            _spin_until(start + 2)
    assert time.perf_counter() - start < 0.5


def test_a_swallowed_alarm_repeats_at_the_limit():
    start = time.perf_counter()
    caught = 0
    with pytest.raises(Stop):
        with alarm_after(0.02, Stop):
            while True:
                try:
                    _spin_until(time.perf_counter() + 10)
                except Stop:
                    caught += 1
                    if caught > 1:
                        raise
    assert caught == 2 and time.perf_counter() - start < 0.5  # repeat = min(limit, 1 s)


def test_swallowing_frames_are_recognised():
    import sys

    assert not _swallowing(sys._getframe())

    class Finalised:
        def __del__(self):
            seen.append(_swallowing(sys._getframe()))

    seen: list = []
    Finalised()
    assert seen == [True]


def test_no_alarm_for_none_or_under_a_running_alarm():
    assert not usable(None) and not usable(0) and not usable(-1)
    with alarm_after(None, Stop) as armed:
        assert armed is False
    old = signal.signal(signal.SIGALRM, lambda *a: None)
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        with alarm_after(0.01, Stop) as armed:  # the caller's alarm governs
            assert armed is False
            time.sleep(0.03)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
