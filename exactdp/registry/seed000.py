"""Seed 000's sensitivity rules (kind ``"sensitivity"``), defined in
:mod:`exactdp.checkers.builtin`."""

from __future__ import annotations


def claims(all_k: bool = False) -> list:
    from exactdp.checkers.builtin import seed000_claims

    return seed000_claims()
