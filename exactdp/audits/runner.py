"""Run the audit suite of one installed library (``exactdp audit LIBRARY``).

The suites live one module per library (:data:`SUITES`); each defines ``DISTRIBUTION``
(the name pip knows), ``EXTRA`` (exactdp's extra that installs it) and ``audits()``, a
function returning its :class:`~exactdp.audits.base.Audit` list, so that importing the
suite module costs nothing and the library itself is imported only inside the checks.

Versions: a suite states the versions it was checked on (``CHECKED_ON``, a tuple) and the
range it applies to (``SUPPORTED``, a specifier such as ``">=0.6.6,<0.7"``; :data:`CHECKED`
holds both for the built-in suites that do not state them). :func:`version_note` says, in one
line, when the installed version is not one the suite was checked on; an installed version
outside ``SUPPORTED`` is refused (:func:`require_supported`) unless ``any_version``.

Suites of other packages are found through the entry-point group ``exactdp.audits``
(:mod:`exactdp.audits.plugins`) and run like the built-in ones.
"""

from __future__ import annotations

import functools
import importlib
import re

import time
from importlib import metadata
from typing import Callable

from dataclasses import replace

from exactdp._alarm import alarm_after
from exactdp.audits.base import DEPTHS, Audit, AuditResult, Severity, call_library, version_applies  # noqa: F401 - call_library re-exported
from exactdp.checkers.results import Verdict
from exactdp.errors import ExactDPError, InvalidArgument, LibraryCallFailed, MissingDependency, Undecided

__all__ = ["SUITES", "CHECKED", "DEFAULT_TIME_LIMIT", "DEPTHS", "check_depth", "installed_version", "suite", "suite_names",
           "plugin_suites", "distribution", "checked_on", "supported", "version_note", "require_supported", "run_one", "run_audits", "call_library"]

SUITES = {
    "opendp": "exactdp.audits.suite_opendp",
    "diffprivlib": "exactdp.audits.suite_diffprivlib",
    "tumult": "exactdp.audits.suite_tumult",
    "dp-accounting": "exactdp.audits.suite_dp_accounting",
    "prv-accountant": "exactdp.audits.suite_prv_accountant",
    "smartnoise-sql": "exactdp.audits.suite_smartnoise",
    "python-dp": "exactdp.audits.suite_python_dp",
    "pipeline-dp": "exactdp.audits.suite_pipeline_dp",
    "opacus": "exactdp.audits.suite_opacus",
}
"""Library name (as typed after ``exactdp audit``) -> the module holding its suite."""

DEFAULT_TIME_LIMIT = 120.0
"""Seconds one audit may take before it is stopped and reported as an error (its severity
step, at depth full, has a limit of its own of the same length)."""


def check_depth(depth: object) -> str:
    """``depth`` if it is one of :data:`~exactdp.audits.base.DEPTHS`, else one line of
    :class:`InvalidArgument`."""
    if not isinstance(depth, str) or depth not in DEPTHS:
        raise InvalidArgument(f"depth={depth!r}: expected one of {', '.join(DEPTHS)} (quick: each audit "
                              f"stops at its first witness; full: also its worst case)")
    return depth


CHECKED = {
    "opendp": (("0.16.0",), ">=0.16"),
    "diffprivlib": (("0.6.6",), ">=0.6.6,<0.7"),
    "dp-accounting": (("0.6.0",), ""),
    "prv-accountant": (("0.2.0",), ""),
}
"""Built-in suite -> (the versions it was checked on, the range it applies to), for the
suites whose module does not state ``CHECKED_ON`` / ``SUPPORTED`` itself (the ranges are
those of exactdp's extras)."""


def plugin_suites():
    """The installed audit plug-ins by name (:func:`exactdp.audits.plugins.plugins`; a name
    of a built-in suite is marked as a problem)."""
    from exactdp.audits.plugins import plugins

    return plugins(builtin=set(SUITES))


def suite_names() -> list[str]:
    """The built-in suites, then the installed plug-ins (broken ones too: running one says
    why it cannot run)."""
    return list(SUITES) + [name for name in plugin_suites() if name not in SUITES]


def _suite_module(library: str):
    if library in SUITES:
        return importlib.import_module(SUITES[library])
    found = plugin_suites()
    if library in found:
        from exactdp.audits.plugins import load

        return load(found[library])
    extra = f"; installed plug-ins: {', '.join(found)}" if found else ""
    raise InvalidArgument(f"library {library!r}: expected one of {', '.join(SUITES)}{extra}")


