"""Issue 12: the incremental table, the NumPy pair scan and the process pool give the
answers *and* witnesses of the per-dataset, pure-Python, serial engine."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from exactdp import ChangeDistance, ExactSet, IntegerRange, Multisets, SubMultisets, SymmetricDistance
from exactdp import queries as Q
from exactdp.engine import backends as _pool, incremental as _incremental, scan as _scan, tables as _engine
from exactdp.checkers.sensitivity import sensitivity, sensitivity_curve
from exactdp.errors import InvalidArgument

QUERIES = [
    Q.count, Q.sum_, Q.mean, Q.median, Q.variance(0), Q.variance(1), Q.std(0), Q.std(1),
    Q.percentile(25), Q.percentile(90, "lower"), Q.percentile(90, "higher"),
    Q.percentile(33, "nearest"), Q.percentile(50, "nearest"), Q.quantile("1/3", "midpoint"),
    Q.clipped(Q.sum_, 1, 3), Q.clipped(Q.mean, "1/2", 2), Q.clipped(Q.median, 1, 2),
    Q.histogram([0, 2, 4]), Q.histogram([1, "5/2", 3], "L2"), Q.histogram([0, 1, 3], "Linf"),
]
SPACES = [
    Multisets(IntegerRange(0, 4), sizes=(0, 4)),
    Multisets(IntegerRange(-2, 3), sizes=(2, 5)),
    SubMultisets([1, 2, 2, 2, 5, 5, 7, 8, 9, 9], sizes=(0, 6)),
    Multisets(ExactSet(["1/3", "1/2", 2, "7/5"]), sizes=(1, 4)),
    Multisets(IntegerRange(0, 2), size=3),
]


@pytest.fixture
def per_dataset(monkeypatch):
    """Switch the engine back to the per-dataset table and the pure-Python scan."""
    def switch(on: bool):
        monkeypatch.setattr(_engine, "INCREMENTAL", not on)
        monkeypatch.setattr(_scan, "VECTORISED", not on)
    yield switch


@pytest.fixture
def pool_always(monkeypatch):
    monkeypatch.setattr(_pool, "SERIAL_BELOW", 0)


def _table_rows(table):
    values = table.value_dict()
    return list(values.items()), table.scale, list(table.undefined), table.size


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.name)
def test_incremental_table_is_the_per_dataset_table(query, per_dataset):
    for space in SPACES:
        for policy in ("exclude", Fraction(1, 7)):
            if query.output == "vector" and policy != "exclude":
                continue
            per_dataset(True)
            old = _engine.Table(query, space, space, 2, policy)
            per_dataset(False)
            new = _engine.Table(query, space, space, 2, policy)
            assert new.sorted_keys is not None  # the incremental path ran
            assert _table_rows(new) == _table_rows(old)
            assert list(new.values) == list(old.values)
            assert all(new.values[k] == v for k, v in old.values.items())


def _built_rows(built):
    """``key -> (size, exact value or None)`` of a build, in its order."""
    ints = built.ints.tolist()
    out = {}
    for k, n, v, d in zip(built.keys.tolist(), built.n.tolist(), ints, built.defined.tolist()):
        v = tuple(Fraction(x, built.scale) for x in v) if isinstance(v, list) else Fraction(v, built.scale)
        out[k] = (n, v if d else None)
    return out


def _lcd(rows) -> int:
    from exactdp.numeric.exact import common_denominator

    return common_denominator(x for _, v in rows.values() if v is not None
                              for x in (v if isinstance(v, tuple) else (v,)))


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.name)
def test_prefix_build_is_the_full_builds_rows(query):
    """``build(..., prefix=p)``: exactly the rows of the full build whose first counts are
    ``p``, in the same order, over the least common denominator of those rows."""
    spaces = SPACES + [Multisets(ExactSet([10**30, -(10**25), Fraction(1, 3)]), sizes=(1, 4)),
                       Multisets(IntegerRange(0, 40), sizes=(0, 2))]
    for space in spaces:
        m = space.universe.size
        top = max(space.max_count(i) for i in range(m))
        base = top + 3
        weights = [base**i for i in range(m)]
        form = query.incremental(space.universe.values)
        for stated in (None, Fraction(1, 7)):
            if query.output == "vector" and stated is not None:
                continue
            stated = _engine._stated(query, "exclude" if stated is None else stated)
            full = _incremental.build(form, space, weights, stated, query.output)
            rows = _built_rows(full)
            order = list(rows)

            def counts(k, base=base, weights=weights):
                return tuple((k // w) % base for w in weights)

            prefixes = {()}
            for i, k in enumerate(order):
                c = counts(k)
                prefixes.update(c[:j] for j in (1, 2, 3) if j < m)
                if i % 97 == 0:
                    prefixes.add(c)
            prefixes.update([(top + 1,), (0,) * (m - 1) + (top + 1,)])  # no dataset has these
            for p in sorted(prefixes):
                part = _incremental.build(form, space, weights, stated, query.output, prefix=p)
                got = _built_rows(part)
                want = [k for k in order if counts(k)[:len(p)] == p]
                assert list(got) == want, (space, p)
                assert got == {k: rows[k] for k in want}, (space, p)
                assert part.scale == _lcd(got), (space, p)
                if not want:
                    assert part.ints.shape[0] == 0


@pytest.mark.parametrize("space", [
    Multisets(ExactSet([10**30, -(10**25), Fraction(1, 3)]), sizes=(1, 4)),  # values past int64
    Multisets(IntegerRange(0, 40), sizes=(0, 2)),  # keys past int64: base 4, 41 digits
], ids=["big-values", "big-keys"])
@pytest.mark.parametrize("query", [Q.mean, Q.std(1), Q.median, Q.histogram([0, 20, 40])],
                         ids=lambda q: q.name)
def test_object_arrays_past_64_bits_give_the_same_answers(space, query, per_dataset):
    results = []
    for old in (True, False):
        per_dataset(old)
        t = _engine.Table(query, space, space, 1, "exclude")
        r = sensitivity(query, space, SymmetricDistance(), 1, undefined="exclude")
        results.append((_table_rows(t), r.value, str(r.witness), r.scope.pairs))
    assert results[0] == results[1]


def test_without_numpy_the_pure_python_paths_run(monkeypatch):
    space = Multisets(IntegerRange(0, 4), sizes=(1, 4))
    with_np = sensitivity(Q.median, space, ChangeDistance(), 1)
    monkeypatch.setattr(_incremental, "_NO_NUMPY", True)
    t = _engine.Table(Q.median, space, space, 1, "error")
    assert t.sorted_keys is None and isinstance(t.values, dict)
    without = sensitivity(Q.median, space, ChangeDistance(), 1)
    assert (without.value, str(without.witness)) == (with_np.value, str(with_np.witness))


def test_importing_the_engine_does_not_import_numpy():
    """NumPy is imported lazily, on the incremental and vectorised paths only (so
    ``exactdp --help`` does not load it)."""
    code = ("import runpy, sys, exactdp, exactdp.checkers.sensitivity, exactdp.engine.plan, "
            "exactdp.engine.backends, exactdp.engine.incremental\n"
            "sys.argv = ['exactdp', 'sensitivity', '--help']\n"
            "try:\n    runpy.run_module('exactdp', run_name='__main__')\n"
            "except SystemExit:\n    pass\nprint('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.stdout.strip().splitlines()[-1] == "False"


# -- serial, pool and an independent brute force ---------------------------------------

def _brute_force(query, values, sizes, d_in, change):
    """Largest |f(x) - f(x')| over every pair of datasets (sorted tuples) at distance
    <= d_in, from itertools and the distances' definitions alone."""
    datasets = [c for n in range(sizes[0], sizes[1] + 1)
                for c in itertools.combinations_with_replacement(values, n)]
    f = {x: query(list(x)) for x in datasets}
    best, pairs = None, set()
    for x, y in itertools.combinations(datasets, 2):
        cx, cy = Counter(x), Counter(y)
        sym = sum(((cx - cy) + (cy - cx)).values())
        dist = sym // 2 if change and len(x) == len(y) else (sym if not change else None)
        if dist is None or dist > d_in:
            continue
        gap = abs(f[x] - f[y])
        if best is None or gap > best:
            best, pairs = gap, {(x, y)}
        elif gap == best:
            pairs.add((x, y))
    return best, pairs, f


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(1, 4), st.integers(0, 4), st.integers(1, 2), st.booleans(),
       st.sampled_from([Q.sum_, Q.mean, Q.median, Q.variance(1), Q.percentile(75, "nearest")]))
