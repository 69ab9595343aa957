"""Performance benchmark of exactdp's exact sensitivity engine.

Run from the repository root::

    python benchmarks/bench_engine.py            # full run (a few minutes)
    python benchmarks/bench_engine.py --quick    # k <= 2, fewer repetitions

Four parts, in one run:

1. seed 003's scenarios (a) and (b), unbounded and bounded, k = 1, 2, 3, ten queries:
   the notebook's brute force (``baseline_notebook.py``, exact arithmetic) against
   exactdp, answers asserted identical, time ratio per row and aggregated;
2. every built-in query over ``Multisets(IntegerRange(0, 7), sizes=(0, 8))`` (12,870
   datasets), SymmetricDistance, d_in = 1 and 2;
3. memory (tracemalloc peak, each measurement in a fresh subprocess);
4. the machine, printed first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (HERE, ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)

import sympy  # noqa: E402

import baseline_notebook as baseline  # noqa: E402
import exactdp  # noqa: E402
from exactdp import (  # noqa: E402
    ChangeDistance, IntegerRange, Multisets, SubMultisets, SymmetricDistance,
)
from exactdp import queries as Q  # noqa: E402

SCENARIOS = {
    "a": {"n": 6, "pools": {"a1": [1, 2, 2, 2, 5, 5, 7, 8, 9, 9],
                            "a2": [1, 2, 3, 4, 5, 6, 7, 8, 15, 20]}},
    "b": {"n": 4, "pools": {"b1": [1, 2] * 4, "b2": [1, 2, 3] * 4}},
}

# baseline name -> exactdp query
PART1_QUERIES = {
    "mean": Q.mean, "median": Q.median, "count": Q.count, "sum": Q.sum_, "std": Q.std(0),
    "var": Q.variance(0), "p25": Q.percentile(25), "p50": Q.percentile(50),
    "p75": Q.percentile(75), "p90": Q.percentile(90),
}
PERCENTILES = ("p25", "p50", "p75", "p90")
BASELINE_BUDGET = 1.0
"""Seconds after which a baseline row stops being repeated (slow rows run once)."""


# -- helpers ---------------------------------------------------------------------------

def machine() -> list[str]:
    lines = [
        f"platform: {platform.platform()}",
        f"python:   {platform.python_implementation()} {platform.python_version()}",
        f"cpus:     {os.cpu_count()} (benchmark is single-threaded)",
    ]
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.lower().startswith("model name"):
                lines.append(f"cpu:      {line.split(':', 1)[1].strip()}")
                break
    except (OSError, subprocess.SubprocessError):
        pass
    rev = ""
    try:
        git = ["git", "-C", ROOT]
        head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(git + ["status", "--porcelain", "--", "exactdp"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        if head:
            rev = f", commit {head}{' (exactdp/ modified)' if dirty else ''}"
    except (OSError, subprocess.SubprocessError):
        pass
    lines.append(f"exactdp {exactdp.__version__}{rev}, sympy {sympy.__version__}")
    return lines


def to_sym(v):
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, int):
        return sympy.Integer(v)
    return sympy.sympify(v)


def same(a, b) -> bool:
    """Exact equality of two exact numbers (Fraction or SymPy algebraic)."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    d = to_sym(a) - to_sym(b)
    if d == 0:
        return True
    return sympy.simplify(d) == 0


def show(v) -> str:
    if isinstance(v, Fraction):
        return str(v)
    s = to_sym(v)
    return str(s) if s.is_Rational else f"{s} (~{float(s):.6g})"


def timed(fn, reps: int, budget: float = 0.0):
    """(value, best time, first time): repeat up to ``reps`` times, and stop repeating
    once the time spent exceeds ``budget`` seconds (``budget=0``: always ``reps``)."""
    best = first = None
    value = None
    spent = 0.0
    for i in range(reps):
        t0 = time.perf_counter()
        value = fn()
        dt = time.perf_counter() - t0
        spent += dt
        first = dt if first is None else first
        best = dt if best is None else min(best, dt)
        if budget and spent > budget:
            break
    return value, best, first


def fmt_t(t: float | None) -> str:
    if t is None:
        return "-"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.1f} ms"
    return f"{t * 1e6:.0f} us"


def fmt_r(r: float | None, width: int = 6) -> str:
    """A ratio: one decimal below 10 (so 0.8x is not shown as 1x)."""
    if r is None:
        return f"{'-':>{width + 1}}"
    return f"{r:>{width}.1f}x" if r < 10 else f"{r:>{width}.0f}x"


