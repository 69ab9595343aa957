"""``exactdp calibrate``: noise parameters that are exact, with the float that is safe to use.

    exactdp calibrate laplace --epsilon 0.1 --sensitivity 3
    exactdp calibrate gaussian --epsilon 0.5 --delta 1e-5
    exactdp calibrate gaussian-analytic --epsilon 0.5 --delta 1e-5 --json
    exactdp calibrate zcdp-to-approx --rho 0.5 --delta 1e-6 [--method cks|bun-steinke]

Numbers are exact (``0.1`` is one tenth; with ``--floats binary`` the float64 Python
stores, at its exact value). ``laplace`` gives the scale ``b = Δ/ε``;
``gaussian`` the classic σ (ε < 1 only); ``gaussian-analytic`` the smallest float σ
whose δ is certified ≤ the target (Balle & Wang 2018); ``zcdp-to-approx`` the ε of
ρ-zCDP at δ. Every float printed is rounded toward the safe side (never below the exact
value). The JSON object has ``mechanism``, ``scale`` (``epsilon`` for zcdp-to-approx:
the safe float as its ``repr``), ``exact`` (an exact string, or ``[lo, hi]`` for an
enclosure), the inputs as given and, where they apply, ``method``, ``alpha`` and
``smallest``, and ``floats`` under ``--floats binary``.

Exit status: 0 done; 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from exactdp._floats_option import add_floats_option, floats_note, with_floats
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.calibrate import calibrate_dp_sgd
from exactdp.mechanisms.calibration._calibration import Calibration
from exactdp.numeric.exact import show_exact
from exactdp.mechanisms.calibration import gaussian, laplace
from exactdp.mechanisms.accounting import zcdp

__all__ = ["register", "run"]

MECHANISMS = ("laplace", "gaussian", "gaussian-analytic", "zcdp-to-approx", "dp-sgd")

_USES = {
    "laplace": {"epsilon", "sensitivity"},
    "gaussian": {"epsilon", "delta", "sensitivity"},
    "gaussian-analytic": {"epsilon", "delta", "sensitivity"},
    "zcdp-to-approx": {"rho", "delta", "method"},
    "dp-sgd": {"epsilon", "delta", "rate", "steps", "sigma"},
}
_NEEDS = {
    "laplace": ("epsilon",),
    "gaussian": ("epsilon", "delta"),
    "gaussian-analytic": ("epsilon", "delta"),
    "zcdp-to-approx": ("rho", "delta"),
    "dp-sgd": ("epsilon", "delta", "rate"),
}


def register(subparsers) -> None:
    """Add the ``calibrate`` sub-command to the ``exactdp`` parser."""
    p = subparsers.add_parser(
        "calibrate",
        help="exact noise scale / sigma / epsilon, with the safe float",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("mechanism", choices=MECHANISMS,
                   help="laplace (scale b), gaussian (classic sigma, epsilon < 1), gaussian-analytic "
                        "(smallest certified sigma, any epsilon), zcdp-to-approx (epsilon of rho-zCDP), "
                        "dp-sgd (the noise multiplier, or the steps, from the certified accountant)")
    p.add_argument("--epsilon", help="privacy parameter epsilon (exact, e.g. 0.5 or 1/2)")
    p.add_argument("--delta", help="privacy parameter delta (exact, e.g. 1e-5)")
    p.add_argument("--sensitivity", help="L1 (laplace) or L2 (gaussian) sensitivity; default 1")
    p.add_argument("--rho", help="zCDP parameter rho (zcdp-to-approx)")
    p.add_argument("--rate", help="dp-sgd: the Poisson sampling rate q, in (0, 1]")
    p.add_argument("--steps", help="dp-sgd: the number of steps (solve for sigma)")
    p.add_argument("--sigma", help="dp-sgd: the noise multiplier (solve for the steps)")
    p.add_argument("--method", choices=("cks", "bun-steinke"),
                   help="zcdp-to-approx conversion: cks (Canonne-Kamath-Steinke 2020, default) or bun-steinke")
    add_floats_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=with_floats(run))


_DESCRIPTION = """\
Calibrate a mechanism exactly: the exact noise scale, sigma or epsilon (a number, a
formula or an enclosure), and the float that is safe to use, rounded toward the safe
side (never below the exact value). Numbers are exact: 0.1 is one tenth (with
--floats binary, the float64 Python stores for 0.1, at its exact value).

dp-sgd: the noise multiplier sigma whose CERTIFIED epsilon (Poisson-subsampled Gaussian,
add/remove neighbours, the accountant of `exactdp account`) is at most --epsilon after --steps
steps, within 1% of the smallest (0.99 sigma is certified above the target); or, with
--sigma, the largest number of steps within the target (one more is certified above it).

