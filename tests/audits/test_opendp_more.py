"""The OpenDP audits of ordered data, the b-ary tree and the mean, run against the
installed OpenDP: models checked bit for bit, witnesses asserted exactly."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import suite_opendp as suite  # noqa: E402
from exactdp.audits.base import Replay  # noqa: E402
from exactdp.checkers.results import Evidence, Verdict  # noqa: E402
from exactdp.errors import InvalidArgument, LibraryCallFailed  # noqa: E402

IS_016 = od.version().startswith("0.16.")
on_016 = pytest.mark.skipif(not IS_016, reason="verdicts and witnesses pinned for OpenDP 0.16")


@pytest.fixture
def contrib():
    with od.features("contrib") as flipped:
        yield flipped


def _audit(audit_id):
    (a,) = [a for a in suite.audits() if a.id == audit_id]
    return a


def _truth(f):
    """The exact part of a finding's truth (the suite puts OpenDP's values in front)."""
    opendp, exact = f.truth.split(" | exact: ")
    assert opendp == f"OpenDP: {f.claim}"
    return exact


def _tree(T, leaf_count, branching_factor):
    return dp.t.make_b_ary_tree(dp.vector_domain(dp.atom_domain(T=T)), dp.l1_distance(T=T),
                                leaf_count=leaf_count, branching_factor=branching_factor)


# -- the b-ary tree model against OpenDP ---------------------------------------------------------

@pytest.mark.parametrize("T, bits", [("i32", 32), ("i64", 64)])
def test_b_ary_tree_model_matches_opendp_bit_for_bit(contrib, T, bits):
    """1,000 seeded inputs: every leaf count 1..10, branching factors 2..5, inputs shorter
    and longer than leaf_count, values near the wrap-around points."""
    rng = random.Random(bits)
    lo, hi = -2 ** (bits - 1), 2 ** (bits - 1) - 1
    edge = (lo, lo + 1, -1, 0, 1, hi - 1, hi)
    for lc in range(1, 11):
        for bf in range(2, 6):
            t = _tree(T, lc, bf)
            for _ in range(25):
                n = rng.randint(0, lc + 3)
                x = [rng.choice((rng.randint(lo, hi), rng.choice(edge), rng.randint(-3, 3)))
                     for _ in range(n)]
                assert t(x) == od.b_ary_tree_model(x, T, lc, bf), (lc, bf, x)


def test_b_ary_tree_pads_and_drops_trailing_zeros_as_opendp(contrib):
    t = _tree("i32", 5, 2)
    assert t([1, 2]) == od.b_ary_tree_model([1, 2], "i32", 5, 2) == [3, 3, 0, 3, 0, 0, 0, 1, 2]
    assert t([2**31 - 1, 1]) == [-2**31, -2**31, 0, -2**31, 0, 0, 0, 2**31 - 1, 1]   # wraps


@on_016
def test_opendp_refuses_integers_narrower_than_32_bits(contrib):
    for T in ("i8", "i16", "u8", "u16"):
        with pytest.raises(LibraryCallFailed, match="No match for concrete type"):
            od.run("vector_domain", dp.vector_domain, dp.atom_domain(T=T))


@on_016
def test_b_ary_tree_audit_witness():
    f = _audit("opendp/b-ary-tree/i32").check()
    assert f.verdict is Verdict.VIOLATED and f.replay is Replay.CONFIRMED
    assert f.claim == "d_in=1: 3; d_in=2: 6"
    assert _truth(f) == "d_in=1: 8589934591; d_in=2: 8589934592"
    # a leaf moves by 1; its parent and the root wrap from 2**31 - 1 to -2**31
    assert f.witness == {"x": [-2**31, -1, 0], "x_prime": [-2**31, 0, 0],
                         "fx": [2**31 - 1, 2**31 - 1, 0, -2**31, -1, 0],
                         "fx_prime": [-2**31, -2**31, 0, -2**31, 0, 0],
                         "distance": str(2 * (2**32 - 1) + 1), "d_in": 1, "claim": "3"}
    assert "bit for bit on 200 seeded random inputs" in f.note


# -- ordered data --------------------------------------------------------------------------------

def test_sequence_pairs_and_distances():
    pairs = set(od.sequence_pairs((0, 1), (2,), "insert-delete", 2))
    assert ((0, 1), (1, 0)) in pairs and ((0, 0), (1, 1)) not in pairs   # 2 vs 4 edits
    assert len(pairs) == 4 * 3 - 2
    assert not set(od.sequence_pairs((0, 1), (2,), "insert-delete", 1))
    assert set(od.sequence_pairs((0, 1), (1, 2), "hamming", 1)) == {((0,), (1,)), ((1,), (0,)),
        ((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 1), (0, 0)), ((0, 1), (1, 1)),
        ((1, 0), (0, 0)), ((1, 0), (1, 1)), ((1, 1), (0, 1)), ((1, 1), (1, 0))}
    assert od.insert_delete([0, 1, 2], [1, 2, 3]) == 2 and od.hamming([0, 1, 2], [1, 2, 3]) == 3
    assert od.change_one_distance([0, 1, 2], [1, 2, 3]) == 1 and od.l1([0, 5], [1, 3]) == 3
    assert list(od.l1_neighbours((0, 1, 5), 1, 4)) == [((0,), (1,)), ((1,), (0,)), ((1,), (5,)),
                                                       ((5,), (1,))]
    with pytest.raises(InvalidArgument, match="'symmetric'"):
        list(od.sequence_pairs((0,), (1,), "symmetric", 1))
    with pytest.raises(InvalidArgument, match="infinite across lengths"):
        od.hamming([0], [0, 1])


@on_016
def test_insert_delete_to_hamming_is_halved_2926():
    f = _audit("opendp/convert/insert-delete-to-hamming").check()
    assert f.verdict is Verdict.VIOLATED and f.replay is Replay.CONFIRMED
    assert f.claim == "d_in=1: 0; d_in=2: 1; d_in=3: 1; d_in=4: 2"
    assert _truth(f) == "d_in=1: 0; d_in=2: 3; d_in=3: 3; d_in=4: 3"   # = exactdp's closed form
    # delete the first record and append one: two edits, every position differs
    assert f.witness == {"x": [0, 1, 0], "x_prime": [1, 0, 1], "fx": [0, 1, 0],
                         "fx_prime": [1, 0, 1], "distance": "3", "d_in": 2, "claim": "1"}
    assert f.note.startswith("exactdp's graph engine (verify_conversion over the same Sequences) "
                             "finds d_in=1: 0; d_in=2: 3; d_in=3: 3; d_in=4: 3;")


@on_016
@pytest.mark.parametrize("audit_id, claim", [
    ("opendp/convert/hamming-to-insert-delete", "d_in=1: 2; d_in=2: 4; d_in=3: 6"),
    ("opendp/convert/unordered-insert-delete", "d_in=1: 1; d_in=2: 2; d_in=3: 3"),
    ("opendp/convert/unordered-hamming", "d_in=1: 1; d_in=2: 2; d_in=3: 3"),
    ("opendp/resize/insert-delete-to-symmetric", "d_in=1: 2; d_in=2: 4"),
])
def test_conversions_that_hold_tight(audit_id, claim):
    f = _audit(audit_id).check()
    assert (f.verdict, f.claim, _truth(f), f.witness) == (Verdict.HOLDS_TIGHT, claim, claim, None)
    # enumerated on a small grid of sequences: tight there, and said so
    assert (f.evidence, f.tight, f.enforced().verdict) == (Evidence.BIT_EXACT_GRID, True, Verdict.HOLDS_ON_GRID)


@on_016
def test_resize_ordered_shuffles_only_short_inputs_2927(contrib):
    t = dp.t.make_resize(dp.vector_domain(dp.atom_domain(T=int)), dp.insert_delete_distance(),
                         size=3, constant=0, MO="InsertDeleteDistance")
    assert {tuple(t([0, 1, 1, 0])) for _ in range(50)} == {(0, 1, 1)}     # kept in order
    f = _audit("opendp/resize/insert-delete-ordered").check()
    assert f.verdict is Verdict.VIOLATED and f.replay is Replay.CONFIRMED
    assert f.claim == "d_in=1: 2; d_in=2: 4" and _truth(f) == "d_in=1: >= 4; d_in=2: >= 4"
    # x is shuffled: (1, 0, 0) is one of its outputs; x' (one more record) is cut to (0, 1, 1)
    assert f.witness == {"x": [0, 1, 0], "x_prime": [0, 1, 1, 0], "fx": [1, 0, 0],
                         "fx_prime_outputs": [[0, 1, 1]], "distance": "4", "d_in": 1,
                         "claim": "2"}
    assert od.insert_delete([1, 0, 0], [0, 1, 1]) == 4


# -- the mean ------------------------------------------------------------------------------------

def test_mean_model_matches_opendp(contrib):
    rng = random.Random(7)
    for n in (1, 2, 3, 7, 64, 1000):
        t = dp.t.make_mean(dp.vector_domain(dp.atom_domain(bounds=(-3.0, 5.0)), size=n),
                           dp.symmetric_distance())
        for _ in range(30):
            x = [rng.choice((rng.uniform(-3, 5), 5.0, -3.0, 0.1, rng.random() * 2.0 ** -40))
                 for _ in range(n)]
            assert t(x) == od.mean_model(x, (-3.0, 5.0)), (n, x)
    with pytest.raises(InvalidArgument, match="empty"):
        od.mean_model([], (0.0, 1.0))


@on_016
def test_mean_audit_holds():
    f = _audit("opendp/mean/float").check()
    assert f.verdict is Verdict.HOLDS and f.witness is None and f.evidence is Evidence.EMPIRICAL_MODEL
    assert f.enforced().verdict is Verdict.HOLDS_EMPIRICAL_MODEL
    assert f.claim == ("n=3: 6004799503160679/18014398509481984 (~0.33333333333333431); "
                       "n=1000: 4611686018448823/4611686018427387904 (~0.001000000000004648)")
    # the largest change over every order at n = 3, one record changed in place
    x, x_prime = [0.0, 0.5, 0.7], [1.0, 0.5, 0.7]
    moved = od.exact(od.mean_model(x_prime, (0.0, 1.0))) - od.exact(od.mean_model(x, (0.0, 1.0)))
    assert moved == F(6004799503160663, 18014398509481984) > F(1, 3)
    assert _truth(f).startswith(f"n=3: {suite._txt(moved)} (largest pair of OpenDP's own outputs: ")
    assert "matched OpenDP on every n = 3 input and on 100 random inputs of 1000 values" in f.note
