"""Every sensitivity seed 003's notebook printed (kind ``"sensitivity"``), defined in
:mod:`exactdp.checkers.builtin`: at ``k = 1, 2``, or every ``k`` with ``all_k``."""

from __future__ import annotations

from exactdp.checkers.builtin import seed003_claims


def claims(all_k: bool = False) -> list:
    return seed003_claims(None if all_k else (1, 2))
