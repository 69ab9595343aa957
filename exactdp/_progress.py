"""Progress lines on stderr for long work, shown on a terminal and in a Jupyter kernel.

Shown by default when stderr is a terminal or the code runs in a Jupyter (IPython) kernel,
whose front ends render the rewritten line in place; never on stdout, so ``--json`` and
reports stay clean. ``progress=False`` (``--quiet`` on the command line) turns it off, and
``EXACTDP_PROGRESS=0`` / ``1`` overrides the default for a whole process (CI logs)."""

from __future__ import annotations

import os
import sys
import time


def shown_by_default() -> bool:
    """Whether progress is shown when a caller does not say: ``EXACTDP_PROGRESS`` if set
    (``0`` or ``1``), else when stderr is a terminal or this is a Jupyter kernel."""
    forced = os.environ.get("EXACTDP_PROGRESS", "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    if bool(getattr(sys.stderr, "isatty", lambda: False)()):
        return True
    return in_jupyter_kernel()


def in_jupyter_kernel() -> bool:
    """True inside a running IPython kernel (Jupyter, VS Code notebooks), without importing
    IPython when it is not already loaded."""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return False
    shell = getattr(ipython, "get_ipython", lambda: None)()
    return shell is not None and getattr(shell, "kernel", None) is not None


class Progress:
    """Rewrites one stderr line at most every ``interval`` seconds."""

    def __init__(self, label: str, total: int, enabled: bool | None = None, interval: float = 0.5):
        if enabled is None:
            enabled = shown_by_default()
        self.enabled = enabled
        self.label = label
        self.total = max(total, 1)
        self.interval = interval
        self.start = time.monotonic()
        self._last = self.start
        self._shown = False
        self._width = 0  # the last line's length

    def show(self, text: str, phase: bool = False) -> None:
        """Rewrite the line as ``exactdp: <label>: <text>, <elapsed>s``, at most every
        ``interval`` seconds (nothing when disabled). ``phase=True``: a new phase begins;
        shown at once if anything was shown already."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < self.interval and not (phase and self._shown):
            return
        self._last = now
        line = f"exactdp: {self.label}: {text}, {now - self.start:.1f}s"
        sys.stderr.write("\r" + line.ljust(self._width))  # covers a longer previous line
        self._width = len(line)
        sys.stderr.flush()
        self._shown = True

    def update(self, done: int, pairs: int) -> None:
        """Enumeration progress: datasets done out of the total, pairs examined."""
        if self.enabled:
            self.show(f"{100 * done / self.total:5.1f}% of {self.total:,} datasets, {pairs:,} pairs")

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\r" + " " * max(79, self._width) + "\r")
            sys.stderr.flush()
