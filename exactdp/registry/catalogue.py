"""The catalogue of sensitivity formulas (kind ``"formula"``): the entries of the modules
in :data:`exactdp.symbolic.catalogue.ENTRY_MODULES`."""

from __future__ import annotations


def claims(all_k: bool = False) -> list:
    from exactdp.symbolic.catalogue import catalogue  # lazy: loads SymPy, which this module does not import at load

    return catalogue()
