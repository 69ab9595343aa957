"""Checkers: exact sensitivity by enumeration, verdicts and witnesses, and the search for
float witnesses (neighbouring datasets whose float sum moves more than a claim)."""

from exactdp._lazy import exports_of, lazy_exports

_EXPORTS = exports_of({
    "exactdp.checkers.float_witness": (
        "FloatVerdict", "FloatWitness", "FloatWitnessResult", "naive_sum_claim", "search_float_witness"),
    "exactdp.checkers.search": ("SearchResult", "SearchVerdict", "search_claim"),
    "exactdp.checkers.graph": (
        "GraphQuery", "assert_graph_claim", "graph_sensitivity", "make_query", "verify_conversion",
        "verify_graph_claim"),
    "exactdp.checkers.results": ("ClaimResult", "Scope", "SensitivityResult", "Verdict", "Witness"),
    "exactdp.checkers.sensitivity": (
        "DEFAULT_MAX_DATASETS", "DEFAULT_MAX_PAIRS", "SensitivityCurve", "assert_claim",
        "claim_parameters", "local_sensitivity", "sensitivity", "sensitivity_curve", "verify_claim"),
})
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
