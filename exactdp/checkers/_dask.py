"""The pair scan on a Dask cluster (issue 12, part 3; the optional extra ``exactdp[dask]``).

The process pool (:mod:`._pool`) forks and inherits the value table; Dask workers
cannot, and the driver never builds the table here (its memory does not grow with the
number of datasets). Instead the datasets are split by *prefix*: the counts ``(c_0, ...,
c_{j-1})`` of the ``j`` smallest values. Datasets enumerate lexicographically with
``c_0`` slowest, so consecutive prefixes are consecutive runs of the serial source order,
and a run of prefixes is one *partition*.

A neighbour ``key + delta`` of a dataset with prefix ``p`` has the prefix ``p + delta_p``,
where ``delta_p`` is the part of the move on the ``j`` smallest values. A partition's task
therefore rebuilds, from the picklable spec (query, space, deltas), only the datasets of
its own prefixes and of the *halo* ``{p + delta_p}``, evaluates the query on them
(``query.prepare``, the per-dataset path), scans its own datasets with the serial
:func:`_engine.scan` and returns ``(best, x_key, w, pairs)`` with the scale of its slice
(each slice has its own least common denominator). The driver rescales the parts to one
common denominator and combines them in partition order with :func:`_engine.combine`,
so the answer *and* the witness are those of the serial engine.

Budgets (checked on the driver from counts alone, before any task runs): the dataset
and pair budgets are per worker, so the cluster's are ``budget * workers``; every
partition's slice (its datasets plus the halo) must also fit the per-worker dataset
budget. A task that fails fails the run with the worker's error (the other tasks are
cancelled); no partial answer is returned. Progress: partitions done out of the total.
"""

from __future__ import annotations

import math
from contextlib import contextmanager, suppress
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp._progress import Progress
from exactdp.checkers import _engine
from exactdp.errors import InvalidArgument

__all__ = [
    "CONNECT_TIMEOUT",
    "MAX_PREFIXES",
    "PARTS_PER_WORKER",
    "compute",
    "open_client",
    "plan_partitions",
]

CONNECT_TIMEOUT = 3
"""Seconds to wait for a scheduler to answer (``cluster="tcp://host:8786"``)."""

PARTS_PER_WORKER = 4
"""Partitions per worker at least: the last to finish is then short."""

MAX_PREFIXES = 20_000
"""Most prefixes the driver lists (its memory: a few hundred bytes each)."""

MISSING = ("the Dask engine needs dask.distributed, which is not installed; install the dask "
           "extra: pip install 'exactdp[dask]'")


def _distributed():
    try:
        import distributed
    except ImportError:
        raise InvalidArgument(MISSING) from None
    return distributed


ACCEPTED = "tcp://HOST:PORT or HOST:PORT, such as tcp://127.0.0.1:8786"
"""The scheduler addresses accepted (TLS, UCX, websockets and inproc need set-up exactdp
does not do: a security object, UCX-Py, or the same process)."""

HANDSHAKE_MAX = 1 << 20
"""Most bytes a scheduler's first message (its handshake, about 60 bytes) may announce;
anything larger is not a Dask scheduler (an HTTP server's ``HTTP/1.1`` read as a length
announces 3.5e18 bytes, which Dask itself tried to allocate)."""


def check_address(address: str) -> tuple[str, str, int]:
    """``(tcp://host:port, host, port)`` from a scheduler address, refused in one line
    unless it is ``tcp://HOST:PORT`` or ``HOST:PORT`` (IPv6 hosts in brackets)."""
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme.lower() != "tcp":
        raise InvalidArgument(
            f"scheduler address {address!r}: {scheme}:// is not supported here; pass "
            f"{ACCEPTED}"
        )
    if rest.startswith("["):
        host, close, tail = rest[1:].partition("]")
        port_text = tail[1:] if close and tail.startswith(":") else None
    else:
        host, colon, port_text = rest.rpartition(":")
        port_text = port_text if colon else None
    if (not host or port_text is None or not port_text.isascii() or not port_text.isdigit()
            or not 0 < int(port_text) < 65536 or any(c in host for c in "/ @?#")):
        raise InvalidArgument(
            f"scheduler address {address!r} is not HOST:PORT with a port 1..65535; pass "
            f"{ACCEPTED}"
        )
    return f"tcp://{rest}", host, int(port_text)


