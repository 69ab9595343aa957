"""Lazy package exports: a package lists its public names and the module that defines each,
and a name's module is imported on first use (PEP 562), so ``import exactdp`` and
``exactdp --help`` do not import SymPy, NumPy or mpmath until a path needs them."""

from __future__ import annotations

import importlib
from typing import Callable


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose public ``name`` lives in ``exports[name]``."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(importlib.import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__


def exports_of(modules: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """``{name: module}`` from ``{module: (name, ...)}`` (how a package writes its list)."""
    return {name: module for module, names in modules.items() for name in names}
