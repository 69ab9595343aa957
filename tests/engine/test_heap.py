"""exactdp.engine.heap: glibc's thresholds lifted during a task only where the process fixed
them by environment (Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536), and restored after."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from exactdp.engine import heap


class FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def fake(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(heap, "_libc", lambda: libc)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    return libc


def test_nothing_changes_without_the_environment_variables(fake):
    with heap.roomy_heap():
        pass
    assert fake.calls == []


def test_lifted_then_restored_to_the_started_values(fake, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    with pytest.raises(RuntimeError):  # restored even when the task fails
        with heap.roomy_heap():
            assert fake.calls == [("mallopt", -3, 1 << 24), ("mallopt", -1, 1 << 27)]
            raise RuntimeError("the task failed")
    assert fake.calls[2:] == [("mallopt", -1, 65536), ("mallopt", -3, 128 * 1024),
                              ("malloc_trim", 0)]


def test_a_malformed_variable_counts_as_unset(fake, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "lots")
    with heap.roomy_heap():
        pass
    assert fake.calls == []


CHILD = textwrap.dedent("""
    import resource
    import numpy as np
    from exactdp.engine.heap import roomy_heap

    def faults(n=50):  # page faults of allocating and freeing a 1 MiB array n times
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(n):
            a = np.ones(1 << 17)
            del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0

    before = faults()
    with roomy_heap():
        inside = faults()
    print(before, inside, faults())
""")


@pytest.mark.skipif(heap._libc() is None, reason="not glibc")
def test_a_dask_like_worker_stops_faulting_on_every_array_during_the_task():
    """Measured, not timed: with Dask's variable every 1 MiB array is a fresh mapping (256
    page faults each); inside the block the heap serves it; after, the worker is as before."""
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=True).stdout
    before, inside, after = map(int, out.split())
    assert before >= 50 * 200  # about 256 per array
    assert inside * 10 < before
    assert after >= 50 * 200  # the thresholds the process started with are back
