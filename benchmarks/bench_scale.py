"""Issue 12 (parts 1-3): the engine before and after, side by side in one run.

Run from the repository root::

    python benchmarks/bench_scale.py                       # about 6 minutes
    python benchmarks/bench_scale.py --quick               # smaller spaces, about 2 minutes
    python benchmarks/bench_scale.py --baseline-commit 54e4e7f --out results.txt

The baseline is the engine at ``--baseline-commit`` (default ``54e4e7f``, the commit
before issue 12), unpacked with ``git archive`` into a temporary folder and run in
child processes, like the new engine, so both pay the same start-up. Parts:

A. the table phase: the per-dataset path (``engine.tables.INCREMENTAL = False``: one
   ``prepare`` call per dataset and a ``Fraction`` scaling pass, the code of the baseline)
   against the incremental one, in one process; the tables are asserted identical;
B. end to end at ``d_in = 1``: exact pairs per second on one core, baseline against new,
   answers and witnesses asserted identical;
C. the pair scan with 1 and 2 processes (``workers=2``), witnesses asserted identical;
D. the largest space handled within 60 s, before and after (each run in a child process
   with a time limit; peak memory from ``getrusage``).

Every child runs one at a time; the machine, its load average before and after, and
the Python version are printed first. Times are wall-clock and noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from exactdp import IntegerRange, Multisets, SymmetricDistance
from exactdp.checkers.sensitivity import sensitivity
from exactdp.queries.builtin import parse_query, histogram
spec = json.loads({spec!r})
q = histogram([0, 2, 4, 8]) if spec["query"] == "histogram" else parse_query(spec["query"])
space = Multisets(IntegerRange(0, spec["top"]), sizes=(1, spec["n"]))
extra = {{"workers": spec["workers"]}} if spec["workers"] != 1 else {{}}
t = time.perf_counter()
r = sensitivity(q, space, SymmetricDistance(), 1, max_datasets=None, max_pairs=None, **extra)
dt = time.perf_counter() - t
print(json.dumps({{"value": str(r.value), "witness": str(r.witness), "pairs": r.scope.pairs,
                  "datasets": r.scope.datasets, "seconds": dt,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


SCAN_CHILD = r"""
import importlib, json, sys, time
sys.path.insert(0, {root!r})
from exactdp import IntegerRange, Multisets, SymmetricDistance
from exactdp.engine import plan as P
from exactdp.queries.builtin import parse_query
spec = json.loads({spec!r})
space = Multisets(IntegerRange(0, spec["top"]), sizes=(1, spec["n"]))
t = time.perf_counter()
setup = P.make_plan(parse_query(spec["query"]), space, SymmetricDistance(), [1], "standard",
                    "error", None, None, False, False)
table_s = time.perf_counter() - t
best, raws = {{1: 1e9, 2: 1e9}}, {{}}
for rep in range(spec["reps"]):
    for w in (1, 2):
        t = time.perf_counter()
        raw = P.compute(setup, 1, False, workers=w)  # the table is shared; w=2: partitions
        best[w] = min(best[w], time.perf_counter() - t)
        raws[w] = (str(raw.value), str(raw.witness), raw.pairs)
print(json.dumps({{"table": table_s, "one": best[1], "two": best[2], "pairs": raw.pairs,
                  "same": raws[1] == raws[2]}}))
