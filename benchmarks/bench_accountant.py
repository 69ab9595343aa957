"""The certified accountant side by side with Google's dp_accounting (PLD) and Microsoft's
prv_accountant: their numbers against exactdp's certified enclosure, and the times.

    python benchmarks/bench_accountant.py                                  # all in this env
    python benchmarks/bench_accountant.py --other-python /tmp/benchvenv/bin/python
    python benchmarks/bench_accountant.py --grid        # issue 27's 64 DP-SGD configurations

The two libraries are benchmark-only dependencies (not in pyproject). With
``--other-python`` they run in that interpreter (a scratch venv with
``pip install dp_accounting prv_accountant``), called once per case as a child process
that prints JSON; exactdp runs here.

DP-SGD cases (issue 17): the Poisson-subsampled Gaussian, add/remove neighbours, q = 0.01,
sigma = 1, k = 1000 and 10000 (width 1e-3), and q = 2^-8, sigma = 0.8, k = 10^5 (width 1e-2),
against dp_accounting's PLD (pessimistic and optimistic, intervals 1e-2..1e-4) and RDP, and
prv_accountant (eps_error 0.01), and Opacus's RDP, PRV and GDP accountants where importable
(Opacus needs torch: give its environment as a second ``--other-python``, e.g.
``--other-python /tmp/acct/bin/python --other-python /tmp/opacusvenv/bin/python``; each
interpreter's numbers are merged). ``--only DP-SGD`` runs only those.

Cases (the issue's targets): discrete Laplace P(z) ∝ exp(-0.1|z|) (scale t = 10,
sensitivity 1) at delta = 1e-6, k = 100, 1000, 10000 (width 1e-9 relative); the discrete
Gaussian sigma = 10 at delta = 1e-6, k = 1000 (width 1e-6). prv_accountant has neither
mechanism: for the discrete Laplace it runs ``PureDPMechanism(0.1)``, whose privacy-loss
distribution (+-0.1 with probabilities e^0.1/(1+e^0.1), 1/(1+e^0.1)) is exactly the
discrete Laplace's at sensitivity 1; for the discrete Gaussian it runs the continuous
``GaussianMechanism(10)`` (an approximation, marked as such).

For each number another accountant reports: ``inside`` (within the certified enclosure),
``BELOW`` (below the certified lower bound: an underestimate of epsilon) or ``above``
(conservative), and its distance to the enclosure.
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

CASES = [
    {"name": "discrete-laplace t=10", "mech": "discrete-laplace", "params": {"scale": 10}, "k": 100,
     "delta": "1e-6", "width": "1e-9"},
    {"name": "discrete-laplace t=10", "mech": "discrete-laplace", "params": {"scale": 10}, "k": 1000,
     "delta": "1e-6", "width": "1e-9"},
    {"name": "discrete-laplace t=10", "mech": "discrete-laplace", "params": {"scale": 10}, "k": 10000,
     "delta": "1e-6", "width": "1e-9"},
    {"name": "discrete-gaussian sigma=10", "mech": "discrete-gaussian", "params": {"sigma": 10}, "k": 1000,
     "delta": "1e-6", "width": "1e-6"},
    # DP-SGD: the Poisson-subsampled Gaussian (add/remove), the issue-17 targets
    {"name": "DP-SGD q=0.01 sigma=1", "mech": "gaussian",
     "params": {"sigma": 1, "sampling": "poisson", "rate": "0.01"}, "k": 1000, "delta": "1e-6", "width": "1e-3"},
    {"name": "DP-SGD q=0.01 sigma=1", "mech": "gaussian",
     "params": {"sigma": 1, "sampling": "poisson", "rate": "0.01"}, "k": 10000, "delta": "1e-6", "width": "1e-3"},
    {"name": "DP-SGD q=2^-8 sigma=0.8", "mech": "gaussian",
     "params": {"sigma": "0.8", "sampling": "poisson", "rate": "1/256"}, "k": 100000, "delta": "1e-6",
     "width": "1e-2"},
    # the continuous Laplace mechanism, alone and Poisson-subsampled (issue 17, part 1-2)
    {"name": "laplace b=10", "mech": "laplace", "params": {"scale": 10}, "k": 100, "delta": "1e-6",
     "width": "1e-3"},
    {"name": "subsampled laplace q=0.01 b=1", "mech": "laplace",
     "params": {"scale": 1, "sampling": "poisson", "rate": "0.01"}, "k": 1000, "delta": "1e-6", "width": "1e-3"},
]


# --- the other accountants (run in whichever interpreter has them) ---------------------------


def _other(case: dict) -> dict:
    if case["mech"] == "laplace":
        return _other_laplace(case)
    if case["params"].get("sampling") == "poisson":
        return _other_dpsgd(case)
    out: dict = {}
    k, delta = case["k"], float(case["delta"])
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld

        for pessimistic in (True, False):
            t0 = time.perf_counter()
            if case["mech"] == "discrete-laplace":
                p = pld.from_discrete_laplace_mechanism(1 / case["params"]["scale"], sensitivity=1,
                                                        pessimistic_estimate=pessimistic,
                                                        value_discretization_interval=1e-4)
            else:
                p = pld.from_discrete_gaussian_mechanism(case["params"]["sigma"], sensitivity=1,
                                                         pessimistic_estimate=pessimistic,
                                                         value_discretization_interval=1e-4)
            eps = p.self_compose(k).get_epsilon_for_delta(delta)
            key = "dp_accounting " + ("pessimistic" if pessimistic else "optimistic")
            out[key] = {"epsilon": repr(eps), "seconds": time.perf_counter() - t0}
    except ImportError as e:
        out["dp_accounting"] = {"error": f"not installed ({e})"}
    try:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import GaussianMechanism, PureDPMechanism

        t0 = time.perf_counter()
        if case["mech"] == "discrete-laplace":
            prv, label = PureDPMechanism(eps=1 / case["params"]["scale"]), "PureDPMechanism(0.1): same PLD"
        else:
            prv, label = GaussianMechanism(noise_multiplier=case["params"]["sigma"]), "continuous Gaussian(10)"
        acc = PRVAccountant(prvs=[prv], max_self_compositions=[k], eps_error=1e-3, delta_error=1e-10)
        lo, est, up = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
        secs = time.perf_counter() - t0
        for name, v in (("lower", lo), ("estimate", est), ("upper", up)):
            out[f"prv_accountant {name}"] = {"epsilon": repr(float(v)), "seconds": secs, "note": label}
    except ImportError as e:
        out["prv_accountant"] = {"error": f"not installed ({e})"}
    except Exception as e:  # noqa: BLE001  (report whatever it raised)
        out["prv_accountant"] = {"error": f"{type(e).__name__}: {e}"}
    return out


def _other_dpsgd(case: dict) -> dict:
    """dp_accounting's PLD (pessimistic and optimistic at three intervals) and RDP, and
    prv_accountant, on the Poisson-subsampled Gaussian composed k times."""
    out: dict = {}
    k, delta = case["k"], float(case["delta"])
    sigma, q = float(Fraction(str(case["params"]["sigma"]))), float(Fraction(case["params"]["rate"]))
    try:
        from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
        from dp_accounting.pld import privacy_loss_distribution as pld
        from dp_accounting.rdp import RdpAccountant

        intervals = (1e-2, 1e-3, 1e-4) if k <= 10_000 else (1e-2, 1e-3)
        for interval in intervals:
            for pessimistic in (True, False):
                t0 = time.perf_counter()
                p = pld.from_gaussian_mechanism(sigma, sampling_prob=q, pessimistic_estimate=pessimistic,
                                                value_discretization_interval=interval)
                eps = p.self_compose(k).get_epsilon_for_delta(delta)
                key = f"dp_accounting PLD {'pessimistic' if pessimistic else 'optimistic'} {interval:g}"
                out[key] = {"epsilon": repr(float(eps)), "seconds": time.perf_counter() - t0}
        t0 = time.perf_counter()
        rdp = RdpAccountant()
        rdp.compose(SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), k))
        out["dp_accounting RDP"] = {"epsilon": repr(float(rdp.get_epsilon(delta))), "seconds": time.perf_counter() - t0}
    except ImportError as e:
        out["dp_accounting"] = {"error": f"not installed ({e})"}
    try:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

        t0 = time.perf_counter()
        acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=q)],
                            max_self_compositions=[k], eps_error=0.01, delta_error=1e-10)
        lo, est, up = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
        secs = time.perf_counter() - t0
        for name, v in (("lower", lo), ("estimate", est), ("upper", up)):
            out[f"prv_accountant {name} (0.01)"] = {"epsilon": repr(float(v)), "seconds": secs}
    except ImportError as e:
        out["prv_accountant"] = {"error": f"not installed ({e})"}
    except Exception as e:  # noqa: BLE001  (report whatever it raised)
        out["prv_accountant"] = {"error": f"{type(e).__name__}: {e}"}
    out.update(_opacus_dpsgd(q, sigma, k, delta))
    return out


def _opacus_dpsgd(q: float, sigma: float, k: int, delta: float) -> dict:
    """Opacus's accountants as its DPOptimizer drives them (one step per training step, then
    get_epsilon(delta) at their defaults): RDP and PRV (upper bounds), GDP (a CLT approximation)."""
    import warnings

    out: dict = {}
    try:
        from opacus.accountants import create_accountant
    except ImportError as e:
        return {"Opacus": {"error": f"not installed ({e})"}}
    for name in ("rdp", "prv", "gdp"):
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                acc = create_accountant(mechanism=name)
                for _ in range(k):
                    acc.step(noise_multiplier=sigma, sample_rate=q)
                eps = acc.get_epsilon(delta)
            out[f"Opacus {name.upper()}" + (" (approx.)" if name == "gdp" else "")] = {
                "epsilon": repr(float(eps)), "seconds": time.perf_counter() - t0}
        except Exception as e:  # noqa: BLE001  (report whatever it raised)
            out[f"Opacus {name.upper()}"] = {"error": f"{type(e).__name__}: {e}"}
    return out


def _other_laplace(case: dict) -> dict:
    """dp_accounting's PLD (pessimistic and optimistic at two intervals) and RDP on the Laplace
    mechanism, Poisson-subsampled or not, composed k times (prv_accountant has no subsampled
    Laplace)."""
    out: dict = {}
    k, delta = case["k"], float(case["delta"])
    scale = float(Fraction(str(case["params"]["scale"])))
    q = float(Fraction(case["params"].get("rate", "1")))
    try:
        from dp_accounting import LaplaceDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
        from dp_accounting.pld import privacy_loss_distribution as pld
        from dp_accounting.rdp import RdpAccountant

        for interval in (1e-3, 1e-4):
            for pessimistic in (True, False):
                t0 = time.perf_counter()
                p = pld.from_laplace_mechanism(scale, sampling_prob=q, pessimistic_estimate=pessimistic,
                                               value_discretization_interval=interval)
                eps = p.self_compose(k).get_epsilon_for_delta(delta)
                key = f"dp_accounting PLD {'pessimistic' if pessimistic else 'optimistic'} {interval:g}"
                out[key] = {"epsilon": repr(float(eps)), "seconds": time.perf_counter() - t0}
        t0 = time.perf_counter()
        event = LaplaceDpEvent(scale) if q == 1 else PoissonSampledDpEvent(q, LaplaceDpEvent(scale))
        rdp = RdpAccountant()
        try:
            rdp.compose(SelfComposedDpEvent(event, k))
            out["dp_accounting RDP"] = {"epsilon": repr(float(rdp.get_epsilon(delta))),
                                        "seconds": time.perf_counter() - t0}
        except Exception as e:  # noqa: BLE001  (an event it does not support)
            out["dp_accounting RDP"] = {"error": f"{type(e).__name__}: {e}"}
    except ImportError as e:
        out["dp_accounting"] = {"error": f"not installed ({e})"}
    return out


def _others(case: dict, pythons: list[str] | None) -> dict:
    """The other accountants' numbers, from each interpreter in turn (the first that has a
    library gives its numbers; "not installed" only where none has it)."""
    if not pythons:
        return _other(case)
    merged: dict = {}
    for python in pythons:
        for name, v in _other_in(case, python).items():
            if name not in merged or ("error" in merged[name] and "error" not in v):
                merged[name] = v
    return {name: v for name, v in merged.items()
            if not ("error" in v and v["error"].startswith("not installed") and len(pythons) > 1)}


def _other_in(case: dict, python: str) -> dict:
    proc = subprocess.run([python, __file__, "--child", json.dumps(case)], capture_output=True, text=True,
                          timeout=1200)
    if proc.returncode:
        return {"child": {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- the issue-27 grid (--grid) ---------------------------------------------------------------

GRID_RATES = ("0.001", "0.01", "1/256", "0.1")
GRID_SIGMAS = ("0.6", "0.8", "1", "2")
GRID_STEPS = (100, 1000, 10**4, 10**5)
GRID_DELTA = "1e-5"
GRID_WIDTH = "1e-3"
GRID_OTHERS = ("PLD 1e-2", "PLD 1e-3", "PLD 1e-4", "RDP", "PRV 1e-2", "PRV 1e-3")


def _grid_one(job: dict) -> dict:
    """One accountant on one grid configuration (run in a child process): epsilon, wall and CPU
    seconds (the libraries imported before the clock starts)."""
    q, sigma, k, who = job["q"], job["sigma"], job["k"], job["who"]
    qf, sf, delta = float(Fraction(q)), float(Fraction(sigma)), float(GRID_DELTA)
    if who == "exactdp":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        from exactdp.mechanisms.accounting.accountant import account
    elif who == "RDP":
        from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
        from dp_accounting.rdp import RdpAccountant
    elif who.startswith("PLD"):
        from dp_accounting.pld import privacy_loss_distribution as pld
    else:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism
    t0, c0 = time.perf_counter(), time.process_time()
    if who == "exactdp":
        r = account("gaussian", k, delta=GRID_DELTA, params={"sigma": sigma, "sampling": "poisson", "rate": q},
                    width=GRID_WIDTH)
        out = {"lower": str(r.lower), "upper": str(r.upper), "met": r.width_met, "bits": r.bits, "points": r.slots}
    elif who.startswith("PLD"):
        p = pld.from_gaussian_mechanism(sf, sampling_prob=qf, pessimistic_estimate=True,
                                        value_discretization_interval=float(who.split()[1]))
        out = {"epsilon": repr(float(p.self_compose(k).get_epsilon_for_delta(delta)))}
    elif who == "RDP":
        rdp = RdpAccountant()
        rdp.compose(SelfComposedDpEvent(PoissonSampledDpEvent(qf, GaussianDpEvent(sf)), k))
        out = {"epsilon": repr(float(rdp.get_epsilon(delta)))}
    else:
        acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=sf, sampling_probability=qf)],
                            max_self_compositions=[k], eps_error=float(who.split()[1]), delta_error=1e-10)
        out = {"epsilon": repr(float(acc.compute_epsilon(delta=delta, num_self_compositions=[k])[2]))}
    return {**out, "seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def _grid_run(job: dict, python: str, timeout: float) -> dict:
    try:
        proc = subprocess.run([python, __file__, "--grid-child", json.dumps(job)], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    if proc.returncode:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def grid(pythons: list[str] | None, timeout: float, only: str | None) -> int:
    """The 64 configurations of issue 27 (q x sigma x k, delta 1e-5, width 1e-3): exactdp, then
    dp_accounting's PLD (pessimistic; intervals 1e-2, 1e-3, 1e-4) and RDP and prv_accountant's
    upper epsilon (eps_error 1e-2, 1e-3), each in its own child process (wall and CPU seconds),
    each other number placed inside, BELOW or above exactdp's certified enclosure."""
    other = (pythons or [sys.executable])[0]
    print(f"machine: {_machine()}")
    print(f"date: {time.strftime('%Y-%m-%d')}; delta {GRID_DELTA}, exactdp width {GRID_WIDTH}; "
          f"PRV's number is its upper epsilon; per-call timeout {timeout:g} s")
    print("q, sigma, k | exactdp [lower, upper] wall s (CPU s) points | each other: epsilon where wall s")
    worst = []
    for q in GRID_RATES:
        for sigma in GRID_SIGMAS:
            for k in GRID_STEPS:
                if only and only not in f"{q},{sigma},{k}":
                    continue
                job = {"q": q, "sigma": sigma, "k": k}
                r = _grid_run({**job, "who": "exactdp"}, sys.executable, timeout)
                if "error" in r:
                    print(f"{q}, {sigma}, {k} | exactdp {r['error']}", flush=True)
                    continue
                lo, hi = Fraction(r["lower"]), Fraction(r["upper"])
                line = (f"{q}, {sigma}, {k} | exactdp [{float(lo):.6g}, {float(hi):.6g}] "
                        f"{'met' if r['met'] else 'NOT MET'} {r['seconds']:.2f} s ({r['cpu']:.2f}) "
                        f"{r['points']:,} pts")
                prv3 = None
                for who in GRID_OTHERS:
                    v = _grid_run({**job, "who": who}, other, timeout)
                    if "error" in v:
                        line += f" | {who}: {v['error']}"
                        continue
                    e = Fraction(v["epsilon"])
                    where = "inside" if lo <= e <= hi else ("BELOW" if e < lo else "above")
                    line += f" | {who}: {float(e):.6g} {where} {v['seconds']:.2f} s ({v['cpu']:.2f})"
                    if who == "PRV 1e-3":
                        prv3 = v["seconds"]
                worst.append((r["seconds"], r["cpu"], prv3, f"{q}, {sigma}, {k}"))
                print(line, flush=True)
    worst.sort(reverse=True)
    print("\nslowest exactdp (wall s, CPU s, PRV 1e-3 wall s):")
    for secs, cpu, prv, name in worst[:8]:
        print(f"  {name}: {secs:.2f} ({cpu:.2f}) against PRV {prv if prv is None else round(prv, 2)}")
    return 0


