"""Checkers: exact sensitivity by enumeration, verdicts and witnesses."""

from exactdp.checkers.results import ClaimResult, Scope, SensitivityResult, Verdict, Witness
from exactdp.checkers.sensitivity import (
    DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, SensitivityCurve, assert_claim, claim_parameters,
    local_sensitivity, sensitivity, sensitivity_curve, verify_claim,
)

__all__ = [
    "ClaimResult", "Scope", "SensitivityResult", "Verdict", "Witness", "DEFAULT_MAX_DATASETS",
    "DEFAULT_MAX_PAIRS", "SensitivityCurve", "assert_claim", "claim_parameters",
    "local_sensitivity", "sensitivity", "sensitivity_curve", "verify_claim",
]
