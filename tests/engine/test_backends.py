"""Issue 19: one backend contract. Serial (an inline executor), a process pool of two
workers and a two-worker Dask LocalCluster give identical values, witnesses and counts on
random spaces; the pool builds its partitions' slices itself; a dying worker is retried
once, then the run is refused in one line."""

from __future__ import annotations

import os
from concurrent.futures import Future
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp import ExactSet, IntegerRange, Multisets, SubMultisets, sensitivity
from exactdp.checkers.sensitivity import sensitivity_curve
from exactdp.engine import backends, partitions, tables, wide
from exactdp.errors import InvalidArgument
from exactdp.queries import histogram

QUERIES = ["mean", "median", "var", "std", "sum", "count", "percentile:25:lower", "var:1",
           histogram([0, 2, 4]), histogram([-1, 1, 3], "L2")]


@pytest.fixture
def pool_always(monkeypatch):
    monkeypatch.setattr(backends, "SERIAL_BELOW", 0)  # the pool forks even for a small space
    monkeypatch.setattr(backends, "WIDE_SERIAL_BELOW", 0)
    monkeypatch.setattr(backends, "COUNTS_SERIAL_BELOW", 0)


def _key(r):
    return (r.value, r.witness, r.scope.pairs, r.scope.excluded, r.scope.d_in_effective)


@st.composite
def problems(draw):
    lo = draw(st.integers(-3, 3))
    kind = draw(st.sampled_from(["range", "pool", "fractions"]))
    if kind == "range":
        top = draw(st.integers(1, 5))
        space = Multisets(IntegerRange(lo, lo + draw(st.integers(1, 5))),
                          sizes=(draw(st.integers(0, top)), top))
    elif kind == "pool":
        pool = draw(st.lists(st.integers(lo, lo + 4), min_size=2, max_size=9))
        size = draw(st.integers(1, len(pool)))
        space = SubMultisets(pool, sizes=(draw(st.integers(0, size)), size))
    else:
        values = draw(st.lists(st.sampled_from(["1/3", "1/2", "2", "-7/5", "5/4"]), min_size=1,
                               max_size=4, unique=True))
        space = Multisets(ExactSet(values), sizes=(draw(st.integers(0, 2)), draw(st.integers(2, 4))))
    return {"query": draw(st.sampled_from(QUERIES)), "space": space,
            "metric": draw(st.sampled_from(["add-remove", "substitute"])),
            "d_ins": tuple(sorted(draw(st.sets(st.integers(1, 3), min_size=1, max_size=2)))),
            "scope": draw(st.sampled_from(["standard", "release-centred"]))}


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# The LocalCluster's scheduler runs in this process, on a thread of its own; its timers
# (tornado's jitter, the scheduler's worker sampling) draw from the global `random`, and
# Hypothesis reads a change of that state during a draw as the strategy using `random`.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@given(problems())
def test_serial_pool_and_cluster_identical(client, pool_always, p):
    opts = {"undefined": "exclude", "max_pairs": None, "scope": p["scope"]}
    args = (p["query"], p["space"], p["metric"], p["d_ins"])
    try:
        serial = sensitivity_curve(*args, **opts)
    except InvalidArgument:
        return  # e.g. the substitute relation on a stated value: refused alike everywhere
    pool = sensitivity_curve(*args, workers=2, **opts)
    assert [_key(r) for r in pool.results] == [_key(r) for r in serial.results]
    try:
        dask = sensitivity_curve(*args, cluster=client, **opts)
    except InvalidArgument as e:  # the strategies that need the whole table
        assert "strategy" in str(e) and "\n" not in str(e)
        return
    assert [_key(r) for r in dask.results] == [_key(r) for r in serial.results]


def test_many_partitions_on_each_backend(client, pool_always):
    """Eight partitions with halos: the witness is still the serial one, exactly."""
    space = Multisets(IntegerRange(0, 9), sizes=(0, 5))
    for q in ("std:1", histogram([0, 5, 9], "L2")):
        serial = sensitivity(q, space, d_in=2, undefined="exclude")
        pool = sensitivity(q, space, d_in=2, undefined="exclude", workers=2)
        dask = sensitivity(q, space, d_in=2, undefined="exclude", cluster=client)
        assert _key(pool) == _key(serial) == _key(dask)


