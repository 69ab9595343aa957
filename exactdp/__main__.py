"""``python -m exactdp ...`` is the ``exactdp`` command."""

import sys

from exactdp.cli import main

if __name__ == "__main__":
    sys.exit(main())