"""


def scan_child(query: str, top: int, n: int, reps: int = 3):
    """The pair scan alone with 1 and 2 processes, alternating, best of ``reps`` each."""
    spec = json.dumps({"query": query, "top": top, "n": n, "reps": reps})
    out = subprocess.run([sys.executable, "-c", SCAN_CHILD.format(root=ROOT, spec=spec)],
                         capture_output=True, text=True, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(root: str, query: str, top: int, n: int, workers: int = 1, limit: float = 600):
    """Run one sensitivity in a fresh process; ``None`` when it exceeds ``limit`` s."""
    spec = json.dumps({"query": query, "top": top, "n": n, "workers": workers})
    code = CHILD.format(root=root, spec=spec)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine() -> list[str]:
    lines = [f"platform: {platform.platform()}",
             f"python:   {platform.python_implementation()} {platform.python_version()}",
             f"cpus:     {os.cpu_count()}"]
    try:
        import numpy

        lines.append(f"numpy:    {numpy.__version__}")
    except ImportError:
        lines.append("numpy:    not installed (pure-Python paths)")
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.split(":")[0].strip() in ("Model name", "CPU(s)", "Thread(s) per core",
                                              "Hypervisor vendor", "L2 cache", "L3 cache"):
                lines.append(f"lscpu:    {' '.join(line.split())}")
    except (OSError, subprocess.SubprocessError):
        pass
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    lines.append(f"exactdp at commit {head}")
    return lines


def load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f}"


def unpack(commit: str) -> str:
    folder = tempfile.mkdtemp(prefix="exactdp-base-")
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit, "exactdp"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def part_a(out, n: int) -> None:
    sys.path.insert(0, ROOT)
    from exactdp import IntegerRange, Multisets
    from exactdp.engine import tables as _engine
    from exactdp import queries as Q

    space = Multisets(IntegerRange(0, 7), sizes=(1, n))
    out(f"\nA. table phase over {space.describe()} ({len(space):,} datasets), one process")
    out(f"{'query':<22} {'per-dataset':>12} {'incremental':>12} {'speed-up':>9}  "
        f"{'us/dataset before':>18} {'after':>7}  identical")
    for q in (Q.count, Q.sum_, Q.mean, Q.variance(0), Q.std(1), Q.median, Q.percentile(90),
              Q.clipped(Q.mean, 2, 5), Q.histogram([0, 2, 4, 8])):
        times = []
        tables = []
        for old in (True, False):
            _engine.INCREMENTAL = not old
            t = time.perf_counter()
            table = _engine.Table(q, space, space, 1, "error")
            times.append(time.perf_counter() - t)
            tables.append((list(table.value_dict().items()), table.scale, list(table.undefined)))
        _engine.INCREMENTAL = True
        same = tables[0] == tables[1]
        if not same:
            raise SystemExit(f"tables differ for {q.name}")
        out(f"{q.name:<22} {times[0]:>11.2f}s {times[1]:>11.2f}s {times[0] / times[1]:>8.1f}x  "
            f"{1e6 * times[0] / len(space):>18.2f} {1e6 * times[1] / len(space):>7.2f}  {same}")
        del tables


def check_same(a, b, what) -> None:
    if (a["value"], a["witness"], a["pairs"]) != (b["value"], b["witness"], b["pairs"]):
        raise SystemExit(f"answers differ on {what}: {a} != {b}")


def part_b(out, base: str, n: int) -> None:
    out(f"\nB. end to end, sensitivity at d_in=1, SymmetricDistance, multisets of size 1..{n} "
        f"over {{0..7}}, one process each (child processes)")
    out(f"{'query':<12} {'datasets':>10} {'pairs':>11} {'before':>8} {'after':>7} {'speed-up':>9}  "
        f"{'Mpairs/s before':>15} {'after':>7}  answer and witness identical")
    for query in ("count", "sum", "mean", "var", "std", "median", "percentile:90", "histogram"):
        old = child(base, query, 7, n)
        new = child(ROOT, query, 7, n)
        check_same(old, new, query)
        out(f"{query:<12} {new['datasets']:>10,} {new['pairs']:>11,} {old['seconds']:>7.2f}s "
            f"{new['seconds']:>6.2f}s {old['seconds'] / new['seconds']:>8.1f}x  "
            f"{old['pairs'] / old['seconds'] / 1e6:>15.2f} {new['pairs'] / new['seconds'] / 1e6:>7.2f}  yes")
    out(f"  witness (histogram): {new['witness']}")


def part_c(out, n: int) -> None:
    out(f"\nC. 1 and 2 processes (workers), multisets of size 1..{n} over {{0..7}}, end to end")
    out(f"{'query':<12} {'pairs':>11} {'workers=1':>10} {'workers=2':>10} {'speed-up':>9}  "
        f"{'Mpairs/s/core w=1':>17} {'w=2':>6}  identical")
    for query in ("mean", "std", "median"):
        one = child(ROOT, query, 7, n, 1)
        two = child(ROOT, query, 7, n, 2)
        check_same(one, two, f"{query} workers=2")
        out(f"{query:<12} {one['pairs']:>11,} {one['seconds']:>9.2f}s {two['seconds']:>9.2f}s "
            f"{one['seconds'] / two['seconds']:>8.2f}x  {one['pairs'] / one['seconds'] / 1e6:>17.2f} "
            f"{two['pairs'] / two['seconds'] / 2e6:>6.2f}  yes")
    out("  (the table is built in one process before the pool starts: only the pair scan is split)")
    out(f"  the pair scan alone (same process, same table), alternating 1 and 2 processes, best of 3:")
    out(f"  {'query':<10} {'table':>7} {'scan w=1':>9} {'scan w=2':>9} {'speed-up':>9}  "
        f"{'Mpairs/s/core w=1':>17} {'w=2':>6}  identical")
    for query in ("mean", "std", "median"):
        r = scan_child(query, 7, n)
        if not r["same"]:
            raise SystemExit(f"workers=2 differs on {query}")
        out(f"  {query:<10} {r['table']:>6.2f}s {r['one']:>8.2f}s {r['two']:>8.2f}s "
            f"{r['one'] / r['two']:>8.2f}x  {r['pairs'] / r['one'] / 1e6:>17.2f} "
            f"{r['pairs'] / r['two'] / 2e6:>6.2f}  yes")


def part_d(out, base: str, before_sizes, after_sizes, limit: float, pool_sizes) -> None:
    out(f"\nD. largest space within {limit:.0f} s: mean, d_in=1, multisets of size 1..N over "
        f"{{0..7}}, child processes with a {limit:.0f} s limit")
    out(f"{'engine':<16} {'N':>3} {'datasets':>12} {'pairs':>13} {'time':>8} {'peak MB':>8}")
    for label, root, sizes, workers in (("before", base, before_sizes, 1),
                                        ("after, 1 proc", ROOT, after_sizes, 1),
                                        ("after, 2 procs", ROOT, pool_sizes, 2)):
        for n in sizes:
            r = child(root, "mean", 7, n, workers, limit=limit + 15)
            if r is None or r["seconds"] > limit:
                out(f"{label:<16} {n:>3} {'':>12} {'':>13} {'> %.0fs' % limit:>8}")
                break
            out(f"{label:<16} {n:>3} {r['datasets']:>12,} {r['pairs']:>13,} {r['seconds']:>7.1f}s "
                f"{r['peak_mb']:>8.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-commit", default="54e4e7f")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results-scale-2026-11-24.txt"))
    ap.add_argument("--note", default="", help="a line on what else ran on the machine")
    args = ap.parse_args()
    lines: list[str] = []

    def out(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    out("exactdp benchmark: issue 12 (incremental tables, NumPy pair scan, process pool)")
    for line in machine():
        out(line)
    if args.note:
        out(f"note:     {args.note}")
    out(f"start:    {time.strftime('%Y-%m-%d %H:%M:%S')}, {load()}")
    others = subprocess.run(["ps", "-eo", "pcpu,comm", "--no-headers"], capture_output=True,
                            text=True).stdout.split("\n")
    busy = [line for line in others if line.strip() and float(line.split()[0]) >= 10.0]
    out(f"busy:     {len(busy)} processes at >= 10% CPU when the run started (ps)")
    base = unpack(args.baseline_commit)
    out(f"baseline: commit {args.baseline_commit} (git archive into {base})")
    start = time.perf_counter()
    part_a(out, 12 if args.quick else 16)
    part_b(out, base, 12 if args.quick else 16)
    part_c(out, 16 if args.quick else 20)
    if args.quick:
        part_d(out, base, (16,), (20, 22), 60, (20, 22))
    else:
        part_d(out, base, (22, 23, 24), (28, 30, 31, 32), 60, (30, 31, 32))
    out(f"\nend:      {time.strftime('%Y-%m-%d %H:%M:%S')}, {load()}, "
        f"{time.perf_counter() - start:.0f} s in all; children's peak "
        f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
