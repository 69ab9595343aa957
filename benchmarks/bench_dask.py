"""The Dask engine (issue 12 part 3): pairs per second on an embedded LocalCluster against
the serial engine on the same space, the memory of a worker's table slice per dataset,
the largest space run here, and whether 10^8 datasets pass the budgets on N workers.

    python benchmarks/bench_dask.py [--big]      # needs the dask extra

Results: benchmarks/results-dask-2026-11-24.txt.
"""

from __future__ import annotations

import logging
import resource
import subprocess
import sys
import time

from exactdp import IntegerRange, Multisets
from exactdp.checkers.sensitivity import sensitivity
from exactdp.engine import partitions as _dask
from exactdp.engine.plan import make_plan as _setup

WORKERS = 2


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def part_a(client) -> None:
    print("A. the same space: serial (one process, NumPy table) against Dask (2 workers)")
    print(f"{'space':<38} {'query':<7} {'datasets':>10} {'pairs':>12} {'serial s':>9} "
          f"{'dask s':>8} {'serial Mp/s':>11} {'dask Mp/s':>9} same")
    for q, space in [("mean", Multisets(IntegerRange(0, 11), sizes=(0, 8))),
                     ("median", Multisets(IntegerRange(0, 11), sizes=(0, 8))),
                     ("mean", Multisets(IntegerRange(0, 15), sizes=(0, 8)))]:
        a, ts = timed(lambda: sensitivity(q, space, undefined="exclude", max_pairs=None,
                                          max_datasets=None))
        b, td = timed(lambda: sensitivity(q, space, undefined="exclude", max_pairs=None,
                                          max_datasets=None, cluster=client))
        same = a.value == b.value and a.witness == b.witness and a.scope.pairs == b.scope.pairs
        p = a.scope.pairs
        print(f"{space.describe():<38} {q:<7} {space.count():>10,} {p:>12,} {ts:>9.2f} "
              f"{td:>8.2f} {p / ts / 1e6:>11.2f} {p / td / 1e6:>9.2f} {same}")


SLICE = """
import resource, sys
from exactdp import IntegerRange, Multisets
from exactdp.engine import partitions as _dask
from exactdp.queries import parse_query
space = Multisets(IntegerRange(0, {m}), sizes=(0, {n}))
query = parse_query("mean")
codec = _dask.codec(query, space, space, {n} + 2)
moves = __import__("exactdp.spaces.metrics", fromlist=["x"]).as_metric(None).moves({m} + 1, 1)
spec = dict(query=query, space=space, ambient=space, base=codec.base,
            deltas=codec.deltas(moves, True), halve=True, policy="exclude")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = _dask.scan_partition(spec, [()], [])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(r["size"], (after - before) * 1024)
"""


def part_b() -> None:
    print("\nB. memory of one worker's slice (peak RSS growth of a process scanning one slice)")
    for m, n in [(15, 8), (19, 7), (15, 10)]:
        out = subprocess.run([sys.executable, "-c", SLICE.format(m=m, n=n)], capture_output=True,
                             text=True, check=True).stdout.split()
        size, grown = int(out[0]), int(out[1])
        print(f"  mean, {size:>10,} datasets: {grown / 2**20:8.1f} MiB, {grown / size:6.0f} bytes "
              f"per dataset")


def part_c(client, big: bool) -> None:
    print("\nC. the largest spaces run here through Dask (2 workers)")
    cases = [(Multisets(IntegerRange(0, 15), sizes=(0, 10)), 3_000_000)]
    if big:  # 10 M datasets: over 2 x 3 M, so 6 M per worker (about 1.4 GB each)
        cases.append((Multisets(IntegerRange(0, 19), sizes=(0, 9)), 6_000_000))
    for space, per in cases:
        r, t = timed(lambda: sensitivity("mean", space, undefined="exclude", max_pairs=None,
                                         max_datasets=per, cluster=client))
        print(f"  max_datasets={per:,} per worker")
        print(f"  mean on {space.describe()}: {space.count():,} datasets, {r.scope.pairs:,} pairs, "
              f"{t:.1f} s ({r.scope.pairs / t / 1e6:.2f} Mpairs/s), sensitivity {r.value}")


def part_d() -> None:
    print("\nD. 10^8 datasets and the budgets (counts only: accepted, not computed)")
    from exactdp.spaces.metrics import as_metric

    per_d, per_p = 3_000_000, 50_000_000  # the default budgets, per worker on a cluster
    for m, b in [(10, 24), (24, 10)]:
        space = Multisets(IntegerRange(0, m - 1), sizes=(0, b))
        n = space.count()
        est = n * as_metric(None).count_moves(m, 1)  # the pair estimate (datasets x moves)
        need = max(-(-n // per_d), -(-est // per_p))
        print(f"  {space.describe()}: {n:,} datasets, {est:,} candidate pairs at d_in=1")
        for workers in (2, need - 1, need):
            try:
                _setup("mean", space, None, [1], "standard", "exclude", per_d * workers,
                       per_p * workers, False, False, build=False)
                verdict = "accepted"
            except Exception as e:  # noqa: BLE001 - the refusal is the measurement
                verdict = f"refused ({type(e).__name__}: {str(e)[:60]}...)"
            print(f"    on {workers:>3} workers (default budgets x workers): {verdict}")
        moves = [mv for mv in as_metric(None).moves(m, 1) if len(mv[1]) >= len(mv[0])]
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        (j, prefixes, parts), t = timed(lambda: _dask.plan_partitions(space, space, moves, n,
                                                                      need, per_d))
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        total = sum(p[3] for p in parts)
        print(f"    partitions for {need} workers: {len(prefixes):,} prefixes of up to {j} counts, "
              f"{len(parts):,} partitions, largest slice {max(p[3] for p in parts):,} datasets "
              f"(own + halo; all slices {total / n:.2f} x the space), planned on the driver in "
              f"{t:.2f} s (+{grown:.0f} MiB)")


def main() -> None:
    import distributed

    big = "--big" in sys.argv
    part_d()
    part_b()
    t = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    print(f"\nLocalCluster of {WORKERS} workers started in {time.perf_counter() - t:.1f} s")
    try:
        part_a(client)
        part_c(client, big)
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
