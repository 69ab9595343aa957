"""Float-sum simulation: run-length simulators vs. summing the expanded data.

The witness search evaluates float sums of datasets with millions of records stored as runs
``(value, count)``. Its simulators (``exactdp/checkers/_float_sim.py``) skip through runs of
equal values; the baselines expand the runs and sum record by record:

- ``float_sum_float`` (exactdp's own bit-exact per-record fast path, Python floats), and
- NumPy doing the real thing (``np.cumsum(..., dtype=float32)[-1]`` is the sequential
  float32 sum; ``np.sum`` is NumPy's pairwise sum), timed *without* building the array.

All answers are compared (they must be identical bit for bit). Run:
``python benchmarks/bench_floatsum.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from exactdp.checkers._float_sim import Grid, simulate  # noqa: E402
from exactdp.numeric.floatformat import format_named  # noqa: E402
from exactdp.numeric.floatsum import float_sum_float  # noqa: E402


def _best(fn, repeat):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def case(model, dtype, runs, repeat):
    fmt = format_named(dtype)
    grid = Grid(fmt)
    unit_runs = [(grid.units(Fraction(v)), c) for v, c in runs]
    t_sim, m = _best(lambda: simulate(model, grid, unit_runs), repeat)
    ours = float(grid.value(m))
    values = [v for v, c in runs for _ in range(c)]
    t_py, py = _best(lambda: float_sum_float(values, model, dtype), 1)
    arr = np.array(values, dtype=np.float32 if dtype == "float32" else np.float64)
    if model == "sequential":
        t_np, npv = _best(lambda: float(np.cumsum(arr, dtype=arr.dtype)[-1]), repeat)
    else:
        t_np, npv = _best(lambda: float(np.sum(arr)), repeat)
    assert ours == py == npv, (model, dtype, ours, py, npv)
    n = sum(c for _, c in runs)
    print(f"{model:<10} {dtype:<7} n={n:>10,}  run-length {t_sim * 1e3:9.3f} ms   "
          f"per-record python {t_py * 1e3:10.1f} ms ({t_py / t_sim:8.0f}x)   "
          f"numpy {t_np * 1e3:8.2f} ms ({t_np / t_sim:6.1f}x)   result {ours!r}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {platform.python_version()}, "
          f"numpy {np.__version__}, {time.strftime('%Y-%m-%d')}")
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000, 10_000_000]
    tiny32 = float(np.float32(1.25 * 2 ** -12))
    for n in sizes:
        half = n // 2
        case("sequential", "float32", [(1.0, half), (tiny32, n - half)], 5)
        case("pairwise", "float64", [(0.5, half), (1.25 * 2 ** -53, n - half)], 5)
        case("sequential", "float64", [(0.1, n)], 5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