Exit status: 0 done; 1 dp-sgd could not certify its answer; 2 bad input (one line on stderr)."""

_EPILOG = """\
examples:
  exactdp calibrate laplace --epsilon 0.1 --sensitivity 3
  exactdp calibrate gaussian-analytic --epsilon 0.5 --delta 1e-5 --json
  exactdp calibrate zcdp-to-approx --rho 0.5 --delta 1e-6 --method bun-steinke
  exactdp calibrate dp-sgd --epsilon 1 --delta 1e-5 --rate 0.1 --steps 10"""


def _check_options(args) -> None:
    uses = _USES[args.mechanism]
    for option in ("epsilon", "delta", "sensitivity", "rho", "method", "rate", "steps", "sigma"):
        if getattr(args, option) is not None and option not in uses:
            raise InvalidArgument(
                f"--{option}={getattr(args, option)!r} does not apply to {args.mechanism}; "
                f"it takes {', '.join('--' + o for o in sorted(uses))}"
            )
    for option in _NEEDS[args.mechanism]:
        if getattr(args, option) is None:
            raise InvalidArgument(
                f"{args.mechanism} needs --{option}; e.g. exactdp calibrate {args.mechanism} "
                + " ".join(f"--{o} {_EXAMPLE[o]}" for o in _NEEDS[args.mechanism])
            )


_EXAMPLE = {"epsilon": "0.5", "delta": "1e-5", "rho": "0.5", "rate": "0.01"}


def _calibrate(args) -> Calibration:
    sens = args.sensitivity if args.sensitivity is not None else 1
    if args.mechanism == "laplace":
        return laplace.laplace_scale(args.epsilon, sens)
    if args.mechanism == "gaussian":
        return gaussian.classic_sigma(args.epsilon, args.delta, sens)
    if args.mechanism == "gaussian-analytic":
        return gaussian.analytic_sigma(args.epsilon, args.delta, sens)
    return zcdp.epsilon_of_rho(args.rho, args.delta, method=args.method or "cks")


def _payload(args, result: Calibration) -> dict:
    key = "epsilon" if args.mechanism == "zcdp-to-approx" else "scale"
    out = {"mechanism": args.mechanism, key: repr(result.safe_float), "exact": result.exact_text()}
    for option in ("epsilon", "delta", "sensitivity", "rho"):
        if option in _USES[args.mechanism] and option != key:
            value = getattr(args, option)
            out[option] = value if value is not None else "1"  # only sensitivity defaults
    if args.mechanism == "zcdp-to-approx":
        out["method"] = result.extra["method"]
        if "alpha" in result.extra:
            out["alpha"] = result.to_dict()["extra"]["alpha"]
    if args.mechanism == "gaussian-analytic":
        out["smallest"] = result.extra["smallest"]
    if floats_note(args) is not None:
        out["floats"] = args.floats
    return out


_FLOAT_MAX = Fraction(sys.float_info.max)

_TITLE = {
    "laplace": "Laplace scale b = sensitivity/epsilon",
    "gaussian": "classic Gaussian sigma = sensitivity*sqrt(2 ln(1.25/delta))/epsilon",
    "gaussian-analytic": "analytic Gaussian sigma (Balle & Wang 2018)",
    "zcdp-to-approx": "epsilon of rho-zCDP at delta",
}


def _text(args, result: Calibration, payload: dict) -> str:
    given = ", ".join(f"{k}={payload[k]}" for k in ("epsilon", "delta", "sensitivity", "rho")
                      if k in payload and not (k == "epsilon" and args.mechanism == "zcdp-to-approx"))
    key = "epsilon" if args.mechanism == "zcdp-to-approx" else "scale"
    lines = [f"{args.mechanism}: {_TITLE[args.mechanism]} ({given})"]
    exact = result.exact_text()
    if isinstance(exact, list):
        lines.append(f"  exact      in {result.approx_text(21)} (enclosure)")
    else:
        lines.append(f"  exact      {exact}" + ("" if "/" not in exact and exact.isdigit() else
                                                   f" = {result.approx_text(21)}"))
    note = "smallest float >= the exact value"
    if args.mechanism == "gaussian-analytic":
        note = (f"smallest float whose delta is certified <= {args.delta}" if result.extra["smallest"]
                else f"a float whose delta is certified <= {args.delta} (at most one float above the smallest)")
    elif args.mechanism == "zcdp-to-approx" and "alpha" in result.extra:
        alpha = result.extra["alpha"]
        if alpha > _FLOAT_MAX:  # rho of 1e-700 puts alpha beyond every float: its digits
            shown = show_exact(alpha)
        else:
            shown = (f"{float(alpha)!r}" if float(alpha) != 1
                     else f"1 + {float(alpha - 1):.6g}")  # alpha - 1 below half an ulp of 1
        note = f"CKS bound at alpha={shown}, rounded up"
    elif args.mechanism == "zcdp-to-approx":
        note = "Bun-Steinke bound, rounded up"
    lines.append(f"  safe float {payload[key]}  ({note})")
    if result.extra.get("negative_at_alpha"):  # 0.0 is exact here, not an understated epsilon
        lines.append("  note       the CKS bound at this alpha is negative, and (epsilon, delta)-DP with "
                     "epsilon < 0 implies (0, delta)-DP: epsilon = 0 holds exactly (not rounded down)")
    if floats_note(args) is not None:
        lines.append(f"  {floats_note(args)}")
    return "\n".join(lines)


def run(args) -> int:
    _check_options(args)
    if args.mechanism == "dp-sgd":
        found = calibrate_dp_sgd(args.epsilon, args.delta, args.rate, steps=args.steps, sigma=args.sigma)
        print(json.dumps(found.to_dict()) if args.json else str(found))
        return OK if found.certified else CLAIM_FAILED
    result = _calibrate(args)
    payload = _payload(args, result)
    if args.json:
        print(json.dumps(payload))
    else:
        print(_text(args, result, payload))
    return OK
