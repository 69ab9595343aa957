# The public names of exactdp.checkers, for type checkers and for the lazy loader: exactdp._lazy reads
# this file at import to learn which module defines each name (one table, read by both).

from exactdp.checkers.float_witness import (
    FloatVerdict as FloatVerdict,
    FloatWitness as FloatWitness,
    FloatWitnessResult as FloatWitnessResult,
    naive_sum_claim as naive_sum_claim,
    search_float_witness as search_float_witness,
)
from exactdp.checkers.search import (
    SearchResult as SearchResult,
    SearchVerdict as SearchVerdict,
    search_claim as search_claim,
)
from exactdp.checkers.graph import (
    GraphQuery as GraphQuery,
    assert_graph_claim as assert_graph_claim,
    graph_sensitivity as graph_sensitivity,
    make_query as make_query,
    verify_conversion as verify_conversion,
    verify_graph_claim as verify_graph_claim,
)
from exactdp.checkers.results import (
    ClaimResult as ClaimResult,
    Scope as Scope,
    SensitivityResult as SensitivityResult,
    Verdict as Verdict,
    Witness as Witness,
)
from exactdp.checkers.sensitivity import (
    DEFAULT_MAX_DATASETS as DEFAULT_MAX_DATASETS,
    DEFAULT_MAX_PAIRS as DEFAULT_MAX_PAIRS,
    SensitivityCurve as SensitivityCurve,
    assert_claim as assert_claim,
    claim_parameters as claim_parameters,
    local_sensitivity as local_sensitivity,
    sensitivity as sensitivity,
    sensitivity_curve as sensitivity_curve,
    verify_claim as verify_claim,
)

__all__ = ['FloatVerdict', 'FloatWitness', 'FloatWitnessResult', 'naive_sum_claim', 'search_float_witness', 'SearchResult', 'SearchVerdict', 'search_claim', 'GraphQuery', 'assert_graph_claim', 'graph_sensitivity', 'make_query', 'verify_conversion', 'verify_graph_claim', 'ClaimResult', 'Scope', 'SensitivityResult', 'Verdict', 'Witness', 'DEFAULT_MAX_DATASETS', 'DEFAULT_MAX_PAIRS', 'SensitivityCurve', 'assert_claim', 'claim_parameters', 'local_sensitivity', 'sensitivity', 'sensitivity_curve', 'verify_claim']
