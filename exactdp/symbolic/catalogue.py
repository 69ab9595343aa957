"""The catalogue: every sensitivity formula from the seeds, published and derived, re-checked.

:func:`catalogue` lists the entries of the modules in :data:`ENTRY_MODULES` (each defines
``entries() -> list[Entry]``); what an entry is and how it is checked (:class:`Entry`,
:class:`Truth`, :func:`check_entry`, ...) is :mod:`exactdp.symbolic.entry`, re-exported here.
An entry is also a claim of the registry (:mod:`exactdp.registry`), of kind ``"formula"``:
what it expects is that the derived formula holds (tightly, when promised).
"""

from __future__ import annotations

import importlib

from exactdp.errors import InvalidArgument
from exactdp.symbolic.entry import (  # noqa: F401 - re-exported: the catalogue's public names
    Entry,
    EntryCheck,
    InstanceWitness,
    Truth,
    check_entry,
    describe_grid,
    evaluate,
)

__all__ = ["Truth", "Entry", "EntryCheck", "InstanceWitness", "check_entry", "catalogue",
           "evaluate", "describe_grid", "ENTRY_MODULES"]

ENTRY_MODULES = (
    "exactdp.symbolic.entries_seed000",
    "exactdp.symbolic.entries_seed002",
    "exactdp.relational.entries",
)


def catalogue() -> list[Entry]:
    """Every entry, in a stable order; ids are unique."""
    entries: list[Entry] = []
    for name in ENTRY_MODULES:
        entries.extend(importlib.import_module(name).entries())
    seen: set[str] = set()
    for e in entries:
        if e.id in seen:
            raise InvalidArgument(f"duplicate catalogue id={e.id!r}")
        seen.add(e.id)
    return entries
