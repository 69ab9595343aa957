"""A project's sensitivity claims in a TOML file, checked exactly (``exactdp check``).

::

    [[claim]]
    id = "clipped-mean"
    function = "heights:clipped_mean"   # or query = "sum"; optional clip = [L, U]
    min_size = 1                        # with function: smallest dataset it is defined on
    universe = [140, 150, 175, 200]     # or "0..7"; or pool = [...] with size = N
    sizes = "3"                         # or size = 3, or "0..3"
    neighbors = "substitute"            # default "add-remove"
    d_in = 1                            # or "1..3"
    claim = "(U - L)/N"                 # a number or a formula of L, U, N, d_in, k
    expect = "holds"                    # or "violated": a known-wrong claim kept as a regression
    grid = [{clip = [0, 10]}, {clip = [5, 10]}]   # optional: one check per table of overrides

Numbers are exact: write non-integers as strings (``"1/2"``, ``"0.5"``); a TOML float is
refused. ``function`` is ``"package.module:callable"``, a function of a sorted tuple of
``Fraction`` returning an ``int`` or ``Fraction``. Every problem with the file is a
:class:`ClaimsFileError` naming the line (where it can be found), the claim and the field.

Only the code a claims file names runs. exactdp first imports everything its own check
needs (its checkers, SymPy, mpmath, NumPy and the optional gmpy2 / python-flint), then
imports the module of each ``function`` with the claims file's folder *appended* to
``sys.path`` for that import only: an installed module of the same name wins over a file
beside the claims file, and a file beside it that no claim names (a planted ``sympy.py`` or
``gmpy2.py``) is never imported. The working directory is not on the path: a claims file
finds the same modules wherever it is checked from (install the project, ``pip install -e
.``, or keep its package beside the claims file). A module must import its own helpers
when it is imported, not lazily inside the function.

The user's code is guarded: what it prints while exactdp imports or calls it is kept
apart from exactdp's output; ``SystemExit``, ``KeyboardInterrupt`` or any other exception
it raises is a :class:`ClaimsFileError` naming the claim; and each claim (its import and
its check) is stopped after ``time_limit`` seconds (:data:`DEFAULT_TIME_LIMIT`; a SIGALRM
timer, so on the main thread of a platform that has one: not on Windows). A claims file is
a regular file (not a pipe, a device or a folder) of UTF-8 text; a leading byte-order mark
is ignored.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp import _optional
from exactdp._alarm import CLAIM_TIME_LIMIT, MAX_SECONDS, alarm_after, read_time_limit
from exactdp._usercode import Captured, Contained, Stopped, contained, printable
from exactdp.engine.incremental import numpy_or_none
from exactdp.errors import (
    ExactDPError,
    InexactInput,
    InvalidArgument,
    TooLarge,
    UndefinedQuery,
)
from exactdp._progress import Progress
from exactdp.checkers import verify_claim
from exactdp.checkers.sensitivity import bind_claim, claim_parameters
from exactdp.numeric import to_exact
from exactdp.queries import clipped, parse_query, user_query
from exactdp.spaces import ExactSet, Multisets, SubMultisets
from exactdp.spaces.metrics import parse_metric
from exactdp.spaces.universe import parse_universe, parse_values

__all__ = ["FIELDS", "DEFAULT_TIME_LIMIT", "CheckedClaim", "ClaimSpec", "ClaimsFileError", "TimeLimitExceeded",
           "check_claims", "load_claims", "printable", "read_time_limit", "within_time_limit"]

FIELDS = ("id", "query", "function", "min_size", "clip", "universe", "pool", "sizes", "size",
          "neighbors", "d_in", "exact_k", "undefined", "claim", "expect", "grid")
_GRID_FIELDS = tuple(f for f in FIELDS if f not in ("id", "grid"))
_EXPECT = ("holds", "violated")
MAX_CHECKS = 10_000
"""Most checks one claims file may expand to (each ``[[claim]]`` times its grid entries
times its ``d_in`` values), counted before any claim is read."""
MAX_FILE_BYTES = 10_000_000
"""Largest claims file read."""
DEFAULT_TIME_LIMIT = CLAIM_TIME_LIMIT
"""Seconds one claim may take, importing its function and checking it (``exactdp check
--time-limit``, the pytest plugin's ``--exactdp-time-limit``)."""
MAX_TIME_LIMIT = MAX_SECONDS
"""Largest time limit accepted, in seconds (:data:`exactdp._alarm.MAX_SECONDS`)."""


class ClaimsFileError(InvalidArgument):
    """A claims file that cannot be checked: the message names the file, line, claim and field."""

    def __init__(self, message: str, *, path: str = "", line: int | None = None,
                 claim: str | None = None, field: str | None = None):
        where = printable(path) + (f":{line}" if line else "")
        who = f"claim {claim}" if claim else ""
        what = f"field {field!r}" if field else ""
        head = ", ".join(p for p in (who, what) if p)
        super().__init__(f"{where}: {head}: {message}" if head else f"{where}: {message}")
        self.path, self.line, self.claim, self.field = path, line, claim, field


class TimeLimitExceeded(ExactDPError):
    """A claim's import or check ran past its time limit (:func:`within_time_limit`)."""

    def __init__(self, message: str, seconds: float):
        super().__init__(message)
        self.seconds = seconds


class _Stop(BaseException):
    """Raised by the alarm inside the code being timed: a BaseException, so that a user
    function's ``except Exception`` does not swallow it."""


@contextmanager
def within_time_limit(seconds: float | None, what: str = "the claim") -> Iterator[None]:
    """Stop the block after ``seconds`` with :class:`TimeLimitExceeded` ("``what`` did not
    finish within ..."): :func:`exactdp._alarm.alarm_after` (no limit where there is none,
    off the main thread, for ``seconds=None``, or when the caller's own alarm is running;
    the alarm repeats in case the code swallowed it once)."""
    _load_checking_libraries()
    try:
        with alarm_after(seconds, _Stop):
            yield
    except _Stop:
        raise TimeLimitExceeded(f"{what} did not finish within the time limit of {seconds:g} s", seconds) from None


def _load_checking_libraries() -> None:
    """Import what checking a claim loads (SymPy; NumPy where installed) before a time limit
    starts: the limit is for the claim, and an alarm inside an import can leave a library
    half-imported (NumPy raised RuntimeError from ``finfo`` under a 0.2 s limit)."""
    numpy_or_none()
    from exactdp.numeric import decide  # noqa: F401  # lazy: loads SymPy, needed once a claim is checked


class _Guarded:
    """The claims file's function as exactdp calls it: what it prints goes to
    :class:`~exactdp._usercode.Captured`, and a ``SystemExit``, ``KeyboardInterrupt`` or
    other BaseException becomes :class:`~exactdp._usercode.Stopped`, so that it ends this
    claim with a refusal instead of ending exactdp (with exit 0 and no report). The whole
    check runs :func:`~exactdp._usercode.contained` as well (``os._exit``, descriptor 1,
    the working directory, threads left running)."""

    def __init__(self, fn):
        self.fn = fn
        self.printed = Captured()

    def __call__(self, values):
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.printed
        try:
            return self.fn(values)
        except (Exception, _Stop):
            raise
        except Stopped:
            raise
        except BaseException as e:
            raise Stopped(e) from None
        finally:
            sys.stdout, sys.stderr = out, err


@dataclass(frozen=True)
class ClaimSpec:
    """One check to run: a claim on a query over a space at one ``d_in``."""

    id: str
    claim: Any
    query: Any  # exactdp.queries.Query
    space: Any  # exactdp.DatasetSpace
    neighbors: str
    d_in: int
    expect: str = "holds"
    options: dict = field(default_factory=dict)
    line: int | None = None
    index: int = 0
    uses_function: bool = False
    field_lines: dict = field(default_factory=dict)  # field name -> line, where found
    guard: Any = field(default=None, repr=False, compare=False)  # the user's function, guarded

    def line_of(self, name: str) -> int | None:
        return self.field_lines.get(name) or self.line


@dataclass(frozen=True)
class CheckedClaim:
    spec: ClaimSpec
    result: Any  # exactdp.ClaimResult
    printed: str = ""  # what the user's function printed while checked ("; it printed ..."), if anything

    @property
    def passed(self) -> bool:
        """The verdict is what the file expects (``holds`` accepts a tight claim)."""
        if self.spec.expect == "violated":
            return self.result.verdict.value == "violated"
        return self.result.ok

    def to_dict(self) -> dict:
        out = {"id": self.spec.id, "expect": self.spec.expect, "passed": self.passed}
        out.update(self.result.to_dict())
        return out

    def line(self) -> str:
        """Two lines of text: the verdict and the scope (control characters in the id and
        the query name are escaped, so they cannot forge a line)."""
        mark = "ok  " if self.passed else "FAIL"
        expect = "" if self.spec.expect == "holds" else " (expected violated)"
        name = printable(self.result.sensitivity.query.name)
        text = f"{mark} {printable(self.spec.id)}{expect}: {name}: {self.result.summary()}"
        return f"{text}\n     scope: {self.result.sensitivity.scope.describe()}"


# -- reading -----------------------------------------------------------------------------

def _toml():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = _optional.require("tomli", library="tomli", note="reading a claims file on Python 3.10")
    return tomllib


class _Lines:
    """Best-effort line numbers: tomllib keeps none, so find ``[[claim]]`` headers and
    ``field =`` keys in the text."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.starts = [i + 1 for i, ln in enumerate(self.lines) if re.match(r"\s*\[\[\s*claim\s*\]\]", ln)]

    def of(self, index: int, name: str | None = None) -> int | None:
        if index >= len(self.starts):
            return None
        start = self.starts[index]
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.lines) + 1
        if name:
            key = re.compile(rf"(^|[\s{{,])\"?{re.escape(name)}\"?\s*=")
            for n in range(start, end):
                if key.search(self.lines[n - 1].split("#", 1)[0]):
                    return n
        return start


def load_claims(path: str | Path, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[ClaimSpec]:
    """Read and validate every claim of a claims file (nothing is enumerated yet).

    Raises :class:`ClaimsFileError` on the first problem: a file that is not a regular
    file, a TOML syntax error, an unknown or missing field, a value of the wrong kind, a
    query that is not known, a dotted path that does not import (or whose import exits,
    raises or runs past ``time_limit`` seconds)."""
    path = Path(path)
    shown = str(path)
    raw = _read(path, shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ClaimsFileError(f"byte {raw[e.start]:#04x} at offset {e.start} is not UTF-8 text; a "
                              f"claims file is TOML, saved as UTF-8", path=shown) from None
    text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors save UTF-8
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise ClaimsFileError(f"not valid TOML: {e}", path=shown, line=int(m.group(1)) if m else None) from None
    except (RecursionError, MemoryError):
        raise ClaimsFileError("arrays or tables nested too deeply to read; a claims file needs "
                              "at most a list of tables (grid = [{...}])", path=shown) from None
    lines = _Lines(text)
    unknown = sorted(set(data) - {"claim"})
    if unknown:
        raise ClaimsFileError(f"unknown top-level key {unknown[0]!r}; a claims file holds [[claim]] tables",
                              path=shown, field=unknown[0])
    claims = data.get("claim")
    if not isinstance(claims, list) or not claims or not all(isinstance(c, dict) for c in claims):
        raise ClaimsFileError("no claims: add at least one [[claim]] table with id, query or function, "
                              "universe or pool, sizes and claim", path=shown, field="claim")
    count = sum(_checks(raw) for raw in claims)  # counted before any claim is read
    if count > MAX_CHECKS:
        raise ClaimsFileError(f"{count:,} checks (claims x grid entries x d_in values), more than "
                              f"{MAX_CHECKS:,}; split the file or use fewer grid entries and d_in "
                              f"values", path=shown)
    importer = _Importer(path.resolve().parent, time_limit)
    specs: list[ClaimSpec] = []
    seen: set[str] = set()
    for index, raw in enumerate(claims):
        specs.extend(_claim_specs(raw, index, shown, lines, seen, importer))
    return specs


def _read(path: Path, shown: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES: a named pipe, a device such as
    /dev/zero or a folder is refused before a byte is read (opened without blocking, so a
    pipe with no writer cannot hang it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ClaimsFileError(f"cannot read the file: {e.strerror or e}", path=shown) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise ClaimsFileError(f"this is {kind}, not a claims file; give the path of a TOML file", path=shown)
    with open(fd, "rb", closefd=True) as f:
        try:
            raw = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise ClaimsFileError(f"cannot read the file: {e.strerror or e}", path=shown) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ClaimsFileError(f"the file is larger than {MAX_FILE_BYTES:,} bytes; a claims file is "
                              f"a short TOML text: split it", path=shown)
    return raw


def _checks(raw: dict) -> int:
    """The checks one ``[[claim]]`` table expands to (a field in error counts as one check:
    it is refused, naming its line, when the claim is read)."""
    grid = raw.get("grid", [{}])
    if not isinstance(grid, list) or not all(isinstance(g, dict) for g in grid):
        return 1

    def fail(message, name):
        return ClaimsFileError(message)

    total = 0
    for g in grid or [{}]:
        try:
            total += len(_d_ins({**raw, **g}.get("d_in", 1), fail))
        except ClaimsFileError:
            total += 1
    return total


# exactdp's own modules for checking a claim, imported before any user module so that none of
# them can be found beside a claims file while the folder is on sys.path
_CHECKING_MODULES = ("exactdp.checkers", "exactdp.checkers.sensitivity", "exactdp.checkers.results",
                     "exactdp.queries", "exactdp.spaces", "exactdp.numeric", "sympy", "mpmath")
_OPTIONAL_MODULES = ("numpy", "gmpy2", "flint")


@functools.cache
def _import_checking_modules() -> None:
    """Import what checking a claim needs (once per process): before any user module, so
    that none of it can come from a claims file's folder, and before a claim's timer
    starts, so that exactdp's own imports do not count against its time limit."""
    for name in _CHECKING_MODULES:
        importlib.import_module(name)
    for name in _OPTIONAL_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - not installed (or broken): exactdp does without it
            pass


class _Importer:
    """Imports the modules a claims file names: exactdp's own imports first, then each
    module with the claims file's folder appended to ``sys.path`` for that import only,
    under the time limit, with what it prints kept apart and no ``__pycache__`` written."""

    def __init__(self, folder: Path, seconds: float | None):
        self.folder, self.seconds = str(folder), seconds

    def __call__(self, target: object, bad) -> _Guarded:
        if not isinstance(target, str) or target.count(":") != 1 or not all(target.split(":")):
            raise bad(f"function={target!r} must be 'package.module:callable'", "function")
        _import_checking_modules()
        module_name, _, attr = target.partition(":")
        box = Contained()
        printed = box.printed
        err, bytecode = sys.stderr, sys.dont_write_bytecode
        added = self.folder not in sys.path
        try:
            with within_time_limit(self.seconds, f"importing {module_name!r}"):
                if added:
                    sys.path.append(self.folder)
                try:
                    with contained(_Stop, record=box):
                        sys.stderr = printed
                        sys.dont_write_bytecode = True  # the project's folders are left as they were
                        module = importlib.import_module(module_name)
                finally:
                    sys.stderr, sys.dont_write_bytecode = err, bytecode
                    if added and self.folder in sys.path:
                        sys.path.remove(self.folder)
        except TimeLimitExceeded as e:
            raise bad(f"{e} (time_limit; --time-limit on the command line){printed.said()}; a module "
                      f"should only define the function when it is imported", "function") from None
        except Stopped as e:  # SystemExit, os._exit, KeyboardInterrupt from the user's module
            raise bad(f"importing {module_name!r} {e.describe()}{printed.said()}; a module named by a "
                      f"claims file must not run a program when it is imported (guard that part with "
                      f"if __name__ == '__main__':)", "function") from None
        except Exception as e:  # noqa: BLE001 - the user's module: any error while importing it
            raise bad(f"cannot import {module_name!r} ({type(e).__name__}: {e}){printed.said()}; check the "
                      f"dotted path and that the package is installed or beside the claims file",
                      "function") from None
        if box.problems():
            raise bad(f"importing {module_name!r} {'; '.join(box.problems())}{printed.said()}; a module named "
                      f"by a claims file should only define its functions", "function")
        obj = module
        for part in attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise bad(f"module {module_name!r} has no {attr!r}; check the name after ':'", "function") from None
        if not callable(obj):
            raise bad(f"{target!r} is not callable; point at a function of a sorted tuple of Fractions", "function")
        return _Guarded(obj)


def _claim_specs(raw: dict, index: int, path: str, lines: _Lines, seen: set[str],
                 importer: _Importer) -> list[ClaimSpec]:
    label = f"#{index + 1}" + (f" {raw['id']!r}" if isinstance(raw.get("id"), str) else "")

    def fail(message: str, name: str | None) -> ClaimsFileError:
        return ClaimsFileError(message, path=path, line=lines.of(index, name), claim=label, field=name)

    for name in raw:
        if name not in FIELDS:
            raise fail(f"unknown field; the fields are {', '.join(FIELDS)}", name)
    for name in ("id", "claim"):
        if name not in raw:
            raise fail("missing; every claim needs an id and a claim", name)
    if not isinstance(raw["id"], str) or not raw["id"].strip():
        raise fail(f"id={raw['id']!r} must be a non-empty string", "id")
    if raw["id"] in seen:
        raise fail(f"id={raw['id']!r} is used by an earlier claim; ids must be unique", "id")
    seen.add(raw["id"])
    grid = raw.get("grid", [{}])
    if not isinstance(grid, list) or not grid or not all(isinstance(g, dict) for g in grid):
        raise fail("grid must be a non-empty list of tables of overrides, e.g. "
                   "grid = [{clip = [0, 10]}, {clip = [5, 10]}]", "grid")
    base = {k: v for k, v in raw.items() if k != "grid"}
    specs = []
    for g in grid:
        for name in g:
            if name not in _GRID_FIELDS:
                raise fail(f"grid overrides {name!r}, which is not a field a grid can set; "
                           f"use one of {', '.join(_GRID_FIELDS)}", "grid")
        merged = {**base, **g}
        suffix = "" if "grid" not in raw else "[" + ", ".join(f"{k}={_shown(v)}" for k, v in g.items()) + "]"
        specs.extend(_one(merged, raw["id"] + suffix, index, fail, lines, "grid" in raw and bool(g), importer))
    return specs


def _shown(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def _exact(value: object, name: str, fail) -> Fraction:
    if isinstance(value, float):
        raise fail(f"{value!r} is a TOML float, which is not exact; write it as a string ('{value!r}') "
                   f"or as an integer", name)
    try:
        return to_exact(value, name)
    except (InvalidArgument, InexactInput) as e:
        raise fail(str(e), name) from None


def _one(c: dict, cid: str, index: int, fail, lines: _Lines, in_grid: bool,
         importer: _Importer) -> list[ClaimSpec]:

    def bad(message: str, name: str):  # inside a grid entry, say so
        return fail(message + (" (in a grid entry)" if in_grid else ""), name)

    # the query
    if ("query" in c) == ("function" in c):
        raise bad("give exactly one of query (a built-in name such as 'sum') or function "
                  "('package.module:callable')", "query" if "query" in c else "function")
    uses_function = "function" in c
    guard = None
    if uses_function:
        guard = importer(c["function"], bad)
        query = user_query(guard, name=c["function"].rpartition(":")[2],
                           min_size=_whole(c.get("min_size", 0), "min_size", bad))
    else:
        if "min_size" in c:
            raise bad("min_size applies to a function; a built-in query knows its own", "min_size")
        if not isinstance(c["query"], str):
            raise bad(f"query={c['query']!r} must be a string such as 'sum' or 'percentile:90'", "query")
        try:
            query = parse_query(c["query"])
        except InvalidArgument as e:
            raise bad(str(e), "query") from None
    if "clip" in c:
        clip = c["clip"]
        if not isinstance(clip, list) or len(clip) != 2:
            raise bad(f"clip={clip!r} must be a pair [L, U], e.g. clip = [0, 10]", "clip")
        lo, hi = (_exact(v, "clip", bad) for v in clip)
        try:
            query = clipped(query, lo, hi)
        except InvalidArgument as e:
            raise bad(str(e), "clip") from None
    # the space
    if ("universe" in c) == ("pool" in c):
        raise bad("give exactly one of universe ('0..7' or a list of values) or pool (a list of records)",
                  "universe" if "universe" in c else "pool")
    if "size" in c and "sizes" in c:
        raise bad("size and sizes both given; use one", "sizes")
    if "size" not in c and "sizes" not in c:
        raise bad("missing; give sizes = 'A..B' (or size = N)", "sizes")
    size_field = "size" if "size" in c else "sizes"
    sizes = c[size_field]
    if isinstance(sizes, list):
        sizes = tuple(_whole(v, size_field, bad) for v in sizes)
    elif isinstance(sizes, int) and not isinstance(sizes, bool):
        sizes = (sizes, sizes)
    elif not isinstance(sizes, str):
        raise bad(f"{size_field}={sizes!r} must be a whole number, 'A..B' or [A, B]", size_field)
    space_field = "universe" if "universe" in c else "pool"
    spec = c[space_field]
    try:
        if isinstance(spec, list):
            values = [_exact(v, space_field, bad) for v in spec]
        elif not isinstance(spec, str):
            raise bad(f"{space_field}={spec!r} must be 'A..B' or a list of values", space_field)
        if space_field == "universe":
            universe = ExactSet(values) if isinstance(spec, list) else parse_universe(spec, "universe")
        elif not isinstance(spec, list):
            values = parse_values(spec, "pool")
    except InvalidArgument as e:
        if isinstance(e, ClaimsFileError):
            raise
        raise bad(str(e), space_field) from None
    try:
        space = (Multisets(universe, sizes=sizes) if space_field == "universe"
                 else SubMultisets(values, sizes=sizes))
    except InvalidArgument as e:
        raise bad(str(e), size_field) from None
    # the relation, d_in, options
    neighbors = c.get("neighbors", "add-remove")
    try:
        if not isinstance(neighbors, str):
            raise InvalidArgument(f"neighbors={neighbors!r} must be 'add-remove' or 'substitute'")
        parse_metric(neighbors)
    except InvalidArgument as e:
        raise bad(str(e), "neighbors") from None
    d_ins = _d_ins(c.get("d_in", 1), bad)
    options: dict = {}
    if "exact_k" in c:
        if not isinstance(c["exact_k"], bool):
            raise bad(f"exact_k={c['exact_k']!r} must be true or false", "exact_k")
        options["exact_k"] = c["exact_k"]
    if "undefined" in c:
        u = c["undefined"]
        options["undefined"] = u if u in ("error", "exclude") else _exact(u, "undefined", bad)
    expect = c.get("expect", "holds")
    if expect not in _EXPECT:
        raise bad(f"expect={expect!r} must be 'holds' or 'violated' (a known-wrong claim kept "
                  f"as a regression)", "expect")
    claim = c["claim"]
    if isinstance(claim, float):
        raise bad(f"claim={claim!r} is a TOML float, which is not exact; write it as a string "
                  f"('{claim!r}')", "claim")
    if not isinstance(claim, (str, int)) or isinstance(claim, bool):
        raise bad(f"claim={claim!r} must be a number or a formula string such as 'U - L'", "claim")
    out = []
    for d in d_ins:
        try:
            bind_claim(claim, claim_parameters(query, space, d))  # a bad formula is refused now
        except InvalidArgument as e:
            raise bad(str(e), "claim") from None
        suffix = f"[d_in={d}]" if len(d_ins) > 1 else ""
        out.append(ClaimSpec(cid + suffix, claim, query, space, neighbors, d, expect, options,
                             lines.of(index), index, uses_function,
                             {name: lines.of(index, name) for name in c}, guard))
    return out


def _whole(value: object, name: str, bad) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise bad(f"{name}={value!r} must be a whole number >= 0", name)
    return value


def _d_ins(value: object, bad) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return [value]
    if isinstance(value, str):
        lo, sep, hi = value.strip().partition("..")
        try:
            a, b = int(lo), int(hi if sep else lo)
        except ValueError:
            a = b = 0
        if 1 <= a <= b and b - a < 64:
            return list(range(a, b + 1))
    raise bad(f"d_in={value!r} must be a whole number >= 1 or a range 'A..B' (at most 64 values)", "d_in")


# -- checking ----------------------------------------------------------------------------

def check_claims(specs: list[ClaimSpec], *, path: str = "", lines: _Lines | None = None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, progress: bool | None = None,
                 **budgets: Any) -> Iterator[CheckedClaim]:
    """Check each claim exactly (``exactdp.verify_claim``), yielding as it goes. A user
    function that raises, exits or returns a float, a space over the budget, or a claim
    that runs past ``time_limit`` seconds raises :class:`ClaimsFileError` naming the claim
    and the field to fix. ``progress``: a line on stderr naming the claim being checked
    (default: when stderr is a terminal)."""
    budgets = {k: v for k, v in budgets.items() if v is not None}
    if specs:
        _import_checking_modules()
    for number, spec in enumerate(specs, 1):
        label = f"#{spec.index + 1} {spec.id!r}"
        source = "function" if spec.uses_function else "query"
        size = "size" if "size" in spec.field_lines else "sizes"
        if spec.guard is not None:
            spec.guard.printed = Captured()

        def refuse(message: str, name: str) -> ClaimsFileError:
            return ClaimsFileError(message, path=path, line=spec.line_of(name), claim=label, field=name)

        bar = Progress("check", 1, progress, interval=0)
        bar.show(f"claim {number} of {len(specs)}: {printable(spec.id)}")
        box = Contained()
        try:
            with within_time_limit(time_limit, "checking the claim"):
                with contained(_Stop, swap_stdout=False, record=box):  # the guard swaps it per call
                    result = verify_claim(spec.claim, spec.query, spec.space, spec.neighbors, spec.d_in,
                                          **spec.options, **budgets)
        except TimeLimitExceeded as e:
            raise refuse(f"{e} (time_limit; --time-limit on the command line){_said(spec, box)}; make the space "
                         f"smaller or raise the limit", source if spec.uses_function else size) from None
        except TooLarge as e:
            raise refuse(f"{e} (--max-pairs/--max-datasets on the command line)", size) from None
        except UndefinedQuery as e:
            raise refuse(f"{e}{_said(spec, box)}", "undefined") from None
        except ExactDPError as e:  # InexactInput: a float returned
            raise refuse(f"{e}{_said(spec, box)}", source) from None
        except Stopped as e:
            raise refuse(f"the function {e.describe()}{_said(spec, box)}; it must return a value on every "
                         f"dataset, not end the program", "function") from None
        except Exception as e:
            if not spec.uses_function:
                raise
            raise refuse(f"the function raised {type(e).__name__}: {e}{_said(spec, box)}; make it defined on "
                         f"every dataset of the space (or set min_size / undefined)", "function") from None
        finally:
            bar.close()
        if box.problems():
            raise refuse(f"the function {'; '.join(box.problems())}{_said(spec, box)}; a claim's function "
                         f"must only compute its value", source)
        yield CheckedClaim(spec, result, _said(spec, box))


def _said(spec: ClaimSpec, box: Contained | None = None) -> str:
    """What the user's function printed, through ``sys`` (the guard) or file descriptor 1."""
    printed = Captured()
    for part in (spec.guard.printed.text if spec.guard is not None else "", box.printed.text if box else ""):
        printed.write(part)
    return printed.said()