def geomean(xs):
    xs = [x for x in xs if x]
    if not xs:
        return float("nan")
    import math

    return math.exp(sum(math.log(x) for x in xs) / len(xs))


# -- part 1 ----------------------------------------------------------------------------

def exactdp_call(mode: str, pool, n: int, k: int, query):
    space = SubMultisets(pool, size=n)
    if mode == "unbounded":
        return lambda: exactdp.sensitivity(query, space, SymmetricDistance(), k, exact_k=True,
                                           scope="release-centred", progress=False)
    return lambda: exactdp.sensitivity(query, space, ChangeDistance(), k, progress=False)


def part1(ks, reps: int, cached: bool, out: list[str], rows: list[dict]) -> list[str]:
    disagreements = []
    head = (f"{'pool':<4} {'mode':<9} {'k':>1} {'query':<6} {'sensitivity':<34} "
            f"{'baseline':>9} {'cached':>9} {'exactdp':>9} {'1st call':>9} "
            f"{'ratio':>7} {'ratio c':>7} {'base norms':>10} {'dp pairs':>8}")
    print(head)
    out.append(head)
    for scen, spec in SCENARIOS.items():
        n = spec["n"]
        for pname, pool in spec["pools"].items():
            for mode in ("unbounded", "bounded"):
                for k in ks:
                    if not (1 <= k < n and k <= len(pool) - n):
                        continue  # the notebook's verify_sensitivity_inputs rejects it
                    for qname, query in PART1_QUERIES.items():
                        fn = getattr(baseline, mode)
                        stats = baseline.Stats()

                        def run_base():
                            stats.__init__()
                            return fn(pool, n, k, qname, stats)

                        bval, bt, _ = timed(run_base, reps, budget=BASELINE_BUDGET)
                        ct = None
                        if cached and mode == "bounded":
                            cval, ct, _ = timed(lambda: baseline.bounded(pool, n, k, qname, cache_values=True),
                                                reps, budget=BASELINE_BUDGET)
                            assert same(cval, bval), (pname, mode, k, qname, cval, bval)
                        res, et, first = timed(exactdp_call(mode, pool, n, k, query), reps)
                        ok = same(res.value, bval)
                        if not ok:
                            disagreements.append(
                                f"DISAGREE scenario {scen} pool {pname}={pool} n={n} {mode} k={k} "
                                f"{qname}: baseline {show(bval)}, exactdp {show(res.value)}")
                        ratio = bt / et
                        ratio_c = ct / et if ct is not None else None
                        row = dict(scenario=scen, pool=pname, mode=mode, k=k, query=qname,
                                   value=show(res.value), baseline_s=bt, cached_s=ct,
                                   exactdp_s=et, exactdp_first_s=first, ratio=ratio,
                                   ratio_cached=ratio_c, base_norms=stats.norms,
                                   base_evals=stats.evaluations, dp_pairs=res.scope.pairs,
                                   agree=ok)
                        rows.append(row)
                        line = (f"{pname:<4} {mode:<9} {k:>1} {qname:<6} "
                                f"{(show(res.value) if ok else 'MISMATCH'):<34.34} "
                                f"{fmt_t(bt):>9} {fmt_t(ct):>9} {fmt_t(et):>9} {fmt_t(first):>9} "
                                f"{fmt_r(ratio)} {fmt_r(ratio_c)} "
                                f"{stats.norms:>10,} {res.scope.pairs:>8,}")
                        print(line, flush=True)
                        out.append(line)
    return disagreements


