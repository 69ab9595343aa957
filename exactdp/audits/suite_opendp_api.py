"""Generic audits of OpenDP's public constructors (part of ``exactdp audit opendp``).

One table (:data:`CASES`) says how to build each public constructor of
``opendp.transformations``, ``opendp.measurements`` and ``opendp.combinators`` on a small
domain: a row is a constructor call (OpenDP imported inside) and, where the default space would
not reach the code that matters, the reader's options. The audit itself is the generic one of
:mod:`exactdp.audits.objects_opendp`, the reader behind ``exactdp.audit_object``: it reads the
object's domain, metric and construction record, enumerates a small space of neighbours through
the object's own code, and judges ``map(d_in)`` against the exact output distance or the exact
loss of the noise. Nothing here is judged by hand.

Each audit covers the constructors its object was built with (its ``covers``: the row's
primitive and the others in the object's construction record), so a chain covers its parts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from exactdp.adapters import opendp as od
from exactdp.audits import objects_opendp
from exactdp.adapters._calls import call_library
from exactdp.audits.base import Audit, Finding

__all__ = ["CASES", "Case", "audits"]

_T, _M, _C = "opendp.transformations.", "opendp.measurements.", "opendp.combinators."


@dataclass(frozen=True)
class Case:
    """How to build one OpenDP constructor on a small domain: ``build(dp)`` returns the object
    (``dp`` is ``opendp.prelude``), ``options`` go to the reader."""

    primitive: str
    build: Callable[[Any], Any]
    options: dict = field(default_factory=dict)
    variant: str = ""
    features: tuple[str, ...] = ("contrib",)   # OpenDP's global switches the build needs
    expect: str = ""     # the verdict expected on OpenDP 0.16 ("" : neither violated nor undecided)

    @property
    def name(self) -> str:
        return self.primitive.rsplit(".", 1)[1]

    @property
    def id(self) -> str:
        return f"opendp/api/{self.name}" + (f"/{self.variant}" if self.variant else "")


# --- small domains ------------------------------------------------------------------------------

def _ints(dp, bounds=None, size=None):
    atom = dp.atom_domain(bounds=bounds) if bounds else dp.atom_domain(T=int)
    return dp.vector_domain(atom, size=size)


def _floats(dp, bounds=(0.0, 1.0), size=None):
    return dp.vector_domain(dp.atom_domain(bounds=bounds, nan=False), size=size)


def _strs(dp):
    return dp.vector_domain(dp.atom_domain(T=str))


def _sym(dp):
    return dp.symmetric_distance()


def _abs_int(dp):
    return dp.absolute_distance(T=int)


def _int_atom(dp):
    return dp.atom_domain(T=int)


def _laplace(dp, scale=1.0):
    return dp.m.make_laplace(_int_atom(dp), _abs_int(dp), scale=scale)


def _gaussian(dp, scale=1.0):
    return dp.m.make_gaussian(_int_atom(dp), _abs_int(dp), scale=scale)


def _counts(dp):
    return dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int))


def _l01(dp):
    return dp.l01inf_distance(dp.absolute_distance(T=int))


_SMALL = {"values": (0, 1, 2), "sizes": (0, 1, 2)}
_FLOAT_VALUES = {"values": (0.0, 0.1, 0.5, 1.0), "sizes": (0, 1, 2, 3)}

CASES: tuple[Case, ...] = (
    # -- transformations: aggregates --------------------------------------------------------------
    Case(_T + "make_count", lambda dp: dp.t.make_count(_ints(dp), _sym(dp))),
    Case(_T + "make_count_distinct", lambda dp: dp.t.make_count_distinct(_ints(dp), _sym(dp)), _SMALL),
    Case(_T + "make_count_by", lambda dp: dp.t.make_count_by(_strs(dp), _sym(dp)) >> dp.m.then_laplace_threshold(
        scale=0.5, threshold=3), variant="laplace-threshold", expect="violated"),
    Case(_T + "make_count_by_categories", lambda dp: dp.t.make_count_by_categories(
        _strs(dp), _sym(dp), categories=["a", "b"])),
    Case(_T + "make_sum", lambda dp: dp.t.make_sum(_ints(dp, (0, 3)), _sym(dp))),
    Case(_T + "make_sum", lambda dp: dp.t.make_sum(_floats(dp), _sym(dp)), _FLOAT_VALUES, variant="float"),
    Case(_T + "make_bounded_int_monotonic_sum", lambda dp: dp.t.make_bounded_int_monotonic_sum((0, 3))),
    Case(_T + "make_bounded_int_ordered_sum", lambda dp: dp.t.make_bounded_int_ordered_sum((-2, 3))),
    Case(_T + "make_bounded_int_split_sum", lambda dp: dp.t.make_bounded_int_split_sum((-2, 3))),
    Case(_T + "make_sized_bounded_int_checked_sum", lambda dp: dp.t.make_sized_bounded_int_checked_sum(3, (0, 3))),
    Case(_T + "make_sized_bounded_int_monotonic_sum",
         lambda dp: dp.t.make_sized_bounded_int_monotonic_sum(3, (0, 3))),
    Case(_T + "make_sized_bounded_int_ordered_sum", lambda dp: dp.t.make_sized_bounded_int_ordered_sum(3, (-2, 3))),
    Case(_T + "make_sized_bounded_int_split_sum", lambda dp: dp.t.make_sized_bounded_int_split_sum(3, (-2, 3))),
    Case(_T + "make_bounded_float_checked_sum", lambda dp: dp.t.make_bounded_float_checked_sum(3, (0.0, 1.0)),
         _FLOAT_VALUES),
    Case(_T + "make_bounded_float_ordered_sum", lambda dp: dp.t.make_bounded_float_ordered_sum(3, (0.0, 1.0)),
         _FLOAT_VALUES),
    Case(_T + "make_sized_bounded_float_checked_sum",
         lambda dp: dp.t.make_sized_bounded_float_checked_sum(3, (0.0, 1.0)), {"values": (0.0, 0.1, 1 / 3, 1.0)}),
    Case(_T + "make_sized_bounded_float_ordered_sum",
         lambda dp: dp.t.make_sized_bounded_float_ordered_sum(3, (0.0, 1.0)), {"values": (0.0, 0.1, 1 / 3, 1.0)}),
    Case(_T + "make_mean", lambda dp: dp.t.make_mean(_floats(dp, size=3), _sym(dp)),
         {"values": (0.0, 0.1, 1 / 3, 1.0)}),
    Case(_T + "make_sum_of_squared_deviations",
         lambda dp: dp.t.make_sum_of_squared_deviations(_floats(dp, size=3), _sym(dp)),
         {"values": (0.0, 0.1, 1 / 3, 1.0)}),
    Case(_T + "make_variance", lambda dp: dp.t.make_variance(_floats(dp, size=3), _sym(dp)),
         {"values": (0.0, 0.1, 1 / 3, 1.0)}),
    Case(_T + "make_quantile_score_candidates", lambda dp: dp.t.make_quantile_score_candidates(
        _ints(dp), _sym(dp), [0, 1, 2], alpha=0.5), {"values": (-1, 0, 1, 3), "sizes": (0, 1, 2, 3)}),
    Case(_T + "make_b_ary_tree", lambda dp: dp.t.make_b_ary_tree(
        dp.vector_domain(dp.atom_domain(T="i32")), dp.l1_distance(T="i32"), leaf_count=2, branching_factor=2),
         {"values": (-2**31, -1, 0, 1, 2**31 - 1)}, expect="violated"),
    # -- transformations: bounding contributions and metric conversions ------------------------
    Case(_T + "make_clamp", lambda dp: dp.t.make_clamp(_ints(dp), _sym(dp), (0, 2)),
         {"values": (-1, 0, 1, 3), "sizes": (0, 1, 2, 3)}),
    Case(_T + "make_lipschitz_float_mul", lambda dp: dp.t.make_lipschitz_float_mul(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), 1 / 3, (-1.0, 1.0)),
         {"values": (-1.0, -0.1, 0.0, 0.3, 1.0), "d_in": (0.5, 1.0)}),
    Case(_T + "make_resize", lambda dp: dp.t.make_resize(
        _ints(dp), dp.insert_delete_distance(), size=2, constant=0, MO="SymmetricDistance"), _SMALL),
    Case(_T + "make_metric_bounded", lambda dp: dp.t.make_metric_bounded(_ints(dp, size=2), _sym(dp)),
         {"values": (0, 1, 2)}),
    Case(_T + "make_metric_unbounded", lambda dp: dp.t.make_metric_unbounded(
        _ints(dp, size=2), dp.change_one_distance()), {"values": (0, 1, 2)}),
    Case(_T + "make_unordered", lambda dp: dp.t.make_unordered(_ints(dp), dp.insert_delete_distance()), _SMALL),
    Case(_T + "make_ordered_random", lambda dp: dp.t.make_ordered_random(_ints(dp), _sym(dp)), _SMALL),
    Case(_C + "make_chain_tt", lambda dp: dp.t.make_clamp(_ints(dp), _sym(dp), (0, 2)) >> dp.t.then_sum(),
         {"values": (-1, 0, 3), "sizes": (0, 1, 2, 3)}),
    # -- measurements ------------------------------------------------------------------------------
    Case(_M + "make_laplace", lambda dp: _laplace(dp, 1.7)),
    Case(_M + "make_laplace", lambda dp: dp.m.make_laplace(
        dp.vector_domain(_int_atom(dp)), dp.l1_distance(T=int), scale=2.0), variant="vector"),
    Case(_M + "make_laplace", lambda dp: dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0), {"d_in": (0.5, 1.0)},
         variant="float"),
    Case(_M + "make_canonical_noise", lambda dp: dp.m.make_canonical_noise(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), d_in=1.0, d_out=(1.0, 0.0)),
         {"d_in": (0.5, 1.0)}),
    Case(_M + "make_gaussian", lambda dp: _gaussian(dp, 1.3)),
    Case(_M + "make_gaussian", lambda dp: dp.m.make_gaussian(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0), {"d_in": (0.5, 1.0)},
         variant="float"),
    Case(_M + "make_geometric", lambda dp: dp.m.make_geometric(_int_atom(dp), _abs_int(dp), scale=1.0)),
    Case(_M + "make_geometric", lambda dp: dp.m.make_geometric(
        _int_atom(dp), _abs_int(dp), scale=1.0, bounds=(0, 4)), variant="bounded"),
    Case(_M + "make_noise", lambda dp: dp.m.make_noise(
        _int_atom(dp), _abs_int(dp), dp.zero_concentrated_divergence(), scale=2.0)),
    Case(_M + "make_randomized_response_bool", lambda dp: dp.m.make_randomized_response_bool(0.75)),
    Case(_M + "make_randomized_response", lambda dp: dp.m.make_randomized_response(["a", "b", "c"], 0.6)),
    Case(_M + "make_randomized_response_bitvec", lambda dp: dp.m.make_randomized_response_bitvec(
        dp.bitvector_domain(max_weight=2), dp.discrete_distance(), f=0.5)),
    Case(_M + "make_noisy_max", lambda dp: dp.m.make_noisy_max(
        dp.vector_domain(_int_atom(dp)), dp.linf_distance(T=int), dp.max_divergence(), scale=1.0), {"d_in": 1}),
    Case(_M + "make_noisy_top_k", lambda dp: dp.m.make_noisy_top_k(
        dp.vector_domain(_int_atom(dp)), dp.linf_distance(T=int, monotonic=True), dp.max_divergence(), k=1,
        scale=1.0), {"d_in": 1}),
    Case(_M + "make_report_noisy_max_gumbel", lambda dp: dp.m.make_report_noisy_max_gumbel(
        dp.vector_domain(_int_atom(dp)), dp.linf_distance(T=int), scale=1.0), {"d_in": 1}),
    Case(_M + "make_private_quantile", lambda dp: dp.m.make_private_quantile(
        _ints(dp, (0, 3)), _sym(dp), dp.max_divergence(), [0, 2], alpha=0.5, scale=2.0),
         {"values": (0, 1, 3), "sizes": (0, 1, 2), "d_in": 1}, expect="undecided"),
    Case(_M + "make_laplace_threshold", lambda dp: dp.m.make_laplace_threshold(
        _counts(dp), _l01(dp), scale=0.5, threshold=3), expect="violated"),
    Case(_M + "make_gaussian_threshold", lambda dp: dp.m.make_gaussian_threshold(
        _counts(dp), dp.l02inf_distance(dp.absolute_distance(T=int)), scale=1.0, threshold=3), expect="violated"),
    Case(_M + "make_noise_threshold", lambda dp: dp.m.make_noise_threshold(
        _counts(dp), _l01(dp), dp.approximate(dp.max_divergence()), scale=0.5, threshold=3), expect="violated"),
    # -- combinators -------------------------------------------------------------------------------
    Case(_C + "make_chain_mt", lambda dp: dp.t.make_sum(_ints(dp, (0, 3), size=3), _sym(dp)) >> dp.m.then_laplace(1.0)),
    Case(_C + "make_chain_pm", lambda dp: _laplace(dp, 2.0) >> (lambda v: v + 1),
         features=("contrib", "honest-but-curious")),   # a Python post-processor
    Case(_C + "make_composition", lambda dp: dp.c.make_composition([_laplace(dp, 1.7), _laplace(dp, 0.7)])),
    Case(_C + "make_basic_composition", lambda dp: dp.c.make_basic_composition([_gaussian(dp, 1.0),
                                                                                 _gaussian(dp, 2.0)])),
    Case(_C + "make_zCDP_to_approxDP", lambda dp: dp.c.make_zCDP_to_approxDP(_gaussian(dp, 1.0)),
         {"delta": (1e-9, 0.1, 0.5)}),
    Case(_C + "make_fix_delta", lambda dp: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_gaussian(dp, 2.0)), 1e-6)),
    Case(_C + "make_approximate", lambda dp: dp.c.make_approximate(_laplace(dp, 1.7))),
    Case(_C + "make_fixed_approxDP_to_approxDP", lambda dp: dp.c.make_fixed_approxDP_to_approxDP(
        dp.c.make_approximate(_laplace(dp, 1.7)))),
    Case(_C + "make_pureDP_to_zCDP", lambda dp: dp.c.make_pureDP_to_zCDP(_laplace(dp, 1.7))),
    Case(_C + "make_population_amplification", lambda dp: dp.c.make_population_amplification(
        dp.t.make_sum(_ints(dp, (0, 3), size=3), _sym(dp)) >> dp.m.then_laplace(3.0), 100),
         features=("contrib", "honest-but-curious")),   # OpenDP cannot check the sample was drawn
    Case(_C + "make_adaptive_composition", lambda dp: dp.c.make_adaptive_composition(
        _int_atom(dp), _abs_int(dp), dp.max_divergence(), 1, [0.5, 0.25])),
    Case(_C + "make_sequential_composition", lambda dp: _quiet(dp.c.make_sequential_composition)(
        _int_atom(dp), _abs_int(dp), dp.zero_concentrated_divergence(), 1, [0.5, 0.25])),
    Case(_C + "make_fully_adaptive_composition", lambda dp: dp.c.make_fully_adaptive_composition(
        _int_atom(dp), _abs_int(dp), dp.max_divergence())),
    Case(_C + "make_privacy_filter", lambda dp: dp.c.make_privacy_filter(dp.c.make_fully_adaptive_composition(
        _int_atom(dp), _abs_int(dp), dp.max_divergence()), 1, 1.0)),
)
"""How to build each audited constructor on a small domain (the audit is the reader's)."""


def _quiet(fn):
    """Call a deprecated OpenDP constructor without its DeprecationWarning."""
    def call(*args, **kwargs):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return fn(*args, **kwargs)
    return call


def _check(case: Case) -> Callable[[], Finding]:
    def run() -> Finding:
        dp = od.load()
        others = [f for f in case.features if f != "contrib"]
        with od.features("contrib") as flipped, od.features(*others) as more:
            obj = call_library(f"{case.name}(...)", case.build, dp)
            audit = objects_opendp.audit_of(obj, **case.options)
            found = audit.check()
        note = "; ".join(filter(None, (od.toggles_note(flipped), od.toggles_note(more))))
        return replace(found, note=f"{found.note}; {note}" if found.note and note else found.note or note)
    return run


_COVERS: dict[str, tuple[str, ...]] = {}


def _covers(case: Case) -> tuple[str, ...]:
    """The row's primitive and every constructor its object is built from (by the chain's
    operator ``>>`` as well): read from the object's construction record (once per process:
    the suite is loaded several times by one command)."""
    if case.id in _COVERS:
        return _COVERS[case.id]
    extra: tuple[str, ...] = ()
    try:
        dp = od.load()
        with od.features(*case.features):
            extra = objects_opendp.constructors(_quiet(case.build)(dp))
    except Exception:   # the library missing or refusing the row: the audit itself will say so
        extra = ()
    _COVERS[case.id] = tuple(dict.fromkeys((case.primitive,) + extra))
    return _COVERS[case.id]


def audits() -> list[Audit]:
    """One generic audit per row of :data:`CASES`."""
    out = []
    for case in CASES:
        expect = {">=0.16": case.expect} if case.expect else {}
        out.append(Audit(id=case.id, library="opendp", component=f"{case.name} on a small domain",
                         claim="its map bounds the exact output distance or loss of neighbours (generic reader)",
                         check=_check(case), versions=">=0.16", expect=expect, covers=_covers(case),
                         source=f"https://docs.opendp.org/en/v0.16.0/api/python/opendp.{case.primitive.split('.')[1]}.html"))
    return out
