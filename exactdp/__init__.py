"""exactdp: check differential-privacy sensitivity claims with exact arithmetic.

>>> from exactdp import Multisets, IntegerRange, sensitivity
>>> sensitivity("mean", Multisets(IntegerRange(0, 4), sizes=(1, 3))).value
Fraction(2, 1)
"""

from exactdp.checkers import (
    ClaimResult, Scope, SensitivityCurve, SensitivityResult, Verdict, Witness, assert_claim,
    claim_parameters, local_sensitivity, search_float_witness, sensitivity, sensitivity_curve,
    verify_claim,
)
from exactdp.errors import (
    ClaimViolated, ExactDPError, InexactInput, InvalidArgument, SpaceMismatch, TooLarge,
    Undecided, UndefinedQuery,
)
from exactdp.checkers.privacy import PrivacyResult, check_mechanism
from exactdp.mechanisms import BudgetExceeded, BudgetLedger
from exactdp.mechanisms.distribution import Distribution
from exactdp.mechanisms.mechanism import Mechanism, make_mechanism
from exactdp.numeric import float_at_least, float_at_most, from_float, to_exact
from exactdp.queries import Query
from exactdp.spaces import (
    ChangeDistance, DatasetSpace, ExactSet, IntegerRange, Multisets, SubMultisets,
    SymmetricDistance, ValueUniverse,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "ClaimResult", "Scope", "SensitivityCurve", "SensitivityResult", "Verdict", "Witness",
    "assert_claim", "claim_parameters", "local_sensitivity", "sensitivity",
    "sensitivity_curve", "verify_claim", "search_float_witness", "ClaimViolated", "ExactDPError",
    "InexactInput",
    "InvalidArgument", "SpaceMismatch", "TooLarge", "Undecided", "UndefinedQuery",
    "BudgetExceeded", "BudgetLedger", "float_at_least", "float_at_most", "from_float", "to_exact",
    "Query", "ChangeDistance", "DatasetSpace", "ExactSet", "IntegerRange", "Multisets",
    "SubMultisets", "SymmetricDistance", "ValueUniverse", "PrivacyResult", "check_mechanism",
    "Distribution", "Mechanism", "make_mechanism",
]
