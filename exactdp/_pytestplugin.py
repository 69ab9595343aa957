"""exactdp's pytest plugin: state a sensitivity claim in a test, get the exact verdict.

Registered under the ``pytest11`` entry point (load it by hand with
``-p exactdp._pytestplugin``). It loads in every pytest run of every project that has
exactdp installed, so at import it imports only ``pytest`` and exactdp's modules that load
no SymPy or mpmath (errors, budgets, the claims-file reader its options need in every
session, the checker's front door: about 60 modules); SymPy is loaded when a claim is
checked.

In a test::

    def test_clipped_sum(exactdp_claim):
        exactdp_claim("U - L", clipped(sum_, 0, 10), Multisets(IntegerRange(0, 10), sizes=(0, 3)))

or, with the marker (checked when the test runs, before its body)::

    @pytest.mark.exactdp_claim("U - L", clipped(sum_, 0, 10), space, id="clipped-sum")
    def test_clipped_sum():
        ...

A claim that does not hold fails the test with :class:`exactdp.ClaimViolated` (an
``AssertionError`` carrying ``.result``): the message gives the verdict, the claim
against the exact value, the witness pair and the scope; the report gets an
``exactdp`` section. ``expect="violated"`` keeps a known-wrong claim as a regression
(the test fails if it ever holds). Options: ``--exactdp-max-pairs``,
``--exactdp-max-datasets`` (enumeration budgets), ``--exactdp-time-limit SECONDS`` (or the
``exactdp_time_limit`` ini option; default 60 s: a claim still running then fails its test
with :class:`exactdp.claimsfile.TimeLimitExceeded` naming the claim and the limit) and
``--exactdp-report PATH`` (a JSON file, written at the end of the session, its folder
created if missing; an empty PATH or a folder is refused before the tests run).

The report is ``{"exactdp_report": 1, "claims": [...]}`` with one object per claim the run
touched, from every xdist worker too. Each has ``id`` (a string; a repeated id is made
unique as ``id#2`` with a warning), ``test`` (the node id), ``expect`` and ``passed``, then
either the result (``verdict``, ``claim``, ``claim_value``, ``sensitivity``, ``witness``,
``scope``, ``evidence``) or, for a claim that could not be checked (bad arguments, a
function that raised or exited, the time limit, a budget refused),
``"verdict": "error"`` with ``claim`` (as given, or ``null``) and ``error`` (the
exception's type and message), ``passed`` false.
"""

from __future__ import annotations

import inspect
import json
import sys
import warnings

import pytest

from exactdp._budget import budget_argument
from exactdp.checkers.results import Verdict, evidence_note, format_value
from exactdp.checkers.sensitivity import sensitivity, verify_claim
from exactdp.claimsfile import DEFAULT_TIME_LIMIT, TimeLimitExceeded, read_time_limit, within_time_limit
from exactdp.errors import ClaimViolated, ExactDPError, InvalidArgument
from exactdp.queries import Query, user_query

__all__ = ["MARKER", "OPTIONS"]

MARKER = "exactdp_claim"
OPTIONS = ("--exactdp-max-pairs", "--exactdp-max-datasets", "--exactdp-time-limit", "--exactdp-report")
INI_TIME_LIMIT = "exactdp_time_limit"
_EXPECT = ("holds", "violated")

_RECORDS = pytest.StashKey[list]()
_TIME_LIMIT = pytest.StashKey[float]()


