"""Exit status of every ``exactdp`` sub-command, and the text that explains it."""

from __future__ import annotations

OK = 0
"""Done: every claim asked holds (or no claim was asked)."""

CLAIM_FAILED = 1
"""A claim is violated, undecided or vacuous, a search found nothing, or a built-in claim
departs from what is expected of it."""

BAD_INPUT = 2
"""Bad input or a refused budget (one line on stderr, nothing computed); also a missing
optional dependency, named with the extra that installs it, and output that could not be
written (a full device: one line on stderr; a pipe closed by its reader: no line)."""

INTERRUPTED = 130
"""Stopped with Ctrl-C."""

EXIT_CODES = f"""exit status:
  {OK}  done: every claim asked holds (or no claim was asked)
  {CLAIM_FAILED}  a claim is violated, undecided or vacuous (no neighbouring pair), a search found
     nothing (never a proof), an accountant certified nothing, or a built-in claim departs
     from what is expected of it
  {BAD_INPUT}  bad input, a usage error or a budget refused: one line on stderr, nothing computed;
     also output that could not be written (a full device; a pipe its reader closed)"""