def _handshake(host: str, port: int, seconds: float) -> str | None:
    """Read a Dask server's first message (it speaks first) at ``host:port`` within
    ``seconds``; ``None`` when it is a Dask handshake, else why not (a few words)."""
    import socket
    import struct
    import threading
    import time

    outcome: list[str | None] = []
    deadline = time.monotonic() + seconds

    def receive(s, n: int) -> bytes:
        data = b""
        while len(data) < n:
            s.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = s.recv(min(n - len(data), 65536))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def probe() -> None:
        why: str | None = "no connection"
        try:
            with socket.create_connection((host, port), timeout=seconds) as s:
                why = "connected, but nothing was sent (a Dask scheduler speaks first)"
                (n,) = struct.unpack("Q", receive(s, 8))
                why = "it answered, but not in the Dask protocol"
                if 0 < n <= HANDSHAKE_MAX:
                    from distributed.protocol.core import loads
                    from distributed.protocol.utils import unpack_frames

                    message = loads(unpack_frames(receive(s, n)))
                    if isinstance(message, dict) and "pickle-protocol" in message:
                        why = None
        except socket.gaierror:
            why = f"host {host!r} not found"
        except ConnectionRefusedError:
            why = "connection refused"
        except (TimeoutError, socket.timeout):
            pass  # no connection, nothing said, or what was said so far was not Dask's
        except EOFError:
            why = "the connection was closed without a Dask handshake"
        except Exception as e:  # noqa: BLE001 - bytes that are not Dask's, a reset, a bad route
            if why == "no connection":
                why = f"the connection failed: {type(e).__name__}"
            elif why is None or why.startswith("connected"):
                why = "it answered, but not in the Dask protocol"
        outcome.append(why)

    worker = threading.Thread(target=probe, name="exactdp-dask-probe", daemon=True)
    worker.start()
    worker.join(seconds + 0.5)  # a name lookup does not honour the socket's timeout
    return outcome[0] if outcome else "no answer"  # still resolving the host or connecting


def _unanswered(address: str, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"no Dask scheduler answered at {address!r} within {CONNECT_TIMEOUT} s ({why}); start "
        f"one with `dask scheduler` (it listens on port 8786; 8787 is its dashboard) and "
        f"workers with `dask worker ADDRESS`, or use an embedded cluster (--dask, or "
        f"cluster='local' in Python)"
    )


@contextmanager
def open_client(cluster: object, workers: int):
    """A ``distributed.Client`` for ``cluster``: ``"local"`` starts an embedded LocalCluster
    of ``workers`` processes (closed afterwards), an address ``"tcp://host:8786"`` or
    ``"host:8786"`` connects to a running scheduler (refused in one line unless a Dask
    scheduler answers within :data:`CONNECT_TIMEOUT` seconds), a ``Client`` is used as given."""
    if isinstance(cluster, str) and cluster.strip() and cluster != "local":
        address, host, port = check_address(cluster)  # before importing Dask (about 1 s)
    distributed = _distributed()
    if isinstance(cluster, distributed.Client):
        yield cluster
        return
    if not isinstance(cluster, str) or not cluster.strip():
        raise InvalidArgument(
            f"cluster={cluster!r} is not a cluster; pass 'local' (an embedded LocalCluster), a "
            f"scheduler address such as 'tcp://host:8786', or a distributed.Client"
        )
    if cluster == "local":
        import logging

        local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                         dashboard_address=":0", silence_logs=logging.ERROR)
        try:
            with distributed.Client(local) as client:
                yield client
        finally:
            local.close()
        return
    # Dask's own connect waits without a limit for the handshake (an HTTP server hung it)
    # and reads any 8 bytes as a frame length: the scheduler's handshake is read here first
    why = _handshake(host, port, CONNECT_TIMEOUT)
    if why is not None:
        raise _unanswered(cluster, why)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except Exception as e:  # noqa: BLE001 - any failure to become a client: one line
        raise _unanswered(cluster, f"the client could not register: {type(e).__name__}") from None
    try:
        yield client
    finally:
        client.close()


