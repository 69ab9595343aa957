"""Backends: one contract for serial, process-pool and Dask runs of a plan.

A plan's source datasets are cut into *partitions*; each partition is one task submitted
to a ``concurrent.futures.Executor``:

* serial: :class:`InlineExecutor` (the task runs when submitted), one partition holding
  the whole space: the value table and the scan of :mod:`.tables` and :mod:`.scan`;
* ``workers=N``: a ``ProcessPoolExecutor`` of forked processes;
* ``cluster=``: a Dask ``distributed.Client`` (:mod:`.cluster`), which has the same
  ``submit``.

With the key-arithmetic strategy (``"delta"``) each task builds its own part of the
table plus the halo its neighbours need (:func:`.partitions.scan_partition`), on the
pool as on Dask: the parent builds nothing. The other strategies (``"scan"``,
``"sparse"``) need the whole table: the pool's forked processes inherit it from the
parent and each scans a contiguous run of the sources; Dask refuses them in one line.

The wide strategy (:mod:`.wide`, no table: each neighbour's value from its source's sums)
cuts its sources into tasks: runs of sorted index tuples of one size (wide universes, made
by the parent), or prefixes of count vectors (deep spaces: each task makes its own sources,
so the parent makes nothing and no task repeats another's work), on the pool as on Dask.

Results are combined in source order (:func:`.scan.combine`, after rescaling every part
to one common denominator), so the answer *and* the witness are those of the serial
run. A task's own error fails the run with that error. A worker that dies (a killed
process, a lost Dask worker) is retried once on a fresh pool (Dask retries by itself);
if it dies again the run is refused with one line: never an answer from fewer
partitions.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from exactdp._budget import refuse_above
from exactdp._progress import Progress
from exactdp.engine import neighbours as _nb
from exactdp.engine import partitions as _parts
from exactdp.engine import scan as _scan
from exactdp.engine import tables as _tables
from exactdp.engine import wide as _wide
from exactdp.errors import InvalidArgument
from exactdp.engine.cluster import check_picklable, distributed_module

__all__ = ["InlineExecutor", "run", "SERIAL_BELOW", "WIDE_SERIAL_BELOW", "COUNTS_SERIAL_BELOW",
           "PARTS_PER_WORKER", "POOL_RETRIES", "SEND_WITH_TASKS"]

PARTS_PER_WORKER = 4
"""Parts per process for a shared-table scan: the last part to finish is then short."""

SERIAL_BELOW = 20_000
"""Fewer sources than this run in this process: forking costs more than it saves."""

WIDE_SERIAL_BELOW = 20_000_000
"""Fewer candidate pairs than this run the wide strategy in this process: it scans some
300-400 million pairs a second here, so forking (about 13 ms) gains nothing below (sum over
{0..999}, sizes 0..2, 10^6 pairs: 13 ms serial, 26 ms on 2 workers)."""

COUNTS_SERIAL_BELOW = 2_000_000
"""The same for the wide strategy on count vectors (deep spaces, some 100 million pairs a
second here): mean over {0..7}, sizes 1..12 (604,648 pairs) 26 ms serial, 28 ms on 2
workers; sizes 1..14 (1.6 million) 48 ms against 43 ms."""

SEND_WITH_TASKS = 1 << 16
"""Bytes (pickled) up to which a spec or table travels with each Dask task; a larger one is
scattered once to every worker. A scatter costs a round trip to every worker (about 10 ms
here, of a 0.2 s run); the wide strategy's table for a small universe is about 2 KB."""

POOL_RETRIES = 1
"""Fresh pools tried after a worker process died, before the run is refused."""

_STATE = None  # what the forked workers read: the partition spec, or (table, sources, neighbours)


class InlineExecutor(Executor):
    """The serial backend: ``submit`` runs the task at once, in this process."""

    def submit(self, fn, /, *args, **kwargs):
        f = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - handed to the caller, as a pool would
            f.set_exception(e)
        return f


def _fork_context():
    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None


def _died(what: str, n: int, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"a worker {what} died while computing {n:,} partition(s) ({why}), also when retried; "
        f"nothing is reported from fewer partitions: run again, with fewer workers, or "
        f"serially (workers=1, no cluster)"
    )


def _largest_first(n: int, sizes: list | None) -> list[int]:
    """Task indices in the order to submit them: the largest first (``sizes``, an estimate
    of each task's work), so the last tasks to start are short and the workers finish
    together; the results are still combined in index order."""
    if sizes is None:
        return list(range(n))
    return sorted(range(n), key=lambda i: -sizes[i])


