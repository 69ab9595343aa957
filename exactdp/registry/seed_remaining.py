"""The seed statements that were still missing or only partly checked after issue 20's
first pass, as built-in claims (kind ``"privacy"``; each a
:class:`~exactdp.checkers.privacy_claims.PrivacyClaim` whose result is a
:class:`~exactdp.checkers.privacy_claims.StatementResult`, or a
:class:`~exactdp.checkers.privacy.PrivacyResult` for the group-privacy claim).

Every claim quotes its seed by document and section, computes its values with the
functions that define them, and states its witness and scope; ``docs/seed-tally.md``
lists every seed statement with the claim (or notebook cell) that shows it.

* seed 001: under ``AddRowsWithID`` a count needs a truncation (without one its
  sensitivity is the largest number of rows one id holds: unbounded); ``MaxRowsPerID(r)``
  makes it exactly ``r``, linear in ``r``;
* seed 002: "the number of edits is equivalent to two times the number of additions and
  removals" is inverted: one edit is two add/remove moves;
* seed 003: the count's bounded sensitivity is 0, not "also 1" (the notebook's own tables
  print 0); the DP definition at Hamming distance ``k`` (group privacy) holds tightly for
  the Laplace count at ``k = 2``;
* seed 004: the height mixture's variance formula, exactly; the error of the experiment
  grows with the sensitivity and falls with epsilon, and the true epsilon of each of the
  three calibrations.

The seed 000 post-processing budget and seed 002's utility guarantee are in
:mod:`exactdp.registry.seed_corrections`.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import sympy

from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = ["claims", "seed_remaining_claims"]

_S001 = ("seed 001 (Tumult, Understanding sensitivity), section 'Queries on tables using "
         "AddRowsWithID' (MaxRowsPerID)")
_S002 = "seed 002 (Hands-on DP, ch. 6), section 'Bounded vs. Unbounded Differential Privacy'"
_S003_LIM = "seed 003 (Global Sensitivity From Scratch), Limitations (the count query)"
_S003_DEF = "seed 003 (Global Sensitivity From Scratch), Background (P(M(x) = O) <= P(M(x') = O) exp(eps |x - x'|))"
_S004_MIX = "seed 004 (Sherpa.ai, The Laplace mechanism), section 2 (Example: mean height)"
_S004_EXP = "seed 004 (Sherpa.ai, The Laplace mechanism), section 4 (Experiments using different sensitivities)"

SEED003_POOL = (1, 2, 2, 2, 5, 5, 7, 8, 9, 9)
"""Seed 003's scenario (a) universe, column school_year (releases of 6 records)."""


def _d(x, digits: int = 4) -> str:
    """``[lo, hi]`` decimals around an exact real."""
    return f"[{decimal_at_most(x, digits)}, {decimal_at_least(x, digits)}]"


# --- seed 001 ------------------------------------------------------------------------------

TRUNCATION_R = (1, 2, 3, 4)
"""The ``MaxRowsPerID`` thresholds checked (each on a domain of ``r + 1`` rows per id)."""

UNTRUNCATED_B = (1, 2, 3, 4, 5)
"""The caps on rows per id for the count without truncation."""


def _id_count(rows_per_id: int, r: int | None):
    from exactdp.relational.tables import TableDomain
    from exactdp.relational.transforms import max_rows_per_id
    from exactdp.relational.worst import id_worst_case

    keys = ("k1", "k2")
    domain = TableDomain(keys=keys, ids=(1,), rows_per_id=rows_per_id)
    truncate = (lambda t: t) if r is None else (lambda t: max_rows_per_id(t, r))
    return id_worst_case(truncate, domain, keys, "l1")


def _truncation() -> StatementResult:
    untruncated = {b: _id_count(b, None) for b in UNTRUNCATED_B}
    truncated = {r: _id_count(r + 1, r) for r in TRUNCATION_R}
    grows = all(w.value == b for b, w in untruncated.items())
    linear = all(w.value == r for r, w in truncated.items())
    top = untruncated[UNTRUNCATED_B[-1]]
    one = truncated[TRUNCATION_R[-1]]
    verdict = Verdict.HOLDS_TIGHT if grows and linear else Verdict.VIOLATED
    return StatementResult(
        verdict,
        f"group-by count under AddRowsWithID: without a constraint the sensitivity equals the "
        f"number of rows one id may hold ({', '.join(f'{w.value} at {b}' for b, w in untruncated.items())} "
        f"rows per id: it grows without bound, the witness family one id adding B rows, e.g. "
        f"{top.witness}); after MaxRowsPerID(r) it is exactly r "
        f"({', '.join(f'r = {r}: {w.value}' for r, w in truncated.items())}, each on r + 1 rows "
        f"per id), linear in r with slope 1 (witness at r = {TRUNCATION_R[-1]}: {one.witness})",
        "exact worst case over every row multiset of one id (keys k1, k2), L1; the per-id "
        "decomposition of exactdp.relational.worst.id_worst_case (proof: "
        "proofs/s001-add-rows-with-id-truncation.md)",
        {"untruncated": {str(b): int(w.value) for b, w in untruncated.items()},
         "max_rows_per_id": {str(r): int(w.value) for r, w in truncated.items()}},
    )