def worker_count(client) -> int:
    """Workers connected to the scheduler (waiting up to :data:`CONNECT_TIMEOUT` s for one)."""
    n = len(client.scheduler_info()["workers"])
    if n == 0:
        with suppress(Exception):  # a timeout of any flavour: refused below
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        n = len(client.scheduler_info()["workers"])
    if n == 0:
        raise InvalidArgument(
            "the Dask scheduler has no workers; start some with `dask worker ADDRESS`"
        )
    return n


def check_picklable(spec: dict) -> None:
    """Refuse, before any task is sent, a spec the workers could not receive."""
    try:
        import cloudpickle

        cloudpickle.dumps(spec)
    except Exception as e:  # noqa: BLE001 - any pickling failure
        raise InvalidArgument(
            f"query={spec['query'].name!r} cannot be sent to Dask workers ({type(e).__name__}: "
            f"{e}); define its function at module level in an importable module (installed "
            f"on the workers) or use a built-in query"
        ) from None


# -- counting and partitioning (on the driver: counts only) ------------------------------

def _suffix_ways(caps: list[int], top: int) -> list[list[int]]:
    """``ways[j][s]``: count vectors over the values ``j..m-1`` (within ``caps``) of size ``s``."""
    m = len(caps)
    ways = [None] * (m + 1)
    ways[m] = [1] + [0] * top
    for j in range(m - 1, -1, -1):
        prev, cap = ways[j + 1], caps[j]
        row, window = [0] * (top + 1), 0
        for s in range(top + 1):
            window += prev[s]
            if s - cap - 1 >= 0:
                window -= prev[s - cap - 1]
            row[s] = window
        ways[j] = row
    return ways


def _between(row: list[int], used: int, lo: int, hi: int) -> int:
    """Suffixes of a prefix holding ``used`` records that give sizes ``lo..hi``."""
    a, b = max(0, lo - used), hi - used
    return sum(row[a:b + 1]) if b >= a else 0


