# The public names of exactdp, for type checkers and for the lazy loader: exactdp._lazy reads
# this file at import to learn which module defines each name (one table, read by both).

from exactdp._version import __version__ as __version__
from exactdp.checkers.results import (
    ClaimResult as ClaimResult,
    Scope as Scope,
    SensitivityResult as SensitivityResult,
    Verdict as Verdict,
    Witness as Witness,
)
from exactdp.checkers.sensitivity import (
    SensitivityCurve as SensitivityCurve,
    assert_claim as assert_claim,
    claim_parameters as claim_parameters,
    local_sensitivity as local_sensitivity,
    sensitivity as sensitivity,
    sensitivity_curve as sensitivity_curve,
    verify_claim as verify_claim,
)
from exactdp.checkers.float_witness import (
    search_float_witness as search_float_witness,
)
from exactdp.checkers.search import (
    SearchResult as SearchResult,
    SearchVerdict as SearchVerdict,
    search_claim as search_claim,
)
from exactdp.errors import (
    ClaimViolated as ClaimViolated,
    ExactDPError as ExactDPError,
    InexactInput as InexactInput,
    InvalidArgument as InvalidArgument,
    SpaceMismatch as SpaceMismatch,
    TooLarge as TooLarge,
    Undecided as Undecided,
    UndefinedQuery as UndefinedQuery,
)
from exactdp.checkers.privacy import (
    PrivacyResult as PrivacyResult,
    check_mechanism as check_mechanism,
)
from exactdp.audits.objects import (
    audit_object as audit_object,
)
from exactdp.mechanisms.accounting.ledger import (
    BudgetExceeded as BudgetExceeded,
    BudgetLedger as BudgetLedger,
)
from exactdp.mechanisms.distribution import (
    Distribution as Distribution,
)
from exactdp.mechanisms.mechanism import (
    Mechanism as Mechanism,
    make_mechanism as make_mechanism,
)
from exactdp.numeric.rounding import (
    float_at_least as float_at_least,
    float_at_most as float_at_most,
)
from exactdp.numeric.exact import (
    from_float as from_float,
    to_exact as to_exact,
    float_reading as float_reading,
)
from exactdp.queries.base import (
    Query as Query,
)
from exactdp.spaces.datasets import (
    DatasetSpace as DatasetSpace,
    Multisets as Multisets,
    SubMultisets as SubMultisets,
)
from exactdp.spaces.metrics import (
    ChangeDistance as ChangeDistance,
    SymmetricDistance as SymmetricDistance,
)
from exactdp.spaces.universe import (
    ExactSet as ExactSet,
    IntegerRange as IntegerRange,
    ValueUniverse as ValueUniverse,
)
from exactdp.spaces.sequences import (
    HammingDistance as HammingDistance,
    InsertDeleteDistance as InsertDeleteDistance,
    Sequences as Sequences,
)
from exactdp.spaces.units import (
    AddRemoveID as AddRemoveID,
    MaxGroupsPerID as MaxGroupsPerID,
    MaxRowsPerGroupPerID as MaxRowsPerGroupPerID,
    MaxRowsPerID as MaxRowsPerID,
    Units as Units,
)
from exactdp.checkers.graph import (
    assert_graph_claim as assert_graph_claim,
    make_query as make_query,
    verify_conversion as verify_conversion,
)

from exactdp.mechanisms.accounting.calibrate import (
    Calibrated as Calibrated,
    calibrate_dp_sgd as calibrate_dp_sgd,
)

__all__ = ['Calibrated', 'calibrate_dp_sgd', 'ClaimResult', 'Scope', 'SensitivityResult', 'Verdict', 'Witness', 'SensitivityCurve', 'assert_claim', 'claim_parameters', 'local_sensitivity', 'sensitivity', 'sensitivity_curve', 'verify_claim', 'search_float_witness', 'SearchResult', 'SearchVerdict', 'search_claim', 'ClaimViolated', 'ExactDPError', 'InexactInput', 'InvalidArgument', 'SpaceMismatch', 'TooLarge', 'Undecided', 'UndefinedQuery', 'PrivacyResult', 'check_mechanism', 'audit_object', 'BudgetExceeded', 'BudgetLedger', 'Distribution', 'Mechanism', 'make_mechanism', 'float_at_least', 'float_at_most', 'from_float', 'to_exact', 'float_reading', 'Query', 'DatasetSpace', 'Multisets', 'SubMultisets', 'ChangeDistance', 'SymmetricDistance', 'ExactSet', 'IntegerRange', 'ValueUniverse', 'HammingDistance', 'InsertDeleteDistance', 'Sequences', 'AddRemoveID', 'MaxGroupsPerID', 'MaxRowsPerGroupPerID', 'MaxRowsPerID', 'Units', 'assert_graph_claim', 'make_query', 'verify_conversion']