def _pool_map(task, args: list, workers: int, bar: Progress, counted,
              sizes: list | None = None) -> list:
    """``task(*a)`` for each ``a`` of ``args`` on forked processes, results in order."""
    if not args:
        return []
    ctx = _fork_context()
    results: list = [None] * len(args)
    pending = _largest_first(len(args), sizes)
    done = 0
    for attempt in range(POOL_RETRIES + 1):
        try:
            with ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=ctx) as pool:
                futures = {i: pool.submit(task, *args[i]) for i in pending}
                try:
                    for i in list(pending):
                        results[i] = futures[i].result()
                        pending.remove(i)
                        done += 1
                        bar.show(f"{done} of {len(args)} partitions, {counted(results):,} pairs")
                except BaseException:
                    for f in futures.values():
                        f.cancel()
                    raise
            return results
        except BrokenProcessPool:
            if attempt == POOL_RETRIES:
                raise _died("process", len(pending), "the process pool broke") from None
    return results  # pragma: no cover


def _for_tasks(client, obj, nbytes: int):
    """``obj`` as a Dask task takes it: by value when small (:data:`SEND_WITH_TASKS`), else
    scattered once to every worker, under a fresh key (``hash=False``: an identical object
    of the previous ``d_in`` may still be being released under the hashed key)."""
    if nbytes <= SEND_WITH_TASKS:
        return obj
    return client.scatter([obj], broadcast=True, hash=False)[0]


def _client_map(client, task, args: list, bar: Progress, counted,
                sizes: list | None = None) -> list:
    """``task(*a)`` on a Dask client, results in order; a lost worker refused in one line."""
    distributed = distributed_module()
    # Dask runs the highest priority first: the largest tasks (see _largest_first)
    rank = {i: len(args) - r for r, i in enumerate(_largest_first(len(args), sizes))}
    futures = [client.submit(task, *a, pure=False, priority=rank[i]) for i, a in enumerate(args)]
    order = {f.key: i for i, f in enumerate(futures)}
    results: list = [None] * len(futures)
    done = 0
    lost = [getattr(distributed, "KilledWorker", None)]
    try:
        from distributed.comm.core import CommClosedError
        lost.append(CommClosedError)
    except ImportError:  # pragma: no cover
        pass
    lost = tuple(e for e in lost if e is not None)
    try:
        for f in distributed.as_completed(futures):
            results[order[f.key]] = f.result()  # a task's error is raised here, as raised there
            done += 1
            bar.show(f"{done} of {len(args)} partitions, {counted(results):,} pairs")
    except lost as e:
        client.cancel(futures)
        raise _died("of the Dask cluster", len(args) - done, type(e).__name__) from None
    except BaseException:
        client.cancel(futures)
        raise
    return results


# -- one partition: the whole space, serially ------------------------------------------------

def _serial(plan, d_in: int, progress):
    table = plan.build_table(progress)
    d_eff = plan.effective[d_in]
    if plan.local_at is not None:
        sources = [table.key_of_indices(plan.local_at)]
        halve = False
    else:
        sources = _tables.source_keys(table, plan.space)
        halve = plan.scope == "standard"
    neighbours = _nb.build_neighbours(plan.plans[d_in], table, plan.metric, d_eff, plan.exact_k,
                                      halve)
    bar = Progress(f"{plan.query.name}, d_in={d_in}", len(sources), progress)
    try:
        excluded = _scan._undefined_policy(table, sources, neighbours, plan.policy)
        kind = plan.query.output
        part = InlineExecutor().submit(_scan.scan, table, sources, neighbours, bar).result()
        raw = _scan.finish(kind, part, neighbours, excluded)
    finally:
        bar.close()
    return raw, _witness(plan, table, raw), table.scale, (
        None if plan.local_at is None else table.dataset(sources[0]))


def _witness(plan, table, raw):
    if raw.x_key is None:
        return None
    v = table.values
    return (table.dataset(raw.x_key), table.dataset(raw.x_prime_key),
            _tables.public_value(plan.query, v[raw.x_key], table.scale),
            _tables.public_value(plan.query, v[raw.x_prime_key], table.scale))


# -- the shared table, its sources split (pool only: scan and sparse strategies) --------------

def _scan_part(lo: int, hi: int):
    table, sources, neighbours = _STATE
    quiet = Progress("", hi - lo, enabled=False)
    return _scan.scan(table, sources[lo:hi], neighbours, quiet)


