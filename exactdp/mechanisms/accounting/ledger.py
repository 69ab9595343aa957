"""An exact privacy-budget ledger: spends compose in exact rationals, so no round-off can
admit an overspend or refuse an exact split.

A :class:`BudgetLedger` holds a budget and records spends against it. Every number is a
:class:`~fractions.Fraction`: the split ``1 = 1/10 + 9/10`` is accepted exactly, where
floats give ``0.1 + 0.9 = 1.0000000000000002 > 1.0`` (opendp/opendp#2131), and a spend
one part in 10^30 too large is refused.

>>> ledger = BudgetLedger(epsilon=1)
>>> ledger.spend(epsilon="0.1", label="count").epsilon
Fraction(1, 10)
>>> ledger.spend(epsilon="0.9", label="sum").epsilon
Fraction(9, 10)
>>> ledger.remaining()["epsilon"]
Fraction(0, 1)

**How (epsilon, delta) spends compose.** Epsilons add up; a spend fits only while their
sum stays within the budget epsilon. Deltas compose by the optimal composition theorem
(Kairouz, Oh, Viswanath 2015; Murtagh & Vadhan 2016) at ``epsilon = sum of epsilon_i``:
``delta = 1 - prod(1 - delta_i)``, exact (the rule diffprivlib's ``BudgetAccountant``
uses). It never exceeds the sum of the deltas, so every split that basic composition
accepts is accepted, and a few more: two spends of ``(0.5, 0.1)`` need exactly
``delta = 1 - 0.9**2 = 0.19``, not ``0.2``. The same delta is exact at a budget epsilon
above the sum (:func:`exactdp.mechanisms.accounting.composition.optimal_delta` says why), so the
ledger never claims more than the theorem proves. :attr:`BudgetLedger.rule` names the rule.

>>> tight = BudgetLedger(epsilon=1, delta="0.19")
>>> _ = tight.spend(epsilon="0.5", delta="0.1"); _ = tight.spend(epsilon="0.5", delta="0.1")
>>> tight.spent()["delta"]
Fraction(19, 100)

**Two accounts.** A ledger has an approximate-DP account, a budget ``(epsilon, delta)``
(``delta`` defaults to 0: pure DP), and/or a zCDP account, a budget ``rho``. A spend is
charged to one account: ``spend(epsilon=..., delta=...)`` to the first,
``spend(rho=...)`` to the second, and ``rho`` values add exactly (zCDP composes by
adding). The accounts are kept apart on purpose: converting ``rho`` to ``(epsilon,
delta)`` costs a choice of ``delta`` and is lossy, so the ledger never does it behind
the caller's back. To charge a zCDP mechanism to an ``(epsilon, delta)`` budget, convert
its ``rho`` first (Bun–Steinke or CKS20, with
:func:`exactdp.mechanisms.accounting.zcdp.epsilon_of_rho`) and spend the resulting ``(epsilon,
delta)``; to charge a pure ``epsilon``-DP mechanism to a ``rho`` budget, spend ``rho =
epsilon**2 / 2`` (exact; Bun & Steinke 2016, :func:`exactdp.mechanisms.accounting.zcdp.rho_of_epsilon`).
Reading the zCDP account's total as one ``(epsilon, delta)`` guarantee at the end is
:meth:`BudgetLedger.approx_dp_of_rho`, the same conversion applied to the total ``rho``
spent (converting once at the end is tighter than converting each spend).

**Floats.** By default a float spend is refused (``0.1`` is not one tenth) and the message
says how to pass the number meant. ``BudgetLedger(..., floats="binary")`` takes each float
at its exact binary value instead; then ``0.1 + 0.9`` as floats is *not* exactly 1
(the two binary values add up to ``1 + 2**-55``, although the float sum rounds to
``1.0``) and the second spend of such a split is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.mechanisms._params import shown
from exactdp.mechanisms.accounting.composition import OPTIMAL_RULE
from exactdp.numeric.exact import format_exact, from_float, to_exact
from exactdp.numeric.rounding import float_at_least, float_at_most

__all__ = ["FLOAT_POLICIES", "BudgetExceeded", "BudgetLedger", "Spend"]

FLOAT_POLICIES = ("refuse", "binary")
"""``floats=`` choices: refuse float spends (default), or take a float's exact binary value."""

_KEYS = ("epsilon", "delta", "rho")


