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

from exactdp._lazy import lazy_package  # noqa: E402 - after the path is made safe
from exactdp._version import __version__  # noqa: E402

__getattr__, __dir__, __all__ = lazy_package(__name__, __file__)  # the names: __init__.pyi