def _time_limit_argument(text: str) -> float:
    """An argparse ``type`` for ``--exactdp-time-limit`` (pytest names the option)."""
    import argparse


    try:
        return read_time_limit(text, "--exactdp-time-limit")
    except InvalidArgument as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("exactdp", "exactdp: exact checks of sensitivity claims")
    group.addoption("--exactdp-time-limit", type=_time_limit_argument, default=None, metavar="SECONDS",
                    help=f"fail a claim's test when checking it takes more than SECONDS (default: the "
                         f"{INI_TIME_LIMIT} ini option, else {DEFAULT_TIME_LIMIT:g})")
    parser.addini(INI_TIME_LIMIT, f"seconds one exactdp claim may take before its test fails "
                                  f"(default {DEFAULT_TIME_LIMIT:g}; --exactdp-time-limit overrides it)")
    group.addoption("--exactdp-max-pairs", type=budget_argument, default=None, metavar="N",
                    help="refuse to enumerate more than N neighbouring pairs per claim "
                         "(default: exactdp's own budget)")
    group.addoption("--exactdp-max-datasets", type=budget_argument, default=None, metavar="N",
                    help="refuse to enumerate more than N datasets per claim (default: exactdp's own budget)")
    group.addoption("--exactdp-report", default=None, metavar="PATH",
                    help="write a JSON report: one object per claim the run touched (id, verdict, "
                         "exact value, witness, scope; a claim that could not be checked has verdict "
                         "'error' and its error)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(claim, query, space, metric='add-remove', d_in=1, *, id=None, expect='holds', "
        "**options): check a sensitivity claim exactly with exactdp when the test runs",
    )
    config.stash[_RECORDS] = []
    config.stash[_TIME_LIMIT] = _configured_time_limit(config)
    import os

    report = config.getoption("exactdp_report", None)
    if report is not None and not report.strip():  # said now: it wrote nothing and exited 0
        raise pytest.UsageError(f"--exactdp-report={report!r} is empty; give the path of the JSON "
                                f"file to write, e.g. --exactdp-report exactdp-report.json")
    if report and os.path.isdir(report):  # said now, not after the tests ran
        raise pytest.UsageError(f"--exactdp-report={report!r} is a folder; give the path of the JSON "
                                f"file to write, e.g. {os.path.join(report, 'exactdp-report.json')!r}")


def _configured_time_limit(config: pytest.Config) -> float:
    given = config.getoption("exactdp_time_limit", None)
    if given is not None:
        return given
    ini = config.getini(INI_TIME_LIMIT)
    if ini in (None, "", []):
        return DEFAULT_TIME_LIMIT
    try:
        return read_time_limit(ini, f"the ini option {INI_TIME_LIMIT}")
    except InvalidArgument as e:
        raise pytest.UsageError(str(e)) from None


