"""The one time limit (exactdp._alarm): an alarm that lands where Python would ignore an
exception (a GC callback, a ``__del__``) is re-armed, not lost.

Regression: CI on 2026-11-26 ran ``exactdp check --time-limit 0.01`` while Hypothesis's GC
callback was running; the alarm's exception was ignored there ("error at teardown"), and
the claim finished before the next alarm a second later (exit 0, not 2)."""

from __future__ import annotations

import gc
import signal
import sys
import time
import weakref

import pytest

from exactdp._alarm import _swallowing, alarm_after, usable


class Stop(BaseException):
    pass


def _spin_until(deadline: float) -> None:
    while time.perf_counter() < deadline:
        pass


@pytest.fixture
def unraisable(monkeypatch):
    """Exceptions Python ignored (raised in a GC callback or a ``__del__``), kept here."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    return seen


def test_an_alarm_in_a_gc_callback_is_rearmed_and_stops_the_block(unraisable):
    calls = []

    def slow_callback(phase, info):  # outlasts the limit: the alarm lands here
        if phase == "start" and not calls:
            calls.append(phase)
            _spin_until(time.perf_counter() + 0.2)

    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(Stop):
            with alarm_after(0.01, Stop) as armed:
                assert armed
                gc.collect()
                assert calls  # the collection (and its callback) ran inside the limit
                _spin_until(time.perf_counter() + 30)  # stopped long before this ends
    finally:
        gc.callbacks.remove(slow_callback)
    assert unraisable == []  # the alarm was not raised (and ignored) in the callback
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_an_alarm_in_a_finaliser_is_rearmed(unraisable):
    class Slow:
        def __del__(self):  # outlasts the limit: the alarm lands here
            _spin_until(time.perf_counter() + 0.2)

    with pytest.raises(Stop):
        with alarm_after(0.01, Stop):
            Slow()  # freed at once
            _spin_until(time.perf_counter() + 30)
    assert unraisable == []


def test_an_alarm_in_a_weakref_callback_of_a_collection_is_rearmed(unraisable):
    # the case a clean CI environment met: a weakref callback (named anything) that the
    # collector runs; only the "a collection is running" mark recognises it
    class Node:
        pass

    def slow(ref):  # outlasts the limit: the alarm lands here
        seen.append(ref)
        _spin_until(time.perf_counter() + 0.3)

    seen: list = []
    gc.disable()  # the cycle is freed by the collect() below, inside the limit
    try:
        node = Node()
        node.me = node  # a cycle: only the collector frees it
        ref = weakref.ref(node, slow)
        del node
        with pytest.raises(Stop):
            with alarm_after(0.05, Stop):
                gc.collect()
                _spin_until(time.perf_counter() + 30)
        gc.collect()  # (frees the cycle here if a stalled machine let the alarm come first)
    finally:
        gc.enable()
    assert seen == [ref] and ref() is None
    assert unraisable == []


def test_a_swallowed_alarm_repeats():
    caught = 0
    with pytest.raises(Stop):
        with alarm_after(0.02, Stop):
            while True:
                try:
                    _spin_until(time.perf_counter() + 30)
                except Stop:
                    caught += 1
                    if caught > 1:
                        raise
    assert caught == 2  # the first was swallowed; the repeat (every min(limit, 1 s)) came


def test_swallowing_frames_are_recognised():
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
