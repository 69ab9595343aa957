"""``exactdp compose``: add up privacy spends exactly and check them against a budget.

    exactdp compose --spend 0.1x10 --budget 0.8,1e-3
    exactdp compose --method sequential --spend 0.1 --spend 0.9 --budget 1
    exactdp compose --spend 0.5,1e-6 --rho 1/8x4 --budget 1,1e-5 --rho-budget 1/2 --json
    exactdp compose --spend 0.1x100 --method advanced --delta-prime 1e-6 --budget 7,1e-6

A spend is ``EPS[,DELTA][xK]`` (``K`` identical copies); ``--rho R[xK]`` is a zCDP spend.
Numbers are exact (``0.1`` is one tenth); with ``--floats binary`` each is the float64 a
Python library holds (``0.1`` is ``0x1.999999999999ap-4``, a little more than one tenth, so
ten of them overspend a budget of 1). ``(epsilon, delta)`` spends are charged to
``--budget``, ``rho`` spends to ``--rho-budget`` (two separate accounts, as in
:class:`~exactdp.mechanisms.accounting.ledger.BudgetLedger`).

``--method optimal`` (default) composes the spends by the optimal composition theorem
(Kairouz, Oh, Viswanath 2015 for identical spends; Murtagh & Vadhan 2016 for different ones):
at a total epsilon ``E`` the tight delta is ``1 - S + S * H_E``, ``S = prod(1 - delta_i)``,
``H_E`` the hockey-stick divergence at ``E`` of the composed randomized responses with the
``epsilon_i``. Which terms count is decided exactly; the exponentials are enclosed in
intervals and refined until the comparison with the budget delta is decided (UNDECIDED,
exit 1, past the precision cap). It also encloses the smallest total epsilon at the budget
delta. Equal epsilons are grouped (``K_j`` copies); the combinations (at most
``prod(K_j + 1)``, fewer when equal totals merge) are counted before any work and refused in one line above ``--max-terms``. Numbers print as
short decimals on the safe side (``--exact``: fractions). ``10 x 0.1`` fits ``(0.8, 1e-3)``.
In JSON: ``total.delta`` is ``{at_epsilon, interval, at_most, float_at_least}`` (the
enclosure of the tight delta at the budget epsilon, ends rounded outward to 17 digits),
``total.epsilon`` is ``{at_delta, interval, at_most, float_at_least}`` (the smallest epsilon
at the budget delta; ``interval`` ``null`` when none reaches it), ``optimal`` counts the
work, ``sequential_total`` is what ``--method sequential`` gives; ``remaining`` is ``null``
(what is left of a budget is not a difference under this rule).

``--method sequential`` adds the epsilons exactly and composes the deltas by the
optimal composition theorem at ``epsilon = sum of
epsilon_i``: ``delta = 1 - prod(1 - delta_i)``, exact, never more than the sum of the
deltas (two spends of ``0.5,0.1`` need exactly ``delta = 0.19``). The same delta is exact at
a budget epsilon above the sum. A budget epsilon below the sum is an overspend of this
rule: the default ``--method optimal`` gives the tight delta there. The output names the rule (``rule:`` in text, ``rule`` and ``rule_text`` in
JSON) and shows what the sum of the deltas (basic composition) would have been.
``--method advanced``
applies the advanced composition theorem (Dwork, Rothblum, Vadhan) with the slack
``--delta-prime`` to the ``k`` spends, each taken at the largest epsilon and the largest
delta among them; its epsilon is irrational, enclosed in an interval, and compared with the
budget by refining the enclosure. ``rho`` spends always add.

Each spend's delta is a probability (at most 1); so is the composed delta. The sum of the
deltas may exceed 1 (ten copies of 0.2 add up to 2), which only basic composition would
report. Numbers beyond the largest float are refused; an epsilon total that gets there
through copies is kept exact, with ``null`` for its float. A composed delta whose exact
value would have more than 200,000 bits (a million copies of ``1e-6``) is enclosed in an
interval and compared with the budget by refining it (``exact`` is then ``null``).

Exit status: 0 everything fits; 1 something overspends (or the comparison could not be
decided, which is not a fit); 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import re
from fractions import Fraction

from exactdp._floats_option import add_floats_option, floats_note, with_floats
from exactdp.cli._options import budget_option
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms._params import nonnegative, probability, shown
from exactdp.mechanisms.accounting.composition import (
    MAX_OPTIMAL_TERMS,
    OPTIMAL_EXACT_RULE,
    OPTIMAL_RULE,
    OptimalDelta,
    advanced_composition,
    compose_zcdp,
    optimal_composition_of_copies,
    optimal_delta_of_copies,
)
from exactdp.mechanisms.accounting.ledger import BudgetExceeded, BudgetLedger, Spend
from exactdp.numeric.exact import float_reading, format_exact, show_exact, to_exact
from exactdp.numeric.intervals import exact_interval, float_at_most_of
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most, float_at_least, float_at_most

__all__ = ["register", "run", "VALUE_OPTIONS"]

VALUE_OPTIONS = ("--spend", "--rho", "--budget", "--rho-budget", "--delta-prime")
"""Options whose value is always taken as a value, even one that begins with '-' (so that
``--spend -1`` is refused as negative, not as a missing value)."""

MAX_COPIES = 10**12
_FLOAT_MAX = Fraction((2**53 - 1) * 2**971)
_COPIES = re.compile(r"\A(?P<body>.*?)\s*[xX]\s*(?P<k>\d+)\s*\Z")


_DESCRIPTION = """\
Add up privacy spends exactly and check them against a budget: (epsilon, delta)
spends by the optimal composition theorem (default; Kairouz-Oh-Viswanath,
Murtagh-Vadhan: the tight delta at the budget epsilon, certified, and the smallest
epsilon at the budget delta; 0.1x10 fits 0.8,1e-3), by sequential or by advanced
composition; rho (zCDP) spends in their own account. Sequential composition adds
the epsilons and composes the deltas by the optimal theorem at epsilon = the sum:
delta = 1 - prod(1 - delta_i), exact (two spends of 0.5,0.1 fit the budget
1,0.19 exactly); the output names the rule. Numbers print as short decimals on the
safe side (--exact for fractions). Numbers are exact: 0.1 is one tenth; with --floats binary, 0.1 is the
float64 a Python library spends (0x1.999999999999ap-4), at its exact value.

