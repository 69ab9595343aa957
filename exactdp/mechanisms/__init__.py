"""Mechanisms: exact privacy maps, and parameters that never underestimate.

Every parameter comes back as a :class:`Calibration` (or a result of its own kind) with the
exact value, or an enclosure of it, and the float on the safe side.

Names are imported on first use (:mod:`exactdp._lazy`): importing one module of the
package, such as :mod:`exactdp.mechanisms.accounting.ledger`, loads only what it needs.

>>> from exactdp.mechanisms import laplace_scale
>>> c = laplace_scale("0.3", 1)
>>> c.exact, c.safe_float
(Fraction(10, 3), 3.3333333333333335)
"""

from exactdp._lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, __file__)  # the names: __init__.pyi
