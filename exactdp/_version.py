"""exactdp's version, in a module of its own so that any layer may read it without importing
the package's public surface (``exactdp/__init__.py``, the top layer)."""

__version__ = "0.1.0"
