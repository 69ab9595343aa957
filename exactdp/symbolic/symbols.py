"""Canonical SymPy symbols, with their assumptions and meanings.

Every formula in exactdp uses these objects (SymPy compares symbols by name *and*
assumptions, so a stray ``Symbol("L")`` would not match ``L`` here: use :func:`symbol`).

``L <= U`` cannot be stated as a SymPy assumption; constructors that take bounds check it on
exact values and keep it as an explicit side condition for symbolic ones.

>>> from exactdp.symbolic.symbols import d_in, N, MEANINGS
>>> d_in.is_integer, d_in.is_nonnegative, N.is_positive
(True, True, True)
>>> MEANINGS["N"]
'the dataset size, when it is public (bounded DP)'
"""

from __future__ import annotations

import sympy

from exactdp.errors import InvalidArgument

__all__ = ["d_in", "d_out", "L", "U", "N", "k", "epsilon", "delta", "rho", "alpha", "C",
           "scale", "sigma", "min_size", "MEANINGS", "SYMBOLS", "symbol"]

d_in = sympy.Symbol("d_in", integer=True, nonnegative=True)
d_out = sympy.Symbol("d_out", nonnegative=True)
L = sympy.Symbol("L", real=True)
U = sympy.Symbol("U", real=True)
N = sympy.Symbol("N", integer=True, positive=True)
k = sympy.Symbol("k", integer=True, positive=True)
epsilon = sympy.Symbol("epsilon", positive=True)
delta = sympy.Symbol("delta", nonnegative=True)
rho = sympy.Symbol("rho", nonnegative=True)
alpha = sympy.Symbol("alpha", real=True)
C = sympy.Symbol("C", nonnegative=True)
scale = sympy.Symbol("scale", positive=True)
sigma = sympy.Symbol("sigma", positive=True)
min_size = sympy.Symbol("min_size", integer=True, nonnegative=True)

MEANINGS = {
    "d_in": "the input distance bound (records added or removed, or records changed)",
    "d_out": "the output distance bound",
    "L": "the lower clipping bound of each record",
    "U": "the upper clipping bound of each record (L <= U)",
    "N": "the dataset size, when it is public (bounded DP)",
    "k": "the number of partitions (bins) one individual may contribute to",
    "epsilon": "the privacy-loss parameter",
    "delta": "the failure probability of approximate DP",
    "rho": "the zero-concentrated DP parameter",
    "alpha": "the quantile level, 0 <= alpha <= 1",
    "C": "the bound on each row's norm",
    "scale": "the scale b of Laplace noise",
    "sigma": "the standard deviation of Gaussian noise",
    "min_size": "the smallest dataset size allowed (a public lower bound on the size)",
}

SYMBOLS = {s.name: s for s in (d_in, d_out, L, U, N, k, epsilon, delta, rho, alpha, C, scale,
                                sigma, min_size)}


def symbol(name: str) -> sympy.Symbol:
    """The canonical symbol called ``name``."""
    try:
        return SYMBOLS[name]
    except KeyError:
        raise InvalidArgument(f"no canonical symbol name={name!r}; expected one of "
                              f"{sorted(SYMBOLS)}") from None
