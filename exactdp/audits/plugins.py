"""Audit suites of other packages: the entry-point group ``exactdp.audits``.

A library author audits their own library with ``exactdp audit NAME`` by declaring, in the
package that holds the suite (the library itself, or a package beside it)::

    [project.entry-points."exactdp.audits"]
    toydp = "toydp.audit.suite"

The value is a module (``package.module``, no ``:attr``) with the interface of the built-in
suites (:mod:`exactdp.audits.runner`): ``DISTRIBUTION`` (the name pip knows the audited
library by), ``audits()`` (the :class:`~exactdp.audits.base.Audit` list, built without
importing the library), and optionally ``CHECKED_ON`` (the versions the suite was checked
on), ``SUPPORTED`` (a version specifier such as ``">=0.1,<0.2"``: another installed version
is refused unless asked for) and ``INSTALL`` (what to run when the library is missing,
``pip install DISTRIBUTION`` by default).

Discovery (:func:`plugins`) reads the installed distributions' metadata through
:mod:`importlib.metadata` and imports nothing; :func:`load` imports one suite module and
checks its interface. A plug-in that raises on import, lacks the interface, takes a
built-in suite's name or shares its name with another plug-in is *broken*: loading it
raises :class:`PluginBroken` (one line; ``exactdp audit`` exits 2) and ``exactdp audit
--list`` marks it so.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType

from exactdp._alarm import alarm_after
from exactdp._usercode import Contained, Stopped, contained, first_line
from exactdp.errors import InvalidArgument, MissingDependency

__all__ = ["GROUP", "Plugin", "PluginBroken", "PluginLibraryMissing", "plugins", "load"]

GROUP = "exactdp.audits"
"""The entry-point group of audit plug-ins: ``name = "package.module"``."""

LOAD_TIME_LIMIT = 60.0
"""Seconds a plug-in's module may take to import (and, in the runner, its ``audits()``)."""


class _TooSlow(BaseException):
    """Raised by the alarm in a plug-in's import that ran past :data:`LOAD_TIME_LIMIT`."""

_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class PluginBroken(InvalidArgument):
    """An audit plug-in could not be used: it raised on import, lacks the suite interface,
    or its name is taken. One line, naming the plug-in, its entry point and what to do."""


class PluginLibraryMissing(MissingDependency):
    """The library a plug-in suite audits is not installed (the message says how to
    install it, from the suite's ``INSTALL``, not an exactdp extra)."""

    def __init__(self, library: str, install: str):
        Exception.__init__(self, f"{library} is not installed: install it with {install}")
        self.library = library
        self.extra = None


@dataclass(frozen=True)
class Plugin:
    """One entry point of the group ``exactdp.audits``, not yet imported."""

    name: str  # as typed after ``exactdp audit``
    module: str  # the suite module (the entry point's value)
    distribution: str | None  # the installed distribution that declares it
    version: str | None  # that distribution's version
    problem: str = ""  # why it cannot be used, found without importing it ("" when none)

    @property
    def origin(self) -> str:
        """``entry point exactdp.audits 'toydp = toydp.audit.suite' of toydp 0.1.0``."""
        dist = f" of {self.distribution} {self.version}" if self.distribution else ""
        return f"entry point {GROUP} '{self.name} = {self.module}'{dist}"


def plugins(builtin: frozenset[str] | set[str] = frozenset()) -> dict[str, Plugin]:
    """The installed audit plug-ins by name, in name order (nothing is imported).

    ``builtin``: the names of the built-in suites; a plug-in that takes one is kept with a
    ``problem`` (the built-in suite is the one ``exactdp audit NAME`` runs).
    """
    found: dict[str, list[Plugin]] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        name, version = (getattr(dist, "name", None), getattr(dist, "version", None)) if dist else (None, None)
        value = ep.value.strip()
        problem = ""
        if ":" in value or not _MODULE.fullmatch(value):
            problem = (f"its value {value!r} is not a module path: expected 'package.module' of a "
                       f"suite module (DISTRIBUTION, audits())")
        elif not _NAME.fullmatch(ep.name):
            problem = f"its name {ep.name!r} cannot be typed after 'exactdp audit': use letters, digits, '.', '_', '-'"
        found.setdefault(ep.name, []).append(Plugin(ep.name, value, name, version, problem))
    out: dict[str, Plugin] = {}
    for name in sorted(found):
        same = found[name]
        first = same[0]
        if len({(p.module, p.distribution) for p in same}) > 1:
            others = ", ".join(p.origin for p in same)
            first = Plugin(name, first.module, first.distribution, first.version,
                           f"{len(same)} installed plug-ins share the name {name!r} ({others}): "
                           f"uninstall all but one")
        elif name in builtin:
            first = Plugin(name, first.module, first.distribution, first.version,
                           f"{name!r} is the name of a built-in suite, which 'exactdp audit {name}' "
                           f"runs: rename the entry point")
        out[name] = first
    return out


def load(plugin: Plugin) -> ModuleType:
    """Import ``plugin``'s suite module and check its interface; :class:`PluginBroken` (one
    line) when it raises on import or lacks ``DISTRIBUTION`` / ``audits()``."""
    head = f"audit plug-in {plugin.name!r} ({plugin.origin})"
    if plugin.problem:
        raise PluginBroken(f"{head}: {plugin.problem}")
    fix = f"fix or uninstall {plugin.distribution or 'the package that declares it'}"
    box = Contained()
    try:
        with alarm_after(LOAD_TIME_LIMIT, _TooSlow), contained(_TooSlow, record=box):
            module = importlib.import_module(plugin.module)
    except _TooSlow:
        raise PluginBroken(f"{head}: importing it did not finish within {LOAD_TIME_LIMIT:g} s: {fix}") from None
    except Stopped as e:  # sys.exit, os._exit in the plug-in's module
        raise PluginBroken(f"{head} {e.describe()} on import{box.printed.said()}: {fix}") from None
    except Exception as e:  # the plug-in's own error: one line, never a traceback
        raise PluginBroken(f"{head} raised {type(e).__name__} on import: {first_line(e)}: {fix}") from e
    trouble = box.problems() + ([f"printed to stdout{box.printed.said()}"] if box.printed.total else [])
    if trouble:
        raise PluginBroken(f"{head}: importing it {'; '.join(trouble)}: {fix}")
    missing = [attr for attr in ("DISTRIBUTION", "audits") if not hasattr(module, attr)]
    if missing or not isinstance(module.DISTRIBUTION, str) or not callable(module.audits):
        what = (f"lacks {' and '.join(missing)}" if missing else
                "has a DISTRIBUTION that is not a string or an audits that is not callable")
        raise PluginBroken(f"{head}: module {plugin.module!r} {what}: a suite module defines "
                           f"DISTRIBUTION (the library's name on PyPI) and audits() (its Audit list)")
    return module


