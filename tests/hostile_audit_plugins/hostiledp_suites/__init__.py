"""Suite modules that misbehave on purpose (see ../pyproject.toml); the audited library is
this distribution itself (``DISTRIBUTION = "hostiledp"``), so it is always installed."""

from __future__ import annotations

from exactdp.audits import Audit, Finding, Replay
from exactdp.checkers.results import Evidence, Verdict

DISTRIBUTION = "hostiledp"


def audit(id: str, check, claim: str = "sensitivity 1") -> Audit:
    """One audit of the library ``hostiledp`` with id ``hostiledp/<id>``."""
    return Audit(id=f"hostiledp/{id}", library="hostiledp", component=id, claim=claim, check=check)


def holds() -> Finding:
    """A well-behaved check: holds on a grid, with its evidence."""
    return Finding(claim="1", truth="1", verdict=Verdict.HOLDS_TIGHT, evidence=Evidence.BIT_EXACT_GRID,
                   scope="a grid of two datasets")


WITNESS = {"x": [0], "x_prime": [0, 1], "fx": 0, "fx_prime": 2}
"""A witness a violation might carry."""

__all__ = ["Audit", "Finding", "Replay", "Evidence", "Verdict", "DISTRIBUTION", "audit", "holds", "WITNESS"]
