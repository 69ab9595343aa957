"""The pair scan over a process pool (issue 12, part 3).

The sources (the ``x`` side of every pair) are cut into contiguous parts, in source
order; each process scans some parts with the serial :func:`_engine.scan` and returns its
``(best, x_key, w, pairs)``. :func:`_engine.combine` then keeps the first best in part
order, which is the pair the serial scan over all sources keeps, so answers *and*
witnesses are identical to ``workers=1``.

The processes are forked: they inherit the value table and the neighbour finder
without copying or pickling them. Where ``fork`` does not exist (Windows; macOS allows
it, Python 3.14 no longer picks it by default but it is still available) the scan runs
serially. A part that fails on a worker fails the run with that worker's error (the
other parts are cancelled); a worker that dies fails it with ``BrokenProcessPool``.
No partial answer is ever returned.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from exactdp._progress import Progress

__all__ = ["scan_parts", "PARTS_PER_WORKER", "SERIAL_BELOW"]

PARTS_PER_WORKER = 4
"""Parts per process: the last part to finish is then short (the load balances)."""

SERIAL_BELOW = 20_000
"""Fewer sources than this are scanned in this process: forking costs more than it saves."""

_STATE = None  # (table, sources, neighbours) while a pool runs; read by the forked workers


def _scan_part(lo: int, hi: int):
    from exactdp.checkers import _engine

    table, sources, neighbours = _STATE
    quiet = Progress("", hi - lo, enabled=False)
    return _engine.scan(table, sources[lo:hi], neighbours, quiet)


def _fork_context():
    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None


def scan_parts(table, sources, neighbours, workers: int, progress: Progress) -> list:
    """The scan results of consecutive parts of ``sources``, in order."""
    from exactdp.checkers import _engine

    global _STATE
    n = len(sources)
    ctx = _fork_context()
    if ctx is None or n < SERIAL_BELOW or workers < 2:
        return [_engine.scan(table, sources, neighbours, progress)]
    count = min(n, workers * PARTS_PER_WORKER)
    bounds = [n * i // count for i in range(count + 1)]
    if _STATE is not None:  # pragma: no cover - a pool inside a pool's worker
        return [_engine.scan(table, sources, neighbours, progress)]
    # the forked workers must not each build the value dict: build it once, here, when
    # the scan will need it (the pure-Python loops)
    if _engine._np_scanner(table, neighbours) is None:
        table.value_dict()
    _STATE = (table, sources, neighbours)
    try:
        with ProcessPoolExecutor(max_workers=min(workers, count), mp_context=ctx) as pool:
            futures = [pool.submit(_scan_part, lo, hi) for lo, hi in zip(bounds, bounds[1:])]
            parts = []
            try:
                for i, f in enumerate(futures):
                    parts.append(f.result())
                    progress.update(bounds[i + 1], sum(p[3] for p in parts))
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
        return parts
    finally:
        _STATE = None