def summarise1(rows: list[dict], out: list[str]) -> None:
    def emit(s=""):
        print(s)
        out.append(s)

    emit()
    emit("Aggregates (total = sum of baseline times / sum of exactdp best times; "
         "geo = geometric mean of per-row ratios)")
    emit(f"{'group':<28} {'rows':>4} {'baseline':>10} {'exactdp':>10} {'total':>8} "
         f"{'geo':>7} {'min':>7} {'max':>8}")
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(f"{r['scenario']} {r['mode']}", []).append(r)
        groups.setdefault(f"{r['scenario']} {r['mode']} k={r['k']}", []).append(r)
        groups.setdefault("all", []).append(r)
    for name in sorted(groups, key=lambda s: (s == "all", s)):
        g = groups[name]
        tb = sum(r["baseline_s"] for r in g)
        te = sum(r["exactdp_s"] for r in g)
        rs = [r["ratio"] for r in g]
        emit(f"{name:<28} {len(g):>4} {fmt_t(tb):>10} {fmt_t(te):>10} {fmt_r(tb / te, 7)} "
             f"{fmt_r(geomean(rs))} {fmt_r(min(rs))} {fmt_r(max(rs), 7)}")
    emit()
    target = [r for r in rows if r["scenario"] == "b" and r["mode"] == "bounded" and r["k"] == 2
              and r["query"] in PERCENTILES]
    if target:
        emit("TARGET: scenario (b), bounded, k = 2, percentiles: ratio >= 100x")
        for r in target:
            extra = (f", vs cached baseline {fmt_r(r['ratio_cached'], 1)}" if r["ratio_cached"]
                     else "")
            emit(f"  {r['pool']} {r['query']}: baseline {fmt_t(r['baseline_s'])}, exactdp "
                 f"{fmt_t(r['exactdp_s'])} -> {fmt_r(r['ratio'], 1)}{extra}")
        worst = min(r["ratio"] for r in target)
        emit(f"  minimum {fmt_r(worst, 1)}: {'MET' if worst >= 100 else 'NOT MET'}")


# -- part 2 ----------------------------------------------------------------------------

def part2(d_ins, reps: int, out: list[str], rows: list[dict]) -> None:
    space = Multisets(IntegerRange(0, 7), sizes=(0, 8))
    qs = [Q.count, Q.sum_, Q.mean, Q.median, Q.percentile(25), Q.percentile(90), Q.variance(0),
          Q.variance(1), Q.std(0), Q.histogram([0, 2, 4, 8])]
    head = (f"{space.count():,} datasets: {space.describe()}, SymmetricDistance, "
            f"undefined='exclude'")
    print(head)
    out.append(head)
    head = f"{'query':<24} {'d_in':>4} {'sensitivity':<22} {'pairs':>9} {'time':>9} {'< 10 s':>6}"
    print(head)
    out.append(head)
    for q in qs:
        for d in d_ins:
            res, t, _ = timed(lambda: exactdp.sensitivity(q, space, SymmetricDistance(), d,
                                                          undefined="exclude", progress=False),
                              reps, budget=5)
            line = (f"{q.name:<24} {d:>4} {show(res.value):<22.22} {res.scope.pairs:>9,} "
                    f"{fmt_t(t):>9} {'yes' if t < 10 else 'NO':>6}")
            rows.append(dict(query=q.name, d_in=d, value=show(res.value), pairs=res.scope.pairs,
                             time_s=t))
            print(line, flush=True)
            out.append(line)


# -- part 3 ----------------------------------------------------------------------------

def memory_child(spec: str) -> None:
    """Run one sensitivity computation under tracemalloc; print a JSON line."""
    import tracemalloc

    top, max_size, d_in = (int(x) for x in spec.split(","))
    space = Multisets(IntegerRange(0, top), sizes=(0, max_size))
    n = space.count()
    table_cur = table_peak = None
    try:  # the value table alone (internal API; skipped if it changes)
        from exactdp.engine import tables as _engine

        tracemalloc.start()
        table = _engine.Table(Q.mean, space, space, d_in, "exclude")
        table_cur, table_peak = tracemalloc.get_traced_memory()
        del table
        tracemalloc.stop()
    except Exception:  # pragma: no cover - depends on engine internals
        if tracemalloc.is_tracing():
            tracemalloc.stop()
    tracemalloc.start()
    base_cur, _ = tracemalloc.get_traced_memory()
    t0 = time.perf_counter()
    res = exactdp.sensitivity(Q.mean, space, SymmetricDistance(), d_in, undefined="exclude",
                              progress=False)
    dt = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps(dict(datasets=n, d_in=d_in, max_size=max_size, peak=peak - base_cur,
                          pairs=res.scope.pairs, value=str(res.value), time_s=dt,
                          table_retained=table_cur, table_peak=table_peak)))


