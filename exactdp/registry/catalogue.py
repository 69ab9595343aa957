"""The catalogue of sensitivity formulas (kind ``"formula"``): the entries of the modules
in :data:`exactdp.symbolic.catalogue.ENTRY_MODULES`."""

from __future__ import annotations

from exactdp.symbolic import catalogue as symbolic_catalogue


def claims(all_k: bool = False) -> list:
    return symbolic_catalogue.catalogue()  # looked up when called (tests replace it)
