"""Every proof names code that exists and is pinned to its current source; every catalogue
entry has a proof."""

import pytest

from exactdp import _proofs
from exactdp.symbolic.catalogue import catalogue

PROOFS = _proofs.load_proofs()


@pytest.mark.parametrize("proof", PROOFS, ids=[p.path.name for p in PROOFS])
def test_proof_is_current(proof):
    assert _proofs.stale(proof) == []


def test_every_catalogue_entry_has_a_proof_and_every_proof_names_real_entries():
    ids = {e.id for e in catalogue()}
    proved = {c for p in PROOFS for c in p.catalogue}
    assert sorted(ids - proved) == []
    assert sorted(proved - ids) == []


def test_every_builtin_privacy_claim_has_a_proof_and_every_proof_names_real_claims():
    from exactdp.registry import claims

    ids = {c.id for c in claims("privacy")}
    proved = {c for p in PROOFS for c in p.claims}
    assert sorted(ids - proved) == []
    assert sorted(proved - ids) == []


def test_a_changed_source_is_reported(tmp_path):
    good = _proofs.source_hash("exactdp.numeric.exact.to_exact")
    doc = tmp_path / "x.md"
    doc.write_text(f"# T\n\n- covers: `exactdp.numeric.exact.to_exact`\n- source-hash: `{good}`\n")
    assert _proofs.stale(_proofs.load_proofs(tmp_path)[0]) == []
    doc.write_text("# T\n\n- covers: `exactdp.numeric.exact.to_exact`\n- source-hash: `0000000000000000`\n")
    [problem] = _proofs.stale(_proofs.load_proofs(tmp_path)[0])
    assert "changed" in problem and "python -m exactdp._proofs hash exactdp.numeric.exact.to_exact" in problem
    doc.write_text("# T\n\n- covers: `exactdp.numeric.exact.no_such_thing`\n- source-hash: `0000000000000000`\n")
    [problem] = _proofs.stale(_proofs.load_proofs(tmp_path)[0])
    assert "cannot be read" in problem
    doc.write_text("# T\n\nno header\n")
    assert "no '- covers" in _proofs.stale(_proofs.load_proofs(tmp_path)[0])[0]