Exit status: 0 everything fits; 1 something overspends, or the comparison could
not be decided (which is not a fit); 2 bad input (one line on stderr)."""

_EPILOG = """\
examples:
  exactdp compose --spend 0.1x10 --budget 0.8,1e-3
  exactdp compose --method sequential --spend 0.1 --spend 0.5,0.1 --spend 0.4,0.1 --budget 1,0.19
  exactdp compose --spend 0.1x100 --method advanced --delta-prime 1e-6 --budget 7,1e-6
  exactdp compose --floats binary --spend 0.1x10 --budget 1"""


def register(subparsers) -> None:
    """Add the ``compose`` sub-command."""
    c = subparsers.add_parser(
        "compose", help="add up privacy spends exactly and check them against a budget",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--spend", action="append", default=[], metavar="EPS[,DELTA][xK]",
                   help=f"an (epsilon, delta) spend, repeatable; xK for K copies (0.1x100), "
                        f"K at most {MAX_COPIES:,}")
    c.add_argument("--rho", action="append", default=[], metavar="R[xK]",
                   help=f"a zCDP spend rho, repeatable; xK for K copies, K at most {MAX_COPIES:,}")
    c.add_argument("--budget", metavar="EPS[,DELTA]", help="the (epsilon, delta) budget (delta defaults to 0)")
    c.add_argument("--rho-budget", metavar="R", help="the zCDP budget rho")
    c.add_argument("--method", choices=("optimal", "sequential", "advanced"), default="optimal",
                   help="how (epsilon, delta) spends compose (default: optimal, the tight composition)")
    budget_option(c, "--max-terms", f"--method optimal: at most N combinations (at most prod(K_j + 1)) over the "
                  f"distinct epsilons (default {MAX_OPTIMAL_TERMS:,}), counted before any work",
                  default=MAX_OPTIMAL_TERMS)
    c.add_argument("--exact", action="store_true",
                   help="print exact fractions (default: short decimals rounded to the safe side)")
    c.add_argument("--delta-prime", metavar="D", help="the slack delta' of --method advanced, e.g. 1e-6")
    add_floats_option(c)
    c.add_argument("--json", action="store_true", help="a JSON object instead of text")
    c.set_defaults(run=with_floats(run))


# --- parsing -------------------------------------------------------------------------


def _copies(text: str, option: str) -> tuple[str, int]:
    m = _COPIES.match(text)
    if not m:
        return text, 1
    k = int(m.group("k"))
    if not 1 <= k <= MAX_COPIES:
        raise InvalidArgument(f"{option}={text!r} asks for {k} copies; use 1 to {MAX_COPIES:,}")
    return m.group("body"), k


def _nonnegative(text: str, name: str) -> Fraction:
    """An epsilon, delta or rho as typed: at least 0 and below the largest float."""
    x = nonnegative(text.strip(), name)
    if x > _FLOAT_MAX:
        raise InvalidArgument(
            f"{name}={shown(text.strip())} is beyond the largest float ({float(_FLOAT_MAX)!r}), "
            f"where no privacy guarantee is left to count; use a smaller number")
    return x


def _probability(text: str, name: str) -> Fraction:
    """One spend's (or the budget's) delta: a probability. Totals may exceed 1 (an overspend)."""
    _nonnegative(text, name)
    return probability(text.strip(), name)


def _delta_prime(text: str) -> Fraction:
    x = to_exact(text.strip(), "--delta-prime")
    if not 0 < x < 1:
        raise InvalidArgument(
            f"--delta-prime={shown(text.strip())} is not in (0, 1); advanced composition needs "
            f"a slack 0 < delta' < 1, such as 1e-6")
    return x


def _pair(text: str, option: str) -> tuple[Fraction, Fraction]:
    parts = text.split(",")
    if len(parts) > 2 or not parts[0].strip():
        raise InvalidArgument(f"{option}={text!r} is not 'EPS' or 'EPS,DELTA'; write e.g. {option} 0.5,1e-6")
    eps = _nonnegative(parts[0], f"{option} epsilon")
    delta = _probability(parts[1], f"{option} delta") if len(parts) == 2 else Fraction(0)
    return eps, delta


def _spends(args) -> tuple[list, list]:
    spends = []
    for text in args.spend:
        body, k = _copies(text, "--spend")
        eps, delta = _pair(body, "--spend")
        spends.append({"text": text, "epsilon": eps, "delta": delta, "count": k})
    rhos = []
    for text in args.rho:
        body, k = _copies(text, "--rho")
        rhos.append({"text": text, "rho": _nonnegative(body, "--rho"), "count": k})
    return spends, rhos


def _check_options(args, spends, rhos) -> None:
    if not spends and not rhos and args.budget is None and args.rho_budget is None:
        raise InvalidArgument("nothing to compose; give --spend EPS[,DELTA] and/or --rho R (repeatable) "
                              "with --budget EPS[,DELTA] and/or --rho-budget R")
    if spends and args.budget is None:
        raise InvalidArgument("--spend needs --budget EPS[,DELTA] to be checked against")
    if rhos and args.rho_budget is None:
        raise InvalidArgument("--rho needs --rho-budget R to be checked against (zCDP spends add up "
                              "in their own account)")
    if args.method == "advanced" and args.delta_prime is None:
        raise InvalidArgument("--method advanced needs --delta-prime D, the slack of the theorem (e.g. 1e-6)")
    if args.method != "advanced" and args.delta_prime is not None:
        raise InvalidArgument(f"--delta-prime={args.delta_prime!r} is only used by --method advanced")
    if args.method == "advanced" and not spends:
        raise InvalidArgument("--method advanced composes --spend values; none given")


# --- the run ---------------------------------------------------------------------------


def _float(value: Fraction, up: bool) -> float | None:
    """The float on the safe side of ``value``; ``None`` beyond the float range (a total of
    many copies can get there although each spend and the budget are below it)."""
    if abs(value) > _FLOAT_MAX:
        return None
    return float_at_least(value) if up else float_at_most(value)


def _number(value: Fraction, up: bool) -> dict:
    return {"exact": format_exact(value), "float_at_least" if up else "float_at_most": _float(value, up)}


def _total(entries: list, key: str) -> Fraction:
    """The exact sum of ``key`` times ``count``. Each value was checked alone (a delta is a
    probability); the total is not: a total delta above 1 is an overspend, not bad input."""
    return sum((e[key] * e["count"] for e in entries), Fraction(0))


def _first_overspend(budget: dict, entries: list, keys) -> str | None:
    """The ledger's message for the first entry that does not fit, or ``None``.

    An entry ``xK`` is charged as one record of ``K`` times its values; its delta may then
    exceed 1, which ``BudgetLedger.spend`` would refuse as a probability, so the (already
    validated) record goes in through ``BudgetLedger._record``.
    """
    ledger = BudgetLedger(**budget)
    for entry in entries:
        amounts = {k: entry[k] * entry["count"] for k in keys}
        try:
            ledger._record(Spend(len(ledger.history) + 1, entry["label"], **amounts))
        except BudgetExceeded as e:
            return str(e)
    return None


def run(args) -> int:
    _EXACT[0] = bool(getattr(args, "exact", False))
    spends, rhos = _spends(args)
    _check_options(args, spends, rhos)
    out: dict = {"method": args.method,
                 "spends": [{"epsilon": format_exact(s["epsilon"]), "delta": format_exact(s["delta"]),
                             "count": s["count"]} for s in spends],
                 "rho_spends": [{"rho": format_exact(r["rho"]), "count": r["count"]} for r in rhos],
                 "budget": {"epsilon": None, "delta": None, "rho": None},
                 "total": {"epsilon": None, "delta": None, "rho": None},
                 "remaining": {"epsilon": None, "delta": None, "rho": None},
                 "fits": True, "overspend": [], "undecided": None}
    lines: list[str] = []
    note = floats_note(args)
    if note is not None:
        out["floats"] = args.floats
        lines.append(note)
    if spends or args.budget is not None:
        if args.budget is None:
            raise InvalidArgument("--spend needs --budget EPS[,DELTA] to be checked against")
        budget_eps, budget_delta = _pair(args.budget, "--budget")
        out["budget"].update(epsilon=format_exact(budget_eps), delta=format_exact(budget_delta))
        if args.method == "optimal":
            _optimal(spends, budget_eps, budget_delta, args, out, lines)
            if args.floats == "binary":
                _decimal_reading_optimal(args, out, lines)
        elif args.method == "sequential":
            _sequential(spends, budget_eps, budget_delta, out, lines)
            if args.floats == "binary":
                _decimal_reading(args, out, lines)
        else:
            _advanced(spends, budget_eps, budget_delta, _delta_prime(args.delta_prime), out, lines)
    if rhos or args.rho_budget is not None:
        budget_rho = _nonnegative(args.rho_budget, "--rho-budget")
        out["budget"]["rho"] = format_exact(budget_rho)
        _rho(rhos, budget_rho, out, lines)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for line in lines:
            print(line)
        if out["undecided"]:
            print(f"UNDECIDED: {out['undecided']}")
        elif out["fits"]:
            print("FITS")
        else:
            for message in out["overspend"]:
                print(f"OVERSPENDS: {message}")
    return OK if out["fits"] else CLAIM_FAILED


_EXACT = [False]
"""Whether this run prints exact fractions (``--exact``); set by :func:`run`."""
_LONG = 40
"""An exact fraction longer than this many characters is shown as a short decimal on the safe
side unless ``--exact`` is given."""
_DIGITS = 6


def _dec(value: Fraction, up: bool, digits: int = _DIGITS) -> str:
    """``value`` as text: exact when ``--exact`` or when its decimal expansion is short,
    otherwise ``digits`` significant digits rounded up (``up``) or down."""
    if _EXACT[0]:
        return format_exact(value)
    d = decimal_at_least(value, 20) if up else decimal_at_most(value, 20)
    if Fraction(d) != value:
        d = decimal_at_least(value, digits) if up else decimal_at_most(value, digits)
    else:
        d = d.normalize()
    text = str(d)
    return format(d, "f") if "E+" in text and d.adjusted() < 21 else text  # 100, not 1E+2


def _jdec(value: Fraction, up: bool) -> str:
    """:func:`_dec` with the 17 significant digits of a JSON value."""
    return _dec(value, up, 17)


def _interval_text(lo: Fraction, hi: Fraction) -> str:
    return f"[{_dec(lo, False)}, {_dec(hi, True)}]"


def _optimal(spends, budget_eps, budget_delta, args, out, lines) -> None:
    """``--method optimal``: the tight composition (KOV; Murtagh-Vadhan canonical pairs)."""
    comp = optimal_composition_of_copies([(s["epsilon"], s["delta"], s["count"]) for s in spends],
                                         max_terms=args.max_terms)
    n = sum(s["count"] for s in spends)
    eps_sum, basic_delta = _total(spends, "epsilon"), _total(spends, "delta")
    out["rule"] = "optimal"
    out["rule_text"] = OPTIMAL_EXACT_RULE
    out["optimal"] = {"distinct_epsilons": len(comp.groups), "combinations": comp.terms,
                      "max_terms": args.max_terms}
    at_sum = optimal_delta_of_copies([(s["delta"], s["count"]) for s in spends])
    at_sum_hi = at_sum.exact if at_sum.exact is not None else at_sum.interval[1]
    out["sequential_total"] = {"epsilon": _jdec(eps_sum, True), "delta": _jdec(at_sum_hi, True),
                               "delta_float_at_least": at_sum.float_at_least()}
    lo, hi = comp.delta_at(budget_eps)
    try:
        fits = comp.delta_at_most(budget_eps, budget_delta)
    except Undecided as e:
        fits = None
        out["fits"] = False
        out["undecided"] = (f"the optimal delta at epsilon {show_exact(budget_eps)} against the budget delta "
                            f"{show_exact(budget_delta)} was not decided within the precision cap ({e})")
    if fits is not None:  # the enclosure printed is the one that decided
        lo, hi = _deciding_enclosure(comp, budget_eps, budget_delta, lo, hi)
    out["total"]["delta"] = {"at_epsilon": _jdec(budget_eps, True), "interval": [_jdec(lo, False), _jdec(hi, True)],
                             "at_most": _jdec(hi, True), "float_at_least": float_at_least(hi)}
    try:
        eps_iv = comp.epsilon_at(budget_delta, rel_width=Fraction(1, 10**9))
    except Undecided:
        eps_iv = "undecided"
    if eps_iv is None:
        eps_text = (f"none: the deltas alone compose to 1 - prod(1 - delta_i) = "
                    f"{_dec(comp.survival.interval[0], False)} > {_dec(budget_delta, True, 17)}")
        out["total"]["epsilon"] = {"at_delta": _jdec(budget_delta, True), "interval": None, "at_most": None}
    elif eps_iv == "undecided":
        eps_text = "not enclosed within the precision cap"
        out["total"]["epsilon"] = {"at_delta": _jdec(budget_delta, True), "interval": None, "at_most": None}
    else:
        elo, ehi = eps_iv
        eps_text = (_dec(elo, True, 17) if elo == ehi else
                    f"<= {_dec(ehi, True)} (enclosure {_interval_text(elo, ehi)})")
        out["total"]["epsilon"] = {"at_delta": _jdec(budget_delta, True),
                                   "interval": [_jdec(elo, False), _jdec(ehi, True)],
                                   "at_most": _jdec(ehi, True), "float_at_least": float_at_least(ehi)}
    if fits is False:
        out["fits"] = False
        out["overspend"].append(
            f"the optimal composition of the {n:,} spends at epsilon {_dec(budget_eps, True, 17)} needs delta "
            f">= {_dec(lo, False, 17)} > budget delta {_dec(budget_delta, True, 17)}"
            + (f" (at delta {_dec(budget_delta, True, 17)} it needs epsilon >= {_dec(eps_iv[0], False, 17)})"
               if isinstance(eps_iv, tuple) else "")
            + "; spend less (smaller parameters, i.e. more noise) or start from a larger budget")
    delta_line = (_dec(lo, True) if lo == hi else f"<= {_dec(hi, True)} (enclosure {_interval_text(lo, hi)})")
    at_sum_text = _dec(at_sum_hi, True)
    lines += [
        (f"optimal composition of {n:,} (epsilon, delta) spend{'s' if n != 1 else ''} "
         f"({len(comp.groups)} distinct positive epsilon{'s' if len(comp.groups) != 1 else ''}, "
         f"{comp.terms:,} combination{'s' if comp.terms != 1 else ''})"),
        f"  rule:      {OPTIMAL_EXACT_RULE}",
        f"  budget:    epsilon = {_dec(budget_eps, True, 17)}, delta = {_dec(budget_delta, True, 17)}",
        f"  delta at the budget epsilon {_dec(budget_eps, True, 17)}: {delta_line}",
        f"  smallest epsilon at the budget delta {_dec(budget_delta, True, 17)}: {eps_text}",
        (f"  (--method sequential would give epsilon = {_dec(eps_sum, True, 17)}, delta = "
         f"{at_sum_text}; "
         f"the sum of the deltas is {_dec(basic_delta, True)})"),
    ]


def _decimal_reading_optimal(args, out, lines) -> None:
    """Under ``--floats binary``: the optimal verdict the decimal reading gives, when it differs."""
    with float_reading("decimal"):
        spends, _ = _spends(args)
        budget_eps, budget_delta = _pair(args.budget, "--budget")
    comp = optimal_composition_of_copies([(s["epsilon"], s["delta"], s["count"]) for s in spends],
                                         max_terms=args.max_terms)
    try:
        fits = comp.delta_at_most(budget_eps, budget_delta)
    except Undecided:
        return
    out["decimal_reading"] = {"epsilon": _jdec(budget_eps, True), "fits": fits}
    if fits != (not out["overspend"]):
        lines.append(f"  read as decimals (--floats decimal): the spends {'fit' if fits else 'overspend'} "
                     f"the budget ({_dec(budget_eps, True, 17)}, {_dec(budget_delta, True, 17)})")


def _deciding_enclosure(comp, budget_eps, budget_delta, lo, hi):
    """The 64-bit enclosure, or a finer one when it straddles the budget delta (the one that
    decided the comparison)."""
    prec = 64
    while lo <= budget_delta < hi and prec < 3392:
        prec *= 2
        lo, hi = comp.delta_at(budget_eps, prec=prec)
    return lo, hi


def _delta_text(d: OptimalDelta, plain: bool = False) -> str:
    """A composed delta: exact (``19/100``, with its float unless ``plain``), or its
    enclosure when too large to write."""
    if d.exact is not None:
        return shown(d.exact) if plain else _show(d.exact, True)
    lo, hi = d.interval
    return (f"[{decimal_at_most(lo, 15)}, {decimal_at_least(hi, 15)}] (an enclosure: the exact value "
            f"is too large to write)")


def _delta_json(d: OptimalDelta) -> dict:
    if d.exact is not None:
        return _number(d.exact, True)
    lo, hi = d.interval
    return {"exact": None, "interval": [format_exact(lo), format_exact(hi)], "float_at_least": d.float_at_least()}


def _left_delta(budget: Fraction, spent: OptimalDelta) -> Fraction | None:
    """The largest delta one more spend may take: ``(budget - spent)/(1 - spent)`` (negative
    when overspent); ``None`` when ``spent`` is not exact."""
    t = spent.exact
    if t is None:
        return None
    if t == 1:
        return Fraction(1) if budget == 1 else budget - 1
    return (budget - t) / (1 - t)


def _first_overspend_sequential(spends, budget_eps, budget_delta) -> str | None:
    """The message for the first ``--spend`` (in order) after which the spends do not fit,
    or ``None``: epsilons add up, deltas compose as ``1 - prod(1 - delta_i)``."""
    eps_spent, terms = Fraction(0), []
    delta_spent = optimal_delta_of_copies([])
    for i, s in enumerate(spends, 1):
        k, eps, d = s["count"], s["epsilon"], s["delta"]
        eps_new = eps_spent + k * eps
        delta_new = optimal_delta_of_copies(terms + [(d, k)])
        reasons = []
        if eps_new > budget_eps:
            reasons.append(f"epsilon: spent {shown(eps_spent)} + {shown(k * eps)} = {shown(eps_new)} > "
                           f"budget {shown(budget_eps)}")
        try:
            delta_over = not delta_new.at_most(budget_delta)
        except Undecided:
            delta_over = False
        if delta_over:
            power = "" if k == 1 else f"^{k}"
            before = "" if delta_spent.exact == 0 else f"(1 - {_delta_text(delta_spent, True)})"
            reasons.append(f"delta: 1 - {before}(1 - {shown(d)}){power} = {_delta_text(delta_new, True)} > "
                           f"budget {shown(budget_delta)}")
        if reasons:
            what = (f"epsilon={shown(eps)}, delta={shown(d)}" if k == 1
                    else f"{k:,} copies of epsilon={shown(eps)}, delta={shown(d)}")
            left_delta = _left_delta(budget_delta, delta_spent)
            left = (f"epsilon={shown(budget_eps - eps_spent)}, delta="
                    + (shown(left_delta) if left_delta is not None else "(not exact)"))
            return (f"spend #{i} {s['label']!r} ({what}) would exceed the budget: {'; '.join(reasons)}. "
                    f"Left: {left}. Spend at most what is left (smaller parameters, i.e. more noise), "
                    f"or start from a larger budget")
        eps_spent, delta_spent = eps_new, delta_new
        terms.append((d, k))
    return None


def _sequential(spends, budget_eps, budget_delta, out, lines) -> None:
    eps, basic_delta = _total(spends, "epsilon"), _total(spends, "delta")
    delta = optimal_delta_of_copies([(s["delta"], s["count"]) for s in spends])
    left_eps = budget_eps - eps
    left_delta = _left_delta(budget_delta, delta)
    out["rule"] = "optimal-at-sum"
    out["rule_text"] = OPTIMAL_RULE
    out["total"].update(epsilon=_number(eps, True), delta=_delta_json(delta))
    out["basic_total"] = {"epsilon": _number(eps, True), "delta": _number(basic_delta, True)}
    try:
        delta_fits = delta.at_most(budget_delta)
    except Undecided as e:
        out["fits"] = False
        out["undecided"] = f"composed delta vs budget {show_exact(budget_delta)}: {e}"
        delta_fits = None
    if left_delta is None:  # a delta enclosed, not exact: what is left only as a float, when it fits
        fn = delta.enclosure()
        left_float = (float_at_most_of(lambda iv: (exact_interval(budget_delta) - fn(iv)) / (1 - fn(iv)))
                      if delta_fits else None)
        out["remaining"].update(epsilon=_number(left_eps, False),
                                delta={"exact": None, "float_at_most": left_float})
    else:
        out["remaining"].update(epsilon=_number(left_eps, False), delta=_number(left_delta, False))
    for s in spends:
        s["label"] = f"--spend {s['text']}"
    message = _first_overspend_sequential(spends, budget_eps, budget_delta)
    if message is not None:
        out["fits"] = False
        out["overspend"].append(message)
    n = sum(s["count"] for s in spends)
    if left_delta is not None:
        left_delta_text = _show(left_delta, False)
    elif delta_fits:
        left_delta_text = f">= {out['remaining']['delta']['float_at_most']!r}"
    else:
        left_delta_text = "OVERSPENT" if delta_fits is False else "?"
    lines += [
        f"sequential composition of {n} (epsilon, delta) spend{'s' if n != 1 else ''}",
        f"  rule:      {OPTIMAL_RULE}",
        f"  total:     epsilon = {_show(eps, True)}, delta = {_delta_text(delta)}",
        f"  budget:    epsilon = {format_exact(budget_eps)}, delta = {format_exact(budget_delta)}",
        f"  remaining: epsilon = {_show(left_eps, False)}, delta = {left_delta_text}",
    ]
    if delta.exact is None or basic_delta != delta.exact:
        lines.append(f"  (basic composition, the sum of the deltas, would give delta = {_show(basic_delta, True)})")
    if left_eps > 0 and spends:
        out["rule_note"] = (f"budget epsilon {format_exact(budget_eps)} > sum {format_exact(eps)}: the "
                            f"composed delta is exact there too (the optimal theorem's delta at every "
                            f"epsilon >= the sum)")
        lines.append(f"  (the budget epsilon is above the sum of the epsilons: the composed delta is the "
                     f"optimal theorem's at every epsilon >= {format_exact(eps)}, not smaller there)")
    excess = []
    if left_eps < 0:
        excess.append(f"epsilon by {show_exact(-left_eps)}" + (f" (~{float(-left_eps):.3g})" if -left_eps <= _FLOAT_MAX else ""))
    if delta_fits is False and delta.exact is not None:
        over = delta.exact - budget_delta
        excess.append(f"delta by {show_exact(over)} (~{float(over):.3g})")
    elif delta_fits is False:
        excess.append("delta")
    if excess:
        out["excess"] = {"epsilon": format_exact(max(-left_eps, Fraction(0))),
                         "delta": (format_exact(max(delta.exact - budget_delta, Fraction(0)))
                                   if delta.exact is not None else None)}
        lines.append(f"  excess:    the spends exceed the budget: {', '.join(excess)}")
    if left_eps < 0 and budget_delta > 0:  # advanced composition needs a delta' > 0 in the budget
        lines.append("  (a budget epsilon below the sum of the epsilons: the optimal theorem there is "
                     "#P-hard in general; --method advanced may fit)")


def _decimal_reading(args, out, lines) -> None:
    """Under ``--floats binary``: the verdict the decimal reading gives, when it differs
    (ten spends of ``0.1`` fit a budget of 1 as decimals, and overspend it as floats)."""
    with float_reading("decimal"):
        spends, _ = _spends(args)
        budget_eps, budget_delta = _pair(args.budget, "--budget")
    eps = _total(spends, "epsilon")
    delta = optimal_delta_of_copies([(s["delta"], s["count"]) for s in spends])
    try:
        fits = eps <= budget_eps and delta.at_most(budget_delta)
    except Undecided:
        return
    shown_delta = format_exact(delta.exact) if delta.exact is not None else None
    out["decimal_reading"] = {"epsilon": format_exact(eps), "delta": shown_delta, "fits": fits}
    if fits != (not out["overspend"]):
        lines.append(f"  read as decimals (--floats decimal): epsilon = {format_exact(eps)}, "
                     f"delta = {_delta_text(delta)}, which {'fits' if fits else 'overspends'}")


def _advanced(spends, budget_eps, budget_delta, delta_prime, out, lines) -> None:
    k = sum(s["count"] for s in spends)
    eps_each = max(s["epsilon"] for s in spends)
    delta_each = max(s["delta"] for s in spends)
    try:
        r = advanced_composition(eps_each, delta_each, k, delta_prime)
    except InvalidArgument:  # the inputs are checked: only an epsilon beyond the float range is left
        raise InvalidArgument(
            f"--method advanced: epsilon {show_exact(eps_each)} composed k = {k} times gives an epsilon beyond "
            f"the largest float (e^epsilon is too large), no meaningful guarantee; use --method "
            f"sequential (total epsilon {show_exact(_total(spends, 'epsilon'))})") from None
    d = r.to_dict()
    out["rule"] = "advanced"
    out["rule_text"] = ("advanced composition (Dwork-Rothblum-Vadhan), each spend at the largest epsilon "
                        "and delta among them")
    out["advanced"] = {key: d[key] for key in ("k", "epsilon_each", "delta_each", "delta_prime")}
    basic_eps, basic_delta = _total(spends, "epsilon"), _total(spends, "delta")
    out["sequential_total"] = {"epsilon": _number(basic_eps, True), "delta": _number(basic_delta, True)}
    out["total"].update(epsilon=d["epsilon"], delta=_number(r.delta, True))
    fn = r.enclosure
    left_eps_float = float_at_most_of(lambda iv: exact_interval(budget_eps) - fn(iv))
    out["remaining"].update(
        epsilon={"exact": f"{format_exact(budget_eps)} - ({r.epsilon_expr})", "float_at_most": left_eps_float},
        delta=_number(budget_delta - r.delta, False))
    try:
        eps_fits = r.epsilon_at_most(budget_eps)
    except Undecided as e:
        out["fits"] = False
        out["undecided"] = f"total epsilon vs budget {show_exact(budget_eps)}: {e}"
        eps_fits = True  # not an overspend; reported as undecided
    if not eps_fits:
        out["fits"] = False
        out["overspend"].append(
            f"advanced composition gives epsilon > {show_exact(budget_eps)} = the budget "
            f"(epsilon >= {float_at_most_of(fn)!r}); use fewer or smaller spends, or a larger budget")
    if r.delta > budget_delta:
        out["fits"] = False
        out["overspend"].append(
            f"delta: k*delta + delta' = {show_exact(r.delta)} > budget {show_exact(budget_delta)}; "
            f"use a smaller --delta-prime or smaller deltas, or a larger budget")
    smaller = ""
    if basic_eps <= Fraction(d["epsilon"]["interval"][0]) and basic_delta <= r.delta:
        smaller = ": no worse here, try --method sequential"
    lines += [
        (f"advanced composition (Dwork-Rothblum-Vadhan) of k = {k} spends, each at most "
        f"(epsilon {format_exact(eps_each)}, delta {format_exact(delta_each)}), delta' = {format_exact(delta_prime)}"),
        (f"  total:     epsilon = {r.epsilon_expr} <= {r.epsilon_float!r}, "
        f"delta = {_show(r.delta, True)}"),
        f"  budget:    epsilon = {format_exact(budget_eps)}, delta = {format_exact(budget_delta)}",
        (f"  remaining: epsilon >= {left_eps_float!r}{' OVERSPENT' if not eps_fits else ''}, "
        f"delta = {_show(budget_delta - r.delta, False)}"),
        (f"  (sequential composition would give epsilon = {format_exact(basic_eps)}, "
        f"delta = {format_exact(basic_delta)}{smaller})"),
    ]


def _rho(rhos, budget_rho, out, lines) -> None:
    total = compose_zcdp([r["rho"] * r["count"] for r in rhos])
    out["total"]["rho"] = _number(total, True)
    out["remaining"]["rho"] = _number(budget_rho - total, False)
    for r in rhos:
        r["label"] = f"--rho {r['text']}"
    message = _first_overspend({"rho": budget_rho}, rhos, ("rho",))
    if message is not None:
        out["fits"] = False
        out["overspend"].append(message)
    n = sum(r["count"] for r in rhos)
    lines += [
        f"zCDP composition of {n} rho spend{'s' if n != 1 else ''}",
        f"  total:     rho = {_show(total, True)}",
        f"  budget:    rho = {format_exact(budget_rho)}",
        f"  remaining: rho = {_show(budget_rho - total, False)}",
    ]


def _show(value: Fraction, up: bool) -> str:
    """``1/3 (<= 0.33333333333333337)``: the exact value and its float on the safe side."""
    exact = format_exact(value)
    if not _EXACT[0] and value.denominator != 1 and len(exact) > _LONG:  # a short safe decimal instead
        return (f"{'<=' if up else '>='} {_dec(value, up)} (a fraction of {len(exact):,} characters; "
                f"--exact prints it)" + (" OVERSPENT" if value < 0 else ""))
    f = _float(value, up)
    if f is None:
        note = " (beyond the largest float)"
    else:
        note = "" if Fraction(f) == value else f" ({'<=' if up else '>='} {f!r})"
    return exact + note + (" OVERSPENT" if value < 0 else "")
