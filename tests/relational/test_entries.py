"""Every seed-001 catalogue entry re-checked by enumeration; verdicts and witnesses were
derived by hand (see proofs/s001-*.md) before being compared with the output."""

from __future__ import annotations

from collections import Counter

import pytest
import sympy

from exactdp._proofs import load_proofs, stale
from exactdp.checkers.results import Verdict
from exactdp.relational.entries import entries, private_join_truth
from exactdp.relational.tables import symmetric_difference
from exactdp.symbolic.catalogue import ENTRY_MODULES, check_entry

ENTRIES = {e.id: e for e in entries()}
CHECKS = {}


def checked(entry_id):
    if entry_id not in CHECKS:
        CHECKS[entry_id] = check_entry(ENTRIES[entry_id])
    return CHECKS[entry_id]


# (id, published verdict, first witness parameters, formula value there, exact value there)
EXPECTED = [
    ("s001/flat-map/add-max-rows", Verdict.HOLDS_TIGHT, {"n": 1, "F": 3}, 3, 3),
    ("s001/public-join/add-max-rows", Verdict.HOLDS_TIGHT, {"n": 1, "m": 2}, 2, 2),
    ("s001/drop-excess/add-max-rows", Verdict.HOLDS_TIGHT, {"n": 1, "T": 1}, 2, 2),
    ("s001/drop-excess/key-only-table", Verdict.HOLDS, {"n": 1, "T": 1, "V": 1}, 2, 1),
    ("s001/drop-non-unique/add-max-rows", Verdict.HOLDS_TIGHT, {"n": 1}, 1, 1),
    ("s001/private-join/add-max-rows", Verdict.HOLDS_TIGHT,
     {"T_l": 2, "S_l": 2, "T_r": 2, "S_r": 2, "M_l": 1, "M_r": 1}, 8, 8),
    ("s001/private-join/one-key", Verdict.HOLDS,
     {"T_l": 2, "S_l": 2, "T_r": 2, "S_r": 2, "K": 1}, 8, 6),
    ("s001/private-join/unique-key-left", Verdict.HOLDS,
     {"T_l": 2, "S_l": 2, "R_l": 1, "T_r": 2, "S_r": 2}, 8, 4),
    ("s001/private-join/docstring-swapped", Verdict.VIOLATED,
     {"T_l": 1, "M_l": 2, "T_r": 2, "M_r": 1}, 8, 10),
    ("s001/max-rows-per-id/count-l1", Verdict.HOLDS_TIGHT, {"r": 4}, 4, 4),
    ("s001/max-rows-per-id/count-l2", Verdict.HOLDS_TIGHT, {"r": 4}, 4, 4),
    ("s001/groups-rows-per-id/count-laplace", Verdict.HOLDS_TIGHT, {"r": 2, "g": 3}, 6, 6),
    ("s001/groups-rows-per-id/count-gaussian", Verdict.HOLDS_TIGHT, {"r": 2, "g": 3},
     2 * sympy.sqrt(3), 2 * sympy.sqrt(3)),
]


UNPUBLISHED = ["s001/max-rows-per-id/sum-l1", "s001/max-rows-per-id/sum-l2"]


def test_every_entry_is_expected_and_in_the_catalogue():
    assert sorted(ENTRIES) == sorted([e[0] for e in EXPECTED] + UNPUBLISHED)
    assert "exactdp.relational.entries" in ENTRY_MODULES   # catalogue() imports entries()


@pytest.mark.parametrize("entry_id, verdict, params, formula, exact", EXPECTED)
def test_entry_verdict_and_witness(entry_id, verdict, params, formula, exact):
    c = checked(entry_id)
    assert c.ok, str(c)
    assert (c.derived_verdict, c.derived_tight) == (Verdict.HOLDS_ON_GRID, True)
    # bit-exact-grid evidence: holds-on-grid, tight (attained on some binding) apart
    if verdict is Verdict.VIOLATED:
        assert (c.published_verdict, c.published_tight) == (Verdict.VIOLATED, False)
    else:
        assert (c.published_verdict, c.published_tight) == (Verdict.HOLDS_ON_GRID,
                                                             verdict is Verdict.HOLDS_TIGHT)
    w = c.published_witness
    assert {k: w.params[k] for k in params} == params
    assert (w.formula_value, w.truth.value) == (formula, exact)
    assert c.to_dict()["verdict"] == c.published_verdict.value
    # the pair really is a neighbouring pair whose outputs are `exact` apart
    pair = w.truth.witness
    assert pair.distance == exact
    if isinstance(pair.fx[0] if pair.fx else (), int):            # group-by vectors
        diff = [a - b for a, b in zip(pair.fx, pair.fx_prime)]
        norm = sum(map(abs, diff)) if "l2" not in entry_id and "gaussian" not in entry_id \
            else sympy.sqrt(sum(d * d for d in diff))
        assert norm == exact
        assert len({r.pid for r in pair.x_prime[0]} ^ {r.pid for r in pair.x[0]}) == 1
    else:
        assert symmetric_difference(pair.fx, pair.fx_prime) == exact
        budgets = [w.params.get(k, w.params.get("n")) for k in ("M_l", "M_r")][:len(pair.x)]
        for before, after, budget in zip(pair.x, pair.x_prime, budgets):
            assert symmetric_difference(before, after) <= budget