def test_serial_pool_and_brute_force_agree(lo_value, width, max_size, d_in, change, query):
    values = list(range(lo_value, lo_value + width))
    low = max(query.min_size, 1 if change else 0)
    sizes = (low, max(max_size, low))
    space = Multisets(IntegerRange(values[0], values[-1]), sizes=sizes)
    metric = ChangeDistance() if change else SymmetricDistance()
    old_pool = _pool.SERIAL_BELOW
    _pool.SERIAL_BELOW = 0
    try:
        serial = sensitivity(query, space, metric, d_in)
        pooled = sensitivity(query, space, metric, d_in, workers=2)
    finally:
        _pool.SERIAL_BELOW = old_pool
    assert (pooled.value, str(pooled.witness), pooled.scope.pairs) == \
        (serial.value, str(serial.witness), serial.scope.pairs)
    best, pairs, f = _brute_force(query, [Fraction(v) for v in values], sizes, d_in, change)
    if best is None:
        assert serial.witness is None and serial.value == 0
        return
    assert serial.value == best
    w = serial.witness
    x, y = tuple(w.x), tuple(w.x_prime)
    assert (x, y) in pairs or (y, x) in pairs  # the witness is a maximal neighbouring pair


def test_pool_keeps_the_serial_witness_on_every_query_kind(per_dataset, pool_always):
    space = Multisets(IntegerRange(0, 5), sizes=(0, 6))
    for query in (Q.count, Q.mean, Q.std(0), Q.median, Q.histogram([0, 2, 5], "L2")):
        for scope in ("standard", "release-centred"):
            got = []
            for old, workers in ((True, 1), (False, 1), (False, 2), (False, 3)):
                per_dataset(old)
                r = sensitivity(query, space, SymmetricDistance(), 2, scope=scope,
                                undefined="exclude", workers=workers)
                got.append((r.value, str(r.witness), r.scope.pairs, r.scope.excluded))
            assert len(set(got)) == 1, got
    curve = sensitivity_curve(Q.mean, space, ChangeDistance(), (1, 2), undefined="exclude", workers=2)
    assert [str(r.witness) for r in curve.results] == \
        [str(r.witness) for r in sensitivity_curve(Q.mean, space, ChangeDistance(), (1, 2), undefined="exclude").results]


