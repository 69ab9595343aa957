"""Numeric layer: exact conversion, directed rounding, interval enclosures, float formats
and bit-exact float summation models with sound sensitivity bounds.

>>> from exactdp.numeric import float_at_least, float_at_most
>>> float_at_least("0.1"), float_at_most("0.1")
(0.1, 0.09999999999999999)
"""

from exactdp._lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, __file__)  # the names: __init__.pyi
