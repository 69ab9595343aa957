"""The wide strategy (exactdp/engine/wide.py, issue 19 part 3): the same values, witnesses
and pair counts as the move lists and scans, and no space refused that one of them answers."""

import random
from fractions import Fraction

import pytest

from exactdp import ExactSet, IntegerRange, Multisets, SubMultisets, sensitivity
from exactdp.engine import plan as _plan
from exactdp.engine import wide
from exactdp.errors import TooLarge
from exactdp.queries.builtin import clipped, parse_query

F = Fraction


def _answer(query, space, **kw):
    r = sensitivity(query, space, workers=1, **kw)
    w = r.witness
    return (r.value, None if w is None else (w.x, w.x_prime, w.fx, w.fx_prime),
            r.scope.pairs, r.scope.excluded)


def _kinds(query, space, scope="standard", undefined="error"):
    plan = _plan.make_plan(query, space, "add-remove", [1], scope, undefined, None, None, False,
                           False, build=False)
    return plan.plans[1].kind


@pytest.fixture
def forced(monkeypatch):
    """Compare with the wide strategy taken wherever it applies, then switched off."""
    def both(query, space, **kw):
        monkeypatch.setattr(wide, "FORCE", True)
        got = _answer(query, space, **kw)
        kind = _kinds(query, space, kw.get("scope", "standard"), kw.get("undefined", "error"))
        monkeypatch.setattr(wide, "FORCE", False)
        monkeypatch.setattr(wide, "ENABLED", False)
        before = _answer(query, space, **kw)
        monkeypatch.setattr(wide, "ENABLED", True)
        return kind, got, before
    return both


# -- the 1,023 / 1,024 hole (regression) ---------------------------------------------

def test_1023_values_sizes_0_2_answered_not_refused():
    space = Multisets(IntegerRange(0, 1023), sizes=(0, 2))
    value, witness, pairs, excluded = _answer("sum", space)
    assert value == 1023
    assert witness == ((), (F(1023),), 0, 1023)
    assert pairs == 1_049_600 and excluded == 0
    assert _kinds("sum", space) == "wide"


def test_python_api_0_1000_answered():
    value, witness, pairs, _ = _answer("mean", Multisets(IntegerRange(0, 1000), sizes=(1, 2)))
    assert value == 500
    assert witness == ((F(1000),), (F(0), F(1000)), 1000, 500)  # count-vector order: [1000] first
    assert pairs == 1001 * 1001


