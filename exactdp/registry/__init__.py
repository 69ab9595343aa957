"""The claim registry: every claim exactdp can check, of every kind, in one list.

A claim (:class:`Claim`) has an ``id`` (unique across kinds), a ``source`` (where it was
published), a ``kind`` (one of :data:`KINDS`), a ``statement`` (what is checked), what its
check is expected to find (``expect``), ``check()`` (a result with a ``verdict`` and a
``witness``; the results of the sensitivity and privacy kinds also carry ``evidence``, one
of :class:`~exactdp.checkers.results.Evidence`, in their ``to_dict()``: ``bit-exact`` for
every built-in claim, and ``holds`` / ``holds-tight`` appear only with it) and
``meets_expectation(result)``. The kinds:

* ``"sensitivity"``: a published sensitivity on one space
  (:class:`~exactdp.checkers.builtin.BuiltinClaim`; seed 000's rules, seed 003's tables:
  :mod:`exactdp.registry.seed000`, :mod:`exactdp.registry.seed003`);
* ``"privacy"``: a published statement about a mechanism
  (:class:`~exactdp.checkers.privacy_claims.PrivacyClaim`);
* ``"formula"``: a catalogue formula over a grid of bindings
  (:class:`~exactdp.symbolic.catalogue.Entry`);
* ``"audit"``: a DP library's claim, checked on its own code
  (:class:`~exactdp.audits.base.Audit`); one whose library is not installed is listed and
  reported as *skipped*, never as passed.

The claims stay defined beside the code that checks them; the registry lists them, one
module per source (:data:`SOURCES`, in order), and refuses an id given twice.
``exactdp verify`` runs the first three kinds; ``exactdp catalog`` and ``exactdp audit``
are views of the last two.

>>> [c.id for c in claims(prefix="s000/clipped-sum/add-remove/L")]
['s000/clipped-sum/add-remove/L=0', 's000/clipped-sum/add-remove/L>0', 's000/clipped-sum/add-remove/L<0<U']
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

from exactdp.errors import InvalidArgument

__all__ = ["Claim", "KINDS", "SOURCES", "claims", "claim"]

KINDS = ("sensitivity", "privacy", "formula", "audit")

SOURCES = (
    ("exactdp.registry.seed000", "sensitivity"),
    ("exactdp.registry.seed003", "sensitivity"),
    ("exactdp.registry.privacy", "privacy"),
    ("exactdp.registry.seed_corrections", "privacy"),
    ("exactdp.registry.seed_semantics", "sensitivity"),
    ("exactdp.registry.seed_semantics_privacy", "privacy"),
    ("exactdp.registry.seed_code", "privacy"),
    ("exactdp.registry.seed_remaining", "privacy"),
    ("exactdp.registry.seed_last", "privacy"),
    ("exactdp.registry.seed_domains", "privacy"),
    ("exactdp.registry.catalogue", "formula"),
    ("exactdp.registry.audits", "audit"),
)
"""``(module, kind)`` in registry order; each module defines ``claims(all_k) -> list``."""


@runtime_checkable
class Claim(Protocol):
    """What every claim of the registry offers."""

    @property
    def id(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def statement(self) -> str: ...

    @property
    def expect(self) -> Any:
        """A verdict value (``"holds-tight"``, ...), ``"float-close"``, or for an audit a
        mapping ``{version specifier: verdict}``."""

    def check(self) -> Any:
        """A result with ``verdict`` and ``witness`` (and, for the sensitivity and privacy
        kinds, ``evidence``); never raises on a violation."""

    def meets_expectation(self, result: Any) -> bool: ...


def claims(kind: str | tuple[str, ...] | None = None, prefix: str | None = None, *,
           all_k: bool = False) -> list[Claim]:
    """Every claim of ``kind`` (one kind, a tuple of kinds, or all by default) whose id
    starts with ``prefix``, in registry order; seed 003 at ``k = 1, 2`` unless ``all_k``
    (every ``k`` it printed).

    Only the sources of those kinds are imported. An id given twice among them is refused
    (:class:`~exactdp.errors.InvalidArgument`).
    """
    kinds = KINDS if kind is None else (kind,) if isinstance(kind, str) else tuple(kind)
    for k in kinds:
        if k not in KINDS:
            raise InvalidArgument(f"kind={k!r}: expected one of {', '.join(KINDS)}")
    found: list[Claim] = []
    for module, module_kind in SOURCES:
        if module_kind in kinds:
            found.extend(importlib.import_module(module).claims(all_k))
    seen: dict[str, str] = {}
    for c in found:
        if c.id in seen:
            raise InvalidArgument(f"claim id={c.id!r} is registered twice (as {seen[c.id]} and "
                                  f"as {c.kind}); give one of them another id")
        seen[c.id] = c.kind
    return [c for c in found if prefix is None or c.id.startswith(prefix)]


def claim(id: str, *, all_k: bool = True) -> Claim:
    """The claim whose id is ``id`` (any kind)."""
    for c in claims(all_k=all_k):
        if c.id == id:
            return c
    raise InvalidArgument(f"no claim has id={id!r}; registry.claims(prefix=...) lists them")
