"""Which public primitives of a library its audit suite reaches (``exactdp audit LIB
--coverage``).

A suite module lists the library's primitives from the library's own public namespace, so
that the list grows with the library: ``primitives()`` (it may import the library) returns
the qualified names (``"opendp.measurements.make_laplace"``) of every public primitive that
adds noise, aggregates, bounds contributions, selects partitions or accounts a budget.
Each :class:`~exactdp.audits.base.Audit` names what it exercises in ``covers``; a suite's
``NOT_AUDITED`` (a mapping of qualified name to why) says why a listed primitive has no
audit. :func:`exactdp.audits.runner.coverage` joins the three: each primitive with its audit ids, or "not
audited" and why ("no audit yet" where the suite does not say).
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from exactdp.audits.base import Audit
from exactdp.errors import InvalidArgument

__all__ = ["Primitive", "Coverage", "map_coverage", "public_callables", "NO_AUDIT_YET"]

NO_AUDIT_YET = "no audit yet"
"""The reason shown for a listed primitive that no audit covers and the suite says nothing of."""


@dataclass(frozen=True)
class Primitive:
    """One listed primitive: the ids of the audits that exercise it, or why none does."""

    name: str
    audits: tuple[str, ...] = ()
    why: str = ""  # why it is not audited ("" when audited)

    @property
    def audited(self) -> bool:
        return bool(self.audits)

    def to_dict(self) -> dict[str, Any]:
        return {"primitive": self.name, "audited": self.audited, "audits": list(self.audits),
                "why": self.why or None}


@dataclass(frozen=True)
class Coverage:
    """A library's listed primitives, each audited or not (and why)."""

    library: str
    version: str
    primitives: tuple[Primitive, ...]

    @property
    def audited(self) -> int:
        return sum(p.audited for p in self.primitives)

    @property
    def share(self) -> float:
        """The audited share of the listed primitives (1.0 when none is listed)."""
        return self.audited / len(self.primitives) if self.primitives else 1.0

    def summary(self) -> str:
        """``opendp 0.16.0: 84 of 92 listed primitives audited (91.3%)``."""
        return (f"{self.library} {self.version}: {self.audited} of {len(self.primitives)} listed primitives "
                f"audited ({100 * self.share:.1f}%)")

    def lines(self) -> list[str]:
        """One line per primitive, then the summary."""
        width = max((len(p.name) for p in self.primitives), default=0)
        out = [f"{p.name:<{width}}  " + (", ".join(p.audits) if p.audited else f"not audited: {p.why}")
               for p in self.primitives]
        return out + [self.summary()]

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "version": self.version, "listed": len(self.primitives),
                "audited": self.audited, "share": round(self.share, 4),
                "primitives": [p.to_dict() for p in self.primitives]}


def public_callables(module_name: str, *, prefix: str = "", exclude: Iterable[str] = ()) -> Iterator[str]:
    """The qualified names of ``module_name``'s public callables (its ``__all__`` where it
    has one, else the names not starting with ``_``) whose name starts with ``prefix``,
    leaving out the glob patterns of ``exclude`` (matched against the qualified name). How
    suites take their list from the library's own namespace."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    patterns = tuple(exclude)
    for name in sorted(set(names)):
        if not name.startswith(prefix):
            continue
        obj = getattr(module, name, None)
        if obj is None or not callable(obj) or inspect.ismodule(obj):
            continue
        qualified = f"{module_name}.{name}"
        if any(fnmatch.fnmatchcase(qualified, p) for p in patterns):
            continue
        yield qualified


def map_coverage(library: str, version: str, module: Any, audits: Iterable[Audit]) -> Coverage:
    """The coverage map of ``library``'s suite ``module`` (its ``primitives()`` and
    ``NOT_AUDITED``) against its ``audits`` at the installed ``version``
    (:func:`exactdp.audits.runner.coverage` loads them; this module imports no suite, so that
    suites can use :func:`public_callables`). :class:`InvalidArgument` when the suite lists
    no primitives."""
    lister = getattr(module, "primitives", None)
    if lister is None:
        raise InvalidArgument(f"the {library} suite does not list its library's primitives (primitives()), "
                              f"so its coverage cannot be mapped")
    listed = list(dict.fromkeys(lister()))
    reasons: dict[str, str] = dict(getattr(module, "NOT_AUDITED", {}))
    by_primitive: dict[str, list[str]] = {}
    for audit in audits:
        if not isinstance(audit, Audit):
            continue
        for name in audit.covers:
            by_primitive.setdefault(name, []).append(audit.id)
    return Coverage(library, version, tuple(
        Primitive(name, tuple(by_primitive.get(name, ())),
                  "" if by_primitive.get(name) else reasons.get(name, NO_AUDIT_YET))
        for name in listed))