def part3(fixed_d_ins, sizes, out: list[str], rows: list[dict]) -> None:
    def measure(top, max_size, d):
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--memory-child", f"{top},{max_size},{d}"],
            capture_output=True, text=True, check=True)
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def emit(s=""):
        print(s, flush=True)
        out.append(s)

    emit("query mean, SymmetricDistance, undefined='exclude', universe {0..7}; "
         "tracemalloc peak inside sensitivity() (fresh process each; timings under "
         "tracemalloc are not benchmark times)")
    emit("peak = whole sensitivity() call; table = the value table alone (retained after "
         "construction / peak during construction)")
    emit(f"{'sizes':<6} {'d_in':>4} {'datasets':>9} {'pairs':>10} {'peak':>10} "
         f"{'B/dataset':>9} {'B/pair':>7} {'table kept':>10} {'B/dataset':>9} {'table peak':>10}")
    for label, cfgs in (("(i) fixed space, growing d_in", [(8, d) for d in fixed_d_ins]),
                        ("(ii) growing space, d_in = 1", [(s, 1) for s in sizes])):
        emit(label)
        for max_size, d in cfgs:
            m = measure(7, max_size, d)
            m["group"] = label
            rows.append(m)
            kept, tpeak = m.get("table_retained"), m.get("table_peak")
            tcols = (f"{kept / 1e6:>7.2f} MB {kept / m['datasets']:>9.0f} {tpeak / 1e6:>7.2f} MB"
                     if kept is not None else f"{'-':>10} {'-':>9} {'-':>10}")
            emit(f"0..{max_size:<3} {d:>4} {m['datasets']:>9,} {m['pairs']:>10,} "
                 f"{m['peak'] / 1e6:>7.2f} MB {m['peak'] / m['datasets']:>9.0f} "
                 f"{m['peak'] / m['pairs']:>7.1f} {tcols}")


# -- main ------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="k = 1, 2 only, 1-2 repetitions, smaller memory sweep")
    ap.add_argument("--reps", type=int, default=None,
                    help="repetitions for exactdp (best of; default 5, quick 2)")
    ap.add_argument("--no-cached", action="store_true",
                    help="skip the cached-values variant of the bounded baseline")
    ap.add_argument("--parts", default="1,2,3", help="which parts to run, e.g. 1,3")
    ap.add_argument("--ks", default=None,
                    help="part 1 values of k, e.g. 1,2,3,4 (default 1,2,3; quick 1,2); k with "
                         "k >= n or k > len(pool) - n is skipped, as the notebook refuses it")
    ap.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    ap.add_argument("--memory-child", metavar="TOP,MAXSIZE,DIN", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child)
        return 0
    reps = args.reps or (2 if args.quick else 5)
    parts = {p.strip() for p in args.parts.split(",")}
    out: list[str] = []
    results: dict[str, object] = {}

    def emit(s=""):
        print(s, flush=True)
        out.append(s)

    t_start = time.perf_counter()
    emit("== machine ==")
    mach = machine()
    for line in mach:
        emit(line)
    results["machine"] = mach
    disagreements: list[str] = []
    if "1" in parts:
        emit()
        emit("== part 1: seed 003 scenarios, notebook brute force (exact) vs exactdp ==")
        emit("unbounded: exactdp SymmetricDistance, exact_k=True, scope='release-centred'; "
             "bounded: ChangeDistance <= k")
        emit(f"times: baseline best of <= {reps} (stops repeating after {BASELINE_BUDGET} s), exactdp best of "
             f"{reps} (setup + enumeration); '1st call' = exactdp's first call; ratio = "
             f"baseline / exactdp best; 'cached' = bounded baseline evaluating each group "
             f"member once")
        rows: list[dict] = []
        if args.ks:
            ks = tuple(int(x) for x in args.ks.split(","))
        else:
            ks = (1, 2) if args.quick else (1, 2, 3)
        disagreements = part1(ks, reps, not args.no_cached, out, rows)
        summarise1(rows, out)
        results["part1"] = rows
    if "2" in parts:
        emit()
        emit("== part 2: every built-in query over Multisets(IntegerRange(0, 7), sizes=(0, 8)) ==")
        rows = []
        part2((1, 2), 1 if args.quick else min(reps, 3), out, rows)
        results["part2"] = rows
    if "3" in parts:
        emit()
        emit("== part 3: memory ==")
        rows = []
        part3((1, 2, 3), (6, 8, 10) if args.quick else (6, 8, 10, 12), out, rows)
        results["part3"] = rows
    emit()
    if disagreements:
        emit(f"{len(disagreements)} DISAGREEMENT(S):")
        for d in disagreements:
            emit("  " + d)
    elif "1" in parts:
        emit(f"all {len(results['part1'])} part-1 answers identical (exact) between baseline and exactdp")
    emit(f"total wall time {time.perf_counter() - t_start:.1f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=str)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
