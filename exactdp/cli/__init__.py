"""The ``exactdp`` command: a thin layer over the Python API.

One module per sub-command in this package (:data:`COMMANDS`, in help order), each with
``register(subparsers)``, which adds its sub-parser with ``set_defaults(run=...)``, and
``run(args) -> exit status``. Top-level ``--help`` lists the summaries without importing
any of them; :func:`main` imports only the module of the command asked for. Shared options
are in :mod:`exactdp.cli._options`.

Exit status (the same for every sub-command; :mod:`exactdp.cli._status`): 0 done, every
claim asked holds; 1 a claim is violated, undecided or vacuous, a search found nothing, or
a built-in claim departs from its expectation; 2 bad input or a refused budget, with a
one-line message and no traceback; 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from typing import NamedTuple, Sequence

from exactdp._usercode import exit_past_threads
from exactdp._version import __version__
from exactdp.cli._status import BAD_INPUT, EXIT_CODES, INTERRUPTED
from exactdp.errors import ExactDPError

__all__ = ["main", "console", "COMMANDS"]


class Command(NamedTuple):
    """Where a sub-command lives and the line ``exactdp --help`` shows for it."""

    module: str
    summary: str
    aliases: tuple[str, ...] = ()


COMMANDS: dict[str, Command] = {
    "verify": Command("exactdp.cli.verify", "re-check every built-in claim (the main job)"),
    "sensitivity": Command("exactdp.cli.sensitivity", "exact sensitivity of one query over one space"),
    "calibrate": Command("exactdp.cli.calibrate", "exact noise scale / sigma / epsilon, with the safe float"),
    "compose": Command("exactdp.cli.compose", "add up privacy spends exactly and check them against a budget"),
    "floatsum": Command("exactdp.cli.floatsum",
                        "sound sensitivity bound of a float sum, and a witness search against a claim"),
    "catalog": Command("exactdp.cli.catalog",
                       "list the catalogue of sensitivity formulas, each re-checked by enumeration",
                       ("catalogue",)),
    "privacy": Command("exactdp.cli.privacy", "exact privacy loss of a mechanism over every neighbouring pair"),
    "account": Command("exactdp.cli.account",
                       "certified epsilon(delta) or delta(epsilon) of k composed mechanisms"),
    "search": Command("exactdp.cli.search",
                      "search a domain too large to enumerate for a violated sensitivity claim"),
    "check": Command("exactdp.cli.check", "check every claim of a claims file (TOML) exactly"),
    "audit": Command("exactdp.cli.audit", "run the audit suite against an installed DP library"),
}
"""Sub-command name -> its module and summary; the order is the order of ``--help``."""


def _version() -> str:
    return __version__


def _chosen(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv`` (its first word that is not an option), if known."""
    word = next((token for token in argv if not token.startswith("-")), None)
    for name, command in COMMANDS.items():
        if word == name or word in command.aliases:
            return name
    return None


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (``exactdp <command>: error: <what>; see
    'exactdp <command> --help'``) instead of the usage block; exit status 2 as before.
    Sub-command parsers inherit it (``add_subparsers`` builds them with this class)."""

    def error(self, message: str):
        self.exit(BAD_INPUT, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")


def _parser(chosen: str | None = None):
    """The ``exactdp`` parser, with the real sub-parser of ``chosen`` (its module imported)
    and, for every other command, a stand-in that only carries its help line. Returns the
    parser and the chosen module (or None)."""
    p = _Parser(
        prog="exactdp", epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check differential-privacy claims (sensitivities, privacy parameters, "
                    "float sums) with exact arithmetic.")
    p.add_argument("--version", action="version", version=f"exactdp {_version()}")
    sub = p.add_subparsers(dest="command", required=True)
    module = None
    for name, command in COMMANDS.items():
        if name == chosen:
            module = importlib.import_module(command.module)
            module.register(sub)
        else:
            sub.add_parser(name, aliases=list(command.aliases), help=command.summary)
    return p, module


def _looks_negative(token: str | None) -> bool:
    return token is not None and len(token) > 1 and token[0] == "-" and (token[1].isdigit() or token[1] == ".")


def _glue_values(argv: Sequence[str], value_options: Sequence[str] = ()) -> list[str]:
    """``--universe -3..13`` -> ``--universe=-3..13``, so values may start with '-': for
    every option of ``value_options`` (a command module's ``VALUE_OPTIONS``), and for any
    ``--option`` followed by a value that looks like a negative number."""
    out: list[str] = []
    argv = list(argv)
    it = iter(range(len(argv)))
    for i in it:
        token = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else None
        if following == "--":  # argparse reads '--opt=--' as an empty list: let it refuse '--opt --'
            out.append(token)
        elif token in value_options or (token.startswith("--") and "=" not in token
                                        and _looks_negative(following)):
            j = next(it, None)
            out.append(token if j is None else f"{token}={argv[j]}")
        else:
            out.append(token)
    return out


_ASCII = {"ε": "epsilon", "δ": "delta", "σ": "sigma", "ρ": "rho", "α": "alpha", "λ": "lambda",
          "μ": "mu", "Δ": "Delta", "∞": "inf", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~",
          "…": "...", "·": "*", "×": "x", "−": "-", "–": "-", "—": "--", "→": "->", "←": "<-",
          "√": "sqrt", "∈": "in", "±": "+/-", "∝": "propto", "⌈": "ceil(", "⌉": ")",
          "⌊": "floor(", "⌋": ")", "²": "^2", "³": "^3", "⁴": "^4", "Φ": "Phi", "Σ": "sum",
          "π": "pi", "Γ": "Gamma", "⊆": "subset of", "‘": "'", "’": "'", "“": '"', "”": '"'}
"""The symbols exactdp prints, spelt in ASCII for a terminal that cannot show them."""


def ascii_safe(text: str) -> str:
    """``text`` with exactdp's symbols spelt in ASCII (:data:`_ASCII`) and any other
    non-ASCII character as a backslash escape: what an ASCII-only output receives."""
    text = "".join(_ASCII.get(ch, ch) for ch in text)
    return text.encode("ascii", "backslashreplace").decode("ascii")


class _Output:
    """``sys.stdout`` for the length of :func:`main`: a text that the stream's encoding
    cannot hold (``PYTHONIOENCODING=ascii``) is written through :func:`ascii_safe` instead
    of raising, and a failed write (a full device, a closed pipe) is remembered, so that
    :func:`main` can tell it from an ``OSError`` of the command itself."""

    def __init__(self, stream):
        self._stream = stream
        self.failure: OSError | None = None
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "εδ≤…".encode(encoding)
            self._ascii = False
        except UnicodeEncodeError:
            self._ascii = True
        except LookupError:
            self._ascii = False

    def write(self, text: str) -> int:
        if self._ascii and not text.isascii():
            text = ascii_safe(text)  # stderr would escape by itself, but less legibly
        try:
            try:
                return self._stream.write(text)
            except UnicodeEncodeError:  # an encoding that holds the probe but not this text
                return self._stream.write(ascii_safe(text))
        except OSError as e:
            self.failure = e
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            self.failure = e
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def __iter__(self):  # pragma: no cover - a stream is not read
        return iter(self._stream)


def _silence_stdout() -> None:
    """Point the standard output at the null device, so that the interpreter's last flush
    of what could not be written does not print a second error (CPython's advice for
    SIGPIPE, https://docs.python.org/3/library/signal.html#note-on-sigpipe)."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests' captured output)
        pass


def _os_error_text(e: OSError) -> str:
    what = e.strerror or type(e).__name__
    return f"{e.filename!r}: {what}" if e.filename is not None else str(e) or what


_KEYWORD = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*)=|\braise ([a-z][a-z0-9_]*)")


def _with_options(message: str, parser: argparse.ArgumentParser, argv: Sequence[str]) -> str:
    """``message`` (worded for the Python API, shared by both) with the command-line options
    of the keyword arguments it names: ``... raise max_k`` gets ``(on the command line:
    --max-k)``. Only options the command has and the user did not type are added."""
    options: set[str] = set()
    for action in parser._actions:  # the options of every sub-parser built (the chosen one's)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                for option in sub._actions:
                    options.update(o for o in option.option_strings if o.startswith("--"))
    typed = {token.split("=", 1)[0] for token in argv if token.startswith("--")}
    # a keyword the user gave as an option's value (``--param epsilon=-1``) is that value,
    # not the option of the same name (``--epsilon``, a claimed epsilon)
    given = {token.split("=", 1)[1].split("=", 1)[0] if token.startswith("--") else token.split("=", 1)[0]
             for token in argv if token.count("=") >= (2 if token.startswith("--") else 1)}
    named: list[str] = []
    for match in _KEYWORD.finditer(message):
        keyword = match.group(1) or match.group(2)
        flag = "--" + keyword.replace("_", "-")
        if (flag in options and flag not in typed and flag not in message and flag not in named
                and keyword not in given):
            named.append(flag)
    return f"{message} (on the command line: {', '.join(named)})" if named else message


def _output_failed(e: OSError) -> int:
    """Exit status 2 for output that could not be written: one line on stderr, none for a
    pipe whose reader (e.g. ``head``) has all it wanted, as CPython advises."""
    _silence_stdout()
    if not isinstance(e, BrokenPipeError):
        print(f"exactdp: error: could not write the output: {_os_error_text(e)}; "
              f"send it to a file or device with room", file=sys.stderr)
    return BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, module = _parser(_chosen(argv))
    saved, out = (sys.stdout, sys.stderr), _Output(sys.stdout)
    sys.stdout, sys.stderr = out, _Output(sys.stderr)
    try:
        # a bad option value an action reads itself (a budget) raises ExactDPError here too
        args = parser.parse_args(_glue_values(argv, getattr(module, "VALUE_OPTIONS", ())))
        status = args.run(args)
        out.flush()  # a full device fails here at the latest, not in the interpreter's exit
        return status
    except ExactDPError as e:
        print(f"exactdp: error: {_with_options(str(e), parser, argv)}", file=sys.stderr)
        return BAD_INPUT
    except OSError as e:
        if e is out.failure:
            return _output_failed(e)
        print(f"exactdp: error: {_os_error_text(e)}", file=sys.stderr)
        return BAD_INPUT
    except SystemExit:
        # --help, --version: argparse itself ignores a failed write of them
        try:
            out.flush()
        except OSError:
            pass
        if out.failure is None:
            raise
        return _output_failed(out.failure)
    except KeyboardInterrupt:  # pragma: no cover
        print("exactdp: interrupted", file=sys.stderr)
        return INTERRUPTED
    finally:
        sys.stdout, sys.stderr = saved


def console() -> None:
    """The ``exactdp`` command (the console script and ``python -m exactdp``): :func:`main`
    on ``sys.argv``, then exit with its status, even when code exactdp ran (a claims file's
    function, an audit plug-in, a library) left a thread running that would keep the
    interpreter from exiting after the report (:func:`exactdp._usercode.exit_past_threads`)."""
    status = main()
    exit_past_threads(status)
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    console()
