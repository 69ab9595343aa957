"""The seeds' own code, modelled (kind ``"privacy"``; issue 20, "seed code modelled").

Statements the seed documents make about the code they run, each judged on a bit-exact
model of that code:

* ``s000/laplace-mech/numpy-float64``: seed 000's ``laplace_mech`` on NumPy's float64
  Laplace sampler (:mod:`exactdp.mechanisms.models.numpy_laplace`);
* ``s002/softmax/omit-shift``: seed 002's softmax without ``scores -= scores.max()``
  (:mod:`exactdp.mechanisms.models.softmax`);
* ``s000/decimal/0.1+0.2`` and ``s000/decimal/arbitrary-precision``: seed 000's
  ``decimal`` remedy under Python's default context
  (:mod:`exactdp.numeric.decimal_context`);
* ``s000/integer-overflow/int64-sum``: seed 000's "no need to worry about integer
  overflow" against the ``int64`` sums its pandas code computes
  (:func:`exactdp.numeric.fixedwidth.overflow_witness`).
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.numeric.exact import format_exact
from exactdp.mechanisms.models.numpy_laplace import numpy_laplace_scale, numpy_laplace_witness
from exactdp.mechanisms.models.softmax import first_departure
from exactdp.numeric.decimal_context import decimal_chain, decimal_mean, decimal_quotient, decimal_sum
from exactdp.numeric.fixedwidth import overflow_witness

__all__ = ["claims", "LAPLACE_CASE", "SOFTMAX_CASE"]

_S000_CLIP = "seed 000 (Near & Abuah, Sensitivity), section Clipping"
_S000_UNDER = "seed 000 (Near & Abuah, Sensitivity), section Avoiding Sensitivity Underestimation"
_S002 = ("seed 002 (Hands-on DP, ch. 6), section A Private Mechanism on l-infinity Sensitivity: "
         "mechanism_exponential_discrete")

LAPLACE_CASE = {"x": 1_000_000, "bound": 80, "epsilon": "0.01"}
"""The ``laplace_mech`` call judged: a clipped sum of ``x`` and the neighbour with one more
record at the clipping bound (``x + bound``), ``epsilon_i = 0.01`` as in the chapter's sweep
(scale ``bound / 0.01`` computed in float64: 8000)."""

SOFTMAX_CASE = {"candidates": (1, 2, 3), "epsilon": 1, "sensitivity": "1/2", "n_max": 4000}
"""The softmax scan: the median's score (alpha = 1/2, sensitivity max(alpha, 1 - alpha) =
1/2, tau = epsilon = 1) over candidates 1, 2, 3, on datasets of ``n`` records: one at 3 and
``n - 1`` above every candidate (at 4)."""


def _softmax_family(n: int) -> tuple[Fraction, ...]:
    """``quantile_scores([3] + [4] * (n - 1), [1, 2, 3])`` without building the dataset:
    ``#(x <= c)`` is 0, 0, 1."""
    half = Fraction(n, 2)
    return tuple(-abs(k - half) for k in (0, 0, 1))


def _laplace_claim() -> StatementResult:
    x, bound = LAPLACE_CASE["x"], LAPLACE_CASE["bound"]
    b = numpy_laplace_scale(bound, LAPLACE_CASE["epsilon"])
    porous = numpy_laplace_witness(x, x + bound, b, kind="porous")
    edge = numpy_laplace_witness(x, x + bound, b, kind="edge")
    scope = (f"np.random.laplace (RandomState) and Generator.laplace: random_laplace on the 2^53 grid "
             f"(k = 1..2^53 - 1 equally likely), float64 arithmetic bit for bit, log correctly rounded; "
             f"v = {x:,} and v + {bound} (one record added at the clipping bound {bound}), scale "
             f"{bound}/0.01 = {format_exact(b)}; per-output counts decided exactly, the outputs "
             f"not enumerated (proof: proofs/s000-laplace-mech-numpy.md)")
    if porous is None and edge is None:
        return StatementResult(Verdict.UNDECIDED, "no output examined separates the neighbours",
                               scope, {})
    found = porous or edge
    text = found.summary()
    if porous is not None and edge is not None:
        text += (f"; also the smallest output {float(edge.output)!r} of x (the noise is bounded, "
                 f"the neighbour's smallest output is {float(edge.neighbour_range[0])!r})")
    data = {"witness": found.to_dict(), "edge": edge.to_dict() if edge else None}
    return StatementResult(Verdict.VIOLATED, text, scope, data)


