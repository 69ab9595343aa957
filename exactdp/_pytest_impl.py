"""What exactdp's pytest plugin does once a claim is checked: bind the call's arguments, check
the claim within the time limit, record it for ``--exactdp-report`` and describe a failure.

:mod:`exactdp._pytestplugin` loads in every pytest session of every project that has exactdp
installed; it reaches this module (and through it the checker, SymPy and mpmath) through one
lazy import, when a test states a claim or a failure shows an exactdp result.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from exactdp.checkers.results import Verdict, evidence_note, format_value
from exactdp.checkers.sensitivity import sensitivity, verify_claim
from exactdp.claimsfile import TimeLimitExceeded, within_time_limit
from exactdp.errors import ClaimViolated, ExactDPError, InvalidArgument
from exactdp.numeric.decide import compare
from exactdp.queries import Query, user_query

__all__ = ["check", "describe"]

_EXPECT = ("holds", "violated")


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


def _passes(result, expect: str) -> bool:
    if expect == "violated":
        return result.verdict is Verdict.VIOLATED
    return result.ok


def _record(record: Callable, nodeid: str, claim_id, result, expect: str) -> None:
    """One report entry for a claim checked; its id a string (``id=3`` is ``"3"``)."""
    out = {"id": nodeid if claim_id is None else str(claim_id), "test": nodeid, "expect": expect,
           "passed": _passes(result, expect)}
    out.update(result.to_dict())
    record(out, given_id=claim_id)


def _record_error(record: Callable, nodeid: str, claim_id, expect, claim, error: BaseException) -> None:
    """One report entry for a claim that could not be checked: ``"verdict": "error"`` and the
    ``error`` (the exception's type and message); ``claim`` as given (``None`` if missing)."""
    message = str(error)
    out = {"id": nodeid if claim_id is None else str(claim_id), "test": nodeid,
           "expect": expect if isinstance(expect, str) else repr(expect), "passed": False,
           "verdict": "error", "claim": _claim_text(claim),
           "error": f"{type(error).__name__}: {message}" if message else type(error).__name__}
    record(out, given_id=claim_id)


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


def check(where: str, args: tuple, kwargs: dict, *, nodeid: str, record: Callable, seconds: float,
          budgets: dict, hint: str):
    """Check one claim (the fixture's call or a marker's arguments, in the test ``nodeid``)
    within ``seconds`` and the enumeration ``budgets``, ``record(entry, given_id=...)`` it for
    the report (a claim that could not be checked too, with its error; ``hint`` says how to
    raise the time limit) and fail unless its verdict is what ``expect`` says."""
    __tracebackhide__ = True

    claim_id = kwargs.get("id")
    expect = kwargs.get("expect", "holds")
    try:
        call = _bind(where, args, kwargs)
        claim_id, expect = call["id"], call["expect"]
        result = _verify(nodeid, seconds, budgets, hint, **call)
    except BaseException as e:  # raised, exited, timed out, over a budget: still in the report
        claim = args[0] if args else kwargs.get("claim")
        _record_error(record, nodeid, claim_id, expect, claim, e)
        raise
    _record(record, nodeid, claim_id, result, expect)
    if not _passes(result, expect):
        err = ClaimViolated(describe(result, expect), result)
        err.exactdp_expect = expect
        raise err
    return result


def _verify(nodeid: str, seconds: float, budgets: dict, hint: str, claim, query, space, metric, d_in, id, expect,
            options):
    __tracebackhide__ = True

    if expect not in _EXPECT:
        raise InvalidArgument(f"expect={expect!r} is not one of {_EXPECT}; use 'violated' for a "
                              f"known-wrong claim kept as a regression")

    if callable(query) and not isinstance(query, (Query, str)):
        query = user_query(query)
    try:
        with within_time_limit(seconds, f"exactdp: claim {nodeid if id is None else str(id)!r}"):
            return verify_claim(claim, query, space, metric, d_in, **{**budgets, **options})
    except TimeLimitExceeded as e:
        raise TimeLimitExceeded(f"{e} ({hint})", e.seconds) from None
