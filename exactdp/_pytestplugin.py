"""exactdp's pytest plugin: state a sensitivity claim in a test, get the exact verdict.

Registered under the ``pytest11`` entry point (load it by hand with
``-p exactdp._pytestplugin``). It loads in every pytest run of every project that has
exactdp installed, so at import it imports only ``pytest`` and the few light exactdp modules
its options need (errors, budgets, the time limit's reader); what checks a claim is in
:mod:`exactdp._pytest_impl`, imported (with the checker, SymPy and mpmath) through
:func:`_impl` when a test states a claim or a failure shows an exactdp result.

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

import argparse
import functools
import json
import os
import warnings

import pytest

from exactdp._alarm import CLAIM_TIME_LIMIT as DEFAULT_TIME_LIMIT, read_time_limit
from exactdp._budget import budget_argument
from exactdp.errors import ClaimViolated, InvalidArgument

__all__ = ["MARKER", "OPTIONS"]

MARKER = "exactdp_claim"
OPTIONS = ("--exactdp-max-pairs", "--exactdp-max-datasets", "--exactdp-time-limit", "--exactdp-report")
INI_TIME_LIMIT = "exactdp_time_limit"

_RECORDS = pytest.StashKey[list]()
_TIME_LIMIT = pytest.StashKey[float]()


def _time_limit_argument(text: str) -> float:
    """An argparse ``type`` for ``--exactdp-time-limit`` (pytest names the option)."""
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


def _impl():
    """:mod:`exactdp._pytest_impl`, the one door to what checks a claim (imported when first needed)."""
    from exactdp import _pytest_impl  # lazy: the pytest plugin loads in every project's session; checking a claim loads SymPy

    return _pytest_impl


def _budgets(config: pytest.Config) -> dict:
    out = {}
    for option, key in (("exactdp_max_pairs", "max_pairs"), ("exactdp_max_datasets", "max_datasets")):
        value = config.getoption(option, None)
        if value is not None:
            out[key] = value
    return out


def _check(config: pytest.Config, nodeid: str, where: str, args: tuple, kwargs: dict):
    """Check one claim (:func:`exactdp._pytest_impl.check`) with this session's time limit,
    budgets and report."""
    __tracebackhide__ = True
    return _impl().check(where, args, kwargs, nodeid=nodeid, record=functools.partial(_add, config),
                         seconds=config.stash.get(_TIME_LIMIT, DEFAULT_TIME_LIMIT), budgets=_budgets(config),
                         hint=f"--exactdp-time-limit or the {INI_TIME_LIMIT} ini option raises it; or make "
                              f"the space smaller")


def describe(result, expect: str = "holds") -> str:
    """The failure text of a ``ClaimResult`` (:func:`exactdp._pytest_impl.describe`)."""
    return _impl().describe(result, expect)


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
    if call.excinfo is not None:
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
