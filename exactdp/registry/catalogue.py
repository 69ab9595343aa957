"""The catalogue of sensitivity formulas (kind ``"formula"``): the entries of the modules
in :data:`exactdp.symbolic.catalogue.ENTRY_MODULES`."""

from __future__ import annotations

from exactdp.symbolic.catalogue import catalogue


def claims(all_k: bool = False) -> list:
    return catalogue()
