"""Audits of real DP libraries: run a library's own code, check its claims exactly.

``exactdp audit LIBRARY`` runs :func:`run_audits`; the suites are one module per library
(``suite_opendp``, ``suite_diffprivlib``, ``suite_tumult``), the adapters that read a
library's claims and model its arithmetic live in :mod:`exactdp.adapters`.
"""

from exactdp.audits.base import EVIDENCE_TEXT, Audit, AuditResult, Finding, Replay, Settings, Severity, version_applies, weakest
from exactdp.audits.runner import SUITES, installed_version, run_audits, run_one, suite

__all__ = ["Audit", "AuditResult", "Finding", "Replay", "Settings", "Severity", "EVIDENCE_TEXT", "weakest", "version_applies", "SUITES",
           "installed_version", "run_audits", "run_one", "suite"]