# --- seed 002 ------------------------------------------------------------------------------

EDIT_SPACE = (0, 1, 2)
"""The values of the equal-size datasets whose distances are compared (sizes 1 to 3)."""


def _edits() -> StatementResult:
    from exactdp.spaces.metrics import ChangeDistance, SymmetricDistance

    sym, change = SymmetricDistance(), ChangeDistance()
    pairs = ratios = 0
    bad = None
    for n in (1, 2, 3):
        sets = list(combinations_with_replacement(EDIT_SPACE, n))
        for x in sets:
            for y in sets:
                if x == y:
                    continue
                pairs += 1
                s, c = sym.distance(x, y), change.distance(x, y)
                if s == 2 * c:
                    ratios += 1
                elif bad is None:
                    bad = (x, y, s, c)
    x, y = [0], [1]
    s, c = sym.distance(x, y), change.distance(x, y)
    stated = c == 2 * s  # the sentence: edits = 2 x (additions and removals)
    always = bad is None and ratios == pairs
    verdict = Verdict.HOLDS if stated else Verdict.VIOLATED
    return StatementResult(
        verdict,
        f"x = {x}, x' = {y}: one edit (change distance {c}) is one removal and one addition "
        f"(symmetric distance {s}); the sentence's 'edits = 2 x additions and removals' would "
        f"need {c} = 2 x {s}. The relation is the other way round: additions and removals = 2 x "
        f"edits, on every one of the {pairs} ordered pairs of distinct equal-size multisets "
        f"over {list(EDIT_SPACE)} of sizes 1 to 3 ({'all' if always else 'not all'} with "
        f"symmetric = 2 x change)",
        "exactdp's SymmetricDistance and ChangeDistance on every pair of distinct equal-size "
        "multisets (sizes 1..3 over {0, 1, 2}); the seed's own next sentence ('each edit "
        "constitutes one addition and one removal') and its table ('d_in must be even') agree "
        "with the correction (proof: proofs/s002-edits-vs-add-remove.md)",
        {"witness": {"x": x, "x_prime": y, "change": c, "symmetric": s},
         "pairs": pairs, "symmetric_is_twice_change": ratios},
    )


# --- seed 003 ------------------------------------------------------------------------------


def _bounded_count() -> StatementResult:
    from exactdp.checkers.sensitivity import sensitivity
    from exactdp.spaces import ChangeDistance, SubMultisets
    from exactdp.checkers.builtin import seed003_tables
    from exactdp.queries import count

    pool = SubMultisets(list(SEED003_POOL), size=6)
    bounded = sensitivity(count, pool, ChangeDistance(), 1)
    unbounded = sensitivity(count, pool, "add-remove", 1, exact_k=True, scope="release-centred")
    printed = sorted({r["value"] for r in seed003_tables()["tables"]
                      if r["query"] == "count" and r["mode"] == "bounded"})
    verdict = Verdict.HOLDS if bounded.value == 1 else Verdict.VIOLATED
    ub, bw = unbounded.witness, bounded.witness
    return StatementResult(
        verdict,
        f"counting the elements of a release of 6 of {list(SEED003_POOL)}: unbounded "
        f"sensitivity {unbounded.value} (x = {_list(ub.x)}, x' = {_list(ub.x_prime)}), bounded "
        f"{bounded.value} (a replaced record leaves the size at 6: x = {_list(bw.x)}, x' = "
        f"{_list(bw.x_prime)}, counts {bw.fx} and {bw.fx_prime}); the notebook's own bounded "
        f"count tables print {', '.join(printed)}, every k and scenario",
        f"{bounded.scope}; and the release-centred add/remove relation of the notebook "
        f"(proof: proofs/s003-bounded-count.md)",
        {"bounded": str(bounded.value), "unbounded": str(unbounded.value), "printed": printed},
    )


def _list(values) -> str:
    return "[" + ", ".join(format_exact(v) for v in values) + "]"


def _group_privacy():
    from exactdp.checkers.privacy import check_mechanism
    from exactdp.mechanisms.mechanism import make_mechanism
    from exactdp.spaces import IntegerRange, Multisets

    # the definition at Hamming distance k = 2: Laplace(1/eps) count, eps = 1, claim k * eps
    return check_mechanism(make_mechanism("laplace", scale=1), "count",
                           Multisets(IntegerRange(0, 2), sizes=(0, 3)), "add-remove", 2,
                           epsilon=2)


# --- seed 004 ------------------------------------------------------------------------------


