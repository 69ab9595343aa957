"""The Dask engine (cluster=...) against the serial engine and the process pool, on a real
LocalCluster of two worker processes (one per module)."""

from __future__ import annotations

import time

import pytest

from exactdp.errors import MissingDependency

distributed = pytest.importorskip("distributed")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp import ExactSet, IntegerRange, Multisets, SubMultisets, sensitivity
from exactdp.engine import backends as _pool, cluster as _cluster, partitions as _dask
from exactdp.checkers.sensitivity import sensitivity_curve
from exactdp.errors import InvalidArgument, TooLarge, UndefinedQuery
from exactdp.queries import parse_query
from exactdp.queries.base import Query

Q_MEAN = parse_query("mean")


@pytest.fixture(scope="module")
def client():
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def same(a, b) -> None:
    assert a.value == b.value
    assert a.witness == b.witness
    assert a.scope.pairs == b.scope.pairs
    assert a.scope.excluded == b.scope.excluded


QUERIES = ["mean", "median", "var", "std", "sum", "count", "percentile:25:lower", "var:1"]


@st.composite
def problems(draw):
    lo = draw(st.integers(-3, 3))
    if draw(st.booleans()):
        width = draw(st.integers(1, 5))
        top = draw(st.integers(1, 5))
        space = Multisets(IntegerRange(lo, lo + width), sizes=(draw(st.integers(0, top)), top))
        metric = draw(st.sampled_from(["add-remove", "substitute"]))
    else:
        pool = draw(st.lists(st.integers(lo, lo + 4), min_size=2, max_size=9))
        size = draw(st.integers(1, len(pool)))
        space = SubMultisets(pool, sizes=(draw(st.integers(0, size)), size))
        metric = draw(st.sampled_from(["add-remove", "substitute"]))
    return {"query": draw(st.sampled_from(QUERIES)), "space": space, "metric": metric,
            "d_in": draw(st.integers(1, 2)),
            "scope": draw(st.sampled_from(["standard", "release-centred"]))}


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# The LocalCluster's scheduler runs in this process, on a thread of its own; its timers
# (tornado's jitter, the scheduler's worker sampling) draw from the global `random`, and
# Hypothesis reads a change of that state during a draw as the strategy using `random`.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@given(problems())
def test_serial_pool_and_dask_agree(client, monkeypatch, p):
    monkeypatch.setattr(_pool, "SERIAL_BELOW", 0)  # the pool forks even for a small space
    opts = {"undefined": "exclude", "max_pairs": None}
    try:
        serial = sensitivity(p["query"], p["space"], p["metric"], p["d_in"], scope=p["scope"],
                             **opts)
    except InvalidArgument:
        return  # e.g. the substitute relation on sizes that differ: refused alike below
    pool = sensitivity(p["query"], p["space"], p["metric"], p["d_in"], scope=p["scope"],
                       workers=2, **opts)
    try:
        cluster = sensitivity(p["query"], p["space"], p["metric"], p["d_in"], scope=p["scope"],
                              cluster=client, **opts)
    except InvalidArgument as e:  # only the strategies the Dask engine does not follow
        assert "strategy" in str(e)
        return
    same(serial, pool)
    same(serial, cluster)


def test_many_partitions_same_witness(client):
    space = Multisets(IntegerRange(0, 9), sizes=(0, 6))
    j, prefixes, parts = _dask.plan_partitions(space, space, [((0,), ()), ((), (0,))],
                                               space.count(), 2, None)
    assert len(parts) >= 4 and j >= 2
    assert sum(n for _, n, _ in prefixes) == space.count()
    for q in ("mean", "median", "std"):
        serial = sensitivity_curve(q, space, d_ins=(1, 2), undefined="exclude")
        dask = sensitivity_curve(q, space, d_ins=(1, 2), undefined="exclude", cluster=client)
        for a, b in zip(serial.results, dask.results):
            same(a, b)


