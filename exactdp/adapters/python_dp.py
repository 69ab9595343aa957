"""Adapter to Google's differential-privacy library through its Python binding
``python-dp`` (module ``pydp``): read each algorithm's own noiseless state exactly, read the
parameters its mechanisms compute at their exact binary values, and replay witnesses.

pydp is imported only inside functions (:func:`require`), so importing this module never
fails; a missing library raises :class:`~exactdp.errors.MissingDependency` naming
``pip install 'exactdp[python-dp]'``. Written against python-dp 1.1.5, which bundles the
C++ library at commit ``e59bbcf`` (May 2023; ``cc/algorithms/bounded-sum.h``,
``bounded-mean.h``, ``count.h``, ``numerical-mechanisms.cc``, ``distributions.cc``).

The pieces:

* :func:`state` -- an algorithm's noiseless running state, as the library itself
  serialises it (``serialize()``: a ``Summary`` protocol buffer holding, for
  ``BoundedSum``, the partial sum; for ``Count``, the count; for ``BoundedMean``, the count
  and the sum of normalised values). The bytes are decoded here (a few lines of the
  protobuf wire format), so the values are the library's own, bit for bit: no model.
* :func:`released` -- what ``quick_result`` releases at ``epsilon = 1e300``. The C++
  Laplace mechanism rounds the input to a multiple of its granularity (a power of two near
  ``diversity / 2**40``, here about ``1e-312``) and adds ``granularity * geometric``: the
  noise is far below half an ulp of any value the audits use, so the release is the
  statistic itself; the audits check that it is (a replay through the release path).
* :func:`laplace_diversity`, :func:`gaussian_std` -- the float parameters pydp's
  ``LaplaceMechanism`` and ``GaussianMechanism`` compute, at their exact binary values.
* :func:`gaussian_granularity` -- the grid the C++ Gaussian mechanism rounds its input to
  (``GetNextPowerOfTwo(2 sigma / 2**57)``), computed exactly.
"""

from __future__ import annotations

import struct
from fractions import Fraction
from typing import Any, Sequence

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import from_float, library_number
from exactdp.adapters._calls import call_library

__all__ = ["DTYPES", "HUGE_EPSILON", "require", "exact", "make", "state", "released",
           "decode_summary", "laplace_diversity", "gaussian_std", "gaussian_granularity", "STRATEGIES",
           "keep_probabilities", "quantile_tree_counts", "release"]

DTYPES = ("int", "int64", "float")
"""pydp's ``dtype`` values: C++ ``int`` (32 bits), ``int64_t`` and ``double``."""

HUGE_EPSILON = 1e300
"""The epsilon :func:`released` uses so that the C++ noise is below half an ulp."""

_KINDS = ("BoundedSum", "BoundedMean", "Count")


