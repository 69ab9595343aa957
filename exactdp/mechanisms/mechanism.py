"""The mechanism interface the privacy checker uses, and the mechanisms built by name.

A :class:`Mechanism` turns a query value (a number, or a tuple for a vector query such as
the utilities of the exponential mechanism's candidates) into an exact output
distribution. Its privacy on a pair of query values ``(a, b)`` is:

* :meth:`Mechanism.epsilon`: the exact pure epsilon of the pair (both directions), with the
  output that attains it; by default from the two :meth:`~Mechanism.distribution` s;
* :meth:`Mechanism.delta`: the tight ``delta(epsilon)`` of the pair (both directions).

A mechanism with an infinite output set (discrete Laplace, the continuous Laplace and
Gaussian) overrides both with closed forms instead of :meth:`distribution`.

:func:`make_mechanism` builds one from its CLI name (``randomized-response``,
``exponential``, ...) and exact keyword parameters (strings such as ``"3/4"`` are read
exactly, floats refused): the name's record in :mod:`exactdp.mechanisms.specs` names the
model's constructor, imported when it is chosen. This module imports no model (they
import it).
"""

from __future__ import annotations

import inspect
import typing
from fractions import Fraction
from typing import Any, Callable, Hashable

from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.mechanisms import specs
from exactdp.mechanisms._params import check_parameter_names
from exactdp.mechanisms.distribution import (
    Distribution, Divergence, hockey_stick, pure_epsilon,
)
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import show_exact
from exactdp.numeric.exact import to_exact

__all__ = ["INPUT_KINDS", "Mechanism", "make_mechanism", "mechanism_names"]

INPUT_KINDS = ("scalar", "vector", "scalar-or-vector")
"""What a mechanism takes per query value (its ``input_kind``): ``"scalar"`` one number;
``"vector"`` a tuple (the utilities of a selection mechanism's candidates);
``"scalar-or-vector"`` either, the two values of a pair of the same kind (the Laplace and
Gaussian mechanisms: independent noise on each coordinate of a vector)."""


class Mechanism:
    """Base class: subclasses set ``name``, ``params`` and ``input_kind`` and implement
    :meth:`distribution` (finite outputs) or override :meth:`epsilon` and :meth:`delta`."""

    name = "mechanism"
    input_kind = "scalar"  # one of INPUT_KINDS

    def __init__(self, **params: Any):
        self.params = params

    # -- to implement -------------------------------------------------------------------
    def distribution(self, value) -> Distribution:
        """The exact output distribution on query value ``value``."""
        raise NotImplementedError(f"{self.name} has no finite output distribution")

    # -- privacy of a pair of query values -------------------------------------------
    def epsilon(self, a, b) -> Divergence:
        """The exact pure epsilon of the pair ``(a, b)`` (both directions) and its output."""
        a, b = self.check_pair(a, b)
        return pure_epsilon(self.distribution(a), self.distribution(b))

    def delta(self, a, b, epsilon) -> Any:
        """The tight ``delta(epsilon)`` of the pair: the larger hockey-stick divergence of
        the two directions, exact."""
        a, b = self.check_pair(a, b)
        P, Q = self.distribution(a), self.distribution(b)
        d1, d2 = hockey_stick(P, Q, epsilon), hockey_stick(Q, P, epsilon)
        return d1 if compare(d1, d2) >= 0 else d2

    def check_value(self, value) -> Any:
        """Validate a query value for this mechanism (raise :class:`InvalidArgument`)."""
        return value

    def check_pair(self, a, b) -> tuple:
        """Both query values of a pair, validated; vectors (``input_kind`` ``"vector"``,
        e.g. the utilities of selection's candidates, or ``"scalar-or-vector"``) must have
        the same length: a candidate present on one side only would read as an infinite
        loss; a number against a vector is refused."""
        a, b = self.check_value(a), self.check_value(b)
        if self.input_kind == "scalar-or-vector" and isinstance(a, tuple) != isinstance(b, tuple):
            raise InvalidArgument(
                f"the query values {_either_text(a)} and {_either_text(b)} are a vector and a "
                f"number; {self.name} takes two numbers or two vectors of the same length")
        if isinstance(a, tuple) and self.input_kind != "scalar" and len(a) != len(b):
            entry = "one entry per candidate" if self.input_kind == "vector" else "one entry per coordinate"
            raise InvalidArgument(
                f"the query values {show_vector(a)} and {show_vector(b)} have different lengths "
                f"({len(a)} and {len(b)}); {self.name} needs {entry} in both")
        return a, b

    # -- display -----------------------------------------------------------------------
    def describe(self) -> str:
        shown = ", ".join(f"{k}={_param_text(v)}" for k, v in self.params.items())
        return f"{self.name}({shown})"

    def params_dict(self) -> dict:
        return {k: _param_text(v) for k, v in self.params.items()}

    def __repr__(self) -> str:
        return f"<Mechanism {self.describe()}>"


