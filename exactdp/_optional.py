"""The one door to optional libraries: import one, or say how to install it.

>>> require("math", library="math").sqrt(4)
2.0

Every optional import in exactdp goes through :func:`require`, so a missing library is always
a :class:`~exactdp.errors.MissingDependency` whose message names the library, what failed and
the install line (``pip install 'exactdp[EXTRA]'`` for an extra, else the library's own
``pip install NAME``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from exactdp.errors import MissingDependency

__all__ = ["require", "version"]


def require(*modules: str, library: str, extra: str | None = None, note: str = "") -> ModuleType:
    """Import each of ``modules`` (in order) and return the first; if one cannot be imported,
    raise :class:`MissingDependency` for ``library`` (its name on PyPI) and ``extra`` (the
    exactdp extra that installs it, if any), with what failed and ``note``."""
    if not modules:
        raise ValueError("require() needs at least one module name")
    found = []
    for name in modules:
        try:
            found.append(importlib.import_module(name))
        except ImportError as err:
            detail = f"{type(err).__name__}: {err}" + (f"; {note}" if note else "")
            raise MissingDependency(library, extra, detail=detail) from err
    return found[0]


def version(distribution: str, extra: str | None = None, note: str = "") -> str:
    """The installed version of ``distribution`` (its name on PyPI), or
    :class:`MissingDependency` with the install line."""
    from importlib import metadata  # lazy: importlib.metadata loads email, csv and socket; only a version look-up needs it

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        raise MissingDependency(distribution, extra, detail=note) from None