SLICE_CASES = [
    ("mean", Multisets(IntegerRange(0, 9), sizes=(0, 6)), None, 1, "exclude"),
    ("median", Multisets(IntegerRange(-2, 7), sizes=(1, 5)), "substitute", 2, "exclude"),
    ("std:1", Multisets(IntegerRange(0, 7), sizes=(0, 5)), None, 2, "1/3"),
    ("var", SubMultisets([1, 2, 2, 3, 5, 5, 5, 8, 9], sizes=(0, 6)), None, 1, "exclude"),
    ("percentile:25:lower", Multisets(IntegerRange(0, 8), sizes=(0, 5)), None, 1, "exclude"),
    ("sum", Multisets(IntegerRange(0, 40), sizes=(0, 2)), None, 1, "exclude"),  # keys > 2^62
    # whole count vectors as prefixes: one slice's builds over denominators 1, 2, 3, 6
    ("sum", Multisets(ExactSet(["1/3", "1/2"]), sizes=(0, 12)), None, 1, "exclude"),
    # ... and over 2 and 3 (and 4, 5) without 6: the slice's is the lcm, not the largest
    ("mean", Multisets(IntegerRange(0, 1), sizes=(2, 5)), None, 1, "exclude"),
]


@pytest.mark.parametrize("case", SLICE_CASES, ids=lambda c: c[0])
@pytest.mark.parametrize("scope", ["standard", "release-centred"])
def test_incremental_slices_are_the_per_dataset_slices(client, monkeypatch, case, scope):
    """Every partition's result from the incremental slice (one prefix build per prefix)
    is the per-dataset slice's: scale, values, touched datasets, best pair, witness, size."""
    from exactdp.engine import tables as _engine

    from exactdp.engine import wide as _wide

    monkeypatch.setattr(_wide, "ENABLED", False)  # the move-list slices, not the wide path
    q, space, metric, d_in, policy = case
    run_parts = _pool.partition_spec
    fill = _dask._fill_incremental
    checked, filled = [], []

    def spy(*args):
        out = fill(*args)
        filled.append(out is not None)
        return out

    monkeypatch.setattr(_dask, "_fill_incremental", spy)

    def checking(*args):
        spec, prefixes, parts, codec = out = run_parts(*args)
        for a, b, halo, _ in parts:
            own = [prefixes[i][0] for i in range(a, b)]
            monkeypatch.setattr(_engine, "INCREMENTAL", False)
            old = _dask.scan_partition(spec, own, halo)
            monkeypatch.setattr(_engine, "INCREMENTAL", True)
            new = _dask.scan_partition(spec, own, halo)
            assert new == old
            checked.append(bool(halo))
        return out

    monkeypatch.setattr(_pool, "partition_spec", checking)
    serial = sensitivity(q, space, metric, d_in, scope=scope, undefined=policy, max_pairs=None)
    same(serial, sensitivity(q, space, metric, d_in, scope=scope, undefined=policy,
                             max_pairs=None, cluster=client))
    assert len(checked) >= 4 and any(checked)  # several partitions, halos among them
    assert filled.count(True) == len(checked)  # the incremental path ran on each


def test_incremental_slice_fills_arrays(monkeypatch):
    from exactdp.engine import incremental as _incremental

    space = Multisets(IntegerRange(0, 5), sizes=(0, 4))
    t = _dask.codec(Q_MEAN, space, space, 6)
    src = _dask._fill_incremental(t, "exclude", [(0,), (1,)], [(2,)])
    assert t.sorted_keys is not None and len(src) == space.count() - _count_from(space, 2)
    monkeypatch.setattr(_incremental, "_NO_NUMPY", True)
    t = _dask.codec(Q_MEAN, space, space, 6)
    assert _dask._fill_incremental(t, "exclude", [(0,)], []) is None


def _count_from(space, c0):
    return sum(1 for counts in space if counts[0] >= c0)


def test_histogram_vector_query(client):
    from exactdp.queries import histogram

    q = histogram([0, 2, 4])
    space = Multisets(IntegerRange(0, 5), sizes=(0, 4))
    same(sensitivity(q, space), sensitivity(q, space, cluster=client))


def test_undefined_error_names_the_same_dataset(client):
    space = Multisets(IntegerRange(0, 4), sizes=(0, 3))
    with pytest.raises(UndefinedQuery) as serial:
        sensitivity("mean", space)
    with pytest.raises(UndefinedQuery) as dask:
        sensitivity("mean", space, cluster=client)
    assert str(serial.value) == str(dask.value)


def _boom_query():
    def prepare(values):
        def f(counts):
            if sum(counts) == 3:
                raise ValueError("boom on a dataset of size 3")
            return sum(c * v for c, v in zip(counts, values))
        return f

    return Query("boom", prepare)


def test_failing_task_fails_the_run(client):
    space = Multisets(IntegerRange(0, 6), sizes=(0, 4))
    with pytest.raises(ValueError, match="boom on a dataset of size 3"):
        sensitivity(_boom_query(), space, cluster=client)


