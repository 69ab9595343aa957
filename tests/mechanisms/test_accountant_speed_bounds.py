"""The accountant's speed-ups at small sampling rates (issue 27, item 1) keep every bound.

Each new choice is checked against a reference built without it: the profile on a grid subset
(wider cells in the tails) against mpmath quadrature of one step and against the full grid's
pairs; the composed lattice trimmed at a tolerance against an exact composition in rationals;
the FLINT-held repeated squaring against the list-based products.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest

from exactdp.mechanisms.accounting import accountant as A
from exactdp.mechanisms.accounting.subsampling import (
    PoissonGaussian, _tails_float, grid_points, grid_subset, lattice_pairs,
)


def _mp(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _delta_one(q, mu, eps):
    """max over both directions of int (p - e^eps q)_+ for one step, by quadrature (30 digits)."""
    with mpmath.workdps(30):
        q, mu, e = _mp(q), _mp(mu), mpmath.exp(_mp(eps))
        phi = lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        mix = lambda x: (1 - q) * phi(x) + q * phi(x - mu)  # noqa: E731

        def threshold(ratio):  # where (1 - q) + q e^(mu x - mu^2/2) = ratio; None if always above
            return None if ratio <= 1 - q else (mpmath.log((ratio - (1 - q)) / q) + mu * mu / 2) / mu

        x = threshold(e)
        if x is None:
            remove = mpmath.quad(lambda t: mix(t) - e * phi(t), [-mpmath.inf, 0, mpmath.inf])
        else:
            remove = mpmath.quad(lambda t: mix(t) - e * phi(t), [x, x + 5, mpmath.inf])
        y = threshold(1 / e)
        add = mpmath.mpf(0) if y is None else mpmath.quad(lambda t: phi(t) - e * mix(t), [-mpmath.inf, y - 5, y])
        return max(remove, add)


def _evaluator(pairs: dict, m: int, k: int, trim: int = A._TRIM_ULPS):
    unit = A._Unit(Fraction(1, 2**m))
    return A._PairEvaluator(A._LatticeEvaluator(A._power(A._pair_lattice(pairs["lower"], trim), k, trim), unit),
                            [A._LatticeEvaluator(A._power(A._pair_lattice(pairs[d], trim), k, trim), unit)
                             for d in ("remove", "add")])


CASES = [(Fraction(1, 1000), Fraction(5, 3)), (Fraction(1, 1000), Fraction(1, 2)), (Fraction(1, 256), Fraction(5, 4)),
         (Fraction(1, 100), Fraction(1)), (Fraction(1, 10), Fraction(5, 3)), (Fraction(1, 10), Fraction(1, 2)),
         (Fraction(1, 2), Fraction(2)), (Fraction(1), Fraction(1))]


@pytest.mark.parametrize("q, mu", CASES)
def test_a_grid_subset_encloses_one_step(q, mu):
    """The pairs built on a subset of the grid (coarse cells in the tails, a tolerance far larger
    than the accountant uses) still enclose the quadrature of one step at every epsilon tried,
    and enclose it no tighter than the full grid does."""
    model, m, tol = PoissonGaussian(q, mu), 8, 1e-7
    coarse = lattice_pairs(model, m, 80, tail_bits=60, tol=tol)
    full = lattice_pairs(model, m, 80, tail_bits=60)
    sizes = [(len(grid_subset(model, d, m, *grid_points(model, d, Fraction(1, 2**m), 60), tol)),
              len(range(*grid_points(model, d, Fraction(1, 2**m), 60))) + 1) for d in ("remove", "add")]
    if q < 1:  # the subset leaves out most of the tails (the plain Gaussian keeps its lower side whole)
        assert all(sub < whole / 2 for sub, whole in sizes)
    ev_coarse, ev_full = _evaluator(coarse, m, 1), _evaluator(full, m, 1)
    for eps in (Fraction(0), Fraction(1, 64), Fraction(1, 4), Fraction(1), Fraction(5, 2)):
        truth = _delta_one(q, mu, eps)
        lo, hi = ev_coarse(eps)
        with mpmath.workdps(40):  # the quadrature holds about 25 digits
            assert _mp(lo) <= truth + mpmath.mpf(10) ** -25 and truth <= _mp(hi) + mpmath.mpf(10) ** -25
        flo, fhi = ev_full(eps)
        assert lo <= fhi and flo <= hi  # the two enclosures of the same number overlap
        assert hi - lo < Fraction(1, 100)  # and the subset's is not the trivial one


@pytest.mark.parametrize("q, mu", CASES[:5])
def test_a_grid_subset_encloses_the_composition(q, mu):
    """Composed 20 times, the subset's enclosure and the full grid's overlap (both hold the truth)."""
    model, m = PoissonGaussian(q, mu), 9
    a = _evaluator(lattice_pairs(model, m, 90, tail_bits=70, tol=1e-9), m, 20)
    b = _evaluator(lattice_pairs(model, m, 90, tail_bits=70), m, 20)
    for eps in (Fraction(1, 8), Fraction(1), Fraction(3)):
        (lo, hi), (flo, fhi) = a(eps), b(eps)
        assert lo <= hi and flo <= fhi and lo <= fhi and flo <= hi


def test_the_subset_rules():
    """The ends and the loss 0 are kept; every wide cell's estimated chord error is within the
    tolerance; a tolerance of 0 (and any model but the Gaussian) keeps every point."""
    model, m, tol = PoissonGaussian(Fraction(1, 1000), Fraction(5, 4)), 12, 1e-13
    h = 2.0**-m
    for d in ("remove", "add"):
        lo, hi = grid_points(model, d, Fraction(1, 2**m), 70)
        sub = grid_subset(model, d, m, lo, hi, tol)
        assert sub[0] == lo and sub[-1] == hi and (0 in sub or not lo < 0 < hi)
        assert sub == sorted(set(sub)) and len(sub) < (hi - lo + 1) / 4
        for i, j in zip(sub, sub[1:]):
            if j - i > 1:
                err = (math.exp(j * h) - math.exp(i * h)) * (_tails_float(model, d, i * h) - _tails_float(model, d, j * h)) / 4
                assert err <= tol and i % (j - i) == 0
                assert d == "add" or i >= 0  # the remove direction is whole below the loss 0
        assert grid_subset(model, d, m, lo, hi, 0.0) == list(range(lo, hi + 1))


def test_tails_in_floats_match_the_closed_form():
    model = PoissonGaussian(Fraction(1, 100), Fraction(1))
    # remove: Q[L > l] = Phi(-x0), x0 = (log((e^l - 1 + q)/q) + mu^2/2)/mu
    x0 = (math.log((math.exp(0.5) - 0.99) / 0.01) + 0.5) / 1
    assert _tails_float(model, "remove", 0.5) == pytest.approx(math.erfc(x0 / math.sqrt(2)) / 2, rel=1e-12)
    assert _tails_float(model, "remove", -0.02) == 1.0  # e^l <= 1 - q: always above
    assert _tails_float(model, "add", 0.02) == 0.0  # e^-l <= 1 - q: never


def _exact_delta(masses: dict, eps: Fraction) -> mpmath.mpf:
    with mpmath.workdps(60):
        return sum((_mp(p) * (1 - mpmath.exp(_mp(eps) - _mp(l))) for l, p in masses.items() if l > eps),
                   mpmath.mpf(0))


@pytest.mark.parametrize("seed", range(12))
def test_trimmed_tails_are_bounded_by_the_slack(seed):
    """A random distribution on a lattice, composed k times with tails trimmed at a tolerance of
    2**-20 of the mass (far above what the accountant trims): the enclosure holds the exact
    delta of the exact composition (rationals) at every epsilon tried, and the masses it keeps
    plus its slack are at least the whole mass."""
    rng = random.Random(seed)
    bits, n, k = 64, rng.randint(2, 9), rng.randint(2, 40)
    raw = [rng.randint(1, 1000) for _ in range(n)]
    w = [r * 2**bits // sum(raw) for r in raw]
    w[0] += 2**bits - sum(w)  # exact dyadic masses adding up to 1
    top = rng.randint(-2, 6)
    unit = Fraction(1, rng.choice([4, 8, 16]))
    lat = A._Lattice(w, top, 1, bits, 0)
    composed = A._power(lat, k, trim=2 ** (bits - 20))
    assert sum(composed.w) <= 2**bits <= sum(composed.w) + composed.slack
    exact = {top * unit - i * unit: Fraction(x, 2**bits) for i, x in enumerate(w)}
    dist = {Fraction(0): Fraction(1)}
    for _ in range(k):
        new: dict = {}
        for l1, p1 in dist.items():
            for l2, p2 in exact.items():
                new[l1 + l2] = new.get(l1 + l2, 0) + p1 * p2
        dist = new
    ev = A._LatticeEvaluator(composed, A._Unit(unit))
    for eps in (Fraction(0), unit / 3, Fraction(1, 2), Fraction(2)):
        lo, hi = ev(eps)
        truth = _exact_delta(dist, eps)
        with mpmath.workdps(60):
            assert _mp(lo) <= truth * (1 + mpmath.mpf(10) ** -40) and truth <= _mp(hi) * (1 + mpmath.mpf(10) ** -40)


@pytest.mark.parametrize("seed", range(20))
def test_the_flint_squarings_are_the_list_products(seed):
    """``_power`` holds its products as FLINT polynomials: the result is the same lattice (masses,
    top, slack) as the same products taken one by one with :func:`_multiply`, each trimming
    ``max(trim, per_step * n)`` ulps for a product of ``n`` steps."""
    rng = random.Random(seed)
    n, bits = rng.randint(1, 50), 64
    lat = A._Lattice([rng.getrandbits(rng.choice([3, 40, 64])) for _ in range(n)], rng.randint(-5, 50),
                     rng.choice([1, 2, 3]), bits, rng.getrandbits(10))
    k, trim = rng.randint(1, 70), rng.choice([64, 2**40])
    per_step, base_steps = rng.choice([0, 2**30, 2**44]), rng.randint(1, 3)
    result, base, left = None, (lat, base_steps), k
    while True:
        if left & 1:
            result = base if result is None else (
                A._multiply(result[0], base[0], max(trim, per_step * (result[1] + base[1]))), result[1] + base[1])
        left >>= 1
        if not left:
            break
        base = (A._multiply(base[0], base[0], max(trim, per_step * 2 * base[1])), 2 * base[1])
    got = A._power(lat, k, trim, per_step=per_step, base_steps=base_steps)
    want = result[0]
    assert (got.w, got.top, got.stride, got.bits, got.slack) == (want.w, want.top, want.stride, want.bits, want.slack)


def test_the_tolerances_of_a_grid():
    """delta = 1e-5 at width 1e-3, 1,000 steps of one part, 100 bits: 2 * (10 + 2) = 24 trims a
    lattice; a lattice of n steps trims per_step * n ulps at each end, per_step =
    floor(1e-8 * 2**100 / (256 * 2 * 24 * 1000)), which reaches the end 1000 / n times: in all at
    most 1e-8 / 256 of slack; a cell errs by 1e-8 / 8000."""
    allowed = Fraction(1, 10**5) * Fraction(1, 1000)
    per_step, tol = A._grid_tolerances(allowed, 100, 1000, 1)
    assert per_step == math.floor(allowed * 2**100 / (256 * 2 * 24 * 1000))
    assert 24 * 2 * per_step * 1000 <= allowed * 2**100 / 256
    assert tol == pytest.approx(1e-8 / 8000, rel=1e-12)
    assert A._grid_tolerances(Fraction(1, 10**300), 100, 10, 1)[0] == 0  # then only the few ulps of _TRIM_ULPS


def test_profile_points_at_a_small_rate_are_a_small_part_of_the_range():
    """q = 0.001, sigma = 0.6 at the grid 2**-14: the range holds about 10^5 points a direction; the
    subset the accountant encloses (delta 1e-5, width 1e-3, 10^5 steps) is under a tenth of it."""
    parts, m, tail = [(PoissonGaussian(Fraction(1, 1000), Fraction(5, 3)), 1)], 14, 80
    _, tol = A._grid_tolerances(Fraction(1, 10**8), 100, 10**5, 1)
    whole = sum(hi - lo + 1 for hi, lo in ((grid_points(parts[0][0], d, Fraction(1, 2**m), tail)[::-1])
                                            for d in ("remove", "add")))
    assert whole > 150_000
    assert A._profile_points(parts, m, tail, tol) < whole / 10


# --- profiles with likelihood-ratio classes: read at their kinks ------------------------------

from exactdp.mechanisms.accounting import profiles as P  # noqa: E402
from exactdp.mechanisms.accounting.subsampling import _lattice_pairs  # noqa: E402

_CLASS_CASES = [
    ("randomized-response", {"p": "0.75"}, 10),
    ("discrete-laplace", {"scale": 1}, 10),
    ("discrete-gaussian", {"sigma": 1}, 1),
    ("discrete-gaussian", {"sigma": 1}, 10),
]


@pytest.mark.parametrize("name, params, k", _CLASS_CASES)
def test_a_class_profile_read_at_its_kinks_gives_the_whole_grids_enclosure(monkeypatch, name, params, k):
    """H is a line between its kinks, so the pairs read at the points around each kink are the
    whole grid's: the same certified enclosure, to the last digit."""
    args = dict(delta="1e-6", params={**params, "sampling": "poisson", "rate": "0.01"}, width="1e-3")
    kinks = A.account(name, k, **args)
    monkeypatch.delattr(P.PoissonFinite, "kink_log_ratios")
    monkeypatch.delattr(P.PoissonDiscreteGaussian, "kink_log_ratios")
    whole = A.account(name, k, **args)
    assert (kinks.lower, kinks.upper) == (whole.lower, whole.upper) and kinks.width_met


