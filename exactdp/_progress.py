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

    def show(self, text: str) -> None:
        """Rewrite the line as ``exactdp: <label>: <text>, <elapsed>s``, at most every
        ``interval`` seconds (nothing when disabled)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        sys.stderr.write(f"\rexactdp: {self.label}: {text}, {now - self.start:.1f}s")
        sys.stderr.flush()
        self._shown = True

    def update(self, done: int, pairs: int) -> None:
        """Enumeration progress: datasets done out of the total, pairs examined."""
        if self.enabled:
            self.show(f"{100 * done / self.total:5.1f}% of {self.total:,} datasets, {pairs:,} pairs")

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\r" + " " * 79 + "\r")
            sys.stderr.flush()