class BudgetExceeded(ExactDPError):
    """A spend would take a ledger past its budget; the ledger is left unchanged.

    ``spend`` is the refused :class:`Spend` (not recorded) and ``remaining`` the budget
    left, as exact values.
    """

    def __init__(self, message: str, *, spend: Spend, remaining: dict):
        super().__init__(message)
        self.spend = spend
        self.remaining = remaining


@dataclass(frozen=True)
class Spend:
    """One recorded spend: exact ``epsilon`` and ``delta`` (approximate-DP account) or
    ``rho`` (zCDP account); the other fields are ``None``."""

    index: int
    label: str | None
    epsilon: Fraction | None = None
    delta: Fraction | None = None
    rho: Fraction | None = None

    @property
    def name(self) -> str:
        """How messages refer to this spend: ``spend #2 'sum'``."""
        return f"spend #{self.index}" + (f" {self.label!r}" if self.label is not None else "")

    def describe(self) -> str:
        """``epsilon=1/10, delta=0`` or ``rho=1/2``."""
        if self.rho is not None:
            return f"rho={shown(self.rho)}"
        return f"epsilon={shown(self.epsilon)}, delta={shown(self.delta)}"

    def to_dict(self) -> dict:
        """Exact values as strings (``"1/10"``); absent fields are ``None``."""
        out: dict = {"index": self.index, "label": self.label}
        for key in _KEYS:
            value = getattr(self, key)
            out[key] = None if value is None else format_exact(value)
        return out


