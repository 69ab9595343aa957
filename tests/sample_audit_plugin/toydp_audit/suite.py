"""exactdp's audit suite for toydp (``exactdp audit toydp``).

A plug-in suite module has the interface of exactdp's built-in suites:

* ``DISTRIBUTION``: the audited library's name on PyPI (its installed version is read
  from it);
* ``audits()``: the list of :class:`~exactdp.audits.Audit`, built without importing the
  library (its checks import it through the adapter);
* ``CHECKED_ON``: the versions the suite was checked on (another installed version is
  named in the report); ``SUPPORTED``: the range it applies to (another version is refused
  unless ``--any-version``); ``INSTALL``: how to install the library when it is missing.

Each check runs toydp's own code, reads its floats exactly, computes the truth with exact
rationals and returns a :class:`~exactdp.audits.Finding`. A violation carries its witness
and is replayed through toydp (``confirmed`` only when toydp's own output moves by more
than it claims); a hold says what it rests on (here: toydp's own outputs on a finite grid,
``bit-exact-grid``, which exactdp reports as ``holds-on-grid``).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from exactdp.audits import Audit, Finding, Replay
from exactdp.checkers.results import Evidence, Verdict

DISTRIBUTION = "toydp"
CHECKED_ON = ("0.1.0",)
SUPPORTED = ">=0.1,<0.2"
INSTALL = "pip install toydp"

_SOURCE = "toydp 0.1.0: toydp/__init__.py"
_GRID = (0.0, 0.5, 1.0, 2.0**-52, 3 * 2.0**-52)  # values near the float grid of 1
_BOUNDS = (0.0, 1.0)


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _insertions(max_len: int):
    """Every sequence x over the grid of length < max_len, with every x' that adds one
    record at any position (order matters to a float sum)."""
    for n in range(max_len):
        for x in itertools.product(_GRID, repeat=n):
            for i in range(n + 1):
                for v in _GRID:
                    yield list(x), list(x[:i]) + [v] + list(x[i:])


def _check_count() -> Finding:
    from toydp_audit import adapter

    claim = adapter.count_claim()
    worst = max(abs(adapter.count(xp) - adapter.count(x)) for x, xp in _insertions(3))
    verdict = Verdict.HOLDS_TIGHT if worst == claim else (Verdict.HOLDS if worst < claim else Verdict.VIOLATED)
    return Finding(claim=_text(claim), truth=_text(worst), verdict=verdict, evidence=Evidence.BIT_EXACT_GRID,
                   scope=f"toydp's own counts of every sequence of 0..2 values over {list(_GRID)} and every "
                         "sequence with one record added")


def _check_sum() -> Finding:
    from toydp_audit import adapter

    lower, upper = _BOUNDS
    claim = adapter.sum_claim(lower, upper)
    best = None
    for x, xp in _insertions(3):
        fx, fxp = adapter.bounded_sum(x, lower, upper), adapter.bounded_sum(xp, lower, upper)
        if best is None or abs(fxp - fx) > best[0]:
            best = (abs(fxp - fx), x, xp, fx, fxp)
    move, x, xp, fx, fxp = best
    scope = (f"every sequence of 0..2 values over {list(_GRID)} with one record added at any position, "
             f"bounds [{lower}, {upper}]; toydp's own sums")
    if move <= claim:
        return Finding(claim=_text(claim), truth=f">= {_text(move)}", verdict=Verdict.HOLDS,
                       evidence=None, scope=scope,
                       note="a grid cannot show that the claim holds for every dataset")
    witness = {"x": [float.hex(v) for v in x], "x_prime": [float.hex(v) for v in xp],
               "fx": _text(fx), "fx_prime": _text(fxp)}
    # the replay: toydp's own sum, called again on the witness, moves by more than it claims
    again = abs(adapter.bounded_sum(xp, lower, upper) - adapter.bounded_sum(x, lower, upper))
    replay = Replay.CONFIRMED if again > claim else Replay.MODEL_MISMATCH
    return Finding(claim=_text(claim), truth=f">= {_text(move)}", verdict=Verdict.VIOLATED, witness=witness,
                   replay=replay, evidence=Evidence.BIT_EXACT, scope=scope,
                   note="each float addition rounds: adding one record moves the rounding of the rest")


_SETTINGS = tuple((s, e) for s in (1.0, 2.0, 0.1) for e in (0.1, 0.5, 1.0, 3.0, 10.0))


def _check_scale() -> Finding:
    from toydp_audit import adapter

    worst = None  # the setting whose true epsilon, sensitivity / scale, exceeds epsilon the most
    for s, e in _SETTINGS:
        scale = adapter.laplace_scale(s, e)
        true_epsilon = Fraction(s) / scale
        if worst is None or true_epsilon / Fraction(e) > worst[0]:
            worst = (true_epsilon / Fraction(e), s, e, scale, true_epsilon)
    ratio, s, e, scale, true_epsilon = worst
    scope = f"{len(_SETTINGS)} (sensitivity, epsilon) settings: sensitivity in {{1, 2, 0.1}}, epsilon in {{0.1, 0.5, 1, 3, 10}}"
    if ratio <= 1:
        return Finding(claim="epsilon", truth="sensitivity/scale <= epsilon in every setting",
                       verdict=Verdict.HOLDS, evidence=Evidence.BIT_EXACT_GRID, scope=scope)
    again = adapter.laplace_scale(s, e)  # the replay: toydp's scale, computed again
    replay = Replay.CONFIRMED if Fraction(s) / again > Fraction(e) else Replay.MODEL_MISMATCH
    witness = {"sensitivity": s, "epsilon": e, "scale": float.hex(float(scale)),
               "true_epsilon": _text(true_epsilon)}
    return Finding(claim=_text(Fraction(e)), truth=f"{_text(true_epsilon)} (sensitivity/scale)",
                   verdict=Verdict.VIOLATED, witness=witness, replay=replay, evidence=Evidence.BIT_EXACT,
                   scope=scope, note="sensitivity / epsilon rounded to nearest can round down: the noise is "
                                     "slightly too small and the true epsilon slightly above the claim")


def audits() -> list[Audit]:
    return [
        Audit("toydp/count/sensitivity", "toydp", "count", "sensitivity 1 under add/remove", _check_count,
              source=_SOURCE),
        Audit("toydp/bounded_sum/float-rounding", "toydp", "bounded_sum",
              "sensitivity max(|lower|, |upper|) under add/remove", _check_sum, source=_SOURCE),
        Audit("toydp/laplace/scale", "toydp", "laplace_scale", "scale sensitivity/epsilon gives epsilon-DP",
              _check_scale, source=_SOURCE),
    ]
