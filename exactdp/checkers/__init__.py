"""Checkers: exact sensitivity by enumeration, verdicts and witnesses, and the search for
float witnesses (neighbouring datasets whose float sum moves more than a claim)."""

from exactdp.checkers.float_witness import (
    FloatVerdict, FloatWitness, FloatWitnessResult, naive_sum_claim, search_float_witness,
)
from exactdp.checkers.search import SearchResult, SearchVerdict, search_claim
from exactdp.checkers.results import ClaimResult, Scope, SensitivityResult, Verdict, Witness
from exactdp.checkers.sensitivity import (
    DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, SensitivityCurve, assert_claim, claim_parameters,
    local_sensitivity, sensitivity, sensitivity_curve, verify_claim,
)

__all__ = [
    "FloatVerdict", "FloatWitness", "FloatWitnessResult", "naive_sum_claim", "search_float_witness",
    "ClaimResult", "Scope", "SensitivityResult", "Verdict", "Witness", "DEFAULT_MAX_DATASETS",
    "DEFAULT_MAX_PAIRS", "SensitivityCurve", "assert_claim", "claim_parameters",
    "local_sensitivity", "sensitivity", "sensitivity_curve", "verify_claim",
    "SearchResult", "SearchVerdict", "search_claim",
]