def _softmax_claim() -> StatementResult:
    c = SOFTMAX_CASE
    scan = first_departure(_softmax_family, c["epsilon"], c["sensitivity"], n_max=c["n_max"],
                           name="one record at 3, n - 1 at 4; candidates 1, 2, 3")
    scope = (f"float64 bit for bit (correctly rounded exp, NumPy's pairwise sum, IEEE 0/0 = NaN); "
             f"median score, epsilon = tau = 1, sensitivity 1/2, candidates 1, 2, 3; datasets of "
             f"n = 1..{scan.scanned} records, one at 3 and the rest at 4; departs = NaN or a "
             f"probability off the exact one by more than 2^-40 (proof: proofs/s002-softmax-omit-shift.md)")
    if scan.first_departure is None:
        return StatementResult(Verdict.UNDECIDED, f"no departure up to n = {scan.scanned}", scope,
                               scan.to_dict())
    dep = scan.at_departure
    text = (f"without the shift the probabilities depart from the exact ones first at n = "
            f"{scan.first_departure} records (scores {', '.join(format_exact(s) for s in dep.scores)}: "
            f"float {', '.join(repr(p) for p in dep.unshifted)} against {', '.join(repr(p) for p in dep.shifted)} "
            f"with the shift, which stays within 2^-40 of exact at every n) and are NaN from n = "
            f"{scan.first_nan} (every likelihood underflows to 0, 0/0)")
    return StatementResult(Verdict.VIOLATED, text, scope, scan.to_dict())


def _decimal_exact_claim() -> StatementResult:
    out = decimal_sum(["0.1", "0.2"])
    verdict = Verdict.HOLDS_TIGHT if out.exact_match else Verdict.VIOLATED
    return StatementResult(verdict, out.summary(),
                           "Decimal('0.1') + Decimal('0.2') under Python's default context "
                           "(28 digits, ROUND_HALF_EVEN), against exact rationals "
                           "(proof: proofs/s000-decimal-context.md)", {"sum": out.to_dict()})


def _decimal_precision_claim() -> StatementResult:
    chain = decimal_chain(1, [("/", 3), ("*", 3)])
    mean = decimal_mean([1, 0, 0])
    total = decimal_sum([10**28, 1, -10**28])
    scale = decimal_quotient(1, 3, what="Laplace scale sensitivity/epsilon (1/3)")
    true_eps = 1 / Fraction(scale.decimal)  # the epsilon Laplace noise of that scale gives
    witnesses = [chain, mean, total, scale]
    verdict = Verdict.VIOLATED if any(not w.exact_match for w in witnesses) else Verdict.HOLDS
    text = (f"{chain.summary()}; {mean.summary()}; {total.summary()}; {scale.summary()}, so the "
            f"mechanism is {format_exact(true_eps)}-DP, above epsilon = 3 by "
            f"{format_exact(true_eps - 3)}")
    return StatementResult(verdict, text,
                           "Python's default decimal context (28 digits, ROUND_HALF_EVEN): a chain "
                           "of operations, a mean, a sum and a mechanism parameter, each against its "
                           "exact value (proof: proofs/s000-decimal-context.md)",
                           {"witnesses": [w.to_dict() for w in witnesses],
                            "true_epsilon": format_exact(true_eps)})


def _overflow_claim() -> StatementResult:
    w = overflow_witness(2**62, "int64")
    ages = overflow_witness(125, "int64")
    text = (f"pandas/NumPy sum an int64 column with wrap-around: x = ({2**62}), x' = ({2**62}, "
            f"{2**62}) (values in [0, 2^62], sensitivity 2^62) give sums {w.sum_x} and "
            f"{w.sum_x_prime} (exactly {w.exact_x_prime}): the sum moved by {w.change} = 3 * 2^62; "
            f"ages clipped to [0, 125] wrap from {ages.copies + 1:,} records on")
    return StatementResult(Verdict.VIOLATED, text,
                           "int64 sums with wrap-around (NumPy's add.reduce on an int64 array, which "
                           "pandas' Series.sum uses), exact integers beside them "
                           "(proof: proofs/s000-integer-overflow.md)",
                           {"witness": w.to_dict(), "ages": ages.to_dict()})


def claims(all_k: bool = False) -> list:
    return [
        PrivacyClaim(
            "s000/laplace-mech/numpy-float64", _S000_CLIP,
            "laplace_mech(v, sensitivity, epsilon) = v + np.random.laplace(loc=0, scale="
            "sensitivity/epsilon) is epsilon-DP (sum clipped at 80, epsilon_i = 0.01), judged on "
            "NumPy's float64 sampler", _laplace_claim, "violated"),
        PrivacyClaim(
            "s002/softmax/omit-shift", _S002,
            "omitting scores -= scores.max() gives the same probabilities", _softmax_claim,
            "violated"),
        PrivacyClaim(
            "s000/decimal/0.1+0.2", _S000_UNDER,
            "Decimal('0.1') + Decimal('0.2') gives Decimal('0.3'), the correct result",
            _decimal_exact_claim, "holds-tight"),
        PrivacyClaim(
            "s000/decimal/arbitrary-precision", _S000_UNDER,
            "the decimal module gives arbitrary precision, so the sensitivity analysis stays correct",
            _decimal_precision_claim, "violated"),
        PrivacyClaim(
            "s000/integer-overflow/int64-sum", _S000_UNDER + " (the Tip)",
            "integers have arbitrary size, so there is no need to worry about integer overflow "
            "(the chapter's sums are pandas int64 columns)", _overflow_claim, "violated"),
    ]
