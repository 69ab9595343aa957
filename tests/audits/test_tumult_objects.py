"""Tumult Core objects through audit_object, the generic API audits and the coverage map.

The distances exactdp computes for Tumult Core's metrics are checked everywhere, on stand-in
metric objects (the reader dispatches on the metric's class name), against the examples of
Tumult Core's own docstrings. Everything that builds a Tumult Core object runs only in
Tumult Core's environment (``docs/tumult-environment.md``) and skips elsewhere with the
reason.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp.adapters import tumult as adapter
from exactdp.audits import objects_tumult as reader
from exactdp.audits.objects_tumult import INF, Grouped, Sequence_, Table, distance
from exactdp.errors import InvalidArgument

pytestmark = [pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
              pytest.mark.filterwarnings(r"ignore:path is deprecated\. Use files\(\) instead:DeprecationWarning"),
              # pyspark's toPandas (under Tumult's OnColumn metric) checks pandas' version with distutils
              pytest.mark.filterwarnings("ignore:distutils Version classes are deprecated:DeprecationWarning")]

SKIP_REASON = ("Tumult Core is not installed: it needs its own environment (numpy<2); "
               "see docs/tumult-environment.md")


# --- everywhere: exactdp's distances, on stand-ins named like Tumult Core's metrics --------------


def _metric(name: str, **attrs):
    return type(name, (), attrs)()


SYM = _metric("SymmetricDifference")
HAM = _metric("HammingDistance")
ABS = _metric("AbsoluteDifference")


def _rows(*rows, columns=("A", "B", "C")):
    return Table(columns, tuple(rows))


def test_if_grouped_by_matches_tumults_docstring_examples():
    # tmlt/core/metrics.py, IfGroupedBy: sqrt(5) with RootSumOfSquared, 1 with SymmetricDifference
    v1 = _rows((1, 2, 1), (1, 1, 1), (3, 4, 2))
    v2 = _rows((2, 1, 1), (1, 1, 1))
    rss = _metric("IfGroupedBy", columns=frozenset({"C"}), inner_metric=_metric("RootSumOfSquared", inner_metric=SYM))
    assert distance(rss, v1, v2) == sympy.sqrt(5)
    per_group = _metric("IfGroupedBy", columns=frozenset({"C"}), inner_metric=SYM)
    assert distance(per_group, v1, _rows((1, 2, 1), (1, 1, 1))) == 1  # group 2 emptied: 1
    assert distance(per_group, v1, _rows((1, 2, 1), (3, 4, 2))) == 2  # group 1 lost a row: changed, 2
    assert distance(per_group, v1, _rows((5, 5, 1), (1, 1, 1), (3, 4, 2))) == 2


def test_multiset_metrics():
    a, b = _rows((1, 1, 1), (1, 1, 1)), _rows((1, 1, 1), (2, 2, 2))
    assert distance(SYM, a, b) == 2 and distance(HAM, a, b) == 1
    assert distance(HAM, a, _rows((1, 1, 1))) == INF
    assert distance(SYM, Sequence_((1, 2), "series"), Sequence_((2, 3, 3), "series")) == 3


def test_floats_are_compared_bit_for_bit():
    zero, minus_zero = reader._cell(0.0), reader._cell(-0.0)
    assert zero != minus_zero and reader._cell(float("nan")) == reader._cell(float("nan"))
    assert distance(SYM, _rows((zero,), columns=("X",)), _rows((minus_zero,), columns=("X",))) == 2
    assert distance(ABS, reader._cell(1.2), reader._cell(1.0)) == Fraction(900719925474099, 4503599627370496)


def test_aggregations_pair_components_and_refuse_other_lengths():
    sum_of = _metric("SumOf", inner_metric=ABS)
    rss = _metric("RootSumOfSquared", inner_metric=ABS)
    a, b = Sequence_((1, 5), "series"), Sequence_((4, 1), "series")
    assert distance(sum_of, a, b) == 7 and distance(rss, a, b) == 5
    assert distance(sum_of, a, Sequence_((1,), "series")) == INF
    grouped = Grouped(_rows((1, "a"), (2, "b"), columns=("A", "B")), ("B",), (("a",), ("b",)))
    other = Grouped(_rows((1, "a"), columns=("A", "B")), ("B",), (("a",), ("b",)))
    assert distance(_metric("SumOf", inner_metric=SYM), grouped, other) == 1


def test_on_column_pairs_groups_by_their_keys():
    on = _metric("OnColumn", column="n", metric=_metric("SumOf", inner_metric=ABS))
    a = Table(("g", "n"), (("x", 3), ("y", 1)))
    b = Table(("g", "n"), (("y", 2), ("x", 3)))  # the same groups, another order
    assert distance(on, a, b) == 1


def test_add_remove_ids_counts_a_changed_id_twice():
    metric = _metric("AddRemoveIDs", df_to_id_column={"t": "id"})
    base = {"t": Table(("id", "v"), ((1, 0), (2, 0)))}
    assert distance(metric, base, {"t": Table(("id", "v"), ((1, 0),))}) == 1
    assert distance(metric, base, {"t": Table(("id", "v"), ((1, 0), (2, 1)))}) == 2
    assert distance(metric, base, {"t": Table(("id", "v"), ((2, 0), (1, 0)))}) == 0


def test_a_metric_exactdp_does_not_compute_is_one_line():
    with pytest.raises(InvalidArgument, match="does not compute the metric"):
        distance(_metric("NullMetric"), 1, 2)


def test_the_reader_takes_only_tumult_objects():
    assert not reader.reads(object()) and not reader.reads(3)


def test_the_api_suite_lists_without_the_library():
    from exactdp.audits import suite_tumult_api
    from exactdp.audits.runner import suite

    ids = [a.id for a in suite("tumult")]
    api = [i for i in ids if i.startswith("tumult/api/")]
    assert len(ids) == len(set(ids)) == 13 + len(api) and len(api) == len(suite_tumult_api.EXPECTED) == 73
    assert suite_tumult_api.EXPECTED["tumult/api/Sum"] == "violated"
    assert suite_tumult_api.EXPECTED["tumult/api/ChainTM"] == "holds-ideal-noise"
    assert all(len(a.covers) == 1 for a in suite("tumult") if a.id.startswith("tumult/api/"))


# --- with Tumult Core: its own environment --------------------------------------------------------


@pytest.fixture(scope="module")
def tmlt():
    module = pytest.importorskip("tmlt.core", reason=SKIP_REASON)
    yield module
    adapter.stop_spark()


def _sum(lower=-1, upper=1):
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    return Sum(adapter.float_domain(), SymmetricDifference(), "X", lower, upper)


_ROWS = {"rows": [-1.0, 1.0, 3 * 2.0**-52], "sizes": (0, 3)}


def test_a_transformation_is_violated_with_its_witness_replayed(tmlt):
    from exactdp.audits.objects import audit_object

    r = audit_object(_sum(), d_in=1, **_ROWS)
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "bit-exact"), str(r)
    assert r.claimed == "1" and r.truth == "4503599627370497/4503599627370496"
    w = r.witness
    assert (w["x"], w["x_prime"]) == ([["1.0"], ["6.661338147750939e-16"]],
                                      [["1.0"], ["1.0"], ["6.661338147750939e-16"]])
    assert (w["library_d_in"], w["library_d_out"]) == ("1", "4503599627370497/4503599627370496")
    assert r.settings.count == 1 and "20 datasets" in r.settings.span
    assert r.id == "tumult/object/Sum"


def test_a_transformation_that_holds_says_its_grid(tmlt):
    from tmlt.core.domains.numpy_domains import NumpyIntegerDomain
    from tmlt.core.domains.pandas_domains import PandasSeriesDomain
    from tmlt.core.metrics import AbsoluteDifference, SumOf
    from tmlt.core.transformations.identity import Identity

    from exactdp.audits.objects import audit_object

    t = Identity(SumOf(AbsoluteDifference()), PandasSeriesDomain(NumpyIntegerDomain()))
    r = audit_object(t)
    assert (r.verdict, r.tight, r.truth) == ("holds-on-grid", True, "1 at d_in=1; 2 at d_in=2"), str(r)
    assert r.settings.count == 2 and "13 datasets, 43 neighbouring pairs" in r.settings.span


def test_a_measurement_holds_on_its_noise_and_a_chain_inherits_the_sum_violation(tmlt):
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements.chaining import ChainTM
    from tmlt.core.measurements.noise_mechanisms import AddGeometricNoise, AddLaplaceNoise

    from exactdp.audits.objects import audit_object

    r = audit_object(AddGeometricNoise(alpha=sympy.Rational(1, 3)))
    assert (r.verdict, r.claimed) == ("holds-ideal-noise", "3 at d_in=1"), str(r)
    # d_in / alpha_float: Tumult's to_float(round_up=True) nudges 1/3 up to 0.3333333333333343
    assert r.truth == f"{Fraction(1) / Fraction(0.3333333333333343)} at d_in=1"

    chain = ChainTM(_sum(), AddLaplaceNoise(NumpyFloatDomain(), scale=1))
    r = audit_object(chain, d_in=1, **_ROWS)
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "ideal-noise"), str(r)
    assert r.witness["true_at_least"] == "4503599627370497/4503599627370496" and r.witness["claimed"] == "1"


def test_what_the_reader_cannot_judge_is_one_line(tmlt):
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements.noise_mechanisms import AddGaussianNoise, AddGeometricNoise

    from exactdp.audits.objects import audit_object

    with pytest.raises(InvalidArgument, match="AddGaussianNoise: exactdp cannot judge") as info:
        audit_object(AddGaussianNoise(NumpyFloatDomain(), sigma_squared=1))
    assert "\n" not in str(info.value) and "rounds the sum after sampling" in str(info.value)
    with pytest.raises(InvalidArgument, match="option 'values' is not one the Tumult Core reader takes"):
        audit_object(AddGeometricNoise(alpha=1), values=[1])
    with pytest.raises(InvalidArgument, match=r"sizes=\(2, 1\)"):
        audit_object(_sum(), sizes=(2, 1))
    with pytest.raises(InvalidArgument, match="d_in=-1 is not a distance"):
        audit_object(_sum(), d_in=-1)


def test_the_accountant_and_a_few_generic_api_audits(tmlt):
    from exactdp.audits.runner import run_audits

    ids = ["tumult/accountant/sequential-budget", "tumult/api/SumGrouped", "tumult/api/AddUniqueColumn",
           "tumult/api/LimitRowsPerIDValue", "tumult/api/ParallelComposition", "tumult/api/GroupingFlatMap"]
    results = {r.id: r for r in run_audits("tumult", only=ids)}
    for audit_id in ids:
        assert results[audit_id].verdict == results[audit_id].expected, str(results[audit_id])
    acc = results["tumult/accountant/sequential-budget"]
    assert acc.tight and acc.settings.count == 4 and "remaining 0, the next refused" in acc.claimed
    grouped = results["tumult/api/SumGrouped"]
    assert (grouped.replay, grouped.truth) == ("confirmed", "4503599627370497/4503599627370496")
    unique = results["tumult/api/AddUniqueColumn"].witness
    assert (unique["library_d_in"], unique["library_d_out"]) == ("1", "3")
    assert results["tumult/api/GroupingFlatMap"].truth == "sqrt(2) at d_in=1; 2*sqrt(2) at d_in=2"


def test_coverage_reaches_ninety_percent_from_tumults_namespace(tmlt):
    from exactdp.audits import suite_tumult
    from exactdp.audits.runner import coverage

    cov = coverage("tumult")
    assert cov.share >= 0.9, cov.summary()
    names = {p.name for p in cov.primitives}
    assert "tmlt.core.measurements.noise_mechanisms.AddGaussianNoise" in names
    assert set(suite_tumult.NOT_AUDITED) <= names
    assert {p.name for p in cov.primitives if not p.audited} == set(suite_tumult.NOT_AUDITED)


def test_the_sum_severity_step_certifies_a_growing_excess(tmlt):
    from exactdp.audits.runner import run_audits

    (r,) = run_audits("tumult", only=["tumult/sum/float-rounding"], depth="full")
    s = r.severity
    assert (s.status, s.replay.value, s.evidence.value) == ("exceeds", "confirmed", "bit-exact"), r.severity_lines()
    assert s.claim == 1 and s.worst == Fraction(34359738383, 34359738368)
    assert s.witness["n"] == 262158 and all(row["replayed"] for row in s.witness["by_bounds_and_size"])
