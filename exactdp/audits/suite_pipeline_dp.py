"""The audit suite of PipelineDP (``exactdp audit pipeline-dp``).

Every audit runs PipelineDP's own ``DPEngine`` on its ``LocalBackend`` through
:mod:`exactdp.adapters.pipeline_dp`, the noise spied out: each aggregation reveals its
noiseless per-partition values and the sensitivity it hands its Laplace or Gaussian
mechanism (``dp_computations.compute_sensitivities_for_*``: COUNT L0
``max_partitions_contributed``, LInf ``max_contributions_per_partition``; SUM LInf
``max_contributions_per_partition * max(|min_value|, |max_value|)``; MEAN's normalised sum
LInf ``max_contributions_per_partition * (max_value - min_value) / 2``; L1 = L0 * LInf, L2
= sqrt(L0) * LInf). Neighbouring datasets differ by one privacy unit: all of its records
added or removed, the unit PipelineDP's contribution bounding protects. The contribution
bounding samples with NumPy's global generator; every run seeds it (seed 0), so a
``holds-on-grid`` covers the grid of datasets with that seed's choice of kept records (the
bound holds for every choice; other choices are not enumerated). Noise parameters come
from python-dp's mechanisms (audited in ``exactdp audit python-dp``).

Checked on pipeline-dp 0.3.1 (with python-dp 1.1.5); every audit runs on ``>=0.3,<0.4``.
Corpus: the issue trackers of OpenMined/PipelineDP show no publicly reported sensitivity or
budget defect (searched: "PipelineDP sensitivity bug", "contribution bounding", "budget
accounting", "float sum"); the float-sum audit reproduces, through PipelineDP's SUM, the
defect reported for the C++ library it follows (google/differential-privacy#126).

The library is imported only inside the checks, so importing this module costs nothing.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Callable

from exactdp.audits.base import Audit, Finding, Replay
from exactdp.checkers.results import Evidence, Verdict
from exactdp.numeric.exact import format_exact, from_float

__all__ = ["DISTRIBUTION", "EXTRA", "CHECKED_ON", "SUPPORTED", "audits"]

DISTRIBUTION = "pipeline-dp"
EXTRA = "pipeline-dp"
CHECKED_ON = ("0.3.1",)
SUPPORTED = ">=0.3,<0.4"

_REPO = "https://github.com/OpenMined/PipelineDP"
_SRC = f"{_REPO}/blob/v0.3.1/pipeline_dp"


def _A():
    from exactdp.adapters import pipeline_dp as adapter

    adapter.require()
    return adapter


def _q(value) -> str:
    return format_exact(Fraction(value))


def _verdict(truth: Fraction, claim: Fraction) -> Verdict:
    if truth > claim:
        return Verdict.VIOLATED
    return Verdict.HOLDS_TIGHT if truth == claim else Verdict.HOLDS


def _l1(a: dict, b: dict, metric: str) -> Fraction:
    return sum((abs(a[p][metric] - b[p][metric]) for p in a), Fraction(0))


def _unit_grid_check(metric: str, per_unit: list[list[tuple]], others: list[tuple], partitions: list[str],
                     params: dict, what: str) -> Finding:
    """Remove one privacy unit (id 0, its records from ``per_unit``) from a dataset that also
    holds ``others``: the L1 distance of the noiseless per-partition ``metric`` against the
    L1 sensitivity the library hands its Laplace mechanism."""
    A = _A()
    base, log = A.aggregate(others, [metric.upper()], partitions=partitions, **params)
    claims = {c.sensitivity for c in log}
    worst, pair = Fraction(-1), None
    for records in per_unit:
        rows = [(0, pk, v) for pk, v in records] + others
        out, log = A.aggregate(rows, [metric.upper()], partitions=partitions, **params)
        claims |= {c.sensitivity for c in log}
        d = _l1(out, base, metric)
        if d > worst:
            worst, pair = d, (records, out)
    if len(claims) != 1:  # pragma: no cover - one sensitivity per aggregation
        return Finding(claim="?", truth=_q(worst), verdict=Verdict.UNDECIDED, evidence=None,
                       note=f"the mechanisms got different sensitivities: {sorted(claims)}")
    (claim,) = claims
    records, out = pair
    verdict = _verdict(worst, claim)
    witness = {"unit_records": [list(r) for r in records], "other_records": [list(r) for r in others],
               "with_unit": {p: _q(v[metric]) for p, v in out.items()},
               "without_unit": {p: _q(v[metric]) for p, v in base.items()}, "l1_distance": _q(worst)}
    replay = None
    if verdict is Verdict.VIOLATED:
        again, _ = A.aggregate([(0, pk, v) for pk, v in records] + others, [metric.upper()],
                               partitions=partitions, **params)
        replay = Replay.of(_l1(again, base, metric) == worst)
    return Finding(claim=_q(claim), truth=_q(worst), verdict=verdict, witness=witness, replay=replay,
                   evidence=Evidence.BIT_EXACT if verdict is Verdict.VIOLATED else Evidence.BIT_EXACT_GRID,
                   scope=f"{len(per_unit)} record lists of one privacy unit ({what}), removed from a dataset "
                         f"with {len(others)} records of other units; public partitions {partitions}; the "
                         "library's own noiseless outputs, NumPy's generator seeded with 0 for its sampling")


def _check_count_bounding() -> Finding:
    parts = ["a", "b", "c"]
    per_unit = [[(p, 1.0) for p in seq] for n in range(5) for seq in itertools.product(parts, repeat=n)]
    others = [(1, "a", 1.0), (2, "b", 1.0), (2, "b", 1.0)]
    return _unit_grid_check("count", per_unit, others, parts,
                            {"max_partitions_contributed": 2, "max_contributions_per_partition": 1},
                            "0 to 4 records over partitions a, b, c, repeats allowed; "
                            "max_partitions_contributed=2, max_contributions_per_partition=1")


def _check_sum_bounding() -> Finding:
    values = (-3.0, -1.0, 0.0, 2.0, 5.0)
    per_unit = [[("a", v) for v in seq] for n in range(4) for seq in itertools.product(values, repeat=n)]
    others = [(1, "a", 2.0), (2, "a", -1.0)]
    return _unit_grid_check("sum", per_unit, others, ["a"],
                            {"max_partitions_contributed": 1, "max_contributions_per_partition": 2,
                             "min_value": -1.0, "max_value": 2.0},
                            f"0 to 3 values from {list(values)} in partition a; min_value=-1, max_value=2, "
                            "max_contributions_per_partition=2")


def _float_check(metric: str, note: str) -> Callable[[], Finding]:
    """One record per privacy unit in one partition, bounds (-1, 1) for MEAN (its midpoint
    is 0, so the normalised values are the values) or (0, 1) for SUM; a float-sum witness of
    the ``sequential`` model (the LocalBackend merges the units' accumulators in data order)."""
    def check() -> Finding:
        from exactdp.checkers.float_witness import search_float_witness

        A = _A()
        lo, hi = (0.0, 1.0) if metric == "sum" else (-1.0, 1.0)
        params = {"max_partitions_contributed": 1, "max_contributions_per_partition": 1,
                  "min_value": lo, "max_value": hi}
        claim = Fraction(1)  # max(|lo|, |hi|) for SUM, (hi - lo)/2 for MEAN's normalised sum
        max_n = 8
        res = search_float_witness("sequential", "float64", (from_float(lo), from_float(hi)), max_n, claim,
                                   neighbors="add-remove", same_order=True, budget=2000, seed=0)
        scope = (f"one record per privacy unit, at most {max_n} units, values in [{lo!r}, {hi!r}], one unit "
                 "added or removed (the others in the same order); the library's own noiseless value "
                 f"handed to the {metric.upper()} mechanism")
        if res.witness is None:
            return Finding(claim=_q(claim), truth="no witness found", verdict=Verdict.UNDECIDED, evidence=None,
                           scope=scope, note="a search that finds nothing proves nothing")
        x, xp = ([float(v) for v in w] for w in res.witness.expand())
        got, claims = [], set()
        for data in (x, xp):
            _, log = A.aggregate([(i, "a", v) for i, v in enumerate(data)], [metric.upper()], partitions=["a"],
                                 **params)
            claims |= {c.sensitivity for c in log}
            got.append(log[-1].value)  # SUM: the sum; MEAN: the normalised sum (after the count)
        sx, sxp = got
        lib_claim = max(claims)
        ok = (sx, sxp) == (res.witness.fx, res.witness.fx_prime) and abs(sxp - sx) > lib_claim
        return Finding(claim=_q(lib_claim), truth=f">= {_q(abs(sxp - sx))}", verdict=Verdict.VIOLATED,
                       witness={"x": x, "x_prime": xp, "fx": _q(sx), "fx_prime": _q(sxp),
                                "difference": _q(abs(sxp - sx))},
                       replay=Replay.of(ok), evidence=Evidence.BIT_EXACT,
                       scope=scope, note=note)
    return check


def _check_budget_split() -> Finding:
    A = _A()
    total, n = 1.0, 10
    budgets = A.naive_budgets(total, 1e-6, n)
    spent = sum((from_float(e) for e, _ in budgets), Fraction(0))
    witness = {"total_epsilon": total, "mechanisms": n, "epsilons": sorted({e for e, _ in budgets}),
               "exact_sum": _q(spent), "excess": _q(spent - from_float(total))}
    scope = "NaiveBudgetAccountant(total_epsilon=1.0), ten Laplace mechanisms of weight 1"
    if spent <= from_float(total):
        return Finding(claim=_q(from_float(total)), truth=_q(spent), verdict=Verdict.HOLDS, witness=witness,
                       evidence=Evidence.BIT_EXACT_GRID, scope=scope)
    again = A.naive_budgets(total, 1e-6, n)
    return Finding(claim=_q(from_float(total)), truth=f"sum of the epsilons given out = {_q(spent)}",
                   verdict=Verdict.VIOLATED, witness=witness,
                   replay=Replay.of(again == budgets),
                   evidence=Evidence.BIT_EXACT, scope=scope,
                   note="each epsilon is total * weight / total_weight rounded to nearest: 1.0 / 10 rounds "
                        "up to 0.1000000000000000055..., and ten of them compose (naive composition, the "
                        "accountant's own rule) to 1 + 2**-54 > 1")


def _check_l2_formula() -> Finding:
    """The L2 sensitivity of a Gaussian COUNT is sqrt(L0) * LInf, computed as
    np.sqrt(l0) * linf in floats: for L0 = 3 below its exact value."""
    A = _A()
    below, rows = [], []
    for l0 in (1, 2, 3, 5, 7):
        _, log = A.aggregate([(1, "a", 1.0)], ["COUNT"], partitions=["a"], noise_kind="gaussian",
                             max_partitions_contributed=l0, max_contributions_per_partition=1)
        l2 = log[0].sensitivity
        ok = l2 * l2 >= l0  # l2 >= sqrt(l0) exactly (linf = 1)
        rows.append({"max_partitions_contributed": l0, "l2": float(l2), "at_or_above_sqrt": ok})
        if not ok:
            below.append((l0, l2))
    scope = ("COUNT with Gaussian noise, max_contributions_per_partition=1, max_partitions_contributed in "
             "{1, 2, 3, 5, 7}; the L2 sensitivity the mechanism got, at its exact binary value, against "
             "sqrt(L0) (l2**2 >= L0, exactly)")
    if not below:
        return Finding(claim="sqrt(L0) * LInf", truth="at or above in every setting", verdict=Verdict.HOLDS,
                       witness={"settings": rows}, evidence=Evidence.BIT_EXACT_GRID, scope=scope)
    l0, l2 = below[0]
    _, log = A.aggregate([(1, "a", 1.0)], ["COUNT"], partitions=["a"], noise_kind="gaussian",
                         max_partitions_contributed=l0, max_contributions_per_partition=1)
    return Finding(claim=f"{_q(l2)} (~{float(l2)!r})", truth=f"sqrt({l0}) (l2**2 = {_q(l2 * l2)} < {l0})",
                   verdict=Verdict.VIOLATED, witness={"max_partitions_contributed": l0, "l2": float(l2),
                                                      "l2_exact": _q(l2), "settings": rows},
                   replay=Replay.of(log[0].sensitivity == l2),
                   evidence=Evidence.BIT_EXACT, scope=scope,
                   note="np.sqrt rounds to nearest, here below sqrt(L0): the Gaussian is calibrated to a "
                        "sensitivity one ulp short of the true one (python-dp's sigma has 1e-3 relative slack, "
                        "audited in exactdp audit python-dp)")


def audits() -> list[Audit]:
    """Every audit of the pipeline-dp suite (the library is imported only when one runs)."""
    lib = "pipeline-dp"
    v = SUPPORTED

    a = Audit.factory(lib, "pipeline-dp/", versions=v)

    comp = f"{_SRC}/dp_computations.py"
    return [
        a("count/contribution-bounding", "DPEngine.aggregate COUNT (contribution bounding)",
          "L1 sensitivity max_partitions_contributed * max_contributions_per_partition per privacy unit",
          _check_count_bounding, source=f"{_SRC}/contribution_bounders.py", expect={v: "holds-on-grid"}),
        a("sum/contribution-bounding", "DPEngine.aggregate SUM (contribution bounding, clipping)",
          "L1 sensitivity max_partitions * max_contributions_per_partition * max(|min_value|, |max_value|)",
          _check_sum_bounding, source=comp, expect={v: "holds-on-grid"}),
        a("sum/float-rounding", "DPEngine.aggregate SUM (float values)",
          "L1 sensitivity max(|min_value|, |max_value|) per privacy unit",
          _float_check("sum", "the per-unit sums are merged with float additions, each rounded: removing a "
                              "unit changes how the later ones round (as google/differential-privacy#126)"),
          source=comp, expect={v: "violated"}),
        a("mean/float-rounding", "DPEngine.aggregate MEAN (normalised sum)",
          "the normalised sum has L1 sensitivity (max_value - min_value) / 2 per privacy unit",
          _float_check("mean", "the normalised values (clip(x) - middle; middle 0 for bounds (-1, 1)) are "
                               "summed in floats, each addition rounded"),
          source=comp, expect={v: "violated"}),
        a("budget/naive-split", "NaiveBudgetAccountant.compute_budgets",
          "the epsilons given out compose (naive composition) to at most total_epsilon",
          _check_budget_split, source=f"{_SRC}/budget_accounting.py", expect={v: "violated"}),
        a("gaussian/l2-sensitivity", "Gaussian noise (compute_l2_sensitivity)",
          "L2 sensitivity at least sqrt(max_partitions_contributed) * LInf", _check_l2_formula,
          source=comp, expect={v: "violated"}),
    ]
