"""What an audit of a real DP library is, and what it answers.

An :class:`Audit` names one claim a library makes about one of its components (a
sensitivity, a scale, a privacy bound) and holds the function that checks it: the function
runs the library's own code, takes every float the library stores at its exact binary
value, computes the exact truth with exactdp, and returns a :class:`Finding`. The runner
(:mod:`exactdp.audits.runner`) adds the library, its installed version and the time it took,
and turns the finding into an :class:`AuditResult`.

Every finding says what its verdict rests on, in one word of
:class:`~exactdp.checkers.results.Evidence` (:data:`EVIDENCE_TEXT` spells each out), and
three rules are enforced here, not left to each audit:

* **"holds" only on bit-exact evidence.** A finding's ``holds`` / ``holds-tight`` becomes
  the word its evidence allows (:func:`~exactdp.checkers.results.qualify`):
  ``holds-on-grid``, ``holds-ideal-noise``, ``holds-statistically`` or
  ``holds-empirical-model``. Plain ``holds`` means the library's arithmetic was modelled
  bit for bit over the whole stated domain. A finding that states no evidence
  (``evidence=None``: no model of the library's arithmetic, or a model that disagreed with
  it) never holds: its verdict becomes ``undecided`` and the result says why.
* **Every witness is replayed.** A ``violated`` finding carries ``replay``: ``confirmed``
  when the witness, fed back through the library, moves the library's own statistic by more
  than it claims; ``model-mismatch`` when it does not (the verdict is then ``undecided``:
  exactdp's model was wrong, not the library). A ``violated`` finding with no witness, or
  with a witness that was not replayed (``replay=None``), is ``undecided`` too: a violation
  needs both.
* **A violation names what it rests on too.** ``bit-exact`` when the library's own
  arithmetic exhibits it on the witness (a counterexample needs no domain); a weaker word
  when it is, for example, a violation of the ideal noise distribution at the library's
  parameter (``ideal-noise``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, ClassVar

from exactdp._display import card
from exactdp.adapters._calls import Replay
from exactdp._usercode import printable
from exactdp.checkers.results import Evidence, Verdict, qualify
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact
from exactdp.numeric.rounding import float_at_most

__all__ = ["Replay", "Settings", "Finding", "Severity", "Audit", "AuditResult", "EVIDENCE_TEXT", "weakest", "version_applies",
           "DEPTHS", "refuse_unknown_options"]

DEPTHS = ("quick", "full")
"""How deep ``exactdp audit --depth`` goes: ``quick`` (the default, for CI) runs each audit's
check, which stops at its first witness; ``full`` also runs each audit's :attr:`Audit.severity`
step, which searches for the worst case it can certify (:class:`Severity`)."""

EVIDENCE_TEXT = {
    Evidence.BIT_EXACT: "the library's own outputs or its arithmetic modelled bit for bit, at "
                        "exact values, over the whole stated domain (a violation: on its "
                        "witness, replayed)",
    Evidence.BIT_EXACT_GRID: "bit-exact, on the finite grid of values or parameters the scope names",
    Evidence.IDEAL_NOISE: "the library's parameter checked bit for bit; its sampler taken as the "
                          "ideal distribution (the sampler's own arithmetic is not modelled)",
    Evidence.STATISTICAL: "a step decided from random draws, with the error probability the "
                          "note states",
    Evidence.EMPIRICAL_MODEL: "a model of the library's arithmetic matched to the library on "
                              "samples (the note says how many), not proven equal to it",
}
"""What each evidence word says was shown (``exactdp audit --help``, the README, text output)."""

_STRENGTH = tuple(Evidence)  # strongest first: bit-exact, grid, ideal-noise, statistical, empirical


def weakest(*evidence: Evidence | str) -> Evidence:
    """The weakest of several pieces of evidence a verdict rests on together (in the order
    bit-exact, bit-exact-grid, ideal-noise, statistical, empirical-model).

    >>> weakest("bit-exact-grid", "statistical").value
    'statistical'
    """
    if not evidence:
        raise InvalidArgument("weakest() of no evidence: pass at least one Evidence")
    return max((Evidence(e) for e in evidence), key=_STRENGTH.index)


@dataclass(frozen=True)
class Settings:
    """The finite set of parameter settings a verdict was reached on (issue 25): a hold on
    5 settings must not read like a hold everywhere.

    ``count`` is how many settings (parameter combinations) were checked; ``span`` says
    how far they reach, in words a reader can act on (``"epsilon 1e-06..1e+308, delta
    down to 5e-324, n up to 2^20"``). Text output says ``holds-on-grid on 120 settings
    (epsilon 1e-06..50)``.

    >>> Settings(120, "epsilon 1e-06..50").text
    '120 settings (epsilon 1e-06..50)'
    """

    count: int
    span: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:

            raise InvalidArgument(f"count={self.count!r}: a verdict rests on at least one setting; give "
                                  f"the number of parameter settings checked")

    @property
    def text(self) -> str:
        noun = "setting" if self.count == 1 else "settings"
        return f"{self.count:,} {noun}" + (f" ({self.span})" if self.span else "")

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "span": self.span}


@dataclass(frozen=True)
class Finding:
    """What one audit function found (the runner adds who and when).

    ``claim`` and ``truth`` are short exact texts (``"1"``, ``"2**-52 * 7"``, ``"[0.49, 0.51]"``);
    ``witness`` is a JSON-ready mapping (for a sensitivity: ``x``, ``x_prime``, ``fx``,
    ``fx_prime``), or None. ``evidence`` is what the verdict rests on (an
    :class:`~exactdp.checkers.results.Evidence` word); None when nothing bit-exact or
    sampled backs a model of the library, which withholds any ``holds``. An audit writes
    ``holds`` / ``holds-tight`` and its evidence; :meth:`enforced` turns them into the word
    the evidence allows.
    """

    claim: str
    truth: str
    verdict: Verdict
    witness: dict[str, Any] | None = None
    replay: Replay | None = None
    evidence: Evidence | None = None
    scope: str = ""
    note: str = ""
    settings: Settings | None = None  # the parameter settings checked (None: one, named in the scope)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        if self.settings is not None and not isinstance(self.settings, Settings):

            raise InvalidArgument(f"settings={self.settings!r}: expected a Settings(count, span) or None")
        if self.replay is not None:
            object.__setattr__(self, "replay", Replay(self.replay))
        if self.evidence is not None:
            object.__setattr__(self, "evidence", Evidence(self.evidence))
        v = self.verdict
        if v.holding and not v.proven and (self.evidence is None or qualify(Verdict.HOLDS, self.evidence) is not v):
            raise InvalidArgument(
                f"verdict={v.value!r} with evidence={getattr(self.evidence, 'value', None)!r}: a "
                f"finding says 'holds' or 'holds-tight' and its evidence; the qualified word "
                f"follows from the evidence (Finding.enforced)")

    @property
    def tight(self) -> bool:
        """The claim equals the truth (``holds-tight``, before the evidence qualifies it)."""
        return self.verdict is Verdict.HOLDS_TIGHT

    def enforced(self) -> "Finding":
        """The finding with the rules of this module applied."""
        f = self
        if f.verdict.proven and f.evidence is None:
            f = replace(f, verdict=Verdict.UNDECIDED,
                        note=_join(f.note, "no model of the library's arithmetic that the audit "
                                           "could rest on: 'holds' withheld"))
        elif f.verdict.proven:  # the runner keeps holds-tight's tightness (AuditResult.tight)
            f = replace(f, verdict=qualify(f.verdict, f.evidence))
        if f.verdict is Verdict.VIOLATED and f.replay is Replay.MODEL_MISMATCH:
            f = replace(f, verdict=Verdict.UNDECIDED,
                        note=_join(f.note, "the witness did not reproduce in the library "
                                           "(model mismatch): no verdict"))
        if f.verdict is Verdict.VIOLATED and f.witness is None:
            f = replace(f, verdict=Verdict.UNDECIDED,
                        note=_join(f.note, "a violation without a witness: no verdict"))
        elif f.verdict is Verdict.VIOLATED and f.replay is None:
            f = replace(f, verdict=Verdict.UNDECIDED,
                        note=_join(f.note, "the witness was not replayed through the library: no verdict"))
        return f


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b


@dataclass(frozen=True)
class Severity:
    """What an audit's severity step found (``exactdp audit --depth full``): the worst case
    the step can certify, not the first witness.

    ``measure`` names the quantity compared with the claim (``"|sum(x') - sum(x)|"``,
    ``"delta(epsilon) at the library's sigma"``); ``claim`` is the value the library claims
    for it and ``worst`` the largest value certified on ``witness`` (exact; with
    ``at_least`` a certified lower bound, such as an enclosure's lower end rounded down).
    :attr:`ratio` (``worst / claim``) and :attr:`excess` (``worst - claim``) follow.
    ``None`` for ``worst``: the step found nothing to report (``note`` says why).

    The rules of :class:`Finding` apply: a worst case beyond the claim is reported as
    certified (:attr:`status` ``exceeds``) only when its witness, fed back through the
    library, reproduced (``replay`` ``confirmed``); otherwise :meth:`enforced` makes it
    ``undecided`` and says why. ``error`` (set by the runner) says why the step could not run.
    """

    measure: str
    claim: Fraction | None
    worst: Fraction | None
    witness: dict[str, Any] | None = None
    replay: Replay | None = None
    evidence: Evidence | None = None
    scope: str = ""
    note: str = ""
    at_least: bool = False
    error: str = ""
    seconds: float = 0.0

    def __post_init__(self) -> None:
        for name in ("claim", "worst"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
                raise InvalidArgument(f"{name}={value!r}: a Severity's {name} is an exact number (int or "
                                      f"Fraction); pass Fraction.from_float(x) for a float the library stores")
            object.__setattr__(self, name, Fraction(value))
        if self.claim is not None and self.claim <= 0:
            raise InvalidArgument(f"claim={self.claim!r}: a Severity compares with a positive claim")
        if self.replay is not None:
            object.__setattr__(self, "replay", Replay(self.replay))
        if self.evidence is not None:
            object.__setattr__(self, "evidence", Evidence(self.evidence))

    @classmethod
    def failed(cls, measure: str, error: str, seconds: float = 0.0) -> "Severity":
        """A step that could not run (the runner: a library error, a time-out, a refusal)."""
        return cls(measure=measure, claim=None, worst=None, error=error, seconds=seconds)

    @property
    def exceeds(self) -> bool:
        """The worst value found is beyond the claim."""
        return self.worst is not None and self.claim is not None and self.worst > self.claim

    @property
    def ratio(self) -> Fraction | None:
        """``worst / claim``, exactly (a lower bound with ``at_least``)."""
        return None if self.worst is None or self.claim is None else self.worst / self.claim

    @property
    def excess(self) -> Fraction | None:
        """``worst - claim``, exactly (a lower bound with ``at_least``)."""
        return None if self.worst is None or self.claim is None else self.worst - self.claim

    @property
    def status(self) -> str:
        """``exceeds`` (certified and replayed), ``within`` (nothing beyond the claim found,
        which proves nothing), ``undecided`` (a worst case not confirmed by the library),
        ``none`` (nothing found) or ``error`` (the step could not run)."""
        if self.error:
            return "error"
        if self.worst is None or self.claim is None:
            return "none"
        if not self.exceeds:
            return "within"
        return "exceeds" if self.replay is Replay.CONFIRMED else "undecided"

    def enforced(self) -> "Severity":
        """The severity with the replay rule applied (said in ``note``)."""
        if self.exceeds and self.replay is Replay.MODEL_MISMATCH:
            return replace(self, note=_join(self.note, "the worst witness did not reproduce in the library "
                                                       "(model mismatch): not certified"))
        if self.exceeds and self.replay is None:
            return replace(self, note=_join(self.note, "the worst witness was not replayed through the "
                                                       "library: not certified"))
        return self

    def summary(self) -> str:
        """One line: the worst value against the claim, its ratio and excess, the replay."""
        if self.error:
            return f"{self.status}: the severity step could not run: {self.error}"
        if self.worst is None or self.claim is None:
            return f"{self.status}: {self.note or 'nothing found'}"
        rel = ">=" if self.at_least else "="
        text = (f"{self.status}: worst {self.measure} {rel} {_amount(self.worst, self.at_least)} against "
                f"the claim {_amount(self.claim)}: ratio {rel} {_amount(self.ratio, self.at_least)}, "
                f"excess {rel} {_amount(self.excess, self.at_least)}")
        extras = [f"replay {self.replay.value}" if self.replay else "",
                  f"evidence {self.evidence.value}" if self.evidence else ""]
        extras = [e for e in extras if e]
        return text + (f" ({'; '.join(extras)})" if extras else "")

    def to_dict(self) -> dict[str, Any]:
        def exact(v):
            return None if v is None else _exact_text(v)

        def approx(v):
            return None if v is None else _approx_float(v, self.at_least)

        return {"status": self.status, "measure": self.measure, "claim": exact(self.claim),
                "worst": exact(self.worst), "worst_float": approx(self.worst),
                "ratio": exact(self.ratio), "ratio_float": approx(self.ratio),
                "excess": exact(self.excess), "excess_float": approx(self.excess),
                "at_least": self.at_least, "witness": self.witness,
                "replay": self.replay.value if self.replay else None,
                "evidence": self.evidence.value if self.evidence else None,
                "scope": self.scope, "note": self.note, "error": self.error or None,
                "seconds": round(self.seconds, 3)}


def _exact_text(value: Fraction) -> str:
    return format_exact(value)


def _approx_float(value: Fraction, at_least: bool = False) -> float:
    """A float near ``value``: rounded down for a lower bound (so ``>= shown`` stays true)."""
    return float_at_most(value) if at_least else float(value)


def _amount(value: Fraction, at_least: bool = False) -> str:
    """An exact number for one line: short ones exactly (``2097152``, ``1/4294967296``), longer
    ones as ``~1.00000000023`` (rounded down for a lower bound), with the exact text in JSON."""
    text = _exact_text(value)
    if len(text) <= 24:
        return text if value.denominator == 1 else f"{text} (~{_approx_float(value, at_least):.12g})"
    return f"~{_approx_float(value, at_least):.12g}"


@dataclass(frozen=True)
class Audit:
    """One checkable claim of a library component.

    ``versions`` is a specifier such as ``">=0.10"``, ``">=0.6,<0.7"`` or ``""`` (any); the
    runner skips an audit whose range excludes the installed version and says so.
    ``expect`` maps a version specifier to the verdict the suite expects there (how the bug
    corpus pins "violated before the fix, holds after"); ``source`` cites where the claim or
    the bug report is.

    ``severity`` (optional) is the step ``exactdp audit --depth full`` runs after ``check``:
    a function returning a :class:`Severity`, the worst case it can certify (a maximizing
    search, a grid of parameters), its witness replayed through the library like a
    violation's. ``--depth quick`` (the default) never calls it.
    """

    id: str
    library: str
    component: str
    claim: str
    check: Callable[[], Finding] = field(repr=False)
    versions: str = ""
    source: str = ""
    expect: dict[str, str] = field(default_factory=dict)
    corpus: bool = False  # a regression audit from the corpus of publicly reported bugs
    # the library's public primitives this audit exercises, as qualified names
    # ("opendp.measurements.make_laplace"): ``exactdp audit LIB --coverage`` maps them
    covers: tuple[str, ...] = ()
    severity: Callable[[], Severity] | None = field(default=None, repr=False, compare=False)
    # the installed version of the audited library, as ``() -> str``: set by the runner when it
    # loads the suite (exactdp.audits.runner.suite), so this module imports neither the runner
    # nor the registry (which import it)
    installed: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    kind: ClassVar[str] = "audit"  # its kind in the claim registry (exactdp.registry)

    @property
    def statement(self) -> str:
        """What is checked, in one line."""
        return f"{self.component}: {self.claim}"

    def meets_expectation(self, result: "AuditResult | Finding") -> bool:
        """Whether ``result`` (of :func:`~exactdp.audits.runner.run_one`, or of ``check()``
        on the installed version) gives the verdict the suite expects on that version, or,
        where it expects none, is neither violated nor undecided. Skipped, an error or a
        missing library never meets it."""
        if isinstance(result, Finding):
            result = result.enforced()  # the rules the runner applies
        verdict = getattr(result.verdict, "value", result.verdict)
        if verdict in ("skipped", "error"):
            return False
        version = getattr(result, "version", None)
        if version is None:
            if self.installed is None:

                raise InvalidArgument(
                    f"audit {self.id!r} was not loaded from a suite, so the installed version of its "
                    f"library is unknown; pass a result of run_one (it carries the version), or take "
                    f"the audit from exactdp.audits.runner.suite(...)")
            version = self.installed()
        expected = self.expected(version)
        if expected is None:
            return verdict not in (Verdict.VIOLATED.value, Verdict.UNDECIDED.value)
        return verdict == expected

    def expected(self, version: str) -> str | None:
        """The verdict this audit is expected to give on ``version``, if the suite says."""
        for spec, verdict in self.expect.items():
            if version_applies(version, spec):
                return verdict
        return None

    @classmethod
    def factory(cls, library: str, prefix: str = "", *,
                wrap: Callable[[Callable[[], Finding]], Callable[[], Finding]] | None = None,
                **defaults: Any) -> Callable[..., "Audit"]:
        """How a suite builds its audits: ``a = Audit.factory("diffprivlib", "diffprivlib/",
        versions=">=0.6,<0.7")``, then ``a(id, component, claim, check, **kw)`` is the
        :class:`Audit` of ``library`` with id ``prefix + id``, every keyword of ``defaults``
        (a keyword given to ``a`` wins) and ``check`` passed through ``wrap`` when given.

        >>> a = Audit.factory("lib", "lib/", versions=">=1")
        >>> x = a("sum", "sum()", "sensitivity 1", lambda: None, source="s")
        >>> (x.id, x.library, x.versions, x.source, a("n", "n()", "c", None, versions="").versions)
        ('lib/sum', 'lib', '>=1', 's', '')
        """
        def make(id: str, component: str, claim: str, check: Callable[[], Finding], **kw: Any) -> "Audit":
            return cls(id=prefix + id, library=library, component=component, claim=claim,
                       check=check if wrap is None else wrap(check), **{**defaults, **kw})
        return make


@dataclass(frozen=True)
class AuditResult:
    """An audit's answer, as ``exactdp audit`` prints it and its ``--json`` lists it."""

    id: str
    library: str
    version: str
    component: str
    claim: str
    truth: str | None
    verdict: str  # a Verdict value, or "skipped" / "error"
    witness: dict[str, Any] | None = None
    replay: str | None = None
    scope: str = ""
    note: str = ""
    source: str = ""
    expected: str | None = None
    seconds: float = 0.0
    claimed: str | None = None  # the value the library claims, as the audit read it (exact)
    evidence: str | None = None  # an Evidence value: what the verdict rests on (None: nothing)
    tight: bool = False  # the claim equals the truth on every case checked (holds-tight before qualify)
    severity: Severity | None = None  # the severity step's answer (--depth full), if the audit has one
    settings: Settings | None = None  # the parameter settings the verdict rests on, when more than one

    @property
    def violated(self) -> bool:
        return self.verdict == Verdict.VIOLATED.value

    @property
    def holding(self) -> bool:
        """No violation found: ``holds``, ``holds-tight`` or a ``holds-*`` word."""
        return self.verdict in _HOLDING_WORDS

    @property
    def on_weaker_evidence(self) -> bool:
        """Holding on evidence weaker than bit-exact (a ``holds-*`` word)."""
        return self.holding and self.verdict not in (Verdict.HOLDS.value, Verdict.HOLDS_TIGHT.value)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "library": self.library, "version": self.version,
                "component": self.component, "claim": self.claim, "truth": self.truth,
                "verdict": self.verdict, "witness": self.witness, "replay": self.replay,
                "scope": self.scope, "note": self.note, "source": self.source,
                "expected": self.expected, "claimed": self.claimed, "evidence": self.evidence,
                "tight": self.tight, "seconds": round(self.seconds, 3),
                "severity": None if self.severity is None else self.severity.to_dict(),
                "settings": None if self.settings is None else self.settings.to_dict()}

    def describe(self, *, full: bool = True, value: Callable[[Any], str] | None = None) -> list[str]:
        """The result as lines: the head (id, library, component, verdict), then claim, truth,
        witness (each value through ``value``), replay, evidence; with ``full``, the evidence's
        meaning, the scope and what the suite expected (text output); without, a report's
        one-paragraph message (SARIF, JUnit)."""
        value = value or _short
        tight = " (tight)" if self.tight and self.verdict != Verdict.HOLDS_TIGHT.value else ""
        claimed = f" = {self.claimed}" if self.claimed and self.claimed != self.claim else ""
        on = f" on {self.settings.text}" if self.settings is not None and self.verdict not in ("skipped", "error") else ""
        lines = [f"{self.id} [{self.library} {self.version}] {self.component}: {self.verdict.upper()}{tight}{on}",
                 f"claim: {self.claim}{claimed}"]
        if self.truth is not None:
            lines.append(f"truth: {self.truth}")
        if self.witness:
            lines.append("witness: " + ", ".join(f"{k}={value(v)}" for k, v in self.witness.items()))
        if self.replay:
            lines.append(f"replay: {self.replay}")
        if self.evidence:
            meaning = f" ({EVIDENCE_TEXT[Evidence(self.evidence)]})" if full else ""
            lines.append(f"evidence: {self.evidence}{meaning}")
        if self.scope and full:
            lines.append(f"scope: {self.scope}")
        if self.note:
            lines.append(f"note: {self.note}")
        lines += self.severity_lines(full=full, value=value)
        if (full and self.expected and self.expected != self.verdict
                and self.verdict not in ("skipped", "error")):
            lines.append(f"(the suite expected {self.expected} on this version)")
        return lines

    def severity_lines(self, *, full: bool = True, value: Callable[[Any], str] | None = None) -> list[str]:
        """The severity step's lines (none without one): its summary, witness, scope (with
        ``full``), note and time."""
        s = self.severity
        if s is None:
            return []
        value = value or _short
        lines = [f"severity: {s.summary()}"]
        if s.witness:
            lines.append("severity witness: " + ", ".join(f"{k}={value(v)}" for k, v in s.witness.items()))
        if s.scope and full:
            lines.append(f"severity scope: {s.scope}")
        if s.note:
            lines.append(f"severity note: {s.note}")
        return lines

    def __str__(self) -> str:
        """The text output's lines, control characters escaped (a suite's ids, claims and
        witnesses cannot clear the screen or forge a line)."""
        head, *rest = (printable(line) for line in self.describe())
        return "\n".join([head] + [f"  {line}" for line in rest])

    def _repr_html_(self) -> str:
        head, *rest = (printable(line) for line in self.describe())
        rows = [tuple(line.split(": ", 1)) if ": " in line else ("", line) for line in rest]
        return card(f"{self.library} {self.version}: {self.id}", self.verdict, rows)


_HOLDING_WORDS = frozenset(v.value for v in Verdict if v.holding)


def _short(value: Any, keep: int = 200) -> str:
    text = str(value)
    return text if len(text) <= keep else text[: keep - 3] + "..."


_VERSION_PART = re.compile(r"(\d+)")


def _version_key(version: str) -> tuple[int, ...]:
    release = re.split(r"[^0-9.]", version.strip(), maxsplit=1)[0]
    return tuple(int(p) for p in release.split(".") if p.isdigit())


def version_applies(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies a simple comma-separated specifier (``>=0.6,<0.7``).

    Only release numbers are compared (``0.16.0.dev3`` counts as ``0.16.0``); operators
    ``>=``, ``>``, ``<=``, ``<``, ``==``, ``!=``.

    >>> version_applies("0.16.0", ">=0.10,<0.17")
    True
    >>> version_applies("0.6.6", "<0.6.5")
    False
    >>> version_applies("1.2", "")
    True
    """
    have = _version_key(version)
    for part in filter(None, (p.strip() for p in spec.split(","))):
        m = re.fullmatch(r"(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)", part)
        if m is None:
            raise InvalidArgument(f"version specifier {part!r}: expected an operator "
                                  "(>=, >, <=, <, ==, !=) and a release number such as '>=0.6'")
        op, want = m.group(1), _version_key(m.group(2))
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        ok = {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b}[op]
        if not ok:
            return False
    return True


def refuse_unknown_options(options: dict, accepted: tuple[str, ...], reader: str) -> None:
    """One line of :class:`~exactdp.errors.InvalidArgument` for the first option of
    ``options`` that ``reader`` (an :func:`~exactdp.audits.objects.audit_object` reader,
    e.g. ``"the Opacus reader"``) does not take, naming those it takes."""
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InvalidArgument(f"option {unknown[0]!r} is not one {reader} takes; it takes {', '.join(accepted)}")