@pytest.mark.parametrize("workers", [0, -1, True, 1.5, "2", None])
def test_bad_workers_are_refused_in_one_line(workers):
    space = Multisets(IntegerRange(0, 2), sizes=(0, 2))
    with pytest.raises(InvalidArgument, match=r"^workers=.* whole number >= 1") as e:
        sensitivity(Q.sum_, space, workers=workers)
    assert "\n" not in str(e.value)
    with pytest.raises(InvalidArgument, match=r"^workers="):
        sensitivity_curve(Q.sum_, space, workers=workers)


def test_a_failing_part_fails_the_run_with_the_workers_error(monkeypatch, pool_always):
    from exactdp.engine import wide

    monkeypatch.setattr(wide, "ENABLED", False)  # the table scan's parts (wide: test_backends)
    space = Multisets(IntegerRange(0, 5), sizes=(0, 5))
    real = _scan.scan
    first = []

    def scan(table, sources, neighbours, progress):
        if first and int(sources[0]) != first[0]:
            raise RuntimeError(f"boom on the part starting at {int(sources[0])} in {os.getpid()}")
        return real(table, sources, neighbours, progress)

    first.append(int(_engine.source_keys(_engine.Table(Q.sum_, space, space, 1, "error"), space)[0]))
    monkeypatch.setattr(_scan, "scan", scan)
    with pytest.raises(RuntimeError, match="boom on the part starting at") as e:
        sensitivity(Q.sum_, space, workers=2)
    assert str(os.getpid()) not in str(e.value)  # raised on a worker


def test_a_dying_worker_fails_the_run(monkeypatch, pool_always):
    """Issue 19: a worker that dies is retried on a fresh pool; dying again, the run is
    refused in one line (InvalidArgument), never answered from fewer partitions."""
    from exactdp.engine import wide

    monkeypatch.setattr(wide, "ENABLED", False)  # the table scan's parts (wide: test_backends)
    space = Multisets(IntegerRange(0, 5), sizes=(0, 5))
    parent = os.getpid()
    real = _scan.scan

    def scan(table, sources, neighbours, progress):
        if os.getpid() != parent:
            os._exit(3)
        return real(table, sources, neighbours, progress)

    monkeypatch.setattr(_scan, "scan", scan)
    with pytest.raises(InvalidArgument, match=r"^a worker process died while computing \d+ "
                                              r"partition\(s\) \(the process pool broke\), also when "
                                              r"retried; nothing is reported") as e:
        sensitivity(Q.sum_, space, workers=2)
    assert "\n" not in str(e.value)