def installed_version(library: str) -> str:
    """The installed version of ``library``, or :class:`MissingDependency` naming the extra."""
    module = _suite_module(library)
    try:
        return metadata.version(module.DISTRIBUTION)
    except metadata.PackageNotFoundError:
        if library in SUITES:
            raise MissingDependency(module.DISTRIBUTION, module.EXTRA, getattr(module, "INSTALL_NOTE", "")) from None
        from exactdp.audits.plugins import PluginLibraryMissing

        install = getattr(module, "INSTALL", None) or f"pip install {module.DISTRIBUTION}"
        raise PluginLibraryMissing(module.DISTRIBUTION, install) from None


def checked_on(library: str) -> tuple[str, ...]:
    """The versions of ``library`` its suite was checked on (``()``: it does not say)."""
    module = _suite_module(library)
    versions = getattr(module, "CHECKED_ON", None)
    if versions is None:
        versions = CHECKED.get(library, ((), ""))[0] if library in SUITES else ()
    return (versions,) if isinstance(versions, str) else tuple(versions)


def supported(library: str) -> str:
    """The version range ``library``'s suite applies to (``""``: any)."""
    module = _suite_module(library)
    spec = getattr(module, "SUPPORTED", None)
    if spec is None:
        spec = CHECKED.get(library, ((), ""))[1] if library in SUITES else ""
    return spec


def distribution(library: str) -> str:
    """The name pip knows the library audited by the suite ``library`` by."""
    return _suite_module(library).DISTRIBUTION


def version_note(library: str, version: str) -> str | None:
    """One line when the installed ``version`` is not one the suite was checked on (or the
    suite names none), else None.

    >>> version_note("tumult", "0.20.0") is None
    True
    >>> version_note("tumult", "0.21.0")
    "tmlt.core 0.21.0 is installed; the tumult suite was checked on 0.19.1, 0.20.0 only: its verdicts on 0.21.0 are what the audits find there, not reviewed against that version's code"
    """
    dist, checked = distribution(library), checked_on(library)
    if not checked:
        return (f"{dist} {version} is installed; the {library} suite does not say which versions "
                f"it was checked on (CHECKED_ON)")
    if any(_same_release(version, c) for c in checked):
        return None
    return (f"{dist} {version} is installed; the {library} suite was checked on "
            f"{', '.join(checked)} only: its verdicts on {version} are what the audits find "
            f"there, not reviewed against that version's code")


def _same_release(a: str, b: str) -> bool:
    """``0.16`` and ``0.16.0`` are one release; ``0.16.0rc1`` is not ``0.16.0``."""
    a, b = a.strip(), b.strip()
    numeric = re.compile(r"[0-9]+(\.[0-9]+)*")
    return a == b or bool(numeric.fullmatch(a) and numeric.fullmatch(b) and version_applies(a, f"=={b}"))


def require_supported(library: str, version: str) -> None:
    """:class:`InvalidArgument` (one line) when ``version`` is outside the range the suite
    applies to (``any_version=True`` in :func:`run_audits`, ``--any-version`` on the
    command line, runs it anyway, with the version note in the report)."""
    spec = supported(library)
    if spec and not version_applies(version, spec):
        dist, checked = distribution(library), checked_on(library)
        on = f" (checked on {', '.join(checked)})" if checked else ""
        raise InvalidArgument(
            f"{dist} {version} is installed, but the {library} suite applies to {dist} "
            f"{spec}{on}: install a version in that range, or pass any_version (--any-version) "
            f"to run it anyway with the version noted in the report")


def suite(library: str) -> list[Audit]:
    """Every audit of ``library``'s suite (whatever the installed version)."""
    version = functools.partial(installed_version, library)  # how its audits learn the version
    audits = [replace(a, installed=version) if isinstance(a, Audit) else a
              for a in _suite_module(library).audits()]
    seen: set[str] = set()
    for a in audits:
        if a.id in seen:  # pragma: no cover - a suite-authoring error
            raise InvalidArgument(f"audit id {a.id!r} appears twice in the {library} suite")
        seen.add(a.id)
    return audits


class _TimeLimit(BaseException):
    """Raised inside an audit by the alarm; a BaseException so no audit swallows it."""


def _time_limit(seconds: float | None):
    """:class:`_TimeLimit` raised in the block after ``seconds``
    (:func:`exactdp._alarm.alarm_after`)."""
    return alarm_after(seconds, _TimeLimit)


def _error(audit: Audit, version: str, note: str, seconds: float) -> AuditResult:
    return AuditResult(audit.id, audit.library, version, audit.component, audit.claim, None,
                       "error", note=note, source=audit.source, expected=audit.expected(version),
                       seconds=seconds)


