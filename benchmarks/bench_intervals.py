"""exactdp's interval enclosures of erf, erfc, erfcx, log1p, lgamma (and mpmath's exp, log)
against FLINT's Arb (python-flint), side by side in one run (issue 17, part 2).

Three columns per case, all on the same argument interval at the same working precision:

* ``legacy``: the hand-written enclosures of ``exactdp/numeric/intervals.py`` as of commit
  ``LEGACY_COMMIT`` (series and Laplace's continued fraction with rigorous truncation
  bounds, Stirling's series for lgamma, mpmath's own ``iv.exp``/``iv.log``), loaded from git;
* ``arb``: python-flint's ``arb.erf / erfc / exp / log / log1p / lgamma`` on the exact point
  ball at ``prec + 16`` bits (erfc with ``2 log2|x|`` more: its condition number is 2x²;
  erfcx = ``e^(x²) erfc(x)``, or ``U(1/2, 1/2, x²)/√π`` from x = 2^32 on);
* ``new``: the current ``exactdp.numeric.intervals`` (the Arb ball converted to an interval
  with exact endpoints, i.e. ``arb`` plus the conversion).

Time: best of repeated calls (each column's whole call: building the argument and the
enclosure). Width: ``log2(|value| / (hi - lo))``, bits of relative accuracy
(``inf`` for a point). ``ok`` checks that every enclosure contains a reference computed by
mpmath's point functions at ``max(100 digits, prec + 128 bits)``, to within that
reference's own error (far below every width). Downstream: analytic-Gaussian calibrations
and ``delta_of_sigma`` with ``exactdp.mechanisms.calibration.gaussian`` using each implementation,
same answers required.

Run: ``python benchmarks/bench_intervals.py > benchmarks/results-intervals-<date>.txt``
(about 4 minutes: the legacy lgamma at 3392 bits takes 20 s a call; single-threaded).
"""

from __future__ import annotations

import importlib.util
import math
import os
import platform
import subprocess
import sys
import time
import types
from fractions import Fraction

import flint
import mpmath
from mpmath import iv

from exactdp.numeric import intervals as new
from exactdp.numeric.intervals import enclose, exact_interval

