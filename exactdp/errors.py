"""The exception tree of exactdp.

Every error exactdp raises on purpose derives from :class:`ExactDPError`, and its
message names the offending value (``name=value!r``), says what was expected and
what to do instead.
"""

from __future__ import annotations

__all__ = [
    "SpaceMismatch",
    "ExactDPError",
    "InvalidArgument",
    "InexactInput",
    "UndefinedQuery",
    "TooLarge",
    "Undecided",
    "ClaimViolated",
    "MissingDependency",
    "LibraryCallFailed",
]


class ExactDPError(Exception):
    """Root of every error exactdp raises deliberately."""


class InvalidArgument(ExactDPError, ValueError):
    """An argument is out of range, malformed or inconsistent with another one."""


class InexactInput(ExactDPError, TypeError):
    """A float (or another inexact value) reached a place that needs an exact number."""


class SpaceMismatch(InvalidArgument):
    """Two steps do not chain: the output domain or metric of one is not the input of the next."""


class UndefinedQuery(ExactDPError, ValueError):
    """A query is undefined on a dataset of the space and no policy says what to do."""


class TooLarge(ExactDPError):
    """An enumeration would exceed the budget the caller set; nothing was enumerated."""

    def __init__(self, message: str, *, estimate: int, budget: int):
        super().__init__(message)
        self.estimate = estimate
        self.budget = budget


class Undecided(ExactDPError):
    """A comparison could not be decided at the precision tried.

    Deliberately not a ``ValueError``: a broad ``except ValueError`` must not turn
    "could not decide" into "holds".
    """


class ClaimViolated(ExactDPError, AssertionError):
    """Raised by ``assert_*`` helpers; carries the result with its witness."""

    def __init__(self, message: str, result: object):
        super().__init__(message)
        self.result = result


class MissingDependency(ExactDPError, ImportError):
    """An optional library is not installed; the message names the extra that installs it (or
    the library's own install line when no extra does). Raised by :func:`exactdp._optional.require`."""

    def __init__(self, library: str, extra: str | None, detail: str = ""):
        why = f" ({detail})" if detail else ""
        line = f"pip install 'exactdp[{extra}]'" if extra else f"pip install {library}"
        super().__init__(f"{library} is not installed{why}: install it with {line}")
        self.library = library
        self.extra = extra


class LibraryCallFailed(ExactDPError):
    """An audited library raised, or did not return within the time limit.

    Never turned into a verdict: the audit that called it reports an error.
    """