def _mixture_variance() -> StatementResult:
    mu_m, mu_f, s_m, s_f = sympy.symbols("mu_M mu_F sigma_M sigma_F", positive=True)
    mean = (mu_m + mu_f) / 2
    second = ((s_m**2 + mu_m**2) + (s_f**2 + mu_f**2)) / 2  # E[h^2] of the equal mixture
    exact = sympy.expand(second - mean**2)
    stated = (s_m**2 + s_f**2) / 2 + (mu_m - mu_f)**2 / 4
    identity = sympy.simplify(exact - stated) == 0
    values = {mu_m: 178, mu_f: 162, s_m: 7, s_f: sympy.Rational(13, 2)}
    var = stated.subs(values)
    sigma = sympy.sqrt(var)
    return StatementResult(
        Verdict.HOLDS_TIGHT if identity else Verdict.VIOLATED,
        f"for h ~ 1/2 N(mu_M, sigma_M^2) + 1/2 N(mu_F, sigma_F^2), E h = (mu_M + mu_F)/2 and "
        f"Var h = E h^2 - (E h)^2 = (sigma_M^2 + sigma_F^2)/2 + (mu_M - mu_F)^2/4 for every "
        f"parameter (a SymPy identity: the difference simplifies to 0); at the seed's 178, 162, 7, "
        f"6.5: mean {mean.subs(values)} cm, variance {var} cm^2, sigma = {sigma} in {_d(sigma)} cm "
        f"(the sigma the seed adds in E[Delta f] + sigma)",
        "the two moments of an equal mixture of two normals, all four parameters symbolic "
        "(proof: proofs/s004-mixture-variance.md)",
        {"variance": str(var), "sigma": str(sigma)},
    )


def _error_vs_epsilon() -> StatementResult:
    from exactdp.mechanisms.typical import true_epsilon, typical_sensitivities

    typ = typical_sensitivities()
    labels = ("E[Delta f]", "E[Delta f] + sigma", "E[Delta f] + 2 sigma")
    scale = {k: typ[k] for k in labels}
    factors = {k: true_epsilon(typ[k], 1).factor for k in labels}
    increasing = all(compare(scale[b], scale[a]) > 0 for a, b in zip(labels, labels[1:]))
    falling = all(compare(factors[a], factors[b]) > 0 for a, b in zip(labels, labels[1:]))
    ok = increasing and falling
    return StatementResult(
        Verdict.HOLDS if ok else Verdict.VIOLATED,
        "the experiment's error |mean of 500 heights + Lap(b) each - their true mean| = |mean "
        "of 500 Lap(b)| is b times one fixed distribution (|mean of 500 Lap(1)|), b = Delta/"
        "epsilon: it falls as epsilon grows and grows with the sensitivity Delta, for every "
        "quantile and in expectation; the three sensitivities "
        + ", ".join(f"{k} = {_d(scale[k])}" for k in labels)
        + " cm give on heights in [0, 300] cm true epsilons "
        + ", ".join(f"{_d(factors[k])} epsilon" for k in labels)
        + " (falling: the privacy does increase with the sensitivity, as the seed says, but "
          "each is far above the nominal epsilon)",
        "the ideal Laplace mechanism applied to each of 500 records, the error of the mean; "
        "exact scaling argument and exact true epsilons (proof: "
        "proofs/s004-error-vs-epsilon.md)",
        {"scales": {k: str(v) for k, v in scale.items()},
         "true_epsilon_factors": {k: str(v) for k, v in factors.items()}},
    )


def seed_remaining_claims() -> list[PrivacyClaim]:
    """The claims of this module, in registry order."""
    return [
        PrivacyClaim(
            "s001/add-rows-with-id/truncation", _S001,
            "before aggregating under AddRowsWithID a truncation must be enforced; using "
            "MaxRowsPerID, the sensitivity increases linearly with the truncation parameter",
            _truncation, "holds-tight"),
        PrivacyClaim(
            "s002/bounded/edits-vs-add-remove", _S002,
            "in bounded differential privacy, the number of edits is equivalent to two times the "
            "number of additions and removals",
            _edits, "violated"),
        PrivacyClaim(
            "s003/limitations/count-bounded", _S003_LIM,
            "we solely count the number of elements in the array, which leads to a sensitivity of "
            "1 in unbounded and also of 1 in bounded",
            _bounded_count, "violated"),
        PrivacyClaim(
            "s003/definition/group-privacy/k=2", _S003_DEF,
            "P(M(x) = O) <= P(M(x') = O) exp(epsilon |x - x'|): neighbours at Hamming distance "
            "k = 2 are protected at 2 epsilon (the Laplace count, epsilon = 1)",
            _group_privacy, "holds-tight"),
        PrivacyClaim(
            "s004/mixture/variance", _S004_MIX,
            "the mean of the height mixture is (mu_M + mu_F)/2 and its variance is "
            "(sigma_M^2 + sigma_F^2)/2 + (mu_M - mu_F)^2/4",
            _mixture_variance, "holds-tight"),
        PrivacyClaim(
            "s004/experiments/error-vs-epsilon", _S004_EXP,
            "the error is smaller as privacy decreases (greater epsilon); for increasing values "
            "of the sensitivity, the privacy increases and thus the error grows",
            _error_vs_epsilon, "holds"),
    ]


def claims(all_k: bool = False) -> list:
    return seed_remaining_claims()
