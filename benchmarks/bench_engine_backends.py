"""Issue 19: the partitioned engine on its backends, before and after, in one run.

    python benchmarks/bench_engine_backends.py [--top 7] [--max-size 22] [--before-dir DIR]
        [--repeats 5] [--sides before,delta,after]

The space is the issue's: ``mean``, add/remove, multisets of size ``1..max-size`` over
``{0..top}``. ``--before-dir`` is a checkout of the commit before the engine package (e.g.
``git worktree add /tmp/engine-before 8d68a72``); each side runs in its own Python process
with ``PYTHONPATH`` pointing at its tree. Three sides: before; after with the key-arithmetic
partitions (value-table slices with halos; ``wide.ENABLED = False``); after as the planner
chooses (on this space the wide strategy with count-vector sources: each neighbour's value
from its source's sums, no table, no halo). Measured per side:

* serial, ``workers=2`` and two 2-worker Dask LocalClusters (start excluded): one with
  Dask's defaults (a user's own cluster) and one as ``cluster="local"`` starts it (no
  ``MALLOC_TRIM_THRESHOLD_``, no worker profiler): wall times, best and median of
  ``--repeats`` runs (serial and pool alternating in one process; each cluster in a fresh
  process of its own, after one warm-up run, each Dask run after a serial run), and the answer and
  witness (identical on every run, or the script says so). Speed-ups are over the best
  serial run, over the median serial run, and the median of each run's ratio to the serial
  run paired with it (the most robust on a noisy machine);
* work inflation: CPU seconds of all partitions (all run once in this process) over the
  CPU seconds of a serial run just before, the median of ``--repeats`` such pairs, for the
  partitions of 2 and of 16 workers (rows made: the datasets the partitions make, with
  their halos, over the space's; below 1 where sources without a neighbour are skipped);
* serial fraction: the parent's work that no worker shares (plan, partition planning,
  combining; before: the whole value table, built in the parent) over the serial time;
* the speed-up Amdahl's law predicts at 16 workers from both: ``1 / (f + (1 - f) * I / 16)``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CHILD = r"""
import json, logging, math, sys, time
from exactdp import IntegerRange, Multisets
from exactdp.queries import parse_query
mode, top, size, REPEATS, PHASE = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
space = Multisets(IntegerRange(0, top), sizes=(1, size))
q = parse_query("mean")
if mode == "delta":  # the after tree with its key-arithmetic partitions (no wide strategy)
    from exactdp.engine import wide
    wide.ENABLED = False
from exactdp.checkers.sensitivity import sensitivity
def run(**kw):
    t, c = time.perf_counter(), time.process_time()
    r = sensitivity(q, space, max_pairs=None, max_datasets=None, **kw)
    return time.perf_counter() - t, time.process_time() - c, (str(r.value), str(r.witness), r.scope.pairs)
out = {"datasets": space.count()}
import dask, distributed, statistics
TUNED = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
         "distributed.worker.profile.enabled": False}
def cluster(tuned):
    with dask.config.set(TUNED if tuned else {}):
        c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", silence_logs=logging.ERROR)
    return c, distributed.Client(c)
times = {"serial": []}
paired = {}
if PHASE == "local":  # serial and pool alternating, so drifting load falls on both alike
    times["pool2"] = []
    for _ in range(REPEATS):
        for name, kw in (("serial", {}), ("pool2", {"workers": 2})):
            wall, cpu, ans = run(**kw)
            times[name].append((wall, cpu))
            out[name + "_answer"] = ans
    paired["pool2"] = [s[0] / p[0] for s, p in zip(times["serial"], times["pool2"])]
else:  # this process's one cluster (a fresh process per cluster, as a user runs it)
    times[PHASE] = []
    c, client = cluster(PHASE == "dask2tuned")
    run(cluster=client)  # the workers import exactdp and NumPy
    paired[PHASE] = []
    for _ in range(REPEATS):  # each Dask run paired with a serial run just before it
        s_wall, s_cpu, _ = run()
        times["serial"].append((s_wall, s_cpu))
        wall, cpu, ans = run(cluster=client)
        times[PHASE].append((wall, cpu))
        paired[PHASE].append(s_wall / wall)
        out[PHASE + "_answer"] = ans
    client.close(); c.close()