def test_the_kink_subset_is_small_and_holds_every_kink():
    model = P.PoissonDiscreteGaussian(Fraction(1, 100), Fraction(1), 1)
    m = 14
    lo, hi = grid_points(model, "remove", Fraction(1, 2**m), 86)
    idx = grid_subset(model, "remove", m, lo, hi, 0.0)
    assert idx[0] == lo and idx[-1] == hi and 0 in idx and set(range(lo, 1)) <= set(idx)
    assert len(idx) * 50 < hi - lo + 1  # 129,523 grid points, a couple of thousand read
    # every kink (a class's loss, in exact arithmetic rounded to the grid) lies in a listed cell
    # whose both ends are listed
    h = Fraction(1, 2**m)
    for z in range(-8, 10):
        x = mpmath.mpf(2 * z - 1) / 2
        loss = mpmath.log(1 - mpmath.mpf("0.01") + mpmath.mpf("0.01") * mpmath.exp(x))
        n = int(mpmath.floor(loss / _mp(h)))
        if lo <= n < hi:
            assert n in idx and n + 1 in idx, z


def test_the_lower_pair_starts_after_every_point_below_the_line():
    """Was: at the grid 2**-14 the subsampled discrete Gaussian's lower pair was refused at every
    precision (a point below the line 1 - a after the start bent the hull at the fixed start), so
    finer grids fell back to the trivial lower pair and k = 30 stalled at width 1.1e-3 for 110 s."""
    model = P.PoissonDiscreteGaussian(Fraction(1, 100), Fraction(1), 1)
    for m in (14, 15):
        lower = _lattice_pairs(model, m, 70, 134, {}, 86)["lower"]
        assert len(lower.w) > 1000  # a certified pair, not the all-at-0 fallback
    r = A.account("discrete-gaussian", 30, delta="1e-6", width="1e-3",
                  params={"sigma": 1, "sampling": "poisson", "rate": "0.01"})
    # the enclosure the whole grid certified before: [0.70139..., 0.70217...]; now within the width
    assert r.width_met and r.lower > Fraction("0.70140") and r.upper < Fraction("0.70217")


