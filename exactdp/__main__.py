"""``python -m exactdp ...`` is the ``exactdp`` command."""

import os
import sys

# ``python -m`` puts the working directory first on sys.path, where a file named like one of
# exactdp's dependencies (sympy.py, gmpy2.py, fractions.py, ...) would be imported instead
# of it: drop that entry before anything else is imported (exactdp itself already is, so an
# editable install still works). The ``exactdp`` script never had it; PYTHONSAFEPATH, -P
# and -I leave it out already.
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from exactdp.cli import main  # noqa: E402 - after the path is made safe

if __name__ == "__main__":
    sys.exit(main())