@pytest.mark.parametrize("entry_id", UNPUBLISHED)
def test_clamped_sum_entries_derived_tight_everywhere(entry_id):
    c = checked(entry_id)
    assert c.published_verdict is None and c.verdict is None and c.ok
    assert (c.derived_verdict, c.derived_tight) == (Verdict.HOLDS_ON_GRID, True)
    assert c.instances == 18
    # r = 2 rows clamped to L = -3 (|L| > |U| = 1) in one group: sum -6, both norms 6
    truth = ENTRIES[entry_id].truth({"r": 2, "L": -3, "U": -1, "norm": entry_id[-2:]})
    assert truth.value == 6
    assert truth.witness.fx_prime in ((-6, 0), (0, -6))


def test_docstring_formula_violation_witness_by_hand():
    # left: DropExcess(1), 2 rows may change; right: DropExcess(2), 1 row may change.
    # Each left change displaces one row next to 2 right rows (2*2 each, 8 in all); the
    # right change displaces one of 2 right rows next to 1 left row (2); 10 > 8.
    w = checked("s001/private-join/docstring-swapped").published_witness
    pair = w.truth.witness
    assert pair.distance == 10
    assert sum((Counter(pair.fx) - Counter(pair.fx_prime)).values()) == 5
    assert sum((Counter(pair.fx_prime) - Counter(pair.fx)).values()) == 5


def test_seed_values_8_4_6_and_the_unique_users_case():
    base = {"M_l": 1, "M_r": 1, "K": 2, "V_l": 2, "V_r": 2, "R_r": 3}
    for tl, sl, rl, expected in ((2, 2, 3, 8), (1, 1, 2, 4), (1, 2, 2, 6),
                                 (2, 2, 1, 4), (1, 2, 1, 4)):
        truth = private_join_truth({**base, "T_l": tl, "S_l": sl, "R_l": rl, "T_r": 2, "S_r": 2})
        assert truth.value == expected


def test_one_key_values_by_hand():
    # (T_l, S_l, T_r, S_r): max(T_r*S_l, T_l*S_r, two displacements 2*(T_l + T_r - 1))
    base = {"M_l": 1, "M_r": 1, "K": 1, "V_l": 2, "V_r": 2}
    for tl, sl, tr, sr, expected in ((2, 2, 2, 2, 6), (1, 2, 2, 2, 4), (1, 1, 2, 2, 2),
                                     (1, 1, 1, 1, 1), (2, 2, 1, 1, 2)):
        truth = private_join_truth({**base, "T_l": tl, "S_l": sl, "T_r": tr, "S_r": sr,
                                    "R_l": tl + 1, "R_r": tr + 1})
        assert truth.value == expected


def test_gaussian_entry_keeps_the_irrational_value_exact():
    e = ENTRIES["s001/groups-rows-per-id/count-gaussian"]
    truth = e.truth({"r": 2, "g": 3, "K": 4, "rows_per_id": 7, "constraint": "groups",
                     "norm": "l2"})
    assert truth.value == 2 * sympy.sqrt(3)
    assert sorted(truth.witness.fx_prime) == [0, 2, 2, 2]   # r rows in each of g groups


def test_every_entry_has_a_fresh_proof_covering_its_code():
    proofs = [p for p in load_proofs() if p.path.name.startswith("s001-")]
    assert proofs
    for p in proofs:
        assert stale(p) == [], p.path.name
    proved = {c for p in proofs for c in p.catalogue}
    covered = {c for p in proofs for c in p.covers}
    for e in ENTRIES.values():
        assert e.id in proved
        assert set(e.covers) <= covered, e.id
