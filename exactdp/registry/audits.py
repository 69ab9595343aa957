"""The library audits (kind ``"audit"``): every suite of
:data:`exactdp.audits.runner.SUITES`, whether or not its library is installed (importing a
suite never imports its library). ``exactdp audit --list`` lists them all and marks those
whose library is missing as skipped."""

from __future__ import annotations

__all__ = ["claims"]


def claims(all_k: bool = False) -> list:
    from exactdp.audits.runner import SUITES, suite

    return [audit for library in SUITES for audit in suite(library)]