# --- exactdp ------------------------------------------------------------------------------------


def _exactdp(case: dict, repeat: int) -> tuple:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from exactdp.mechanisms.accounting.accountant import account

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = account(case["mech"], case["k"], delta=case["delta"], params=case["params"], width=case["width"])
        times.append(time.perf_counter() - t0)
    return r, min(times)


def _where(value: Fraction, lo: Fraction, hi: Fraction) -> str:
    if value < lo:
        return f"BELOW by {float(lo - value):.3g} (underestimate)"
    if value > hi:
        return f"above by {float(value - hi):.3g}"
    return "inside"


def _machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores; "
            f"Python {platform.python_version()}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other-python", action="append",
                    help="interpreter with dp_accounting / prv_accountant (or Opacus) installed; repeatable")
    ap.add_argument("--repeat", type=int, default=3, help="exactdp runs per case (best time reported)")
    ap.add_argument("--only", help="run only the cases whose name contains this text")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--grid", action="store_true", help="the 64 DP-SGD configurations of issue 27 (--only 'q,sigma,k')")
    ap.add_argument("--timeout", type=float, default=300, help="seconds for each call in --grid")
    ap.add_argument("--grid-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.grid_child:
        print(json.dumps(_grid_one(json.loads(args.grid_child))))
        return 0
    if args.grid:
        return grid(args.other_python, args.timeout, args.only)
    if args.child:
        print(json.dumps(_other(json.loads(args.child))))
        return 0
    print(f"machine: {_machine()}")
    print(f"date: {time.strftime('%Y-%m-%d')}")
    for python in args.other_python or ():
        ver = subprocess.run([python, "-c", "import importlib.metadata as m\nfor d in ('dp_accounting', "
                              "'prv_accountant', 'opacus', 'torch'):\n    try: print(d, m.version(d), end=' ')\n"
                              "    except m.PackageNotFoundError: pass"], capture_output=True, text=True)
        print(f"others in {python}: {ver.stdout.strip() or ver.stderr.strip()}")
    for case in [c for c in CASES if args.only is None or args.only in c["name"]]:
        r, secs = _exactdp(case, args.repeat)
        lo, hi = r.decimal_bounds()
        print(f"\n{case['name']}, k={case['k']}, delta={case['delta']}")
        print(f"  exactdp certified  epsilon in [{lo}, {hi}]  relative width {float(r.relative_width()):.2e} "
              f"(target {case['width']}, met: {r.width_met}); {r.bits} bits, {r.slots:,} lattice points; "
              f"{secs:.3f} s (best of {args.repeat})")
        for name, v in _others(case, args.other_python).items():
            if "error" in v:
                print(f"  {name:<28} {v['error']}")
                continue
            e = Fraction(v["epsilon"])  # the float's exact value
            note = f"  [{v['note']}]" if "note" in v else ""
            print(f"  {name:<28} {float(e)!r:<22} {_where(e, r.lower, r.upper):<36} "
                  f"{v['seconds']:.3f} s{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
