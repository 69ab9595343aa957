"""The result of a calibration: an exact value (or an enclosure) and the safe float.

:class:`Calibration` is returned by the functions of :mod:`exactdp.mechanisms.calibration.laplace`,
:mod:`~exactdp.mechanisms.calibration.gaussian` and :mod:`~exactdp.mechanisms.accounting.zcdp`. Its ``exact``
is one of

- a :class:`~fractions.Fraction` (the value itself),
- a SymPy expression (the value itself, irrational: ``sqrt(2*log(125000))*2``),
- a pair ``(lo, hi)`` of Fractions with ``lo <= value <= hi`` (an enclosure, when the
  value is only known through intervals, such as the analytic-Gaussian σ*).

``safe_float`` is a float on the safe side of *every* point of that: ``>=`` the exact
value (``direction == "up"``) for noise scales, ε, δ and ρ spent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.numeric.exact import format_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = ["Calibration"]

_SYMBOLS = {
    "scale": r"b", "sigma": r"\sigma", "epsilon": r"\varepsilon", "delta": r"\delta",
    "rho": r"\rho", "sensitivity": r"\Delta", "alpha": r"\alpha",
}


def _is_enclosure(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2


@dataclass(frozen=True)
class Calibration:
    """A calibrated mechanism parameter, exact, with the float that is safe to use.

    Attributes: ``mechanism`` (e.g. ``"gaussian-analytic"``), ``quantity`` (``"scale"``,
    ``"sigma"``, ``"epsilon"``, ``"delta"``, ``"rho"``), ``inputs`` (name -> exact
    value, as used), ``exact`` (see the module docstring), ``safe_float``,
    ``direction`` (``"up"``: ``safe_float >= exact``), ``notes`` (what is and is not
    claimed) and ``extra`` (e.g. the order ``alpha`` of a Rényi conversion).
    """

    mechanism: str
    quantity: str
    inputs: dict
    exact: Any
    safe_float: float
    direction: str = "up"
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def enclosure(self) -> tuple[Fraction, Fraction] | None:
        """``(lo, hi)`` when ``exact`` is an enclosure or a Fraction; ``None`` for SymPy."""
        if _is_enclosure(self.exact):
            return self.exact
        if isinstance(self.exact, Fraction):
            return (self.exact, self.exact)
        return None

    def exact_text(self) -> str | list[str]:
        """``exact`` as text that :func:`~exactdp.numeric.exact.to_exact` (a Fraction or
        an enclosure's ends) or SymPy (an expression) parses."""
        if _is_enclosure(self.exact):
            return [format_exact(self.exact[0]), format_exact(self.exact[1])]
        if isinstance(self.exact, Fraction):
            return format_exact(self.exact)
        return str(self.exact)

    def approx_text(self, digits: int = 20) -> str:
        """The exact value shown to ``digits`` significant digits, each end rounded outward."""
        if _is_enclosure(self.exact) and self.exact[0] != self.exact[1]:
            lo, hi = self.exact
            return f"[{decimal_at_most(lo, digits)}, {decimal_at_least(hi, digits)}]"
        if _is_enclosure(self.exact):
            return Calibration(self.mechanism, self.quantity, self.inputs, self.exact[0], 0.0).approx_text(digits)
        if isinstance(self.exact, Fraction):
            lo = decimal_at_most(self.exact, digits)
            hi = decimal_at_least(self.exact, digits)
            return str(lo) if lo == hi else f"[{lo}, {hi}]"
        return f"[{decimal_at_most(self.exact, digits)}, {decimal_at_least(self.exact, digits)}]"

    def to_dict(self) -> dict:
        """A JSON-ready dict: exact values as exact strings, the safe float as its ``repr``."""
        out = {
            "mechanism": self.mechanism,
            "quantity": self.quantity,
            "safe_float": repr(self.safe_float),
            "direction": self.direction,
            "exact": self.exact_text(),
            "inputs": {k: _text(v) for k, v in self.inputs.items()},
        }
        if self.extra:
            out["extra"] = {k: _text(v) for k, v in self.extra.items()}
        if self.notes:
            out["notes"] = self.notes
        return out

    def __str__(self) -> str:
        given = ", ".join(f"{k}={_text(v)}" for k, v in self.inputs.items())
        side = ">=" if self.direction == "up" else "<="
        text = (
            f"{self.mechanism}: {self.quantity} = {self.approx_text()} (exact {_short(self.exact_text())}); "
            f"safe float {self.safe_float!r} ({side} exact); inputs {given}"
        )
        if self.extra:
            text += "; " + ", ".join(f"{k}={_text(v)}" for k, v in self.extra.items())
        return text

    def _repr_latex_(self) -> str:
        import sympy

        symbol = _SYMBOLS.get(self.quantity, self.quantity)
        if _is_enclosure(self.exact):
            lo, hi = self.exact
            value = rf"\in \left[{decimal_at_most(lo, 20)},\ {decimal_at_least(hi, 20)}\right]"
        elif isinstance(self.exact, Fraction):
            value = "= " + sympy.latex(sympy.Rational(self.exact.numerator, self.exact.denominator))
        else:
            value = "= " + sympy.latex(self.exact)
        side = r"\geq" if self.direction == "up" else r"\leq"
        inputs = r",\ ".join(
            f"{_SYMBOLS.get(k, k)} = {sympy.latex(sympy.Rational(v.numerator, v.denominator))}"
            if isinstance(v, Fraction) else f"{_SYMBOLS.get(k, k)} = {v}"
            for k, v in self.inputs.items()
        )
        if "alpha" in self.extra:
            inputs += rf",\ \alpha = {float(self.extra['alpha'])!r}"
        return (
            rf"$\text{{{self.mechanism}}}:\ {symbol} {value};\ "
            rf"\text{{safe float}}\ {self.safe_float!r} {side} {symbol}\quad ({inputs})$"
        )


def _text(value: Any) -> Any:
    if isinstance(value, Fraction):
        return format_exact(value)
    if isinstance(value, float):
        return repr(value)
    return value if isinstance(value, (str, int)) else str(value)


def _short(text: str | list[str], limit: int = 60) -> str:
    if isinstance(text, list):
        return "[" + ", ".join(_short(t, limit // 2) for t in text) + "]"
    return text if len(text) <= limit else text[: limit - 3] + "..."
