"""Running code exactdp does not own (an audit plug-in, a claims file's function, an
audited library) so that nothing it does reaches exactdp's report, exit status or
working directory.

:func:`contained` is the one door. Inside it:

* what the code writes to the standard output is kept apart (``sys.stdout`` and file
  descriptor 1 both point elsewhere), so it cannot corrupt a ``--json`` report or forge
  its lines; :attr:`Contained.printed` holds the first few thousand characters;
* ``sys.exit`` and any other ``BaseException`` that is not an ``Exception`` (but the
  caller's own time-limit exception and a real Ctrl-C) becomes :class:`Stopped`, an
  ``Exception`` naming what happened; ``os._exit`` is intercepted the same way (in this
  process only: a forked worker that inherits the patch still exits for real);
* the working directory is put back when the block ends (:attr:`Contained.moved`);
* a thread the code started and left running (not a daemon, so the interpreter would wait
  for it at exit) is named in :attr:`Contained.threads`.

:func:`printable` escapes control characters in a text the code handed back (an id, a
claim), so it cannot clear the screen or start a forged line of a text report.

:func:`exit_past_threads` ends the ``exactdp`` command with its own status even when such
a thread is still running.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Captured", "Contained", "Stopped", "contained", "printable", "first_line", "exit_past_threads"]

_SHOWN_ESCAPED = frozenset(("Cc", "Cf", "Cs", "Co", "Zl", "Zp"))


def printable(text: object) -> str:
    """``text`` with control and format characters escaped as ``repr`` writes them
    (``\\x1b``, ``\\n``, ``\\u202e``), so a claim id or a path printed in a line of text
    cannot start a new line, move the cursor or recolour what follows.

    >>> printable("ok\\x1b[2J\\nFORGED")
    'ok\\\\x1b[2J\\\\nFORGED'
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) in _SHOWN_ESCAPED else ch for ch in text)


class Captured:
    """Where contained code writes instead of exactdp's output: the first :attr:`KEEP`
    characters are kept, to be quoted in a note or a refusal."""

    KEEP = 4000

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def write(self, text) -> int:
        text = str(text)
        self.total += len(text)
        if self.kept < self.KEEP:
            self.parts.append(text[: self.KEEP - self.kept])
            self.kept += len(self.parts[-1])
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def said(self) -> str:
        """``"; it printed '<first line>'..."``, or nothing when it printed nothing."""
        lines = [ln.strip() for ln in self.text.splitlines() if ln.strip()]
        if not lines:
            return ""
        first = lines[0] if len(lines[0]) <= 200 else lines[0][:200] + "..."
        more = f" ({self.total:,} characters in all)" if len(lines) > 1 or first != lines[0] else ""
        return f"; it printed {first!r}{more}, kept apart from exactdp's output"


class Stopped(Exception):
    """Contained code ended with a ``BaseException`` that is not an ``Exception``
    (``SystemExit``, ``KeyboardInterrupt`` raised by the code itself, ``GeneratorExit``) or
    called ``os._exit``: carried out as an ``Exception``; :meth:`describe` says which."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error

    def describe(self) -> str:
        """``called sys.exit(0) (SystemExit)``, ``called os._exit(3)``, ``raised ...``."""
        e = self.error
        if isinstance(e, _OsExit):
            return f"called os._exit({e.code!r})"
        if isinstance(e, SystemExit):
            return f"called sys.exit({e.code!r}) (SystemExit)"
        return f"raised {type(e).__name__}" + (f": {e}" if str(e) else "")


class _OsExit(BaseException):
    """``os._exit(code)`` called by contained code (raised in its place)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


