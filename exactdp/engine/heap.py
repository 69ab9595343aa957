"""glibc's heap thresholds while a task runs, where the process fixed them by environment.

Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``. Setting it turns
off glibc's dynamic mmap threshold as well, so every array of 128 KiB or more is a fresh
``mmap`` (page faults on every use) and freed memory above 64 KiB goes straight back to
the system: the engine's NumPy blocks then ran 2-2.5x slower on such a worker than in a
process pool (mean over the 5.9 million multisets of size 1..22 from ``0..7``: 0.69-0.85 s
on a 2-worker LocalCluster with Dask's defaults, 0.29-0.33 s without that variable).
:func:`roomy_heap` lifts both thresholds for the duration of a task and afterwards puts
back the values the process was started with and returns the freed memory
(``malloc_trim``), so the worker keeps the memory behaviour its owner chose between tasks.
Where neither variable is set (the pool, the serial engine, workers configured as the
README says), or without glibc, it changes nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import os

__all__ = ["roomy_heap"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_DEFAULT = 128 * 1024  # glibc's default for both thresholds
_ROOMY_MMAP = 1 << 24  # arrays up to 16 MiB come from the heap (glibc allows up to 32 MiB)
_ROOMY_TRIM = 1 << 27
_LIBC: list = []


def _libc():
    """glibc through ctypes, or ``None`` (another C library, or no ``mallopt``)."""
    if not _LIBC:
        try:
            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt, libc.malloc_trim  # noqa: B018 - both must exist
        except (OSError, AttributeError):
            libc = None
        _LIBC.append(libc)
    return _LIBC[0]


def _threshold(name: str) -> int | None:
    """The threshold the process was started with (``None``: not set, or not a number)."""
    raw = os.environ.get(name)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


@contextlib.contextmanager
def roomy_heap():
    """Run the block with glibc serving large arrays from its heap and keeping freed
    memory, when the process fixed its thresholds by environment; restore them after."""
    trim = _threshold("MALLOC_TRIM_THRESHOLD_")
    mmap = _threshold("MALLOC_MMAP_THRESHOLD_")
    libc = _libc() if trim is not None or mmap is not None else None
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _ROOMY_MMAP)
    libc.mallopt(_M_TRIM_THRESHOLD, _ROOMY_TRIM)
    try:
        yield
    finally:
        libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT if trim is None else trim)
        libc.mallopt(_M_MMAP_THRESHOLD, _DEFAULT if mmap is None else mmap)
        libc.malloc_trim(0)
