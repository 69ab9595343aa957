"""Every result type a user gets back renders in Jupyter as an HTML card that says what its
text says: the verdict (as a coloured badge), the values, the witness and the scope."""

from __future__ import annotations

import html
import re

from exactdp import IntegerRange, Multisets, check_mechanism, make_mechanism, sensitivity, sensitivity_curve, verify_claim
from exactdp._display import badge_class, card
from exactdp.audits.base import AuditResult
from exactdp.mechanisms import PrivacyCurve, account

SPACE = Multisets(IntegerRange(2, 5), sizes=(0, 3))


def _text(markup: str) -> str:
    """The visible text of a card, tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def test_a_violated_claim_shows_its_verdict_value_witness_and_scope():
    r = verify_claim("U - L", "sum", SPACE)
    markup = r._repr_html_()
    assert 'class="exactdp-verdict"' in markup and "#f6d2d2" in markup  # violated: red
    text = _text(markup)
    assert "sum: claim U - L = 3" in text and "violated" in text
    assert "x=[], x'=[5]: f(x)=0, f(x')=5" in text
    assert "all 35 multisets of size 0..3 over {2..5}; SymmetricDistance <= 1" in text and "bit-exact" in text


def test_a_sensitivity_and_a_curve():
    r = sensitivity("sum", SPACE)
    assert "sum: sensitivity 5" in _text(r._repr_html_())
    curve = sensitivity_curve("sum", SPACE, d_ins=(1, 2))
    text = _text(curve._repr_html_())
    assert "d_in" in text and re.search(r"\b2\s+10\b", text)  # d_in 2: sensitivity 10


def test_a_privacy_result():
    m = make_mechanism("randomized-response", p="3/4")
    r = check_mechanism(m, "count", Multisets(IntegerRange(0, 1), sizes=(0, 1)), epsilon="1")
    text = _text(r._repr_html_())
    assert "randomized-response(p=3/4, k_values=2)" in text and r.verdict.value in text


def test_an_accountant_result_and_a_curve():
    r = account("discrete-laplace", 10, delta="1e-6", params={"scale": 10})
    lo, hi = r.decimal_bounds()
    text = _text(r._repr_html_())
    assert f"[{lo}, {hi}]" in text and "certified" in text and "k=10 times" in text
    curve = PrivacyCurve("gaussian", 10, params={"sigma": 2})
    assert "PrivacyCurve: gaussian(sigma=2), k=10" in _text(curve._repr_html_())


def test_an_audit_result_escapes_what_a_suite_wrote():
    r = AuditResult(id="x/<script>", library="lib", version="1.0", component="c", claim="U - L",
                    truth="U", verdict="violated", witness={"x": "[]"}, replay="confirmed")
    markup = r._repr_html_()
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "lib 1.0: x/<script>" in _text(markup)


def test_badges():
    assert [badge_class(v) for v in ("holds-tight", "holds-on-grid", "violated", "vacuous", "undecided")] == [
        "pass", "pass", "fail", "none", "undecided"]
    assert "&amp;" in card("a & b", rows=[("k", "v")])


def test_a_catalogue_entry_check_renders_its_verdicts_and_witness():
    """The catalogue's checks (exactdp.symbolic.catalogue.check_entry) render as a card: the
    published formula's verdict as the badge, the derived one's, the witness and the grid."""
    from exactdp.symbolic.catalogue import catalogue, check_entry

    entry = next(e for e in catalogue() if e.id == "s000/sum/bounded-values")
    check = check_entry(entry)
    shown = check._repr_html_()
    assert check.verdict.value == "violated" and ">violated</span>" in shown
    assert html.escape(str(check.witness)) in shown and "bindings" in shown
    assert html.escape(f"{entry.derived}: {check.derived_verdict.value}") in shown


def test_a_built_in_statement_claim():
    from exactdp import registry

    r = registry.claim("s002/exercise/graph/node-count").check()
    markup = r._repr_html_()
    text = _text(markup)
    assert "holds-tight" in text and "#dcefdc" in markup  # holds: green
    assert "the node count changes by at most 1" in text and "1,450 graphs" in text


def test_a_search_result_says_it_is_not_a_proof_when_nothing_is_found():
    from exactdp import search_claim

    found = search_claim("U - L", "sum", "2..6", (0, 3), budget=200, seed=1)
    text = _text(found._repr_html_())
    assert "violated" in text and "seed=1" in text and str(found.witness) in text
    quiet = search_claim("U", "sum", "0..6", (0, 3), budget=50, seed=1)
    text = _text(quiet._repr_html_())
    assert "not-found" in text and "a search, not a proof" in text


def test_an_rdp_result_shows_its_orders():
    from exactdp.mechanisms.accounting.rdp import rdp

    r = rdp("gaussian", 10, params={"sigma": 2}, orders="2,4")
    text = _text(r._repr_html_())
    assert "Renyi DP" in text and "rho = 5/4 exactly" in text
    assert re.search(r"\b2\s+5/2\s+5/2\b", text) or "2.5" in text  # order 2: 10 * 2/(2*4)


def test_an_audit_report_lists_each_audit():
    from exactdp.audits.report import Report

    rows = (AuditResult(id="lib/a", library="lib", version="1.0", component="sum", claim="U - L",
                        truth="U", verdict="violated", witness={"x": "[]"}, replay="confirmed"),
            AuditResult(id="lib/b", library="lib", version="1.0", component="count", claim="1",
                        truth="1", verdict="holds", evidence="bit-exact"))
    markup = Report("lib", "lib", "1.0", rows)._repr_html_()
    text = _text(markup)
    assert "exactdp audit lib: lib 1.0" in text and "#f6d2d2" in markup  # a violation: red
    assert "lib/a" in text and "lib/b" in text and "confirmed" in text and "bit-exact" in text


def test_a_conversion_a_relation_mismatch_and_a_data_dependent_result():
    from exactdp import Sequences, verify_conversion
    from exactdp.checkers.data_dependent import DataDependentSum, check_data_dependent
    from exactdp.registry.seed004 import seed004_typical_relations

    conv = verify_conversion(Sequences(IntegerRange(0, 1), size=2), "insert-delete", "hamming", 2, 1)
    text = _text(conv._repr_html_())
    assert "violated" in text and "x=(0, 1), x'=(1, 0)" in text and "exact maximum" in text
    mismatch = seed004_typical_relations()
    text = _text(mismatch._repr_html_())
    assert mismatch.verdict.value in text and mismatch.stated.describe() in text
    dd = check_data_dependent(DataDependentSum("min-max", epsilon=1), Multisets(IntegerRange(0, 2), sizes=(1, 2)))
    text = _text(dd._repr_html_())
    assert "data-dependent clipped sum: worst loss" in text and dd.witness_text() in text


def test_a_float_witness_search():
    from exactdp import search_float_witness

    r = search_float_witness("sequential", "float32", (0, 1), max_n=10_000, claim=1)
    markup = r._repr_html_()
    text = _text(markup)
    assert "sequential sum in float32: claim 1" in text and "violated" in text and "#f6d2d2" in markup
    assert str(r.witness).splitlines()[0] in text and "bit-exact" in text
