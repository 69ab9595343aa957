"""Lazy package exports: a package lists its public names in its ``__init__.pyi`` stub (``from
module import Name as Name``), and a name's module is imported on first use (PEP 562), so
``import exactdp`` and ``exactdp --help`` do not import SymPy, NumPy or mpmath until a path
needs them. The stub is the one table: type checkers read it for the names' types, and
:func:`lazy_package` reads it (with ``ast``, once, at import) for where each name lives.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
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


def stub_exports(stub: Path) -> dict[str, str]:
    """``{name: module}`` from the absolute ``from module import name as name`` lines of a stub
    (in their order); other statements are ignored."""
    exports: dict[str, str] = {}
    for node in ast.parse(stub.read_text(encoding="utf-8"), filename=str(stub)).body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                exports[alias.asname or alias.name] = node.module
    return exports


def lazy_package(package: str, init_file: str) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose names are those its
    ``__init__.pyi`` (beside ``init_file``) imports; names the package defines itself (such as
    ``__version__``) are not lazy and not in ``__all__`` unless the stub lists them."""
    exports = stub_exports(Path(init_file).with_suffix(".pyi"))
    getattr_, dir_ = lazy_exports(package, exports)
    return getattr_, dir_, [name for name in exports if not name.startswith("_")]
