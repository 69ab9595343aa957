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

from exactdp import _optional
from exactdp._progress import Progress
from exactdp._alarm import alarm_after, read_seconds
from exactdp.audits.coverage import Coverage, map_coverage
from exactdp.audits.plugins import LOAD_TIME_LIMIT, PluginBroken, PluginLibraryMissing, load, plugins
from exactdp._usercode import Contained, Stopped, contained, first_line, printable
from exactdp.adapters._calls import call_library  # noqa: F401 - re-exported for plug-ins (README)
from exactdp.audits.base import DEPTHS, Audit, AuditResult, Finding, Severity, version_applies
from exactdp.checkers.results import Verdict
from exactdp.errors import ExactDPError, InvalidArgument, LibraryCallFailed, Undecided

__all__ = ["SUITES", "CHECKED", "DEFAULT_TIME_LIMIT", "DEPTHS", "check_depth", "installed_version", "suite", "suite_names",
           "plugin_suites", "suite_module", "coverage", "distribution", "checked_on", "supported", "version_note", "require_supported", "run_one", "run_audits", "call_library"]

SUITES = {
    "opendp": "exactdp.audits.suite_opendp",
    "diffprivlib": "exactdp.audits.suite_diffprivlib",
    "tumult": "exactdp.audits.suite_tumult",
    "tumult-analytics": "exactdp.audits.suite_tumult_analytics",
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
    return plugins(builtin=set(SUITES))


def suite_names() -> list[str]:
    """The built-in suites, then the installed plug-ins (broken ones too: running one says
    why it cannot run)."""
    return list(SUITES) + [name for name in plugin_suites() if name not in SUITES]


def suite_module(library: str):
    """The module holding ``library``'s suite (a plug-in's is imported contained, see
    :func:`exactdp.audits.plugins.load`)."""
    if library in SUITES:
        return importlib.import_module(SUITES[library])
    found = plugin_suites()
    if library in found:
        return load(found[library])
    extra = f"; installed plug-ins: {', '.join(found)}" if found else ""
    raise InvalidArgument(f"library {library!r}: expected one of {', '.join(SUITES)}{extra}")


def installed_version(library: str) -> str:
    """The installed version of ``library``, or :class:`MissingDependency` naming the extra."""
    module = suite_module(library)
    if library in SUITES:
        return _optional.version(module.DISTRIBUTION, module.EXTRA, getattr(module, "INSTALL_NOTE", ""))
    try:
        return metadata.version(module.DISTRIBUTION)
    except metadata.PackageNotFoundError:
        install = getattr(module, "INSTALL", None) or f"pip install {module.DISTRIBUTION}"
        raise PluginLibraryMissing(module.DISTRIBUTION, install) from None


def checked_on(library: str) -> tuple[str, ...]:
    """The versions of ``library`` its suite was checked on (``()``: it does not say)."""
    module = suite_module(library)
    versions = getattr(module, "CHECKED_ON", None)
    if versions is None:
        versions = CHECKED.get(library, ((), ""))[0] if library in SUITES else ()
    return (versions,) if isinstance(versions, str) else tuple(versions)


def supported(library: str) -> str:
    """The version range ``library``'s suite applies to (``""``: any)."""
    module = suite_module(library)
    spec = getattr(module, "SUPPORTED", None)
    if spec is None:
        spec = CHECKED.get(library, ((), ""))[1] if library in SUITES else ""
    return spec


def distribution(library: str) -> str:
    """The name pip knows the library audited by the suite ``library`` by."""
    return suite_module(library).DISTRIBUTION


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
    """Every audit of ``library``'s suite (whatever the installed version).

    A plug-in's ``audits()`` runs contained (:func:`exactdp._usercode.contained`, under
    :data:`LOAD_TIME_LIMIT`): one that exits, raises, prints, hangs, leaves a thread
    running or returns anything but a non-empty list of :class:`Audit` with distinct
    string ids is :class:`~exactdp.audits.plugins.PluginBroken` (one line naming it)."""
    module = suite_module(library)
    if library in SUITES:
        listed = module.audits()
    else:
        listed = _plugin_audits(library, module)
    version = functools.partial(installed_version, library)  # how its audits learn the version
    audits = [replace(a, installed=version) for a in listed]
    seen: set[str] = set()
    for a in audits:
        if a.id in seen:
            raise _suite_error(library, f"audit id {printable(a.id)!r} appears twice in its audits(): "
                                        f"give each audit an id of its own")
        seen.add(a.id)
    return audits




def _suite_error(library: str, what: str) -> InvalidArgument:
    if library in SUITES:  # a built-in suite's authoring error
        return InvalidArgument(f"the {library} suite: {what}")
    plugin = plugin_suites()[library]
    return PluginBroken(f"audit plug-in {library!r} ({plugin.origin}): {what}; fix or uninstall "
                        f"{plugin.distribution or 'the package that declares it'}")


def _plugin_audits(library: str, module) -> list[Audit]:
    """A plug-in's ``audits()``, called contained; its list checked."""
    box = Contained()
    try:
        with _time_limit(LOAD_TIME_LIMIT), contained(_TimeLimit, record=box):
            listed = module.audits()
    except _TimeLimit:
        raise _suite_error(library, f"audits() did not return within {LOAD_TIME_LIMIT:g} s") from None
    except Stopped as e:
        raise _suite_error(library, f"audits() {e.describe()}{box.printed.said()}") from None
    except Exception as e:  # noqa: BLE001 - the plug-in's own error
        raise _suite_error(library, f"audits() raised {type(e).__name__}: {first_line(e)}") from None
    trouble = box.problems() + ([f"printed to stdout{box.printed.said()}"] if box.printed.total else [])
    if trouble:
        raise _suite_error(library, f"audits() {'; '.join(trouble)}")
    if not isinstance(listed, (list, tuple)):
        raise _suite_error(library, f"audits() returned {_kind(listed)}; expected a list of "
                                    f"exactdp.audits.base.Audit")
    bad = [(i, a) for i, a in enumerate(listed) if not isinstance(a, Audit)]
    if bad:
        i, a = bad[0]
        raise _suite_error(library, f"audits() returned {_kind(a)} at position {i} ({len(bad)} of its "
                                    f"{len(listed)} items are not an Audit); expected a list of "
                                    f"exactdp.audits.base.Audit")
    if not listed:
        raise _suite_error(library, "audits() returned no audits: a suite audits at least one claim")
    for a in listed:
        if not isinstance(a.id, str) or not a.id or not callable(a.check):
            raise _suite_error(library, f"an audit with id={printable(repr(a.id))} and check={_kind(a.check)}: "
                                        f"each Audit needs a non-empty string id and a callable check")
    return list(listed)


def _kind(value: object) -> str:
    """``42 (int)``, ``'x' (str)``: a value a plug-in handed back, for a one-line message."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{printable(text)} ({type(value).__name__})"



def coverage(library: str) -> Coverage:
    """The coverage map of ``library``'s suite against its installed version
    (:mod:`exactdp.audits.coverage`): each primitive the suite lists from the library's
    namespace, with its audits or why none. :class:`MissingDependency` (naming how to
    install it) when the library is missing."""
    version = installed_version(library)
    return map_coverage(library, version, suite_module(library), suite(library))


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
            depth: str = "quick", strict: bool = True) -> AuditResult:
    """Run one audit; a library error or a time-out is an ``error`` result, never a verdict.

    At ``depth="full"`` an audit with a :attr:`~exactdp.audits.base.Audit.severity` step runs
    it after its check (under a time limit of its own): the result's ``severity`` holds what
    it found, or why it could not run (never a change of verdict); ``seconds`` counts both.

    The check runs contained (:func:`exactdp._usercode.contained`): an exit, any exception,
    a return that is not a :class:`Finding` is an ``error`` result naming what happened, and
    nothing it prints reaches the report. ``strict`` (the default; :func:`run_audits` clears
    it for a built-in suite): threads left running, a moved working directory or a print
    are an ``error`` too (:func:`_misbehaved`)."""
    check_depth(depth)
    if audit.versions and not version_applies(version, audit.versions):
        return AuditResult(audit.id, audit.library, version, audit.component, audit.claim, None,
                           "skipped", note=f"applies to {audit.library} {audit.versions}, "
                                           f"not to the installed {version}",
                           source=audit.source, expected=audit.expected(version))
    start = time.perf_counter()
    box = Contained()
    try:
        with _time_limit(time_limit), contained(_TimeLimit, record=box):
            found = audit.check()
        if not isinstance(found, Finding):
            return _error(audit, version, f"its check() returned {_kind(found)}; expected an "
                                          f"exactdp.audits.base.Finding", time.perf_counter() - start)
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
    except Stopped as e:  # sys.exit, os._exit, ... in the suite's or the library's code
        return _error(audit, version, f"its check() {e.describe()}{box.printed.said()}",
                      time.perf_counter() - start)
    except Exception as e:  # noqa: BLE001 - the suite's own code raised (a library call is LibraryCallFailed)
        return _error(audit, version, f"its check() raised {type(e).__name__}: {first_line(e)}",
                      time.perf_counter() - start)
    trouble, kept = _misbehaved(box, strict)
    if trouble:
        return _error(audit, version, f"its check() {trouble}", time.perf_counter() - start)
    if kept:
        finding = replace(finding, note=f"{finding.note}; {kept}" if finding.note else kept)
    severity = None
    if depth == "full" and audit.severity is not None:
        severity = _run_severity(audit, time_limit, strict)
    seconds = time.perf_counter() - start
    return AuditResult(audit.id, audit.library, version, audit.component, audit.claim,
                       finding.truth, finding.verdict.value, finding.witness,
                       finding.replay.value if finding.replay else None, finding.scope,
                       finding.note, audit.source, audit.expected(version), seconds, finding.claim,
                       evidence=finding.evidence.value if finding.evidence else None,
                       tight=found.tight and finding.verdict.holding, severity=severity,
                       settings=finding.settings)


def _run_severity(audit: Audit, time_limit: float | None, strict: bool = True) -> Severity:
    """The audit's severity step, its rules applied; what stopped it, as an ``error`` severity."""
    start = time.perf_counter()
    box = Contained()
    try:
        with _time_limit(time_limit), contained(_TimeLimit, record=box):
            found = audit.severity()
        if not isinstance(found, Severity):
            raise InvalidArgument(f"the severity step of {printable(audit.id)!r} returned {_kind(found)}; "
                                  "expected a Severity")
        trouble, kept = _misbehaved(box, strict)
        if trouble:
            return Severity.failed("", f"the severity step {trouble}", time.perf_counter() - start)
        found = found.enforced()
        if kept:
            found = replace(found, note=f"{found.note}; {kept}" if found.note else kept)
    except _TimeLimit:
        return Severity.failed("", f"stopped after the time limit of {time_limit:g} s (--time-limit raises it)",
                               time.perf_counter() - start)
    except LibraryCallFailed as e:
        return Severity.failed("", str(e), time.perf_counter() - start)
    except Undecided as e:
        return Severity.failed("", f"exactdp could not decide: {e}", time.perf_counter() - start)
    except ExactDPError as e:
        return Severity.failed("", f"exactdp: {type(e).__name__}: {e}", time.perf_counter() - start)
    except Stopped as e:
        return Severity.failed("", f"the severity step {e.describe()}{box.printed.said()}",
                               time.perf_counter() - start)
    except Exception as e:  # noqa: BLE001 - the suite's own code raised
        return Severity.failed("", f"the severity step raised {type(e).__name__}: {first_line(e)}",
                               time.perf_counter() - start)
    return replace(found, seconds=time.perf_counter() - start)


def _misbehaved(box: Contained, strict: bool) -> tuple[str, str]:
    """What contained audit code did besides answering, as ``(error, note)`` phrases.

    ``strict`` (a plug-in's suite, code exactdp does not own): threads left running, the
    working directory moved or anything printed to stdout make the result an ``error``.
    A built-in suite's audit runs the library's own code, which may start threads (a Spark
    session) or print (a JVM's banner): what it printed and where it moved the working
    directory (put back) are a note, and the ``exactdp`` command exits past its threads."""
    trouble = box.problems()
    printed = f"printed to stdout{box.printed.said()}" if box.printed.total else ""
    if strict:
        if printed:
            trouble.append(f"{printed} (a suite answers with a Finding, it does not print)")
        return "; ".join(trouble), ""
    kept = [p for p in trouble if not p.startswith("left ")] + ([f"the library {printed}"] if printed else [])
    return "", "; ".join(kept)


def run_audits(library: str, only: list[str] | None = None, *,
               time_limit: float | None = DEFAULT_TIME_LIMIT,
               progress: Callable[[AuditResult], None] | None = None,
               any_version: bool = False, depth: str = "quick",
               show_progress: bool | None = None) -> list[AuditResult]:
    """Run ``library``'s suite against its installed version (``only``: these ids).

    ``progress`` is called with each result as it comes. ``show_progress`` shows a line on
    stderr naming the audit that is running (``[3/40] <id>``) and the results so far: by
    default on a terminal and in a Jupyter kernel (``EXACTDP_PROGRESS`` overrides), never
    on stdout; the ``exactdp audit`` command prints its own line per result instead.

    ``depth`` is ``"quick"`` (each audit's check: its first witness) or ``"full"`` (also each
    audit's severity step: the worst case it certifies, replayed; see :func:`run_one`).

    An installed version outside the range the suite applies to is refused
    (:func:`require_supported`) unless ``any_version``; :func:`version_note` says when it
    is not a version the suite was checked on."""
    check_depth(depth)
    if time_limit is not None:
        time_limit = read_seconds(time_limit, "time_limit", DEFAULT_TIME_LIMIT)
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
    strict = library not in SUITES  # a plug-in's code: any misbehaviour is an error result
    results: list[AuditResult] = []
    line = Progress(f"{library} audits", len(audits), show_progress)
    verdicts: dict[str, int] = {}
    try:
        for i, audit in enumerate(audits, 1):
            so_far = ", ".join(f"{n} {v}" for v, n in verdicts.items())
            line.show(f"[{i}/{len(audits)}] {printable(audit.id)}" + (f" ({so_far})" if so_far else ""),
                      phase=True)
            result = run_one(audit, version, time_limit, depth=depth, strict=strict)
            results.append(result)
            verdicts[result.verdict] = verdicts.get(result.verdict, 0) + 1
            if progress is not None:
                progress(result)
    finally:
        line.close()
    return results
