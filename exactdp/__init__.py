"""exactdp: check differential-privacy sensitivity claims with exact arithmetic.

>>> from exactdp import Multisets, IntegerRange, sensitivity
>>> sensitivity("mean", Multisets(IntegerRange(0, 4), sizes=(1, 3))).value
Fraction(2, 1)
"""

import os as _os
import sys as _sys

# ``python -m exactdp`` runs this file first, with the working directory at the front of
# sys.path, where a file named like a module exactdp imports (typing.py, sympy.py, ...)
# would be imported in its place: drop that entry before importing anything. Only for
# ``-m exactdp`` itself (sys.argv[0] is "-m" until runpy has found the module); the
# ``exactdp`` script never has the entry, and PYTHONSAFEPATH, -P and -I leave it out.
if (_sys.argv[:1] == ["-m"] and not _sys.flags.safe_path and _sys.path
        and _sys.path[0] in ("", _os.getcwd())
        and any(a == "-m" and b == "exactdp"
                for a, b in zip(getattr(_sys, "orig_argv", []), getattr(_sys, "orig_argv", [])[1:]))):
    del _sys.path[0]

from exactdp._lazy import exports_of, lazy_exports  # noqa: E402 - after the path is made safe
from exactdp._version import __version__  # noqa: E402

_EXPORTS = exports_of({
    "exactdp.checkers.results": ("ClaimResult", "Scope", "SensitivityResult", "Verdict", "Witness"),
    "exactdp.checkers.sensitivity": (
        "SensitivityCurve", "assert_claim", "claim_parameters", "local_sensitivity", "sensitivity",
        "sensitivity_curve", "verify_claim"),
    "exactdp.checkers.float_witness": ("search_float_witness",),
    "exactdp.checkers.search": ("SearchResult", "SearchVerdict", "search_claim"),
    "exactdp.errors": (
        "ClaimViolated", "ExactDPError", "InexactInput", "InvalidArgument", "SpaceMismatch",
        "TooLarge", "Undecided", "UndefinedQuery"),
    "exactdp.checkers.privacy": ("PrivacyResult", "check_mechanism"),
    "exactdp.audits.objects": ("audit_object",),
    "exactdp.mechanisms.accounting.ledger": ("BudgetExceeded", "BudgetLedger"),
    "exactdp.mechanisms.distribution": ("Distribution",),
    "exactdp.mechanisms.mechanism": ("Mechanism", "make_mechanism"),
    "exactdp.numeric.rounding": ("float_at_least", "float_at_most"),
    "exactdp.numeric.exact": ("from_float", "to_exact", "float_reading"),
    "exactdp.queries.base": ("Query",),
    "exactdp.spaces.datasets": ("DatasetSpace", "Multisets", "SubMultisets"),
    "exactdp.spaces.metrics": ("ChangeDistance", "SymmetricDistance"),
    "exactdp.spaces.universe": ("ExactSet", "IntegerRange", "ValueUniverse"),
    "exactdp.spaces.sequences": ("HammingDistance", "InsertDeleteDistance", "Sequences"),
    "exactdp.spaces.units": (
        "AddRemoveID", "MaxGroupsPerID", "MaxRowsPerGroupPerID", "MaxRowsPerID", "Units"),
    "exactdp.checkers.graph": ("assert_graph_claim", "make_query", "verify_conversion"),
})
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
