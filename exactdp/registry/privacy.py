"""The published privacy statements (kind ``"privacy"``), defined in
:mod:`exactdp.checkers.privacy_claims`."""

from __future__ import annotations


def claims(all_k: bool = False) -> list:
    from exactdp.checkers.privacy_claims import privacy_claims

    return privacy_claims()
