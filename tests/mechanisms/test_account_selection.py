"""Selection mechanisms in the accountant: through their worst-case pure epsilon, as the
randomized-response pair that dominates every eps-DP mechanism (a sound bound only)."""

from __future__ import annotations

import pytest

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account


@pytest.mark.parametrize("name, params, worst", [
    ("exponential", {"epsilon": "1/10"}, "1/10"),
    ("exponential", {"epsilon": "1/10", "form": "monotone"}, "1/5"),
    ("permute-and-flip", {"epsilon": "1/10"}, "1/10"),
    ("report-noisy-max", {"epsilon": "1/10", "noise": "exponential"}, "1/10"),
])
def test_composed_as_randomized_response_at_the_worst_case_epsilon(name, params, worst):
    mine = account([(name, params), ("discrete-laplace", {"scale": 10})], 100, delta="1e-6")
    rr = account([("randomized-response", {"epsilon": worst}), ("discrete-laplace", {"scale": 10})], 100,
                 delta="1e-6")
    assert (mine.epsilon_lower, mine.epsilon_upper) == (rr.epsilon_lower, rr.epsilon_upper)
    assert mine.upper_only and not rr.upper_only
    assert f"worst-case pure epsilon {worst}" in mine.notes and "sound, not tight" in mine.notes


def test_a_number_below_the_bound_is_undecided_not_violated():
    r = account(("permute-and-flip", {"epsilon": "1/2"}), 10, delta="1e-6")
    assert r.check("3").verdict == "undecided"  # the mechanism's own curve may be lower
    assert r.check("5").verdict == "holds"
    assert "pair that dominates" in r.check("3").message()
    assert r.to_dict()["upper_only"] is True
    assert "at most" in str(r)


@pytest.mark.parametrize("params, message", [
    ({"epsilon": "1/2", "form": "other"}, "form='other' is not 2delta or monotone"),
    ({"sensitivity": 1}, "epsilon"),
    ({"epsilon": "-1"}, "epsilon='-1' is not positive"),
])
def test_bad_selection_parameters(params, message):
    with pytest.raises(InvalidArgument, match=message):
        account(("exponential", params), 3, delta="1e-6")
