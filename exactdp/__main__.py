"""``python -m exactdp ...`` is the ``exactdp`` command.

The working directory's entry at the front of ``sys.path`` was dropped already, by
``exactdp/__init__.py``, which ``python -m`` runs first (a ``typing.py`` planted there
would otherwise be imported in place of the standard module)."""

from exactdp.cli import console

if __name__ == "__main__":
    console()
