"""Severity steps of diffprivlib's tools.mean and tools.var (``--depth full``), on a reduced grid."""

from fractions import Fraction

import pytest

pytest.importorskip("diffprivlib")

from exactdp.audits import suite_diffprivlib as S  # noqa: E402

B52 = 2.0**52


@pytest.fixture(scope="module")
def steps():
    mp = pytest.MonkeyPatch()
    mp.setattr(S, "_MEANVAR_FAMILY", ((B52, B52 + 1),))
    mp.setattr(S, "_MEANVAR_SIZES", (16,))
    mp.setattr(S, "_SUM_BUDGET", 40)
    try:
        yield {tool: S._meanvar_severity(tool)() for tool in ("mean", "var")}
    finally:
        mp.undo()


def test_mean_severity(steps):
    sv = steps["mean"]
    assert sv.measure == "|mean(x') - mean(x)|"
    assert sv.claim == Fraction(6004799503160661, 18014398509481984)  # fl(1/3)
    assert sv.worst == 1 and sv.ratio == 1 / sv.claim
    assert sv.replay.value == "confirmed" and sv.evidence.value == "bit-exact" and sv.status == "exceeds"
    assert sv.witness["x"] == [[B52 + 1, 3]] and sv.witness["x_prime"] == [[B52, 1], [B52 + 1, 2]]
    assert all(r["replayed"] for r in sv.witness["by_bounds_and_size"])


def test_var_severity(steps):
    sv = steps["var"]
    assert sv.measure == "|var(x') - var(x)|"
    assert sv.claim == Fraction(2001599834386887, 9007199254740992)
    assert sv.worst == Fraction(6004799503160661, 9007199254740992) and sv.ratio == 3
    assert sv.replay.value == "confirmed" and sv.status == "exceeds"
    assert sv.witness["n"] == 3 and sv.witness["bounds"] == [B52, B52 + 1]


def test_mean_and_var_audits_carry_their_steps():
    by_id = {a.id: a for a in S.audits()}
    for tool in ("mean", "var"):
        assert by_id[f"diffprivlib/tools/{tool}/float-rounding"].severity is not None