LEGACY_COMMIT = "6504a397a72ec056af497ed27e83e7fbf9e943d2"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_legacy() -> types.ModuleType:
    src = subprocess.run(["git", "show", f"{LEGACY_COMMIT}:exactdp/numeric/intervals.py"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("exactdp_intervals_legacy")
    module.__file__ = "<legacy intervals.py>"
    sys.modules[module.__name__] = module
    exec(compile(src, module.__file__, "exec"), module.__dict__)
    return module


legacy = _load_legacy()


def _best(call, budget: float = 0.25, at_most: int = 200) -> float:
    """Best time of ``call()`` over repeats until ``budget`` seconds (at least 2 calls)."""
    best, spent, n = math.inf, 0.0, 0
    while n < 2 or (spent < budget and n < at_most):
        t0 = time.perf_counter()
        call()
        dt = time.perf_counter() - t0
        best, spent, n = min(best, dt), spent + dt, n + 1
    return best


def _fmt_time(t: float) -> str:
    return f"{t * 1e6:8.0f} us" if t < 1e-2 else f"{t * 1e3:8.1f} ms" if t < 10 else f"{t:8.1f} s "


# --- Arb, directly ----------------------------------------------------------------


def _bits(t: Fraction) -> int:
    return max(0, abs(t.numerator).bit_length() - t.denominator.bit_length() + 1)


def _arb_direct(name: str, x: Fraction, prec: int):
    """The exact ends of Arb's ball of ``name`` at the exact rational ``x``, at the precision the case needs."""
    extra = {"erfc": 2 * _bits(x) if x > 0 else 0, "erfcx": 2 * min(_bits(x), 32)}.get(name, 0)
    saved = flint.ctx.prec
    flint.ctx.prec = prec + 16 + extra
    try:
        t = flint.arb(flint.fmpq(x.numerator, x.denominator))
        if name == "erfcx":
            if x < 2**32:
                ball = (t * t).exp() * t.erfc()
            else:
                half = flint.arb(1) / 2
                ball = (t * t).hypgeom_u(half, half) / flint.arb.pi().sqrt()
        elif name == "normal_cdf":
            ball = (-t / flint.arb(2).sqrt()).erfc() / 2
        else:
            ball = getattr(t, name)()
        return _ball_bounds(ball)  # at the ball's precision: lower()/upper() round to ctx.prec
    finally:
        flint.ctx.prec = saved


def _ball_bounds(ball) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """The exact ends of an Arb ball as mpf (not Fractions: erfc(1e20) is about 2**-(1.4e40))."""
    if not ball.is_finite():
        return None
    return _mpf_exact(ball.lower()), _mpf_exact(ball.upper())


def _mpf_exact(point) -> mpmath.mpf:
    man, exp = point.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def _interval_bounds(x) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    lo, hi = new._lo(x), new._hi(x)
    return (lo, hi) if mpmath.isfinite(lo) and mpmath.isfinite(hi) else None


# --- reference (mpmath points, independent of Arb) ---------------------------------


def _reference(name: str, x: Fraction, prec: int) -> tuple[mpmath.mpf, int]:
    """``name`` at ``x`` from mpmath at ``max(100 digits, prec + 128 bits)``, and that precision."""
    ref_prec = max(333, prec + 128)
    with mpmath.workprec(ref_prec + 64):
        t = mpmath.mpf(x.numerator) / x.denominator
        if name == "erfcx":
            value = mpmath.hyperu(0.5, 0.5, t * t) / mpmath.sqrt(mpmath.pi) if t > 10 else mpmath.exp(t * t) * mpmath.erfc(t)
        elif name == "normal_cdf":
            value = mpmath.erfc(-t / mpmath.sqrt(2)) / 2
        elif name == "lgamma":
            value = mpmath.loggamma(t)
        else:
            value = getattr(mpmath, name)(t)
    return value, ref_prec


def _contains(bounds, value: mpmath.mpf, ref_prec: int) -> bool:
    if bounds is None:
        return False
    lo, hi = bounds
    with mpmath.workprec(ref_prec + 64):
        slack = abs(value) * mpmath.ldexp(1, -(ref_prec - 8))
        return lo <= value + slack and value - slack <= hi


def _accuracy(bounds, value: mpmath.mpf) -> str:
    if bounds is None:
        return "   unbnd"
    lo, hi = bounds
    if hi == lo:
        return "     inf"
    with mpmath.workprec(64):
        width = hi - lo
        bits = -float(mpmath.log(width if not value else width / abs(value), 2))
        return "    wide" if bits < -99999 else f"{'abs' if not value else '':>3}{bits:5.0f}"


# --- cases ---------------------------------------------------------------------------

def _f(text: str) -> Fraction:
    """A decimal string as a Fraction; ``'1e1500'`` and ``'2**-1000'`` work (no float)."""
    if text.startswith("2**"):
        return Fraction(2) ** int(text[3:])
    return Fraction(text)


POINTS = {
    # dyadic values (0.5, 1000, 2**-1000) are point intervals; the others (1/3, 1e-10, 1e150) are the
    # one-ulp intervals exact_interval gives at the precision, as in exactdp's own calls
    "erf": ["0", "2**-1000", "1e-300", "1e-10", "1/3", "0.5", "1", "2.5", "6", "-3", "27", "1000"],
    "erfc": ["1e-10", "1/3", "0.5", "1", "3", "6", "10", "27", "100", "1000", "10000", "1000000", "1e20", "1e150",
             "-5", "-1000"],
    "erfcx": ["0", "1e-10", "1/3", "0.5", "3", "10", "100", "1000", "1000000", "1e20", "1e150", "1e1500"],
    "normal_cdf": ["-1000", "-40", "-37", "-7/3", "0", "2", "40"],
    "log1p": ["1e-30", "-0.01", "1/10", "0.05", "1", "1e10"],
    "lgamma": ["1e-10", "0.5", "1.4616321449683623", "7/3", "10", "1000000", "1e100"],
    "exp": ["-1000000", "-1", "1e-20", "1/3", "1", "100", "100000"],
    "log": ["1e-300", "1/3", "0.5", "2", "1e300"],
}
PRECS = (53, 212, 3392)
SKIP_LEGACY = set()  # (name, x, prec) the legacy code cannot do in reasonable time (none so far)


def _legacy_fn(name):
    if name == "exp":
        return lambda t: iv.exp(t)
    if name == "log":
        return lambda t: iv.log(t)
    return getattr(legacy, name)


def _new_fn(name):
    if name == "exp":
        return lambda t: iv.exp(t)  # unchanged: mpmath's own
    if name == "log":
        return lambda t: iv.log(t)
    return getattr(new, name)


def _arg(x: Fraction):
    return lambda iv_: exact_interval(x)


def run_points() -> list[tuple]:
    rows = []
    for name, texts in POINTS.items():
        for text in texts:
            x = _f(text)
            for prec in PRECS:
                value, ref_prec = _reference(name, x, prec)
                cols = []
                for label, impl in (("legacy", _legacy_fn(name)), ("new", _new_fn(name))):
                    def call(impl=impl):
                        return enclose(lambda iv_: impl(exact_interval(x)), prec=prec)
                    try:
                        bounds = _interval_bounds(call())
                        t = _best(call)
                    except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not stop
                        bounds, t = None, math.nan
                        print(f"# {label} {name}({text}) at {prec}: {type(exc).__name__}: {exc}"[:200])
                    cols.append((bounds, t))
                t_arb = _best(lambda: _arb_direct(name, x, prec))
                cols.append((_arb_direct(name, x, prec), t_arb))
                oks = [_contains(b, value, ref_prec) for b, _ in cols]
                rows.append((name, text, prec, cols, oks, value))
                _print_row(rows[-1])
    return rows


HEADER = ("function   x                     prec |    legacy time     bits |       new time     bits |"
          "       arb time     bits | contains ref (legacy new arb)")


def _print_row(row) -> None:
    name, text, prec, cols, oks, value = row
    parts = [f"{_fmt_time(t)} {_accuracy(bounds, value)}" for bounds, t in cols]
    print(f"{name:<10} {text:<20} {prec:>5} | " + " | ".join(parts) + " | " + " ".join("yes" if o else "NO" for o in oks))


def totals_of(rows) -> dict:
    totals = {}
    for name, text, prec, cols, oks, value in rows:
        agg = totals.setdefault(name, [0.0, 0.0, 0.0, 0])
        for i, (_, t) in enumerate(cols):
            agg[i] += t
        agg[3] += 1
    return totals


# --- downstream -----------------------------------------------------------------------

CALIBRATIONS = [("0.5", "1e-5"), ("1", "1e-10"), ("4", "1e-6"), ("1/100", "1e-3"), ("20", "1e-100"), ("1e3000", "1e-5")]


def _with(module, fn):
    """Run ``fn`` with exactdp.mechanisms.calibration.gaussian's and accountant's enclosure names bound to ``module``'s."""
    from exactdp.mechanisms.accounting import accountant
    from exactdp.mechanisms.calibration import gaussian
    names = ["erfcx", "normal_cdf", "_exp_of_negative", "erf"]
    saved = [(m, n, getattr(m, n)) for m in (gaussian, accountant) for n in names if hasattr(m, n)]
    try:
        for m, n, _ in saved:
            setattr(m, n, getattr(module, n))
        return fn()
    finally:
        for m, n, v in saved:
            setattr(m, n, v)


def run_downstream():
    from exactdp.mechanisms.calibration.gaussian import analytic_sigma, delta_of_sigma
    print()
    print("== downstream: exactdp.mechanisms.calibration.gaussian with each implementation (same answers required) ==")
    print("call                                       |  legacy time |     new time | same answer | sigma (safe float)")
    for eps, dlt in CALIBRATIONS:
        out = {}
        for label, module in (("legacy", legacy), ("new", new)):
            t0 = time.perf_counter()
            r = _with(module, lambda: analytic_sigma(eps, dlt))
            out[label] = (time.perf_counter() - t0, (r.safe_float, r.exact, r.extra["smallest"]))
        same = out["legacy"][1] == out["new"][1]
        print(f"analytic_sigma({eps}, {dlt}){'':<{22 - len(eps) - len(dlt)}} | {_fmt_time(out['legacy'][0])} | "
              f"{_fmt_time(out['new'][0])} | {'yes' if same else 'NO':>11} | {out['new'][1][0]!r}")
    for sigma, eps in [("1", "1/2"), ("7/3", "1"), ("100", "1/1000")]:
        out = {}
        for label, module in (("legacy", legacy), ("new", new)):
            t0 = time.perf_counter()
            r = _with(module, lambda: delta_of_sigma(sigma, eps))
            out[label] = (time.perf_counter() - t0, r.exact)
        lo_l, hi_l = out["legacy"][1]
        lo_n, hi_n = out["new"][1]
        rel = "same" if (lo_l, hi_l) == (lo_n, hi_n) else ("tighter" if lo_l <= lo_n and hi_n <= hi_l else "DIFFERENT")
        print(f"delta_of_sigma({sigma}, {eps}){'':<{21 - len(sigma) - len(eps)}} | {_fmt_time(out['legacy'][0])} | "
              f"{_fmt_time(out['new'][0])} | {rel:>11} | [{float(lo_n)!r}, {float(hi_n)!r}]")


def machine() -> None:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print("== machine ==")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()} (benchmark is single-threaded; other jobs shared the machine)")
    print(f"cpu:      {cpu}")
    print(f"python-flint {flint.__version__}, mpmath {mpmath.__version__}, commit {commit} (legacy: {LEGACY_COMMIT[:7]})")
    print()


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)
    machine()
    print("== enclosures at a point: time (best of repeats) and bits of relative accuracy ==")
    print(HEADER)
    rows = run_points()
    totals = totals_of(rows)
    print()
    print("sum of best times per function | legacy | new | arb direct")
    for name, (a, b, c, n) in totals.items():
        print(f"  {name:<10} ({n:>2} cases) | {_fmt_time(a)} | {_fmt_time(b)} | {_fmt_time(c)} | legacy/new {a / b:6.1f}x")
    bad = [(r[0], r[1], r[2], r[4]) for r in rows if not all(r[4])]
    print(f"cases: {len(rows)}; an enclosure missing the reference: {bad if bad else 'none'}")
    run_downstream()


if __name__ == "__main__":
    main()