def _shared(plan, d_in: int, progress, workers: int):
    global _STATE
    table = plan.build_table(progress)
    sources = _tables.source_keys(table, plan.space)
    neighbours = _nb.build_neighbours(plan.plans[d_in], table, plan.metric, plan.effective[d_in],
                                      plan.exact_k, plan.scope == "standard")
    excluded = _scan._undefined_policy(table, sources, neighbours, plan.policy)
    kind = plan.query.output
    n = len(sources)
    count = min(n, workers * PARTS_PER_WORKER)
    bounds = [n * i // count for i in range(count + 1)]
    if _scan._np_scanner(table, neighbours) is None:
        table.value_dict()  # built once here, not in every forked worker
    bar = Progress(f"{plan.query.name}, d_in={d_in}", count, progress)
    _STATE = (table, sources, neighbours)
    try:
        parts = _pool_map(_scan_part, list(zip(bounds, bounds[1:])), workers, bar,
                          lambda rs: sum(r[3] for r in rs if r is not None))
    finally:
        _STATE = None
        bar.close()
    raw = _scan.finish(kind, _scan.combine(kind, parts), neighbours, excluded)
    return raw, _witness(plan, table, raw), table.scale, None


# -- partitions that build their own slices (delta strategy: pool and Dask) --------------------

def _partition_task(own: list, halo: list) -> dict:
    return _parts.scan_partition(_STATE, own, halo)


def _rescale(kind: str, norm, part: tuple, f: int) -> tuple:
    best, x, w, pairs = part
    if x is None or f == 1:
        return part
    if kind == "sqrt":
        return (best[0] * f, best[1] * f), x, w * f, pairs
    if kind == "vector":
        return best * (f * f if norm == "L2" else f), x, tuple(c * f for c in w), pairs
    return best * f, x, w * f, pairs


def partition_spec(plan, d_in: int, workers: int, per_worker: int | None):
    """``(spec, prefixes, parts, codec)`` for the delta strategy at ``d_in``: counts only."""
    query, space, metric, ambient = plan.query, plan.space, plan.metric, plan.ambient
    halve = plan.scope == "standard"
    top = max((ambient.max_count(i) for i in range(space.universe.size)), default=0)
    codec = _parts.codec(query, space, ambient, top + plan.d_max + 1)
    moves = metric.moves(space.universe.size, plan.effective[d_in], plan.exact_k)
    deltas = codec.deltas(moves, halve)
    kept = [mv for mv in moves if not (halve and (len(mv[1]), mv[1]) < (len(mv[0]), mv[0]))]
    j, prefixes, parts = _parts.plan_partitions(space, ambient, kept, space.count(), workers,
                                                per_worker)
    for a, b, _, size in parts:
        refuse_above(
            size, per_worker,
            what=f"datasets in one partition's table slice ({b - a:,} prefixes of up to "
                 f"{j} counts and their neighbours) for {query.name} on {space.describe()}",
            option="max_datasets", hint="add workers or shrink the space")
    spec = {"query": query, "space": space, "ambient": ambient, "base": codec.base,
            "deltas": deltas, "halve": halve, "policy": plan.policy}
    return spec, prefixes, parts, codec


def _partitioned(plan, d_in: int, progress, workers: int, client, per_worker):
    global _STATE
    query = plan.query
    spec, prefixes, parts, codec = partition_spec(plan, d_in, workers, per_worker)
    args = [([prefixes[i][0] for i in range(a, b)], halo) for a, b, halo, _ in parts]
    sizes = [size for _, _, _, size in parts]  # datasets in each slice: its work, nearly
    bar = Progress(f"{query.name}, d_in={d_in}", len(parts), progress)

    def counted(rs):
        return sum(r["part"][3] for r in rs if r is not None and r["part"])

    try:
        if client is not None:

            spec_f = _for_tasks(client, spec, check_picklable(spec))
            results = _client_map(client, _parts.scan_partition,
                                  [(spec_f, own, halo) for own, halo in args], bar, counted, sizes)
        else:
            _STATE = spec
            try:
                results = _pool_map(_partition_task, args, workers, bar, counted, sizes)
            finally:
                _STATE = None
    finally:
        bar.close()
    return combine_partitions(plan, results, codec)


def combine_partitions(plan, results: list, codec):
    """The partitions' results as one: rescaled to their least common denominator and
    combined in source order; the serial run's answer and witness."""
    query, kind = plan.query, plan.query.output
    touched = set().union(*(r["touched"] for r in results))
    if plan.policy == "error" and touched:
        srcs = [k for r in results for k in r["src"]]
        if srcs:
            example = (_tables.first_named(codec, srcs), None)
        else:
            example = next(r["example"] for r in results if r["example"])
        _scan._raise_undefined(codec, *example)
    big = 1
    for r in results:
        if r["part"][1] is not None:
            big = big * r["scale"] // math.gcd(big, r["scale"])
    rescaled = [_rescale(kind, query.norm, r["part"], big // r["scale"]) for r in results]
    best, x, _, n_pairs = _scan.combine(kind, rescaled)
    excluded = len(touched)
    if x is None:
        raw = _scan.RawResult((0, 0) if kind == "sqrt" else 0, None, None, n_pairs, excluded)
        return raw, None, big, None
    r = next(r for r in results if r["part"][1] == x)
    xp, vx, vxp = r["pair"]
    raw = _scan.RawResult(best if kind == "sqrt" else max(best, 0), x, xp, n_pairs, excluded)
    witness = (codec.dataset(x), codec.dataset(xp), _tables.public_value(query, vx, r["scale"]),
               _tables.public_value(query, vxp, r["scale"]))
    return raw, witness, big, None


# -- the wide strategy: its tasks of sources (pool and Dask) ---------------------------------

def _wide_task(task) -> tuple:
    return _wide.scan_task(_STATE, task)


def _wide_partitioned(plan, d_in: int, progress, workers: int, client):
    """The wide strategy's sources cut into tasks (:func:`.wide.partitions`: runs of one
    size, or prefixes of count vectors each task makes itself), each scanned against the
    whole universe; merged by rank, so the answer and the witness are the serial run's."""
    global _STATE
    table = plan.plans[d_in].table
    parts = _wide.partitions(table, _wide.task_count(table, workers, client is not None))
    sizes = [_wide.task_size(p) for p in parts]
    bar = Progress(f"{plan.query.name}, d_in={d_in}", len(parts), progress)

    def counted(rs):
        return sum(r[2] for r in rs if r is not None)

    try:
        if client is not None:

            table_f = _for_tasks(client, table,
                                 check_picklable({"query": plan.query, "table": table}))
            results = _client_map(client, _wide.scan_task, [(table_f, p) for p in parts], bar,
                                  counted, sizes)
        else:
            _STATE = table
            try:
                results = _pool_map(_wide_task, [(p,) for p in parts], workers, bar, counted,
                                    sizes)
            finally:
                _STATE = None
    finally:
        bar.close()
    return _wide.answer(plan, d_in, progress, _wide.finish(table, _wide.merge(results)))


def run(plan, d_in: int, progress, workers: int = 1, client=None, per_worker: int | None = None):
    """``(raw, witness, scale, local)`` for ``plan`` at ``d_in`` on the backend asked for:
    ``client`` (a Dask client), ``workers > 1`` (a process pool) or this process."""
    strategy = plan.plans[d_in].kind
    if strategy == "wide":  # vectorised over the universe (see .wide); sources partitioned
        below = (COUNTS_SERIAL_BELOW if plan.plans[d_in].table.sources_as == "counts"
                 else WIDE_SERIAL_BELOW)
        if client is None and (workers < 2 or _fork_context() is None
                               or plan.plans[d_in].estimate < below or _STATE is not None):
            return _wide.answer(plan, d_in, progress)
        return _wide_partitioned(plan, d_in, progress, workers, client)
    if client is not None:
        if strategy != "delta":
            raise InvalidArgument(
                f"the Dask engine follows neighbours by key arithmetic, but this space needs the "
                f"{strategy!r} strategy (many moves per dataset or a universe of more than "
                f"{_tables.DENSE_MAX_VALUES:,} values); run it without Dask, on the process pool "
                f"(drop --dask/--scheduler, or cluster= in Python)"
            )
        return _partitioned(plan, d_in, progress, workers, client, per_worker)
    if (workers < 2 or plan.local_at is not None or _fork_context() is None
            or plan.space.count() < SERIAL_BELOW or _STATE is not None):
        return _serial(plan, d_in, progress)
    if strategy == "delta":
        return _partitioned(plan, d_in, progress, workers, None, None)
    return _shared(plan, d_in, progress, workers)


def timed_partition(spec: dict, own: list, halo: list) -> dict:
    """:func:`.partitions.scan_partition` with the CPU seconds it took (for the benchmark)."""
    start = time.process_time()
    out = _parts.scan_partition(spec, own, halo)
    out["cpu"] = time.process_time() - start
    return out