def require():
    """The ``pydp`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("pydp", library="python-dp", extra="python-dp")


def exact(value: Any) -> Fraction:
    """A number pydp returned (Python int or float) at its exact value."""
    return library_number(value, "pydp")


def make(kind: str, **params):
    """``pydp.algorithms.laplacian.<kind>(**params)`` through
    :func:`~exactdp.audits.runner.call_library` (its errors become
    :class:`~exactdp.errors.LibraryCallFailed`)."""
    require()
    if kind not in _KINDS:
        raise InvalidArgument(f"kind={kind!r} is not one of {', '.join(_KINDS)}")
    import pydp.algorithms.laplacian as lap

    return call_library(f"pydp {kind}(...)", getattr(lap, kind), **params)


# --- the Summary protocol buffer ------------------------------------------------------


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(buf):
            raise InvalidArgument("a truncated varint in pydp's summary bytes")
        b = buf[i]
        value |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return value, i
        shift += 7


def _fields(buf: bytes) -> dict[int, list]:
    """Field number -> values (varint: int; fixed64: 8 bytes; length-delimited: bytes)."""
    out: dict[int, list] = {}
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise InvalidArgument(f"wire type {wire} in pydp's summary bytes is not modelled")
        out.setdefault(number, []).append(value)
    return out


def _int64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _value_type(buf: bytes) -> Fraction:
    """``ValueType``: ``int_value = 1`` (int64) or ``float_value = 2`` (double), exactly."""
    f = _fields(buf)
    if 1 in f:
        return Fraction(_int64(f[1][0]))
    if 2 in f:
        return from_float(struct.unpack("<d", f[2][0])[0])
    raise InvalidArgument("a ValueType in pydp's summary holds neither an int nor a double")


def decode_summary(data: bytes) -> tuple[str, dict[str, Any]]:
    """``(message name, fields)`` of the bytes of pydp's ``Summary.to_bytes()``: for
    ``BoundedSumSummary`` ``pos_sum`` (list of exact values); ``CountSummary`` ``count``;
    ``BoundedMeanSummary`` ``count`` and ``pos_sum``."""
    top = _fields(data)
    if 2 not in top:
        raise InvalidArgument("pydp's summary holds no data (field 2); expected a serialised algorithm")
    anyf = _fields(top[2][0])
    name = anyf[1][0].decode().rsplit(".", 1)[-1]
    body = _fields(anyf.get(2, [b""])[0])
    if name == "BoundedSumSummary":
        return name, {"pos_sum": [_value_type(b) for b in body.get(1, [])]}
    if name == "CountSummary":
        return name, {"count": _int64(body.get(1, [0])[0])}
    if name == "BoundedMeanSummary":
        return name, {"count": _int64(body.get(1, [0])[0]), "pos_sum": [_value_type(b) for b in body.get(2, [])]}
    raise InvalidArgument(f"summary message {name!r} is not modelled; expected BoundedSumSummary, "
                          "CountSummary or BoundedMeanSummary")


def state(kind: str, values: Sequence, **params) -> dict[str, Any]:
    """Feed ``values`` (in order) to a fresh ``kind(**params)`` with ``add_entries`` and
    return its noiseless state as the library serialises it: ``{"sum": ...}`` for
    BoundedSum, ``{"count": ...}`` for Count, ``{"count": ..., "sum": ...}`` for
    BoundedMean (the sum of the normalised values ``clamp(x) - midpoint``, in floats)."""
    alg = make(kind, **params)
    call_library(f"pydp {kind}.add_entries", alg.add_entries, list(values))
    summary = call_library(f"pydp {kind}.serialize", alg.serialize)
    name, f = decode_summary(summary.to_bytes())
    out: dict[str, Any] = {}
    if "count" in f:
        out["count"] = f["count"]
    if "pos_sum" in f:
        if len(f["pos_sum"]) != 1:
            raise InvalidArgument(f"{name} holds {len(f['pos_sum'])} partial sums; expected one "
                                  "(pass lower_bound and upper_bound: fixed bounds)")
        out["sum"] = f["pos_sum"][0]
    return out


def released(kind: str, values: Sequence, **params) -> Fraction:
    """What ``kind(epsilon=HUGE_EPSILON, **params).quick_result(values)`` releases, exactly."""
    alg = make(kind, epsilon=HUGE_EPSILON, **params)
    return exact(call_library(f"pydp {kind}.quick_result", alg.quick_result, list(values)))


# --- mechanisms ------------------------------------------------------------------------


def laplace_diversity(epsilon: float, sensitivity: float) -> Fraction:
    """pydp ``LaplaceMechanism(epsilon, sensitivity).diversity`` (C++: ``sensitivity /
    epsilon``, rounded to nearest), exactly."""
    require()
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    mech = call_library("pydp LaplaceMechanism(...)", LaplaceMechanism, epsilon, sensitivity)
    return exact(mech.diversity)


def gaussian_std(epsilon: float, delta: float, l2_sensitivity: float) -> Fraction:
    """pydp ``GaussianMechanism(epsilon, delta, l2_sensitivity).std`` (C++
    ``CalculateGaussianStddev``: a float bisection over Balle and Wang's delta), exactly."""
    require()
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    mech = call_library("pydp GaussianMechanism(...)", GaussianMechanism, epsilon, delta, l2_sensitivity)
    return exact(mech.std)


def gaussian_granularity(sigma: Fraction) -> Fraction:
    """The grid ``g`` the C++ Gaussian mechanism rounds its input to before adding noise
    (``RoundToNearestMultiple(result, g)``, ``g = GetNextPowerOfTwo(2 sigma / 2**57)``):
    the smallest power of two at or above ``2 sigma / 2**57``, exactly."""
    sigma = Fraction(sigma)
    if sigma <= 0:
        raise InvalidArgument(f"sigma={sigma!r} is not positive; pass the mechanism's standard deviation")
    x = 2 * sigma / (1 << 57)
    k = x.numerator.bit_length() - x.denominator.bit_length()
    g = Fraction(2) ** k
    while g < x:
        g *= 2
    while g / 2 >= x:
        g /= 2
    return g


# --- partition selection -----------------------------------------------------------------

STRATEGIES = ("truncated_geometric", "laplace", "gaussian")
"""The names pydp's ``create_partition_strategy`` takes."""


def keep_probabilities(strategy: str, epsilon: float, delta: float, max_partitions_contributed: int,
                       counts: Sequence[int], pre_threshold: int | None = None) -> list[Fraction]:
    """``probability_of_keep(n)`` of ``create_partition_strategy(strategy, epsilon, delta,
    max_partitions_contributed[, pre_threshold])`` for each ``n`` of ``counts``, exactly (the
    probability the library states it keeps a partition of ``n`` privacy units with)."""
    require()
    import pydp.algorithms.partition_selection as ps

    if strategy not in STRATEGIES:
        raise InvalidArgument(f"strategy={strategy!r} is not one of {', '.join(STRATEGIES)}")
    extra = () if pre_threshold is None else (pre_threshold,)
    s = call_library(f"pydp create_partition_strategy({strategy!r}, ...)", ps.create_partition_strategy, strategy,
                     epsilon, delta, max_partitions_contributed, *extra)
    return [exact(call_library(f"pydp {type(s).__name__}.probability_of_keep", s.probability_of_keep, int(n)))
            for n in counts]


def quantile_tree_counts(values: Sequence[float], lower: float, upper: float, height: int,
                         branching: int) -> dict[int, int]:
    """The node counts (node index -> count) of a pydp ``QuantileTree(lower, upper, height,
    branching)`` fed ``values`` with ``add_entry``, read from its own ``serialize()``
    (``BoundedQuantilesSummary``: repeated ``{index, count}``)."""
    require()
    from pydp.algorithms.quantile_tree import QuantileTree

    tree = call_library("pydp QuantileTree(...)", QuantileTree, lower, upper, height, branching)
    for v in values:
        call_library("pydp QuantileTree.add_entry", tree.add_entry, v)
    data = call_library("pydp QuantileTree.serialize", tree.serialize).to_bytes()
    top = _fields(data)
    if 2 not in top:
        raise InvalidArgument("pydp's tree summary holds no data (field 2)")
    anyf = _fields(top[2][0])
    name = anyf[1][0].decode().rsplit(".", 1)[-1]
    if name != "BoundedQuantilesSummary":
        raise InvalidArgument(f"summary message {name!r} is not modelled; expected BoundedQuantilesSummary")
    body = _fields(anyf.get(2, [b""])[0])
    out: dict[int, int] = {}
    for node in body.get(1, []):
        f = _fields(node)
        out[_int64(f.get(1, [0])[0])] = _int64(f.get(2, [0])[0])
    return out


def release(kind: str, values: Sequence, **params) -> Fraction | None:
    """What ``kind(**params).quick_result(values)`` releases, exactly (``None`` for NaN; an
    infinity as a float), for any class of ``pydp.algorithms.laplacian``."""
    import math

    require()
    import pydp.algorithms.laplacian as lap

    if kind not in lap.__all__:
        raise InvalidArgument(f"kind={kind!r} is not one of {', '.join(lap.__all__)}")
    alg = call_library(f"pydp {kind}(...)", getattr(lap, kind), **params)
    out = call_library(f"pydp {kind}.quick_result", alg.quick_result, list(values))
    if isinstance(out, float) and math.isnan(out):
        return None
    if isinstance(out, float) and math.isinf(out):
        return out  # type: ignore[return-value]
    return exact(out)
