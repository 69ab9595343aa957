"""Seed 000's sensitivity rules (kind ``"sensitivity"``), defined in
:mod:`exactdp.checkers.builtin`."""

from __future__ import annotations


def claims(all_k: bool = False) -> list:
    from exactdp.checkers.builtin import seed000_claims  # lazy: loads SymPy, which this module does not import at load

    return seed000_claims()