_WORKER_OUTPUT = "exactdp_claims"
"""The key under which an xdist worker hands its report entries (JSON text) to the controller."""


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    path = config.getoption("exactdp_report", None)
    if not path:
        return
    records = config.stash.get(_RECORDS, [])
    if hasattr(config, "workerinput"):  # an xdist worker: the controller writes the report
        config.workeroutput[_WORKER_OUTPUT] = json.dumps(records)
        return
    import os

    try:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)  # as --junitxml does
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"exactdp_report": 1, "claims": records}, f, indent=2)
            f.write("\n")
    except OSError as e:
        why = "a part of its folder is a file" if isinstance(e, FileExistsError) else e.strerror or str(e)
        pytest.exit(f"exactdp: cannot write --exactdp-report={path!r}: {why}; give a path in a folder "
                    f"you can write to", returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist's controller: take a finished worker's report entries (an id another worker
    used too is made unique as ``id#2``)."""
    text = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT)
    if text:
        for entry in json.loads(text):
            _add(node.config, entry, warn=False)


def _budgets(config: pytest.Config) -> dict:
    out = {}
    for option, key in (("exactdp_max_pairs", "max_pairs"), ("exactdp_max_datasets", "max_datasets")):
        value = config.getoption(option, None)
        if value is not None:
            out[key] = value
    return out


def _relation(result) -> tuple[str, str]:
    """How the claim stands to the value computed, and what that value is called, for every
    :class:`~exactdp.checkers.results.Verdict`: ``("<", "exact sensitivity")`` for
    ``violated``, ``("==" | ">", ...)`` for ``holds-tight`` / ``holds`` and for the
    ``holds-*`` words of weaker evidence (compared exactly; ``">="`` if that cannot be
    decided), whose value is only the "computed maximum"; ``"vs"`` for ``undecided`` and
    ``vacuous`` (nothing was compared)."""

    verdict = result.verdict
    exact = "exact sensitivity"
    if verdict is Verdict.VIOLATED:
        return "<", exact
    if verdict is Verdict.HOLDS_TIGHT:
        return "==", exact
    if verdict is Verdict.HOLDS:
        return ">", exact
    if verdict.holding:  # holds-on-grid, holds-ideal-noise, holds-statistically, holds-empirical-model

        try:
            from exactdp.numeric.decide import compare  # lazy: loads SymPy, needed only for a verdict of weaker evidence

            sign = compare(result.claim, result.sensitivity.value)
        except (ExactDPError, TypeError, ValueError):
            sign = None
        return {0: "==", 1: ">"}.get(sign, ">="), "computed maximum"
    return "vs", exact  # undecided (not compared) and vacuous (no pair; a line after says why)


def describe(result, expect: str = "holds") -> str:
    """The failure text: verdict (with its evidence when not bit-exact), claim against the
    value computed, witness and scope. Every verdict word has its own relation
    (:func:`_relation`)."""

    s = result.sensitivity
    note = evidence_note(getattr(result, "evidence", "bit-exact"))
    lines = [f"exactdp: claim {result.claim_shown} on {s.query.name}: {result.verdict.value.upper()}{note}"
             + ("" if expect == "holds" else f" (expected {expect})")]
    rel, value = _relation(result)
    lines.append(f"  claim {format_value(result.claim)} {rel} {value} {format_value(s.value)}")
    if s.witness is not None:
        lines.append(f"  witness: {s.witness}")
    if s.scope.pairs == 0:
        lines.append(f"  nothing was checked: {s.scope.no_pairs_hint()}")
    lines.append(f"  scope: {s.scope.describe()}")
    return "\n".join(lines)


VERDICT_HELP = {
    "violated": "the claim is below the exact sensitivity (the witness pair shows it)",
    "holds-tight": "the claim equals the exact sensitivity over the whole stated space (bit-exact evidence)",
    "holds": "the claim is above the exact sensitivity over the whole stated space (bit-exact evidence)",
    "holds-on-grid": "never below, on the finite grid the scope names only (evidence bit-exact-grid)",
    "holds-ideal-noise": ("never below, the parameter checked bit for bit but the sampler taken as its "
                          "ideal distribution (evidence ideal-noise)"),
    "holds-statistically": ("never below, a step decided from random draws with its stated error "
                            "probability (evidence statistical)"),
    "holds-empirical-model": ("never below, for a model matched to the library on samples "
                              "(evidence empirical-model)"),
    "undecided": "the comparison could not be decided at the precision tried",
    "vacuous": "no neighbouring pair was examined: nothing was checked",
    "unbounded": ("the sensitivity grows without bound in a parameter: a family of neighbouring "
                  "pairs whose distance tends to infinity shows it (no finite claim can hold)"),
}
"""What each :class:`~exactdp.checkers.results.Verdict` value means, for the failure help
(every value has a line: a test checks it)."""


def _passes(result, expect: str) -> bool:
    if expect == "violated":
        return result.verdict is Verdict.VIOLATED
    return result.ok


def _add(config, entry: dict, warn: bool = True, given_id=None) -> None:
    """Append one report entry, its ``id`` made unique in the report: an id already used gets
    ``#2``, ``#3``... and (``warn``, for an id the user gave) a warning says so."""
    records = config.stash.setdefault(_RECORDS, [])
    used = {r["id"] for r in records}
    wanted = entry["id"]
    chosen, n = wanted, 1
    while chosen in used:
        n += 1
        chosen = f"{wanted}#{n}"
    if chosen != wanted and warn and given_id is not None:
        warnings.warn(pytest.PytestWarning(
            f"exactdp: claim id {wanted!r} is already used by another claim in this session; the "
            f"report names this one {chosen!r} (give each claim its own id=)"))
    records.append({**entry, "id": chosen})


def _record(config, nodeid: str, claim_id, result, expect: str) -> None:
    """One report entry for a claim checked; its id a string (``id=3`` is ``"3"``)."""
    out = {"id": nodeid if claim_id is None else str(claim_id), "test": nodeid, "expect": expect,
           "passed": _passes(result, expect)}
    out.update(result.to_dict())
    _add(config, out, given_id=claim_id)


def _record_error(config, nodeid: str, claim_id, expect, claim, error: BaseException) -> None:
    """One report entry for a claim that could not be checked: ``"verdict": "error"`` and the
    ``error`` (the exception's type and message); ``claim`` as given (``None`` if missing)."""
    message = str(error)
    out = {"id": nodeid if claim_id is None else str(claim_id), "test": nodeid,
           "expect": expect if isinstance(expect, str) else repr(expect), "passed": False,
           "verdict": "error", "claim": _claim_text(claim),
           "error": f"{type(error).__name__}: {message}" if message else type(error).__name__}
    _add(config, out, given_id=claim_id)


def _claim_text(claim) -> str | None:
    """The claim as given, for the report (``None`` when there was none)."""
    if claim is None or isinstance(claim, str):
        return claim
    try:
        return str(claim)
    except Exception:  # noqa: BLE001 - an object that cannot print itself
        return repr(type(claim))


_POSITIONAL = ("claim", "query", "space", "metric", "d_in")
_OWN_KEYWORDS = ("id", "expect")
_CALL = ("(claim, query, space, metric='add-remove', d_in=1, *, id=None, expect='holds', "
         "**options)")


def _accepted_options() -> tuple[str, ...]:
    """The options ``verify_claim`` passes on: the keyword-only parameters of
    :func:`exactdp.sensitivity` (``max_pairs``, ``scope``, ``undefined``...)."""

    return tuple(name for name, p in inspect.signature(sensitivity).parameters.items()
                 if p.kind is p.KEYWORD_ONLY)


def _bind(where: str, args: tuple, kwargs: dict) -> dict:
    """The call's arguments by name, or :class:`~exactdp.errors.InvalidArgument` naming what
    is wrong (a missing or repeated argument, an unknown keyword) and how the call reads."""

    def call(claim, query, space, metric="add-remove", d_in=1, *, id=None, expect="holds", **options):
        pass

    try:
        bound = inspect.signature(call).bind(*args, **kwargs)
    except TypeError as e:
        raise InvalidArgument(f"{where}: {e}; call it as {where}{_CALL}") from None
    bound.apply_defaults()
    named = dict(bound.arguments)
    options = named.pop("options")
    accepted = _accepted_options()
    unknown = [k for k in options if k not in accepted]
    if unknown:
        shown = ", ".join(f"{k}={_clip(repr(options[k]))}" for k in unknown)
        words = "keyword" if len(unknown) == 1 else "keywords"
        raise InvalidArgument(
            f"{where}({shown}): unknown {words} {', '.join(map(repr, unknown))}; the keywords "
            f"accepted are {', '.join(_POSITIONAL + _OWN_KEYWORDS + accepted)}; check the "
            f"spelling or drop {'it' if len(unknown) == 1 else 'them'}")
    return {**named, "options": options}


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check(config, nodeid: str, where: str, args: tuple, kwargs: dict):
    """Check one claim (the fixture's call or a marker's arguments), record it in the report
    (a claim that could not be checked too, with its error) and fail unless its verdict is
    what ``expect`` says."""
    __tracebackhide__ = True

    claim_id = kwargs.get("id")
    expect = kwargs.get("expect", "holds")
    try:
        call = _bind(where, args, kwargs)
        claim_id, expect = call["id"], call["expect"]
        result = _verify(config, nodeid, **call)
    except BaseException as e:  # raised, exited, timed out, over a budget: still in the report
        claim = args[0] if args else kwargs.get("claim")
        _record_error(config, nodeid, claim_id, expect, claim, e)
        raise
    _record(config, nodeid, claim_id, result, expect)
    if not _passes(result, expect):
        err = ClaimViolated(describe(result, expect), result)
        err.exactdp_expect = expect
        raise err
    return result


def _verify(config, nodeid: str, claim, query, space, metric, d_in, id, expect, options):
    __tracebackhide__ = True

    if expect not in _EXPECT:
        raise InvalidArgument(f"expect={expect!r} is not one of {_EXPECT}; use 'violated' for a "
                              f"known-wrong claim kept as a regression")

    if callable(query) and not isinstance(query, (Query, str)):
        query = user_query(query)
    seconds = config.stash.get(_TIME_LIMIT, DEFAULT_TIME_LIMIT)
    try:
        with within_time_limit(seconds, f"exactdp: claim {nodeid if id is None else str(id)!r}"):
            return verify_claim(claim, query, space, metric, d_in, **{**_budgets(config), **options})
    except TimeLimitExceeded as e:
        raise TimeLimitExceeded(f"{e} (--exactdp-time-limit or the {INI_TIME_LIMIT} ini option raises "
                                f"it; or make the space smaller)", e.seconds) from None


@pytest.fixture
def exactdp_claim(request: pytest.FixtureRequest):
    """``exactdp_claim(claim, query, space, metric="add-remove", d_in=1, *, id=None,
    expect="holds", **options)``: check a sensitivity claim exactly (``exactdp.verify_claim``
    with the budgets of ``--exactdp-max-pairs``/``--exactdp-max-datasets``) and return the
    ``ClaimResult``; raise ``ClaimViolated`` (failing the test with the verdict, the exact
    value, the witness and the scope) unless the verdict is what ``expect`` says. ``query``
    may be a plain function of a sorted tuple of Fractions (wrapped by ``user_query``)."""

    def check(*args, **kwargs):
        __tracebackhide__ = True
        return _check(request.config, request.node.nodeid, MARKER, args, kwargs)

    return check


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    __tracebackhide__ = True
    for mark in item.iter_markers(MARKER):
        _check(item.config, item.nodeid, f"@pytest.mark.{MARKER}", mark.args, mark.kwargs)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if call.excinfo is not None and "exactdp" in sys.modules:

        exc = call.excinfo.value
        result = getattr(exc, "result", None)
        if isinstance(exc, ClaimViolated) and hasattr(result, "sensitivity"):
            report.sections.append(("exactdp", describe(result, getattr(exc, "exactdp_expect", "holds"))))
    return report


def _is_exactdp(obj, names: tuple[str, ...]) -> bool:
    return type(obj).__module__.startswith("exactdp.") and type(obj).__name__ in names


def pytest_assertrepr_compare(config, op: str, left, right):
    """For a ``ClaimResult`` operand: the verdict, claim against the exact value, witness
    and scope; for a ``Verdict``: what each verdict means."""
    for obj in (left, right):
        if _is_exactdp(obj, ("ClaimResult",)):
            text = describe(obj).splitlines()
            return [f"exactdp result {obj.verdict.value} {op} {(right if obj is left else left)!r}"] + text
    if _is_exactdp(left, ("Verdict",)) or _is_exactdp(right, ("Verdict",)):
        return ([f"exactdp verdict {str(left)!r} {op} {str(right)!r}"]
                + [f"  {word}: {meaning}" for word, meaning in VERDICT_HELP.items()]
                + ["  a verdict is a str: compare result.verdict.holding (no violation found) or "
                   "result.verdict.proven (holds / holds-tight, bit-exact)",
                   "  for the witness, check with assert_claim or the exactdp_claim fixture"])
    return None
