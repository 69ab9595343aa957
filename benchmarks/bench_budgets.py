"""Does checking every budget before work (issue 8) cost the dense engine anything?

Times the same exact sensitivities in this checkout and in a baseline checkout (the engine
before the hardening: ``git worktree add /tmp/exactdp-base f3e2924``), each in a fresh
subprocess, side by side in one run, and asserts that both give the same exact value and
pair count. Then times the inputs only this checkout can answer (a universe of 100,001
values, a pool of 1,200 distinct values) and the refusals that used to hang.

    python benchmarks/bench_budgets.py --baseline /tmp/exactdp-base [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SETUP = """
import json, sys, time
from exactdp import IntegerRange, Multisets, SubMultisets, sensitivity
from exactdp.queries import parse_query
"""

CASES = [
    # (label, expression building the call; every name from SETUP)
    ("mean, 12,870 multisets of 0..7, d_in=1",
     "sensitivity(parse_query('mean'), Multisets(IntegerRange(0, 7), sizes=(0, 8)), None, 1, undefined='exclude')"),
    ("median, 12,870 multisets of 0..7, d_in=2",
     "sensitivity(parse_query('median'), Multisets(IntegerRange(0, 7), sizes=(0, 8)), None, 2, undefined='exclude')"),
    ("std, 12,870 multisets of 0..7, substitute d_in=1",
     "sensitivity(parse_query('std'), Multisets(IntegerRange(0, 7), sizes=(0, 8)), 'substitute', 1, undefined='exclude')"),
    ("sum, 817,190 multisets of 0..13 sizes 0..9, d_in=1",
     "sensitivity(parse_query('sum'), Multisets(IntegerRange(0, 13), sizes=(0, 9)), None, 1)"),
    ("percentile:25, pool of 10 records, size 6, k=4 substitute",
     "sensitivity(parse_query('percentile:25'), SubMultisets([1,2,2,2,5,5,7,8,9,9], size=6), 'substitute', 4)"),
]

NEW_ONLY = [
    ("sum, 100,002 multisets of 0..100000 sizes 0..1 (was a RecursionError)",
     "sensitivity(parse_query('sum'), Multisets(IntegerRange(0, 100000), sizes=(0, 1)))"),
    ("sum, 1,201 sub-multisets of a pool of 1,200 values (was a RecursionError)",
     "sensitivity(parse_query('sum'), SubMultisets(range(1200), sizes=(0, 1)))"),
    ("refusal: universe 0..10**10 sizes 0..1 (hung)",
     "sensitivity(parse_query('sum'), Multisets(IntegerRange(0, 10**10), sizes=(0, 1)))"),
    ("refusal: sizes 0..10**9 over 4 values (hung)",
     "sensitivity(parse_query('sum'), Multisets(IntegerRange(0, 3), sizes=(0, 10**9)))"),
    ("refusal: percentile:37, 0..13 sizes 0..10, d_in=3 (38 s before)",
     "sensitivity(parse_query('percentile:37'), Multisets(IntegerRange(0, 13), sizes=(0, 10)), None, 3, undefined='exclude')"),
    ("d_in=10**20 on 14 datasets (hung)",
     "sensitivity(parse_query('sum'), Multisets(IntegerRange(0, 3), sizes=(1, 2)), None, 10**20)"),
]

CHILD = SETUP + """
expr, repeat = sys.argv[1], int(sys.argv[2])
best, out = None, None
for _ in range(repeat):
    t = time.perf_counter()
    try:
        r = eval(expr)
        out = [str(r.value), r.scope.pairs]
    except Exception as e:
        out = [type(e).__name__, str(e)[:100]]
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
print(json.dumps({"seconds": best, "answer": out}))
"""


def measure(tree: str, expr: str, repeat: int, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    tree = os.path.abspath(tree)
    try:
        # cwd=tree: ``python -c`` puts the working directory first on sys.path
        proc = subprocess.run([sys.executable, "-c", CHILD, expr, str(repeat)], env=env, cwd=tree,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "answer": f"over {timeout:.0f} s"}
    if proc.returncode:
        return {"seconds": None, "answer": proc.stderr.strip().splitlines()[-1][:80]}
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a checkout of the engine before issue 8")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {platform.platform()}")
    print(f"baseline: {args.baseline}; this checkout: {ROOT}; best of {args.repeat}\n")
    for tree in (args.baseline, ROOT):  # each child must import its own tree
        probe = subprocess.run([sys.executable, "-c", "import exactdp; print(exactdp.__file__)"],
                               cwd=tree, env=dict(os.environ, PYTHONPATH=tree),
                               capture_output=True, text=True)
        assert probe.stdout.startswith(os.path.abspath(tree)), (tree, probe.stdout, probe.stderr)
    print(f"{'case':<62} {'baseline s':>10} {'now s':>8} {'now/base':>9}")
    for label, expr in CASES:
        base = measure(args.baseline, expr, args.repeat, args.timeout)
        now = measure(ROOT, expr, args.repeat, args.timeout)
        assert base["answer"] == now["answer"], (label, base, now)
        ratio = now["seconds"] / base["seconds"]
        print(f"{label:<62} {base['seconds']:>10.3f} {now['seconds']:>8.3f} {ratio:>9.2f}")
    print()
    for label, expr in NEW_ONLY:
        base = measure(args.baseline, expr, 1, 60)
        now = measure(ROOT, expr, args.repeat, args.timeout)
        shown = "-" if base["seconds"] is None else f"{base['seconds']:.2f} s"
        print(f"{label}\n    baseline: {shown} {base['answer']}\n    now: {now['seconds']:.3f} s "
              f"{now['answer']}")


if __name__ == "__main__":
    main()