def test_unpicklable_query_refused(client):
    import threading

    lock = threading.Lock()

    def prepare(values):
        def f(counts):
            with lock:
                return sum(counts)
        return f

    with pytest.raises(InvalidArgument, match="cannot be sent to Dask workers"):
        sensitivity(Query("locked", prepare), Multisets(IntegerRange(0, 3), sizes=(0, 3)),
                    cluster=client)


def test_dead_scheduler_refused_quickly():
    start = time.monotonic()
    with pytest.raises(InvalidArgument, match="no Dask scheduler answered"):
        sensitivity("sum", Multisets(IntegerRange(0, 3), sizes=(0, 2)), cluster="tcp://127.0.0.1:9")
    assert time.monotonic() - start < _cluster.CONNECT_TIMEOUT + 5


@pytest.mark.parametrize("bad", [42, "", ["local"]])
def test_bad_cluster_refused(bad):
    with pytest.raises(InvalidArgument, match="is not a cluster"):
        sensitivity("sum", Multisets(IntegerRange(0, 3), sizes=(0, 2)), cluster=bad)


def test_budgets_scale_with_workers(client):
    space = Multisets(IntegerRange(0, 9), sizes=(0, 6))  # 8,008 datasets
    n = space.count()
    per_worker = n // 2 + 1500  # the whole space on two workers, and each slice with its halo
    with pytest.raises(TooLarge):
        sensitivity("sum", space, max_datasets=per_worker)
    same(sensitivity("sum", space), sensitivity("sum", space, max_datasets=per_worker,
                                                cluster=client))
    with pytest.raises(TooLarge, match="max_datasets=7,994"):  # 2 x 3,997 < 8,008
        sensitivity("sum", space, max_datasets=n // 2 - 7, cluster=client)


def test_partition_slice_over_the_per_worker_budget_refused(client, monkeypatch):
    from exactdp.engine import wide

    # the key-arithmetic partitions (the wide strategy holds no slice: a task makes at most
    # wide.CHUNK sources at a time)
    monkeypatch.setattr(wide, "ENABLED", False)
    monkeypatch.setattr(_dask, "MAX_PREFIXES", 1)  # one partition: the whole space in one slice
    space = Multisets(IntegerRange(0, 9), sizes=(0, 6))
    with pytest.raises(TooLarge, match="8,008 datasets in one partition's table slice"):
        sensitivity("sum", space, max_datasets=space.count() // 2 + 1, cluster=client)


def test_progress_counts_partitions(client, monkeypatch, capsys):
    class Eager(_pool.Progress):
        def __init__(self, label, total, enabled=None):
            super().__init__(label, total, enabled, interval=0.0)

    monkeypatch.setattr(_pool, "Progress", Eager)
    sensitivity("sum", Multisets(IntegerRange(0, 9), sizes=(0, 5)), cluster=client, progress=True)
    err = capsys.readouterr().err
    assert " of " in err and "partitions" in err


def test_cli_scheduler(client, capsys):
    from exactdp.cli import main

    argv = ["sensitivity", "--query", "mean", "--universe", "0..7", "--sizes", "1..5"]
    assert main(argv + ["--json"]) == 0
    serial = capsys.readouterr().out
    assert main(argv + ["--json", "--scheduler", client.scheduler.address]) == 0
    assert capsys.readouterr().out == serial


def test_cli_dead_scheduler_one_line(capsys):
    from exactdp.cli import main

    code = main(["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2",
                 "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "no Dask scheduler answered" in err


def test_cli_workers_zero_refused(capsys):
    from exactdp.cli import main

    with pytest.raises(SystemExit) as e:
        main(["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2",
              "--dask", "--workers", "0"])
    assert e.value.code == 2


def test_cli_embedded_cluster(capsys):
    from exactdp.cli import main

    argv = ["sensitivity", "--query", "std", "--universe", "0..5", "--sizes", "1..4", "--json"]
    assert main(argv + ["--workers", "1"]) == 0
    serial = capsys.readouterr().out
    assert main(argv + ["--dask", "--workers", "2"]) == 0
    assert capsys.readouterr().out == serial


def test_missing_distributed_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(MissingDependency, match=r"pip install 'exactdp\[dask\]'"):
        sensitivity("sum", Multisets(IntegerRange(0, 3), sizes=(0, 2)), cluster="local")