# --- a curve against k: one pass over the steps ----------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_powers_built_from_the_last_one_hold_the_exact_composition(seed):
    """``_power`` with a squarings memo builds base**k from the last power kept (times
    base**(k - k'), the gap's power kept for the next k): at every k of an increasing list the
    enclosure holds the exact delta of the exact composition (rationals)."""
    rng = random.Random(100 + seed)
    bits, n = 64, rng.randint(2, 6)
    raw = [rng.randint(1, 1000) for _ in range(n)]
    w = [r * 2**bits // sum(raw) for r in raw]
    w[0] += 2**bits - sum(w)
    top, unit = rng.randint(-2, 4), Fraction(1, 8)
    lat = A._Lattice(w, top, 1, bits, 0)
    memo: dict = {}
    exact = {top * unit - i * unit: Fraction(x, 2**bits) for i, x in enumerate(w)}
    dist, done = {Fraction(0): Fraction(1)}, 0
    ks = sorted(rng.sample(range(1, 30), 4))
    for k in ks:
        composed = A._power(lat, k, trim=2 ** (bits - 24), squarings=memo)
        assert memo["last"][0] == k and sum(composed.w) <= 2**bits <= sum(composed.w) + composed.slack
        for _ in range(k - done):
            new: dict = {}
            for l1, p1 in dist.items():
                for l2, p2 in exact.items():
                    new[l1 + l2] = new.get(l1 + l2, 0) + p1 * p2
            dist = new
        done = k
        ev = A._LatticeEvaluator(composed, A._Unit(unit))
        for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
            lo, hi = ev(eps)
            truth = _exact_delta(dist, eps)
            with mpmath.workdps(60):
                assert _mp(lo) <= truth * (1 + mpmath.mpf(10) ** -40) and truth <= _mp(hi) * (1 + mpmath.mpf(10) ** -40)


def test_epsilons_over_steps_meet_each_k_alone():
    """The curve against k (one pass, squarings shared) gives, at every k, a certified enclosure
    within the width that meets the one account() gives for that k alone; the answers come back
    in the order asked, repeats included."""
    from exactdp.mechanisms.accounting.curve import PrivacyCurve

    params = {"sigma": 1, "sampling": "poisson", "rate": "0.01"}
    ks = [3000, 1000, 2000, 3000]
    got = PrivacyCurve("gaussian", params=params).epsilons_over_steps("1e-5", ks)
    assert [r.k for r in got] == ks and got[0] is got[3]
    for r in got:
        alone = A.account("gaussian", r.k, delta="1e-5", params=params)
        assert r.width_met and max(r.lower, alone.lower) <= min(r.upper, alone.upper)
    assert got[1].upper < got[2].lower  # epsilon grows with k


# --- large grids: the lattices composed in two processes ---------------------------------------


def _random_lattice(rng, bits=64):
    n = rng.randint(50, 400)
    raw = [rng.randint(1, 1000) for _ in range(n)]
    w = [r * 2**bits // sum(raw) for r in raw]
    w[0] += 2**bits - sum(w)
    return A._Lattice(w, rng.randint(-3, 3), 1, bits, 0)


def test_two_processes_compose_the_same_lattices():
    import multiprocessing

    rng = random.Random(7)
    jobs = {key: (_random_lattice(rng), rng.randint(2, 60), rng.choice([0, 3]), rng.randint(1, 3))
            for key in ("remove", "add", "lower")}
    serial = {key: A._power(lat, k, per_step=per_step, base_steps=steps) for key, (lat, k, per_step, steps) in jobs.items()}
    both = A._powers_in_two_processes(jobs)
    assert set(both) == set(serial)
    for key in serial:
        assert (both[key].w, both[key].top, both[key].slack) == (serial[key].w, serial[key].top, serial[key].slack)
    assert multiprocessing.active_children() == []


def test_an_error_in_the_child_is_raised_here_and_no_process_is_left(monkeypatch):
    import multiprocessing

    real = A._power

    def failing(lat, k, **kw):
        if k == 7:
            raise ValueError("a product failed")
        return real(lat, k, **kw)

    monkeypatch.setattr(A, "_power", failing)
    rng = random.Random(8)
    big, small = _random_lattice(rng), _random_lattice(rng)
    # the larger job stays here, the smaller one (k = 7) goes to the child
    big.w.extend([0] * 1000)
    with pytest.raises(ValueError, match="a product failed"):
        A._powers_in_two_processes({"remove": (big, 3, 0, 1), "lower": (small, 7, 0, 1)})
    assert multiprocessing.active_children() == []


def test_a_large_grid_gives_the_serial_enclosure(monkeypatch):
    """DP-SGD at q = 0.001, sigma = 0.6, k = 100 (its composed lattices about 87,000 points):
    the enclosure with the lattices composed in two processes is the serial one."""
    params = {"sigma": "0.6", "sampling": "poisson", "rate": "0.001"}
    both = A.account("gaussian", 100, delta="1e-5", params=params)
    monkeypatch.setattr(A, "_PARALLEL_POINTS", 10**12)
    serial = A.account("gaussian", 100, delta="1e-5", params=params)
    assert (both.lower, both.upper) == (serial.lower, serial.upper) and both.width_met
