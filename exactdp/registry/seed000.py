"""Seed 000's sensitivity rules (kind ``"sensitivity"``), defined in
:mod:`exactdp.checkers.builtin`."""

from __future__ import annotations

from exactdp.checkers.builtin import seed000_claims


def claims(all_k: bool = False) -> list:
    return seed000_claims()
