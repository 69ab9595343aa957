"""The catalogue of sensitivity formulas (kind ``"formula"``): the entries of the modules
in :data:`exactdp.symbolic.catalogue.ENTRY_MODULES`."""

from __future__ import annotations

import importlib

# the module (the package exactdp.symbolic exports a function of the same name)
symbolic_catalogue = importlib.import_module("exactdp.symbolic.catalogue")


def claims(all_k: bool = False) -> list:
    return symbolic_catalogue.catalogue()  # looked up when called (tests replace it)