class BudgetLedger:
    """A privacy budget and the spends recorded against it, all in exact arithmetic.

    ``BudgetLedger(epsilon=1, delta="1e-6")`` is an approximate-DP budget (``delta``
    defaults to 0); ``BudgetLedger(rho="1/2")`` a zCDP budget; both may be given, as two
    separate accounts (see the module docstring). Numbers may be ints, Fractions,
    Decimals or exact strings (``"0.1"`` is one tenth). ``floats="refuse"`` (default)
    refuses floats; ``floats="binary"`` takes a float at its exact binary value.

    :meth:`spend` records a spend or raises :class:`BudgetExceeded` (leaving the ledger
    unchanged) if any account would go past its budget; :meth:`check` answers the same
    question without recording. Epsilons and rhos add up; deltas compose as
    ``1 - prod(1 - delta_i)`` (optimal composition at the sum of the epsilons, exact;
    see the module docstring and :attr:`rule`).
    """

    def __init__(self, epsilon=None, delta=None, *, rho=None, floats: str = "refuse"):
        if floats not in FLOAT_POLICIES:
            raise InvalidArgument(
                f"floats={floats!r} is not a float policy; use 'refuse' (default) or 'binary' "
                f"(a float's exact binary value)"
            )
        self._floats = floats
        if epsilon is None and delta is not None:
            raise InvalidArgument(
                f"delta={shown(delta)} given without epsilon; give the budget as epsilon=..., delta=..."
            )
        if epsilon is None and rho is None:
            raise InvalidArgument(
                "no budget given; pass epsilon=... (and delta=...) for an approximate-DP budget, "
                "rho=... for a zCDP budget, or both"
            )
        self._budget: dict[str, Fraction | None] = {"epsilon": None, "delta": None, "rho": None}
        if epsilon is not None:
            self._budget["epsilon"] = self._number(epsilon, "budget epsilon")
            self._budget["delta"] = Fraction(0) if delta is None else self._probability(delta, "budget delta")
        if rho is not None:
            self._budget["rho"] = self._number(rho, "budget rho")
        self._spent = {key: (None if self._budget[key] is None else Fraction(0)) for key in _KEYS}
        self._history: list[Spend] = []
        self._survival = Fraction(1)  # prod(1 - delta_i) of the recorded spends

    # -- input -------------------------------------------------------------------------

    def _exact(self, value, name: str) -> Fraction:
        if isinstance(value, float) and self._floats == "binary":
            return from_float(value)
        return to_exact(value, name)

    def _number(self, value, name: str) -> Fraction:
        x = self._exact(value, name)
        if x < 0:
            raise InvalidArgument(f"{name}={shown(value)} is negative; privacy parameters are at least 0")
        return x

    def _probability(self, value, name: str) -> Fraction:
        x = self._number(value, name)
        if x > 1:
            raise InvalidArgument(f"{name}={shown(value)} is above 1; delta is a probability in [0, 1]")
        return x

    def _make_spend(self, epsilon, delta, rho, label) -> Spend:
        index = len(self._history) + 1
        tag = f"spend #{index}" + (f" {label!r}" if label is not None else "")
        if label is not None and not isinstance(label, str):
            raise InvalidArgument(f"label={label!r} is not a string; name the spend with text")
        if rho is not None:
            if epsilon is not None or delta is not None:
                raise InvalidArgument(
                    f"{tag} gives rho={shown(rho)} together with epsilon/delta; a spend goes to one "
                    f"account: spend rho and (epsilon, delta) separately"
                )
            if self._budget["rho"] is None:
                raise InvalidArgument(
                    f"{tag} spends rho={shown(rho)} but this ledger has no rho budget; create it with "
                    f"rho=..., or convert the rho to (epsilon, delta) (zCDP conversion) and spend that"
                )
            return Spend(index, label, rho=self._number(rho, f"{tag} rho"))
        if epsilon is None:
            if delta is None:
                raise InvalidArgument(f"{tag} spends nothing; pass epsilon=... (and delta=...) or rho=...")
            raise InvalidArgument(f"{tag} gives delta={shown(delta)} without epsilon; pass epsilon=0 for a delta-only spend")
        if self._budget["epsilon"] is None:
            raise InvalidArgument(
                f"{tag} spends epsilon={shown(epsilon)} but this ledger has only a rho budget; for a "
                f"pure epsilon-DP mechanism spend rho=epsilon**2/2, or create the ledger with "
                f"epsilon=... (and delta=...)"
            )
        eps = self._number(epsilon, f"{tag} epsilon")
        dlt = Fraction(0) if delta is None else self._probability(delta, f"{tag} delta")
        return Spend(index, label, epsilon=eps, delta=dlt)

    # -- the question and the record ------------------------------------------------------

    def _total(self, key: str, amount: Fraction) -> Fraction:
        """What the account ``key`` would have spent with ``amount`` more: a sum, or for
        delta the optimal composition ``1 - prod(1 - delta_i)``."""
        if key == "delta":
            return 1 - self._survival * (1 - amount)
        spent = self._spent[key]
        assert spent is not None  # _excess refused a spend to an account this ledger lacks
        return spent + amount

    def _excess(self, spend: Spend) -> list[str]:
        """Per account key, why the spend does not fit (empty list: it fits)."""
        out = []
        for key in _KEYS:
            amount, budget = getattr(spend, key), self._budget[key]
            if amount is None:
                continue
            if budget is None:  # _make_spend refuses this; a Spend passed to _record may not
                raise InvalidArgument(
                    f"{spend.name} spends {key}={shown(amount)} but this ledger has no {key} budget; "
                    f"charge it to the account the ledger has (convert it first), or create the "
                    f"ledger with {key}=..."
                )
            total = self._total(key, amount)
            if total > budget:
                how = (f"1 - (1 - {shown(self._spent[key])})(1 - {shown(amount)})" if key == "delta"
                       else f"spent {shown(self._spent[key])} + {shown(amount)}")
                out.append(f"{key}: {how} = {shown(total)} > budget {shown(budget)}")
        return out

    def check(self, epsilon=None, delta=None, *, rho=None) -> bool:
        """Whether this spend would fit in what is left (exactly); records nothing."""
        return not self._excess(self._make_spend(epsilon, delta, rho, None))

    def spend(self, epsilon=None, delta=None, *, rho=None, label: str | None = None) -> Spend:
        """Record a spend of ``(epsilon, delta)`` or ``rho`` and return it.

        Raises :class:`BudgetExceeded` (naming the spend, what is left and what to do)
        if it would take an account past its budget; nothing is recorded then.
        """
        return self._record(self._make_spend(epsilon, delta, rho, label))

    def _record(self, record: Spend) -> Spend:
        """Record an already validated spend, or raise :class:`BudgetExceeded`.

        ``delta`` must be a probability (a record's delta is composed as one mechanism's).
        """
        excess = self._excess(record)
        if excess:
            left = self.remaining()
            keys = ("rho",) if record.rho is not None else ("epsilon", "delta")
            left_text = ", ".join(f"{k}={shown(left[k])}" for k in keys)
            raise BudgetExceeded(
                f"{record.name} ({record.describe()}) would exceed the budget: "
                f"{'; '.join(excess)}. Left: {left_text}. Spend at most what is left "
                f"(smaller parameters, i.e. more noise), or start from a larger budget",
                spend=record, remaining=left,
            )
        for key in _KEYS:
            amount = getattr(record, key)
            if amount is not None:
                self._spent[key] = self._total(key, amount)
                if key == "delta":
                    self._survival *= 1 - amount
        self._history.append(record)
        return record

    # -- reading ------------------------------------------------------------------------

    @property
    def floats(self) -> str:
        """The float policy: ``'refuse'`` or ``'binary'``."""
        return self._floats

    @property
    def history(self) -> tuple[Spend, ...]:
        """The recorded spends, oldest first (refused spends are not recorded)."""
        return tuple(self._history)

    def budget(self) -> dict[str, Fraction | None]:
        """The budget: ``{'epsilon', 'delta', 'rho'}``, ``None`` for an absent account."""
        return dict(self._budget)

    @property
    def rule(self) -> str:
        """How ``(epsilon, delta)`` spends compose here: epsilons add up, deltas by the
        optimal composition theorem at the sum of the epsilons (exact)."""
        return OPTIMAL_RULE

    def spent(self) -> dict[str, Fraction | None]:
        """Exact totals spent per key; ``None`` for an absent account. ``epsilon`` and
        ``rho`` are sums; ``delta`` is ``1 - prod(1 - delta_i)`` (see :attr:`rule`)."""
        return dict(self._spent)

    def remaining(self) -> dict[str, Fraction | None]:
        """Per key, the largest exact amount one more spend may take (never negative).

        For ``epsilon`` and ``rho`` that is the budget minus the sum spent. For ``delta``
        it is ``(budget - spent)/(1 - spent)``: the ``d`` with ``1 - (1 - spent)(1 - d) =
        budget`` (at least ``budget - spent``; all of ``[0, 1]`` once a delta of 1 was
        spent against a budget of 1).

        >>> ledger = BudgetLedger(epsilon=1, delta="0.19")
        >>> _ = ledger.spend(epsilon="0.5", delta="0.1")
        >>> ledger.remaining()["delta"]
        Fraction(1, 10)
        """
        out: dict[str, Fraction | None] = {}
        for key in _KEYS:
            budget, spent = self._budget[key], self._spent[key]
            if budget is None:
                out[key] = None
                continue
            assert spent is not None  # an account's total spent exists exactly when its budget does
            if key == "delta":
                out[key] = Fraction(1) if spent == 1 else (budget - spent) / (1 - spent)
            else:
                out[key] = budget - spent
        return out

    def approx_dp_of_rho(self, delta, method: str = "cks"):
        """The ``(epsilon, delta)`` guarantee implied by the zCDP account's total ``rho``
        spent so far: :func:`exactdp.mechanisms.accounting.zcdp.epsilon_of_rho` (a Calibration whose
        ``safe_float`` epsilon is rounded up). Adding it to :meth:`spent` ``epsilon`` and
        ``delta`` (sequential composition) bounds both accounts together.

        >>> ledger = BudgetLedger(rho="1/2")
        >>> _ = ledger.spend(rho="1/4"); _ = ledger.spend(rho="1/4")
        >>> ledger.approx_dp_of_rho("1e-6").safe_float
        5.221534444530169
        """
        if self._budget["rho"] is None:
            raise InvalidArgument("this ledger has no rho account; create it with rho=...")
        if self._spent["rho"] == 0:
            raise InvalidArgument("nothing has been spent in the rho account; it implies (0, 0)-DP")
        from exactdp.mechanisms.accounting.zcdp import epsilon_of_rho  # lazy: loads SymPy, which this module does not import at load

        return epsilon_of_rho(self._spent["rho"], delta, method=method)

    def to_dict(self) -> dict:
        """A JSON-ready summary: the (epsilon, delta) rule (``None`` without that account);
        budget; spent, each ``{"exact": "1/3", "float_at_least":
        0.33333333333333337}``; remaining, each ``{"exact": ..., "float_at_most": ...}``
        (so a float read from it never understates a spend or overstates what is left);
        history; the float policy."""

        def pack(values: dict, rounding) -> dict:
            return {key: None if v is None else {"exact": format_exact(v), rounding.__name__: rounding(v)}
                    for key, v in values.items()}

        return {
            "rule": self.rule if self._budget["epsilon"] is not None else None,
            "budget": {k: None if v is None else format_exact(v) for k, v in self._budget.items()},
            "spent": pack(self._spent, float_at_least),
            "remaining": pack(self.remaining(), float_at_most),
            "history": [s.to_dict() for s in self._history],
            "floats": self._floats,
        }

    def __repr__(self) -> str:
        parts = [f"{k}={format_exact(v)!r}" for k, v in self._budget.items() if v is not None]
        return f"BudgetLedger({', '.join(parts)}, spends={len(self._history)})"
