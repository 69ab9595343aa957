"""Code a test's child process runs first to act as an environment without a library: its
distribution's metadata is not found and its modules do not import (``sys.modules[name] =
None``). Tests load this file by path (the tests folder is not a package)."""

from __future__ import annotations

import textwrap


def hide(distribution: str, *modules: str) -> str:
    """The code that hides ``distribution`` (compared as pip normalises names) and ``modules``."""
    names = "".join(f"    sys.modules[{m!r}] = None\n" for m in modules)
    return textwrap.dedent(f"""
        import importlib.metadata as md, re, sys
        _real = md.version
        def _version(name):
            if re.sub(r"[-_.]+", "-", name).lower() == {_normal(distribution)!r}:
                raise md.PackageNotFoundError(name)
            return _real(name)
        md.version = _version
    """) + textwrap.dedent(names)


def _normal(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()