def run_one(audit: Audit, version: str, time_limit: float | None = DEFAULT_TIME_LIMIT, *,
            depth: str = "quick") -> AuditResult:
    """Run one audit; a library error or a time-out is an ``error`` result, never a verdict.

    At ``depth="full"`` an audit with a :attr:`~exactdp.audits.base.Audit.severity` step runs
    it after its check (under a time limit of its own): the result's ``severity`` holds what
    it found, or why it could not run (never a change of verdict); ``seconds`` counts both."""
    check_depth(depth)
    if audit.versions and not version_applies(version, audit.versions):
        return AuditResult(audit.id, audit.library, version, audit.component, audit.claim, None,
                           "skipped", note=f"applies to {audit.library} {audit.versions}, "
                                           f"not to the installed {version}",
                           source=audit.source, expected=audit.expected(version))
    start = time.perf_counter()
    try:
        with _time_limit(time_limit):
            found = audit.check()
            finding = found.enforced()
    except _TimeLimit:
        return _error(audit, version, f"stopped after the time limit of {time_limit:g} s "
                                      "(--time-limit raises it)", time.perf_counter() - start)
    except LibraryCallFailed as e:
        return _error(audit, version, str(e), time.perf_counter() - start)
    except Undecided as e:  # exactdp's own comparison could not be decided: say so, never guess
        return AuditResult(audit.id, audit.library, version, audit.component, audit.claim, None,
                           Verdict.UNDECIDED.value, note=f"exactdp could not decide: {e}",
                           source=audit.source, expected=audit.expected(version),
                           seconds=time.perf_counter() - start)
    except ExactDPError as e:  # exactdp refused its own computation (a budget, an argument)
        return _error(audit, version, f"exactdp: {type(e).__name__}: {e}", time.perf_counter() - start)
    severity = None
    if depth == "full" and audit.severity is not None:
        severity = _run_severity(audit, time_limit)
    seconds = time.perf_counter() - start
    return AuditResult(audit.id, audit.library, version, audit.component, audit.claim,
                       finding.truth, finding.verdict.value, finding.witness,
                       finding.replay.value if finding.replay else None, finding.scope,
                       finding.note, audit.source, audit.expected(version), seconds, finding.claim,
                       evidence=finding.evidence.value if finding.evidence else None,
                       tight=found.tight and finding.verdict.holding, severity=severity)


def _run_severity(audit: Audit, time_limit: float | None) -> Severity:
    """The audit's severity step, its rules applied; what stopped it, as an ``error`` severity."""
    start = time.perf_counter()
    try:
        with _time_limit(time_limit):
            found = audit.severity()
        if not isinstance(found, Severity):  # pragma: no cover - a suite-authoring error
            raise InvalidArgument(f"the severity step of {audit.id!r} returned {type(found).__name__}; "
                                  "expected a Severity")
        found = found.enforced()
    except _TimeLimit:
        return Severity.failed("", f"stopped after the time limit of {time_limit:g} s (--time-limit raises it)",
                               time.perf_counter() - start)
    except LibraryCallFailed as e:
        return Severity.failed("", str(e), time.perf_counter() - start)
    except Undecided as e:
        return Severity.failed("", f"exactdp could not decide: {e}", time.perf_counter() - start)
    except ExactDPError as e:
        return Severity.failed("", f"exactdp: {type(e).__name__}: {e}", time.perf_counter() - start)
    return replace(found, seconds=time.perf_counter() - start)


def run_audits(library: str, only: list[str] | None = None, *,
               time_limit: float | None = DEFAULT_TIME_LIMIT,
               progress: Callable[[AuditResult], None] | None = None,
               any_version: bool = False, depth: str = "quick") -> list[AuditResult]:
    """Run ``library``'s suite against its installed version (``only``: these ids).

    ``depth`` is ``"quick"`` (each audit's check: its first witness) or ``"full"`` (also each
    audit's severity step: the worst case it certifies, replayed; see :func:`run_one`).

    An installed version outside the range the suite applies to is refused
    (:func:`require_supported`) unless ``any_version``; :func:`version_note` says when it
    is not a version the suite was checked on."""
    check_depth(depth)
    version = installed_version(library)
    if not any_version:
        require_supported(library, version)
    audits = suite(library)
    if only:
        known = {a.id for a in audits}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise InvalidArgument(f"audit id {unknown[0]!r} is not in the {library} suite: "
                                  f"'exactdp audit {library} --list' shows the {len(known)} ids")
        audits = [a for a in audits if a.id in set(only)]
    results = []
    for audit in audits:
        result = run_one(audit, version, time_limit, depth=depth)
        results.append(result)
        if progress is not None:
            progress(result)
    return results