def plan_partitions(space, ambient, moves, n_sources: int, workers: int,
                    per_worker: int | None) -> tuple[int, list, list]:
    """``(depth, prefixes, parts)``.

    ``prefixes``: ``(counts, sources, datasets)`` per prefix, in source order; a prefix
    holding more sources than a partition's target is split by the count of the next
    value (so prefixes have different lengths, at most ``depth``), until at most
    :data:`MAX_PREFIXES`. ``parts``: ``(start, stop, halo, size)`` per partition: a run of
    prefixes, the prefixes of the neighbours its own datasets may have (not covered by a
    shorter one), and the datasets of its table slice (an upper bound).
    """
    m = ambient.universe.size
    caps = [ambient.max_count(i) for i in range(m)]
    lo_a, hi_a, lo_s, hi_s = ambient.min_size, ambient.max_size, space.min_size, space.max_size
    ways = _suffix_ways(caps, hi_a)
    target = max(1, -(-n_sources // (workers * PARTS_PER_WORKER)))
    if per_worker is not None:
        target = max(1, min(target, per_worker // 4))

    def sources(p, u):
        return _between(ways[len(p)], u, lo_s, hi_s)

    def datasets(p, u):
        return _between(ways[len(p)], u, lo_a, hi_a)

    shifts: dict = {}

    def shifted(p):
        """The valid prefixes ``p + delta`` of the neighbours of ``p``'s datasets."""
        j = len(p)
        if j not in shifts:
            shifts[j] = _prefix_shifts(j, moves)
        for d in shifts[j]:
            q = tuple(x + y for x, y in zip(p, d))
            if all(0 <= c <= cap for c, cap in zip(q, caps)) and sum(q) <= hi_a:
                n = datasets(q, sum(q))
                if n:
                    yield q, n

    def small(p, u):  # its sources and each block its neighbours lie in fit a partition
        return sources(p, u) <= target and all(n <= target for _, n in shifted(p))

    leaves = [((), 0)]
    while True:
        grown, split = [], False
        for p, u in leaves:
            j = len(p)
            if j == m or small(p, u):
                grown.append((p, u))
                continue
            split = True
            for c in range(min(caps[j], hi_a - u) + 1):
                if datasets(p + (c,), u + c):
                    grown.append((p + (c,), u + c))
        if not split or len(grown) > MAX_PREFIXES:
            break
        leaves = grown
    prefixes = [(p, sources(p, u), datasets(p, u)) for p, u in leaves]
    # consecutive prefixes up to the target of sources, and (with a budget) up to a slice
    # of at most per_worker datasets (counted with the halo, an upper bound)
    limit = per_worker if per_worker is not None else math.inf
    parts, start, held, size, near = [], 0, 0, 0, set()
    for i, (p, n_src, n_all) in enumerate(prefixes):
        extra = {q: n for q, n in shifted(p) if q not in near}
        grow = n_all + sum(extra.values())
        if i > start and size + grow > limit:
            parts.append((start, i))
            start, held, size, near = i, 0, 0, set()
            extra = dict(shifted(p))
            grow = n_all + sum(extra.values())
        held, size = held + n_src, size + grow
        near.update(extra)
        if held >= target or i == len(prefixes) - 1:
            parts.append((start, i + 1))
            start, held, size, near = i + 1, 0, 0, set()
    out = []
    for a, b in parts:
        own = {p for p, _, _ in prefixes[a:b]}
        near = set()
        for p in own:
            near.update(q for q, _ in shifted(p) if q not in own)
        every = own | near
        halo = sorted(q for q in near if not any(q[:k] in every for k in range(len(q))))
        size = sum(n for _, _, n in prefixes[a:b]) + sum(datasets(q, sum(q)) for q in halo)
        out.append((a, b, halo, size))
    return max(len(p) for p, _ in leaves), prefixes, out


def _prefix_shifts(j: int, moves) -> list[tuple[int, ...]]:
    """The change each move makes to the counts of the ``j`` smallest values."""
    out = set()
    for removed, added in moves:
        d = [0] * j
        for i in added:
            if i < j:
                d[i] += 1
        for i in removed:
            if i < j:
                d[i] -= 1
        out.add(tuple(d))
    return sorted(out)


# -- one partition (on a worker) -----------------------------------------------------------

def _codec(query, space, ambient, base: int):
    """A :class:`_engine.Table` without values: keys to datasets and back."""
    t = _engine.Table.__new__(_engine.Table)
    t.query, t.space, t.ambient, t.base = query, space, ambient, base
    t.weights = [base**i for i in range(space.universe.size)]
    return t


def _suffixes(ambient, prefix: tuple, used: int):
    """Every dataset of ``ambient`` with this prefix, as count vectors in source order."""
    from exactdp.spaces.datasets import DatasetSpace
    from exactdp.spaces.universe import ValueUniverse

    j, m = len(prefix), ambient.universe.size
    if j == m:
        yield prefix
        return
    values = ambient.universe.values[j:]
    caps = list(ambient.caps[j:])
    rest = DatasetSpace(ValueUniverse(values), caps, max(0, ambient.min_size - used),
                        ambient.max_size - used)
    for counts in rest:
        yield prefix + counts


def scan_partition(spec: dict, own: list, halo: list) -> dict:
    """Build the slice (the datasets of the prefixes ``own`` and ``halo``), scan the
    datasets of ``own`` within the space's sizes, and return the part's result."""
    query, space, ambient = spec["query"], spec["space"], spec["ambient"]
    t = _codec(query, space, ambient, spec["base"])
    sources = _fill_incremental(t, spec["policy"], own, halo)
    if sources is None:
        sources = _fill_per_dataset(t, spec["policy"], own, halo)
    neighbours = _engine.DeltaNeighbours(t, spec["deltas"], spec["halve"])
    touched_src = sorted(k for k in sources if k in t.undefined) if t.undefined else []
    touched, example = set(touched_src), None
    if t.undefined and not spec["halve"]:
        for key in sources:
            if key in t.undefined:
                continue
            for k in neighbours.keys(key):
                if k in t.undefined:
                    touched.add(k)
                    example = example or (key, k)
    out = {"scale": t.scale, "touched": touched, "src": touched_src[:1], "example": example,
           "part": None, "pair": None, "size": t.size}
    if spec["policy"] == "error" and (touched_src or example):
        return out  # the driver raises, naming the same dataset as the serial engine
    quiet = Progress("", max(len(sources), 1), enabled=False)
    best, x, w, pairs = _engine.scan(t, sources, neighbours, quiet)
    out["part"] = (best, x, w, pairs)
    if x is not None:
        xp = neighbours.find(x, w)
        out["pair"] = (xp, t.values[x], t.values[xp])
    return out


def _fill_incremental(t, policy, own: list, halo: list) -> list | None:
    """Fill the slice from one incremental build per prefix (:func:`._incremental.build`
    with ``prefix=``) and return its sources in source order, or ``None`` when the query
    has no incremental form or NumPy is missing (the caller evaluates per dataset).

    Each build is over the least common denominator of its own rows; the slice's is the
    ``lcm`` of theirs, so the slice's scale and integers are those of
    :func:`_fill_per_dataset` (and of :meth:`_engine.Table._fill`)."""
    from exactdp.checkers import _incremental

    query, space, ambient = t.query, t.space, t.ambient
    if not _engine.INCREMENTAL or _incremental.numpy_or_none() is None:
        return None
    form = query.incremental(space.universe.values)
    if form is None:
        return None
    stated = _engine._stated(query, policy)
    builds = []
    for p in list(own) + list(halo):
        b = _incremental.build(form, ambient, t.weights, stated, query.output, prefix=tuple(p))
        if b is None:
            return None
        builds.append(b)
    np = builds[0].np
    scale = 1
    for b in builds:
        scale = scale * b.scale // math.gcd(scale, b.scale)
    ints = [b.ints if b.scale == scale else _incremental._times(np, b.ints, scale // b.scale)
            for b in builds]
    if len({a.dtype for a in ints}) > 1:
        ints = [a.astype(object) for a in ints]
    keys = np.concatenate([b.keys for b in builds])
    n = np.concatenate([b.n for b in builds])
    values = np.concatenate(ints)
    defined = np.concatenate([b.defined for b in builds])
    own_rows = sum(len(b.keys) for b in builds[:len(own)])
    sizes = n[:own_rows]
    inside = (sizes >= space.min_size) & (sizes <= space.max_size)
    sources = keys[:own_rows][inside].tolist()
    # a halo prefix may cover datasets of an own prefix (or of another): keep the first
    _, first = np.unique(keys, return_index=True)
    if len(first) < len(keys):
        keep = np.sort(first)
        keys, n, values, defined = keys[keep], n[keep], values[keep], defined[keep]
    if values.dtype == object and query.output != "vector" and len(values):
        peak = max((abs(int(v)) for v in values[defined]), default=0)
        if peak < _incremental.LIMIT:
            values = values.astype(np.int64)
    t._adopt(_incremental.Built(np, keys, n, values, defined, scale))
    return sources


def _fill_per_dataset(t, policy, own: list, halo: list) -> list:
    """Fill the slice with ``query.prepare`` per dataset; return its sources in order."""
    from exactdp.queries.base import UNDEFINED

    query, space, ambient, weights = t.query, t.space, t.ambient, t.weights
    prepared = query.prepare(space.universe.values)
    undefined_type = type(UNDEFINED)  # a query sent by value may carry a copy of the sentinel
    lo_s, hi_s = space.min_size, space.max_size
    sources = []

    def entries():  # own prefixes first, in source order (a halo prefix may cover some again)
        for p, keep in [(p, True) for p in own] + [(q, False) for q in halo]:
            used = sum(p)
            for counts in _suffixes(ambient, p, used):
                key = sum(c * w for c, w in zip(counts, weights) if c)
                if keep and lo_s <= sum(counts) <= hi_s:
                    sources.append(key)
                value = prepared(counts)
                yield key, UNDEFINED if isinstance(value, undefined_type) else value

    t._fill(entries(), policy, None)
    _to_arrays(t)
    return sources


def _to_arrays(t) -> None:
    """Give a filled slice the sorted arrays the NumPy scan reads, when they fit in int64."""
    from exactdp.checkers._incremental import LIMIT, numpy_or_none

    np = numpy_or_none()
    if np is None or not t.values:
        return
    keys = list(t.values)
    if max(keys) >= LIMIT:
        return
    try:
        ka = np.array(keys, dtype=np.int64)
        va = np.array(list(t.values.values()), dtype=np.int64)
    except (OverflowError, ValueError):
        return
    order = np.argsort(ka, kind="stable")

    class _Arrays:
        pass

    t.arrays = _Arrays()
    t.arrays.np = np
    t.sorted_keys, t.sorted_values = ka[order], va[order]


# -- the driver -------------------------------------------------------------------------

def _rescale(kind: str, norm, part: tuple, f: int) -> tuple:
    best, x, w, pairs = part
    if x is None or f == 1:
        return part
    if kind == "sqrt":
        return (best[0] * f, best[1] * f), x, w * f, pairs
    if kind == "vector":
        return best * (f * f if norm == "L2" else f), x, tuple(c * f for c in w), pairs
    return best * f, x, w * f, pairs


def compute(setup, d_in: int, client, workers: int, per_worker: int | None, progress):
    """:func:`exactdp.checkers.sensitivity._compute` on a cluster: the same result.
    ``setup`` comes from ``_setup(..., build=False)`` (no table on the driver)."""
    from exactdp.checkers.results import Scope, SensitivityResult, Witness
    from exactdp.checkers.sensitivity import _ambient, _final_value

    query, space, metric = setup.query, setup.space, setup.metric
    plan = setup.plans[d_in]
    d_eff = setup.effective[d_in]
    kind = query.output
    d_max = max(setup.effective.values())  # as the serial table: one base for every d_in
    ambient = _ambient(space, metric, d_max, setup.scope)
    halve = setup.scope == _engine.STANDARD
    top = max((ambient.max_count(i) for i in range(space.universe.size)), default=0)
    codec = _codec(query, space, ambient, top + d_max + 1)
    raw = None
    if plan is None:
        raw = _engine.RawResult((0, 0) if kind == "sqrt" else 0, None, None, 0, 0)
        witness = None
    elif plan.kind != "delta":
        raise InvalidArgument(
            f"the Dask engine follows neighbours by key arithmetic, but this space needs the "
            f"{plan.kind!r} strategy (many moves per dataset or a universe of more than "
            f"{_engine.DENSE_MAX_VALUES:,} values); run it without Dask, on the process pool (drop "
            f"--dask/--scheduler, or cluster= in Python)"
        )
    else:
        moves = metric.moves(space.universe.size, d_eff, setup.exact_k)
        deltas = codec.deltas(moves, halve)
        kept = [mv for mv in moves
                if not (halve and (len(mv[1]), mv[1]) < (len(mv[0]), mv[0]))]
        n_sources = space.count()
        j, prefixes, parts = plan_partitions(space, ambient, kept, n_sources, workers,
                                             per_worker)
        for a, b, _, size in parts:
            refuse_above(
                size, per_worker,
                what=f"datasets in one partition's table slice ({b - a:,} prefixes of up to "
                     f"{j} counts and their neighbours) for {query.name} on {space.describe()}",
                option="max_datasets", hint="add workers or shrink the space")
        spec = {"query": query, "space": space, "ambient": ambient, "base": codec.base,
                "deltas": deltas, "halve": halve, "policy": setup.policy}
        check_picklable(spec)
        raw, witness = _run_parts(client, spec, prefixes, parts, codec, kind, query, progress,
                                  d_in)
    value = _final_value(query, raw, raw.scale if hasattr(raw, "scale") else 1)
    if witness is not None:
        x_vals, xp_vals, fx, fxp = witness
        witness = Witness(x_vals, xp_vals, fx, fxp, value)
    scope = Scope(space=space, metric=metric, d_in=d_in, exact_k=setup.exact_k, scope=setup.scope,
                  datasets=space.count(), pairs=raw.pairs, excluded=raw.excluded,
                  d_in_effective=d_eff if d_eff != d_in else None)
    return SensitivityResult(query, value, witness, scope)


def _run_parts(client, spec, prefixes, parts, codec, kind, query, progress, d_in):
    distributed = _distributed()
    bar = Progress(f"{query.name}, d_in={d_in}", len(parts), progress)
    spec_f = client.scatter([spec], broadcast=True)[0]  # one object, not one per key
    futures = []
    for a, b, halo, _ in parts:
        own = [prefixes[i][0] for i in range(a, b)]
        futures.append(client.submit(scan_partition, spec_f, own, halo, pure=False))
    order = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(futures)
    done = pairs = 0
    try:
        for f in distributed.as_completed(futures):
            r = f.result()  # a task's error is raised here, as the worker raised it
            results[order[f.key]] = r
            done += 1
            pairs += r["part"][3] if r["part"] else 0
            bar.show(f"{done} of {len(parts)} partitions, {pairs:,} pairs")
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        bar.close()
    touched = set().union(*(r["touched"] for r in results))
    if spec["policy"] == "error" and touched:
        srcs = [k for r in results for k in r["src"]]
        example = (min(srcs), None) if srcs else next(r["example"] for r in results if r["example"])
        _engine._raise_undefined(codec, *example)
    scales = [r["scale"] for r in results if r["part"][1] is not None]
    big = 1
    for s in scales:
        big = big * s // math.gcd(big, s)
    norm = query.norm
    rescaled = [_rescale(kind, norm, r["part"], big // r["scale"]) for r in results]
    best, x, _, n_pairs = _engine.combine(kind, rescaled)
    excluded = len(touched)
    if x is None:
        raw = _engine.RawResult((0, 0) if kind == "sqrt" else 0, None, None, n_pairs, excluded)
        raw.scale = big
        return raw, None
    r = next(r for r in results if r["part"][1] == x)
    xp, vx, vxp = r["pair"]
    raw = _engine.RawResult(best if kind == "sqrt" else max(best, 0), x, xp, n_pairs, excluded)
    raw.scale = big

    def public(v, s):
        if kind == "vector":
            return tuple(Fraction(c, s) for c in v)
        return query.public_value(Fraction(v, s))

    return raw, (codec.dataset(x), codec.dataset(xp), public(vx, r["scale"]),
                 public(vxp, r["scale"]))


def _scaled(budget: int | None, workers: int) -> int | None:
    return None if budget is None else budget * workers


def curve(query, space, metric, d_list, *, exact_k, scope, undefined, max_pairs, max_datasets,
          progress, workers: int, cluster) -> tuple:
    """The results of :func:`exactdp.checkers.sensitivity.sensitivity_curve` on a cluster.

    ``max_datasets`` and ``max_pairs`` are per worker: the space may hold ``max_datasets *
    workers`` datasets and ``max_pairs * workers`` candidate pairs, and each partition's
    slice at most ``max_datasets``.
    """
    from exactdp._budget import check_budget
    from exactdp.checkers.sensitivity import _setup
    from exactdp.spaces.sequences import Sequences
    from exactdp.spaces.units import Units

    if isinstance(space, (Sequences, Units)):
        raise InvalidArgument(
            f"the Dask engine enumerates multisets; sequences and privacy "
            f"units use the edit-graph engine, which runs in one process (drop --dask/--scheduler, or "
            f"cluster= in Python)"
        )
    max_datasets = check_budget(max_datasets, "max_datasets")
    max_pairs = check_budget(max_pairs, "max_pairs")

    def run(client, n: int) -> tuple:
        setup = _setup(query, space, metric, d_list, scope, undefined, _scaled(max_datasets, n),
                       _scaled(max_pairs, n), exact_k, progress, build=False)
        return tuple(compute(setup, d, client, n, max_datasets, progress) for d in d_list)

    if cluster == "local":  # the budgets first: a refusal starts no cluster
        _distributed()
        _setup(query, space, metric, d_list, scope, undefined, _scaled(max_datasets, workers),
               _scaled(max_pairs, workers), exact_k, False, build=False)
    with open_client(cluster, workers) as client:
        return run(client, workers if cluster == "local" else worker_count(client))
