"""Progress lines on stderr for long enumerations (only when stderr is a terminal)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Rewrites one stderr line at most every ``interval`` seconds."""

    def __init__(self, label: str, total: int, enabled: bool | None = None, interval: float = 0.5):
        if enabled is None:
            enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
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