def test_cli_0_1023_exit_0(capsys):
    from exactdp.cli import main

    code = main(["sensitivity", "--query", "sum", "--universe", "0..1023", "--sizes", "0..2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "sum: sensitivity 1023, attained by x=[], x'=[1023]" in out
    assert "1,049,600 unordered pairs examined" in out


def test_refused_only_over_budget_with_the_smaller_count():
    space = Multisets(IntegerRange(0, 1023), sizes=(0, 2))
    with pytest.raises(TooLarge) as e:
        sensitivity("sum", space, max_pairs=1_000_000)
    assert e.value.estimate == 1_049_600  # the wide count, not the move lists' 1,076,889,600
    assert "over max_pairs=1,000,000" in str(e.value)


def test_deep_space_takes_count_vectors_and_other_relations_the_move_lists():
    space = Multisets(IntegerRange(0, 7), sizes=(1, 6))
    plan = _plan.make_plan("mean", space, "add-remove", [1], "standard", "error", None, None,
                           False, False, build=False)
    assert plan.plans[1].kind == "wide" and plan.plans[1].table.sources_as == "counts"
    plan = _plan.make_plan("mean", space, "substitute", [1], "standard", "error", None, None,
                           False, False, build=False)
    assert plan.plans[1].kind == "delta"


def test_count_rows_are_the_enumeration_in_order(monkeypatch):
    """The count vectors a task makes, chunk by chunk, are the space's own, in its order."""
    import numpy as np

    for space in (Multisets(IntegerRange(0, 4), sizes=(2, 7)),
                  SubMultisets([0, 0, 0, 1, 2, 2, 3, 4, 4, 4], sizes=(1, 6))):
        lo, hi = space.min_size, space.max_size
        caps = [space.max_count(i) for i in range(space.universe.size)]
        expected = [c for c in space]
        cols, n = wide._count_rows(np, caps, lo, hi, ())
        assert [tuple(r) for r in cols.T.tolist()] == expected
        assert n.tolist() == [sum(c) for c in expected]
        plan = _plan.make_plan("sum", space, "add-remove", [1], "release-centred", "error", None,
                               None, False, False, build=False)
        t = plan.plans[1].table
        for chunk_size in (1, 3, 10, 10**6):
            monkeypatch.setattr(wide, "CHUNK", chunk_size)
            got = []
            for p, a, b, n in wide._chunks(t, lo, hi):
                cols, _ = wide._count_rows(np, caps, lo, hi, p, a, b)
                got += [tuple(r) for r in cols.T.tolist()]
                assert cols.shape[1] == n
                assert n <= chunk_size or len(p) >= len(caps) - 1  # a last count: no split
            assert got == expected, chunk_size


# -- the property: same value, witness, pairs, excluded on random small spaces ----------

QUERIES = ["count", "sum", "mean", "median", "var", "var:1", "percentile:30",
           "quantile:3/4:nearest", "percentile:50:lower"]


def _random_case(rng):
    kind = rng.randrange(3)
    lo = rng.randrange(0, 2)
    hi = lo + rng.randrange(0, 3)
    if kind == 0:
        a = rng.randrange(-5, 3)
        space = Multisets(IntegerRange(a, a + rng.randrange(0, 9)), sizes=(lo, hi))
    elif kind == 1:
        vals = sorted({F(rng.randrange(-20, 20), rng.choice([1, 2, 3, 7])) for _ in range(rng.randrange(1, 8))})
        space = Multisets(ExactSet(vals), sizes=(lo, hi))
    else:
        pool = [rng.randrange(0, 6) for _ in range(rng.randrange(2, 9))]
        space = SubMultisets(pool, sizes=(lo, min(hi, len(pool))))
    query = parse_query(rng.choice(QUERIES))
    if rng.random() < 0.2:
        query = clipped(parse_query("sum"), -1, 3)
    scope = rng.choice(["standard", "release-centred"])
    undefined = rng.choice(["exclude", "1/3", "-2"]) if query.min_size > 0 else "error"
    return query, space, scope, undefined


@pytest.mark.parametrize("form", [None, "counts", "indices"])
def test_random_spaces_same_answers_as_before(forced, monkeypatch, form):
    monkeypatch.setattr(wide, "SOURCES_AS", form)
    rng = random.Random(19)
    used = 0
    for _ in range(300):
        query, space, scope, undefined = _random_case(rng)
        try:
            kind, got, before = forced(query, space, scope=scope, undefined=undefined)
        except Exception as e:  # the same refusal both ways is checked below
            with pytest.raises(type(e)):
                _answer(query, space, scope=scope, undefined=undefined)
            continue
        assert got == before, (query.name, space, scope, undefined)
        used += kind == "wide"
    assert used >= 150  # most cases exercised the wide strategy


# -- the wide strategy on every worker: process pool and Dask (issue 19, part 3) ---------

@pytest.fixture
def partitioned(monkeypatch):
    """The wide strategy wherever it applies, the pool forking even for a small space, and
    a count of the partitioned runs (so a test knows the backend really cut the sources)."""
    from exactdp.engine import backends

    monkeypatch.setattr(wide, "FORCE", True)
    monkeypatch.setattr(backends, "SERIAL_BELOW", 0)
    monkeypatch.setattr(backends, "WIDE_SERIAL_BELOW", 0)
    monkeypatch.setattr(backends, "COUNTS_SERIAL_BELOW", 0)
    calls = []
    real = wide.partitions

    def counted(t, count):
        out = real(t, count)
        calls.append(len(out))
        return out

    monkeypatch.setattr(wide, "partitions", counted)
    return calls


def _wide_cases(rng, n):
    out = []
    while len(out) < n:
        query, space, scope, undefined = _random_case(rng)
        try:
            kind = _kinds(query, space, scope, undefined)
        except Exception:  # noqa: BLE001 - refused at planning: not a case for the backends
            continue
        if kind == "wide":
            out.append((query, space, scope, undefined))
    return out


def test_serial_pool_and_cluster_identical_on_random_wide_spaces(client, partitioned):
    rng = random.Random(1917)
    cases = _wide_cases(rng, 7) + [
        (parse_query("sum"), Multisets(IntegerRange(-40, 40), sizes=(0, 2)), "standard", "error"),
        (parse_query("median"), Multisets(IntegerRange(-30, 35), sizes=(1, 3)), "release-centred",
         "1/2"),
        (parse_query("var"), Multisets(IntegerRange(0, 50), sizes=(0, 2)), "standard", "exclude"),
        # deep spaces: count vectors made by each task from its prefixes
        (parse_query("mean"), Multisets(IntegerRange(0, 5), sizes=(1, 10)), "standard", "error"),
        (parse_query("median"), Multisets(IntegerRange(-2, 3), sizes=(0, 8)), "release-centred",
         "-1"),
        (parse_query("var:1"), SubMultisets([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], sizes=(2, 8)),
         "standard", "exclude"),
    ]
    for query, space, scope, undefined in cases:
        kw = {"scope": scope, "undefined": undefined}
        serial = _answer(query, space, **kw)
        del partitioned[:]
        pool = sensitivity(query, space, workers=2, **kw)
        dask = sensitivity(query, space, cluster=client, **kw)
        assert len(partitioned) == 2  # both ran the partitioned wide path
        for r in (pool, dask):
            w = r.witness
            got = (r.value, None if w is None else (w.x, w.x_prime, w.fx, w.fx_prime),
                   r.scope.pairs, r.scope.excluded)
            assert got == serial, (query.name, space, scope, undefined)


def test_ties_across_partitions_keep_the_serial_witness(client, partitioned):
    """Every source of size 1 reaches the best gap (sum over a symmetric range: x=[v],
    x'=[v, 40] or x'=[v, -40]); the witness is the first source in the scan order, in
    whichever partition it lies."""
    dense = Multisets(IntegerRange(-40, 40), sizes=(1, 2))  # count-vector order: [40] first
    sparse = Multisets(IntegerRange(0, 1100), sizes=(1, 2))  # sorted tuples: [0] first
    expected = [(40, ((F(40),), (F(40), F(40)), 40, 80), 81 * 81, 0),
                (1100, ((F(0),), (F(0), F(1100)), 0, 1100), 1101 * 1101, 0)]
    for space, want in zip((dense, sparse), expected):
        serial = _answer("sum", space)
        assert serial == want
        for kw in ({"workers": 2}, {"cluster": client}):
            r = sensitivity("sum", space, **kw)
            assert (r.value, (r.witness.x, r.witness.x_prime, r.witness.fx, r.witness.fx_prime),
                    r.scope.pairs, r.scope.excluded) == serial
    assert min(partitioned) > 2  # more than one partition per worker


def test_partitions_cut_the_sources_in_scan_order():
    space = Multisets(IntegerRange(0, 99), sizes=(0, 2))
    plan = _plan.make_plan("sum", space, "add-remove", [1], "release-centred", "error", None,
                           None, False, False, build=False)
    t = plan.plans[1].table
    parts = wide.partitions(t, 7)
    assert [(s, len(rows), base) for _, s, rows, base in parts][:3] == [(0, 1, 0), (1, 100, 1),
                                                                          (2, 736, 101)]
    assert sum(len(rows) for _, _, rows, _ in parts) == space.count()
    assert wide.merge(wide.scan_task(t, p) for p in parts)[2:] == \
        (100 + 100 * 101 + 5050 * 100 + 5050 * 2 - 100, space.count())


def test_count_vector_tasks_cover_the_space_once(monkeypatch):
    """Count-vector tasks (each making its own sources, no halo) hold every source once, in
    nearly equal shares, and their merged result is the serial scan's, witness included."""
    monkeypatch.setattr(wide, "CHUNK", 100)
    space = Multisets(IntegerRange(0, 5), sizes=(0, 9))
    plan = _plan.make_plan("mean", space, "add-remove", [1], "release-centred", "1/2", None,
                           None, False, False, build=False)
    t = plan.plans[1].table
    assert t.sources_as == "counts"
    parts = wide.partitions(t, 7)
    assert all(p[0] == "chunks" for p in parts) and len(parts) == 7
    assert sum(wide.task_size(p) for p in parts) == space.count()
    assert max(wide.task_size(p) for p in parts) <= space.count() // 7 + 100  # a chunk at most
    merged = wide.merge(wide.scan_task(t, p) for p in reversed(parts))  # any order
    [whole] = wide.partitions(t, 1)
    serial = wide.merge([wide.scan_task(t, whole)])
    assert merged == serial
    assert merged[3] == space.count()  # every source scanned once



def test_cli_0_1023_on_two_workers_and_on_dask(client, capsys):
    from exactdp.cli import main

    for extra in (["--workers", "2"], ["--scheduler", client.scheduler.address]):
        code = main(["sensitivity", "--query", "sum", "--universe", "0..1023", "--sizes", "0..2",
                     *extra])
        out = capsys.readouterr().out
        assert code == 0, extra
        assert "sum: sensitivity 1023, attained by x=[], x'=[1023]" in out
        assert "1,049,600 unordered pairs examined" in out


def test_values_past_64_bits_move_on_to_the_other_strategies():
    """Regression: a wide universe holding a value past 2**63 raised OverflowError while the
    planner weighed the wide strategy; it now moves on to the move lists."""
    big = 10**30
    space = Multisets(ExactSet([str(i) for i in range(39)] + [str(big)]), sizes=(0, 2))
    value, witness, pairs, _ = _answer("sum", space)
    assert value == big
    assert witness == ((), (F(big),), 0, big)
    assert pairs == 40 + 40 * 40
    assert _kinds("sum", space) != "wide"
