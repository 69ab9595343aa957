"""The library audits (kind ``"audit"``): every suite of
:data:`exactdp.audits.runner.SUITES`, whether or not its library is installed (importing a
suite never imports its library). ``exactdp audit --list`` lists them all and marks those
whose library is missing as skipped."""

from __future__ import annotations
from exactdp.audits.runner import SUITES, suite
from exactdp.errors import InvalidArgument

__all__ = ["claims", "suites", "suite_of"]


def suites(*names: str) -> dict[str, list]:
    """Suite name (as typed after ``exactdp audit``) -> its audits, in registry order (only
    the suites ``names``, when given: the others are not imported)."""
    return {name: suite(name) for name in SUITES if not names or name in names}


def claims(all_k: bool = False) -> list:
    return [audit for audits in suites().values() for audit in audits]


def suite_of(audit) -> str:
    """The name of the suite that holds ``audit``."""
    for name, audits in suites().items():
        if any(a.id == audit.id for a in audits):
            return name

    raise InvalidArgument(f"audit id={audit.id!r} is in no suite of exactdp.audits.runner.SUITES")
