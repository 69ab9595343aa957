"""Wide universes end to end (issue 19, part 3): sum, add/remove, sizes 0..2, the CLI with
--workers 1, before (a worktree of the start commit on PYTHONPATH) and after, in one run.

    git worktree add /tmp/wide-before <start sha>
    python benchmarks/bench_wide.py /tmp/wide-before [--quick]
    python benchmarks/bench_wide.py --in-process     # appends to today's results file

``--in-process`` times ``sensitivity()`` itself in this process (best of 3; no interpreter
start-up, which alone is about 0.3 s of the CLI's time here) for {0..10^3-1}, {0..10^4},
{0..10^5} with ``workers=1`` and ``workers=2``; the rate per core is pairs over the CPU
seconds of this process and its workers.

Pairs per second are the pairs the command reports over the child's CPU seconds (user +
system: the machine is shared) and over wall seconds. Results: benchmarks/results-wide-<date>.txt.
"""

import os
import re
import resource
import subprocess
import sys
import time

CASES = [  # (universe, extra options); sizes 0..2
    ("0..1023", []),
    ("0..1100", []),
    ("0..10000", ["--max-datasets", "100000000", "--max-pairs", "1000000000"]),
    ("0..30000", ["--max-datasets", "1000000000", "--max-pairs", "10000000000"]),
]


def run(root: str, universe: str, extra: list) -> tuple:
    env = dict(os.environ, PYTHONPATH=root)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "exactdp", "sensitivity", "--query", "sum",
                        "--universe", universe, "--sizes", "0..2", "--workers", "1", *extra],
                       capture_output=True, text=True, env=env, cwd=root)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"([\d,]+) unordered pairs examined", p.stdout)
    pairs = int(m.group(1).replace(",", "")) if m else None
    head = (p.stdout.splitlines() or p.stderr.splitlines() or [""])[0][:110]
    return p.returncode, pairs, cpu, wall, head


IN_PROCESS = [999, 10_000, 100_000]


def in_process() -> list[str]:
    """``sensitivity()`` timed in this process: pairs per wall second and per CPU second."""
    from exactdp import IntegerRange, Multisets, sensitivity

    sensitivity("sum", Multisets(IntegerRange(0, 9), sizes=(0, 2)))  # imports, warm caches
    lines = []
    for top in IN_PROCESS:
        space = Multisets(IntegerRange(0, top), sizes=(0, 2))
        for workers in (1, 2):
            best = None
            for _ in range(3):
                c0, w0 = _cpu(), time.perf_counter()
                r = sensitivity("sum", space, max_pairs=None, max_datasets=None, workers=workers)
                wall, cpu = time.perf_counter() - w0, _cpu() - c0
                best = min(best or (wall, cpu), (wall, cpu))
            wall, cpu = best
            lines.append(f"in-process {{0..{top}}} workers={workers}: {r.scope.pairs:,} pairs, answer "
                         f"{r.value}, wall {wall:.3f} s, CPU {cpu:.3f} s: {r.scope.pairs / wall / 1e6:,.0f} M "
                         f"pairs/wall-s, {r.scope.pairs / cpu / 1e6:,.0f} M pairs per CPU-second")
            print(lines[-1], flush=True)
    return lines


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    after_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.path.join(after_root, "benchmarks", f"results-wide-{time.strftime('%Y-%m-%d')}.txt")
    if "--in-process" in sys.argv:
        lines = in_process()
        with open(out, "a") as f:
            f.write(f"\n# python benchmarks/bench_wide.py --in-process, {time.strftime('%Y-%m-%d %H:%M')} "
                    f"UTC, {os.cpu_count()} cores\n" + "\n".join(lines) + "\n")
        return
    before_root = sys.argv[1]
    quick = "--quick" in sys.argv
    lines = []
    for label, root, cases in (("before", before_root, CASES[:2]),
                               ("after", after_root, CASES[:3] if quick else CASES)):
        for universe, extra in cases:
            code, pairs, cpu, wall, head = run(root, universe, extra)
            rate = f"{pairs / cpu:,.0f} pairs/CPU-s, {pairs / wall:,.0f} pairs/wall-s" if pairs else "-"
            line = (f"{label:6} {{{universe}}} exit {code}: {pairs or 0:,} pairs, CPU {cpu:.2f} s, "
                    f"wall {wall:.2f} s, {rate}\n         {head}")
            print(line, flush=True)
            lines.append(line)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(f"# python benchmarks/bench_wide.py (before: {before_root}), "
                f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores (shared)\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