def one_number(value, mechanism: Mechanism, name: str = "value"):
    """``value`` as an exact number for a mechanism that takes one number per query value;
    a vector (tuple or list) is refused saying so, other values as :func:`to_exact` does."""
    if isinstance(value, (tuple, list)):
        raise InvalidArgument(
            f"{mechanism.name} takes one number per query value; the value {show_vector(value)} is "
            f"a vector of {len(value)}: give one number per query value (a scalar query such as "
            f"sum), or a mechanism that takes vectors (laplace, gaussian)")
    return to_exact(value, name)


def number_or_vector(value, mechanism: Mechanism, name: str = "value"):
    """``value`` as an exact number, or a vector (tuple or list, at least one entry) as a
    tuple of exact numbers, for a mechanism whose ``input_kind`` is ``"scalar-or-vector"``."""
    if isinstance(value, (tuple, list)):
        if not value:
            raise InvalidArgument(f"{name}=() is an empty vector; {mechanism.name} needs at "
                                  f"least one coordinate, e.g. values=((0, 1), (1, 1))")
        return tuple(to_exact(x, f"{name} entry") for x in value)
    return to_exact(value, name)


def takes(mechanism) -> tuple[bool, bool]:
    """``(numbers, vectors)``: whether ``mechanism`` takes a number, a vector per query
    value (from its ``input_kind``; an object without one takes numbers)."""
    kind = getattr(mechanism, "input_kind", "scalar")
    return kind in ("scalar", "scalar-or-vector"), kind in ("vector", "scalar-or-vector")


def _either_text(value) -> str:
    return show_vector(value) if isinstance(value, tuple) else _param_text(value)


def show_vector(value) -> str:
    """A tuple of query values as ``(0, 1/2)`` (exact numbers shown plainly, never as
    ``Fraction(1, 2)``; long lists shortened)."""
    items = list(value)
    shown = [_param_text(x) if not isinstance(x, str) else repr(x) for x in items[:8]]
    if len(items) > 8:
        shown.append(f"... ({len(items):,} entries)")
    return "(" + ", ".join(shown) + ("," if len(items) == 1 else "") + ")"


def _param_text(v) -> str:

    if isinstance(v, Fraction) or (isinstance(v, int) and not isinstance(v, bool)):
        return show_exact(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_param_text(x) for x in v) + "]"
    return str(v)


def mechanism_names() -> dict[str, str]:
    """Every mechanism with an exact model, with its one-line description of parameters."""
    return {s.name: s.help_for("model") for s in sorted(specs.SPECS, key=lambda s: s.name)
            if s.model is not None}


def make_mechanism(name: str, **params: Any) -> Mechanism:
    """Build the mechanism named ``name`` (see :mod:`exactdp.mechanisms.specs`) with exact
    keyword parameters."""
    record = specs.spec(name, "model")
    assert record.model is not None  # spec(name, "model") refuses a record without a model
    factory, help_text = specs.resolve(record.model), record.help_for("model")
    signature = _parameters(factory)
    if signature is None:  # a constructor taking any keyword: let it judge
        try:
            return factory(**params)
        except ExactDPError:
            raise
        except TypeError:  # an unknown or missing keyword
            raise InvalidArgument(f"{name} does not take the parameters {', '.join(params) or '(none)'} "
                                  f"as given; its parameters: {help_text}") from None
    accepted, required = signature
    check_parameter_names(name, params, accepted, required, help_text)
    return factory(**params)


def _parameters(factory: Callable) -> tuple[list[str], list[str]] | None:
    """The keyword parameters a registered constructor takes and those it requires: from its
    own signature, or, for a ``(**params)`` wrapper, from the class it returns. ``None``
    when they cannot be told."""

    def named(fn) -> tuple[list[str], list[str]] | None:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return None
        kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
            return None
        accepted = [p.name for p in sig.parameters.values() if p.kind in kinds]
        required = [p.name for p in sig.parameters.values()
                    if p.kind in kinds and p.default is inspect.Parameter.empty]
        return accepted, required

    found = named(factory)
    if found is not None:
        return found
    try:
        returned = typing.get_type_hints(factory).get("return")
    except (NameError, TypeError, AttributeError):  # an annotation that does not resolve: call it
        return None
    if isinstance(returned, type) and issubclass(returned, Mechanism):
        return named(returned)
    return None


Output = Hashable