@pytest.fixture(params=["delta", "wide"])
def path(request, monkeypatch):
    """Each test twice: on the key-arithmetic partitions (each task builds its slice and
    halo: :func:`.partitions.scan_partition`) and on the wide strategy's count-vector tasks
    (each makes its own sources: :func:`.wide.scan_task`); returns the module and the name
    of the task function."""
    if request.param == "delta":
        monkeypatch.setattr(wide, "ENABLED", False)
        return partitions, "scan_partition"
    return wide, "scan_task"


def test_the_pool_builds_no_table_in_the_parent(monkeypatch, pool_always, path):
    """Parallel table building: with key arithmetic each partition builds its own slice
    (and halo) in its worker, the wide strategy needs none; the parent never builds the
    whole table."""
    space = Multisets(IntegerRange(0, 7), sizes=(1, 6))
    serial = sensitivity("mean", space)

    def whole_table(*args, **kwargs):
        if os.getpid() == parent:
            raise AssertionError("the whole table was built in the parent")
        return real(*args, **kwargs)

    parent, real = os.getpid(), tables.make_table
    monkeypatch.setattr(tables, "make_table", whole_table)
    pooled = sensitivity("mean", space, workers=2)
    assert _key(pooled) == _key(serial)
    assert serial.value == Fraction(7, 2) and str(serial.witness) == \
        "x=[7], x'=[0, 7]: f(x)=7, f(x')=7/2"


def test_a_worker_killed_once_is_retried(monkeypatch, pool_always, tmp_path, path):
    """A partition whose worker dies is run again on a fresh pool: the same answer."""
    space = Multisets(IntegerRange(0, 5), sizes=(0, 5))
    flag = tmp_path / "died"
    module, name = path
    real = getattr(module, name)

    def dies_once(*args):
        try:
            fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return real(*args)
        os.close(fd)
        os._exit(9)  # the first task to run kills its process

    monkeypatch.setattr(module, name, dies_once)
    got = sensitivity("sum", space, workers=2)
    assert flag.exists()
    monkeypatch.setattr(module, name, real)
    assert _key(got) == _key(sensitivity("sum", space))
    assert got.value == 5 and got.scope.pairs == 1260


def test_a_worker_that_always_dies_is_refused_in_one_line(monkeypatch, pool_always, path):
    space = Multisets(IntegerRange(0, 5), sizes=(0, 5))
    monkeypatch.setattr(*path, lambda *a: os._exit(9))
    with pytest.raises(InvalidArgument, match=r"^a worker process died while computing \d+ "
                                              r"partition\(s\) .*also when retried; nothing is "
                                              r"reported from fewer partitions") as e:
        sensitivity("sum", space, workers=2)
    assert "\n" not in str(e.value)


def test_inline_executor_is_an_executor():
    ex = backends.InlineExecutor()
    f = ex.submit(divmod, 7, 2)
    assert isinstance(f, Future) and f.done() and f.result() == (3, 1)
    bad = ex.submit(divmod, 1, 0)
    with pytest.raises(ZeroDivisionError):
        bad.result()
    assert list(ex.map(abs, [-1, 2, -3])) == [1, 2, 3]


@pytest.mark.parametrize("send_with_tasks", [0, backends.SEND_WITH_TASKS])
def test_spec_scattered_or_sent_with_each_task_same_answer(client, monkeypatch, path,
                                                           send_with_tasks):
    """A small spec or table travels with each Dask task, a large one is scattered once
    (``SEND_WITH_TASKS = 0`` forces the scatter): the same answer either way."""
    monkeypatch.setattr(backends, "SEND_WITH_TASKS", send_with_tasks)
    scattered = []
    real = client.scatter

    def scatter(*args, **kwargs):
        scattered.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "scatter", scatter)
    space = Multisets(IntegerRange(0, 6), sizes=(1, 9))
    serial = sensitivity("median", space)
    assert _key(sensitivity("median", space, cluster=client)) == _key(serial)
    assert len(scattered) == (1 if send_with_tasks == 0 else 0)
    assert serial.value == 3 and str(serial.witness) == "x=[6], x'=[0, 6]: f(x)=6, f(x')=3"