@dataclass
class Contained:
    """What contained code did besides returning: what it printed, where it moved the
    working directory (put back), which threads it left running."""

    printed: Captured = field(default_factory=Captured)
    moved: str | None = None  # the working directory it left (exactdp's was put back)
    threads: list[str] = field(default_factory=list)  # non-daemon threads it left running

    def problems(self) -> list[str]:
        """What it did that a well-behaved plug-in or function does not, one phrase each."""
        out = []
        if self.threads:
            out.append(f"left {len(self.threads)} thread(s) running ({', '.join(map(repr, self.threads[:3]))}"
                       f"{', ...' if len(self.threads) > 3 else ''}), which would keep the process from exiting")
        if self.moved is not None:
            out.append(f"changed the working directory to {self.moved!r} (exactdp put it back)")
        return out


def first_line(e: BaseException) -> str:
    """The first line of an exception's message, printable and at most 300 characters
    (``"(no message)"`` for an empty one): how a report names what user or library code raised."""
    lines = str(e).strip().splitlines()
    return printable(lines[0][:300]) if lines else "(no message)"


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed
        return None


@contextmanager
def _stdout_fd_apart(box: Contained) -> Iterator[None]:
    """File descriptor 1 to a temporary file for the block (what C code or a child process
    writes), read into ``box.printed`` after."""
    for stream in (sys.stdout, sys.__stdout__):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):  # no descriptor 1 (an embedded interpreter)
        yield
        return
    sink = tempfile.TemporaryFile()
    try:
        os.dup2(sink.fileno(), 1)
        yield
    finally:
        try:
            sys.stdout.flush()  # what the code left in the buffer goes to the sink too
        except (OSError, ValueError, AttributeError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
        sink.seek(0)
        data = sink.read(4 * Captured.KEEP)
        sink.close()
        if data:
            box.printed.write(data.decode("utf-8", "replace"))


@contextmanager
def contained(*passing: type[BaseException], swap_stdout: bool = True,
              record: Contained | None = None) -> Iterator[Contained]:
    """Run the block as contained code (see the module's note); yields the
    :class:`Contained` record, complete once the block ends.

    ``passing``: exception types that leave the block as they are (the caller's own
    time-limit exception); every ``Exception`` does too. ``swap_stdout=False`` leaves
    ``sys.stdout`` alone (where the caller swaps it per call already); file descriptor 1 is
    always kept apart. ``record``: the record to fill (one made beforehand, so that it can
    be read in the caller's handler of an exception from the block)."""
    box = Contained() if record is None else record
    where = _cwd()
    before = set(threading.enumerate())
    pid, real_exit = os.getpid(), os._exit

    def intercepted_exit(code):
        if os.getpid() != pid:  # a forked child that inherited the patch: exit for real
            real_exit(code)
        raise _OsExit(code)

    interrupted = [False]
    main = threading.current_thread() is threading.main_thread()
    old_int = None
    if main:
        def on_int(signum, frame):  # a real Ctrl-C, told apart from a KeyboardInterrupt the code raises
            interrupted[0] = True
            raise KeyboardInterrupt

        old_int = signal.signal(signal.SIGINT, on_int)
    out = sys.stdout
    os._exit = intercepted_exit
    try:
        with _stdout_fd_apart(box):
            if swap_stdout:
                sys.stdout = box.printed
            yield box
    except Exception:
        raise
    except passing:
        raise
    except KeyboardInterrupt:
        if interrupted[0]:
            raise
        raise Stopped(KeyboardInterrupt()) from None
    except BaseException as e:  # noqa: BLE001 - SystemExit, os._exit, GeneratorExit from the code
        raise Stopped(e) from None
    finally:
        os._exit = real_exit
        sys.stdout = out
        if main:
            signal.signal(signal.SIGINT, old_int)
        now = _cwd()
        if where is not None and now != where:
            box.moved = now if now is not None else "(a folder since removed)"
            os.chdir(where)
        box.threads = [t.name for t in threading.enumerate()
                       if t not in before and t.is_alive() and not t.daemon]


def exit_past_threads(status: int) -> None:
    """End the process with ``status`` now if a thread that is not a daemon is still
    running (code exactdp ran left it: the interpreter would wait for it forever after
    the report); otherwise return and let the interpreter exit as usual."""
    if any(t is not threading.main_thread() and t.is_alive() and not t.daemon for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(status)
