"""What the adapters and the audits share about calling a library: :func:`call_library`, which
turns anything the library raises into :class:`~exactdp.errors.LibraryCallFailed`, and
:class:`Replay`, what feeding a witness back through the library showed.

They live below the adapters (which call libraries and replay witnesses) so that no adapter
imports :mod:`exactdp.audits`, which is built on them.
"""

from __future__ import annotations

import enum
from typing import Callable

from exactdp._usercode import first_line
from exactdp.errors import LibraryCallFailed

__all__ = ["Replay", "call_library"]


class Replay(str, enum.Enum):
    """What feeding a witness back through the library showed."""

    CONFIRMED = "confirmed"  # the library's own output moves by more than it claims
    MODEL_MISMATCH = "model-mismatch"  # it does not: exactdp's model of the library is wrong

    def __str__(self) -> str:
        return self.value

    @classmethod
    def of(cls, reproduced: bool) -> "Replay":
        """``CONFIRMED`` when the library, run again on the witness, reproduced it."""
        return cls.CONFIRMED if reproduced else cls.MODEL_MISMATCH


def call_library(what: str, fn: Callable, *args, **kwargs):
    """Call the audited library; anything it raises becomes :class:`LibraryCallFailed`.

    The audit then reports an error that names the call, never a verdict.
    """
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # the library's own exception: keep it as the cause
        variant = getattr(e, "variant", None)
        kind = f"{type(e).__name__}{f' ({variant})' if variant else ''}"
        raise LibraryCallFailed(f"{what} raised {kind}: {first_line(e)}") from e