for name, ts in times.items():
    out[name + "_s"] = min(w for w, _ in ts)
    out[name + "_median_s"] = statistics.median(w for w, _ in ts)
for name, ratios in paired.items():
    out[name + "_paired"] = statistics.median(ratios)
out["serial_cpu"] = min(c for _, c in times["serial"])
if PHASE != "local":
    print(json.dumps(out))
    raise SystemExit(0)

def partitions_once(workers):
    # (run_all, driver_s, parts, rows): run_all() runs every partition once in this process
    # and returns their results; the driver's time (plan, partition planning, and the
    # combining, timed once) is the work no worker shares
    if mode == "before":
        from exactdp.checkers import _dask, _engine
        from exactdp.checkers.sensitivity import _setup, _ambient
        t0 = time.perf_counter()
        setup = _setup(q, space, None, [1], "standard", "error", None, None, False, False, build=False)
        codec = _dask._codec(q, space, space, size + 2)
        moves = setup.metric.moves(top + 1, 1, False)
        kept = [mv for mv in moves if not ((len(mv[1]), mv[1]) < (len(mv[0]), mv[0]))]
        spec = {"query": q, "space": space, "ambient": space, "base": codec.base,
                "deltas": codec.deltas(moves, True), "halve": True, "policy": "error"}
        j, prefixes, parts = _dask.plan_partitions(space, space, kept, space.count(), workers, None)
        driver = time.perf_counter() - t0
        def run_all():
            return [_dask.scan_partition(spec, [prefixes[i][0] for i in range(a, b)], halo)
                    for a, b, halo, _ in parts]
        return run_all, driver, len(parts), sum(r["size"] for r in run_all())
    from exactdp.engine import backends, plan as P, wide as W
    t0 = time.perf_counter()
    pl = P.make_plan(q, space, None, [1], "standard", "error", None, None, False, False, build=False)
    out["strategy"] = pl.plans[1].kind + (f" ({pl.plans[1].table.sources_as})"
                                          if pl.plans[1].kind == "wide" else "")
    if pl.plans[1].kind == "wide":  # tasks that make their own count vectors: no halo
        table = pl.plans[1].table
        tasks = W.partitions(table, W.task_count(table, workers))  # the pool's tasks
        driver = time.perf_counter() - t0
        def run_all():
            return [W.scan_task(table, task) for task in tasks]
        results = run_all()
        t0 = time.perf_counter()
        W.finish(table, W.merge(results))
        return (run_all, driver + time.perf_counter() - t0, len(tasks),
                sum(W.task_size(t) for t in tasks))
    spec, prefixes, parts, codec = backends.partition_spec(pl, 1, workers, None)
    driver = time.perf_counter() - t0
    def run_all():
        return [backends.timed_partition(spec, [prefixes[i][0] for i in range(a, b)], halo)
                for a, b, halo, _ in parts]
    results = run_all()
    t0 = time.perf_counter()
    backends.combine_partitions(pl, results, codec)
    return (run_all, driver + time.perf_counter() - t0, len(parts),
            sum(r["size"] for r in results))

for w in (2, 16):
    run_all, driver, n, rows = partitions_once(w)
    ratios = []
    for _ in range(REPEATS):  # each pass over the partitions paired with a serial run before it
        _, serial_cpu, _ = run()
        c = time.process_time()
        run_all()
        ratios.append((time.process_time() - c) / serial_cpu)
    out[f"parts{w}"] = n
    out[f"inflation{w}"] = statistics.median(ratios)
    out[f"inflation{w}_range"] = (min(ratios), max(ratios))
    out[f"rows{w}"] = rows / space.count()
    out[f"driver{w}_s"] = driver
if mode == "before":  # the pool built the whole table in the parent: serial work
    from exactdp.checkers.sensitivity import _setup
    t0 = time.perf_counter()
    _setup(q, space, None, [1], "standard", "error", None, None, False, False)
    out["table_s"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def side(tree: str, mode: str, top: int, size: int, repeats: int) -> dict:
    """One tree's numbers: serial and pool (and the partitions' CPU) in one process, each
    Dask cluster in a fresh process of its own; the serial figures are the first process's."""
    env = dict(os.environ, PYTHONPATH=tree)
    out: dict = {}
    for phase in ("local", "dask2", "dask2tuned"):
        got = subprocess.run([sys.executable, "-c", CHILD, mode, str(top), str(size), str(repeats),
                              phase], env=env, capture_output=True, text=True, cwd="/tmp")
        if got.returncode:
            raise SystemExit(f"{mode} {phase} failed:\n{got.stderr[-3000:]}")
        r = json.loads(got.stdout.strip().splitlines()[-1])
        if phase == "local":
            out.update(r)
        else:
            out.update({k: v for k, v in r.items() if k.startswith(phase)})
            out[phase + "_serial_median_s"] = r["serial_median_s"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=7)
    ap.add_argument("--max-size", type=int, default=22)
    ap.add_argument("--before-dir", default="/tmp/engine-before")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sides", default="before,delta,after",
                    help="which of before, delta, after to measure (comma-separated)")
    a = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}, {os.cpu_count()} cores visible, Python {platform.python_version()}")
    print(f"space: mean, add/remove, multisets of size 1..{a.max_size} over {{0..{a.top}}}")
    rows = {}
    sides = [m.strip() for m in a.sides.split(",")]
    for mode, tree in (("before", a.before_dir), ("delta", here), ("after", here)):
        if mode not in sides:
            continue
        rows[mode] = r = side(tree, mode, a.top, a.max_size, a.repeats)
        same = r["serial_answer"] == r["pool2_answer"] == r["dask2_answer"] == r["dask2tuned_answer"]
        if mode == "before":
            f = r["table_s"] / r["serial_s"]  # the pool's parent built the whole table
        else:
            f = r["driver16_s"] / r["serial_s"]
        infl = r["inflation16"]
        amdahl = 1 / (f + (1 - f) * infl / 16)
        label = {"before": "before", "delta": "after, key-arithmetic partitions (wide.ENABLED = False)",
                 "after": f"after, as the planner chooses: {r.get('strategy')}"}[mode]
        print(f"\n{label}: {r['datasets']:,} datasets; answers identical on all backends: {same}")
        print(f"  best of {a.repeats} alternating runs (median in brackets):")
        for name, what in (("serial", "serial"), ("pool2", "workers=2"),
                           ("dask2", "Dask LocalCluster(2), Dask's defaults"),
                           ("dask2tuned", "Dask LocalCluster(2), no malloc trim or profiler (cluster='local')")):
            paired = f"; median of paired runs {r[name + '_paired']:.2f}x" if name + "_paired" in r else ""
            print(f"    {what}: {r[name + '_s']:.2f} s ({r['serial_s'] / r[name + '_s']:.2f}x) "
                  f"[{r[name + '_median_s']:.2f} s, "
                  f"{r.get(name + '_serial_median_s', r['serial_median_s']) / r[name + '_median_s']:.2f}x]{paired}")
        for w in (2, 16):
            lo_i, hi_i = r[f"inflation{w}_range"]
            print(f"  partitions for {w:>2} workers: {r[f'parts{w}']:>3}, rows made "
                  f"{r[f'rows{w}']:.2f}x the space, work inflation {r[f'inflation{w}']:.2f} "
                  f"(median of {a.repeats} passes paired with a serial run; {lo_i:.2f}-{hi_i:.2f})")
        print(f"  serial fraction {f:.1%} ({'whole table in the parent' if mode == 'before' else 'plan, partition planning, combining'}); "
              f"Amdahl at 16 workers: {amdahl:.1f}x")
    answers = {r["serial_answer"] == rows[sides[0]]["serial_answer"] for r in rows.values()}
    print(f"\nanswers identical on every side measured ({', '.join(rows)}): {answers == {True}}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
