"""Shared test fixtures."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import exactdp


@pytest.fixture(scope="session")
def outcomes_in_child():
    """``run(setup, calls, seconds)``: execute ``calls`` one after another in a fresh
    interpreter and return, per call, the name of the exception it raised or
    ``"returned"``; ``"HUNG"`` ends the list if they take more than ``seconds`` after
    ``setup``. For inputs that once hung or exhausted memory: a regression fails
    instead of stalling the suite.

    The child loads modules of ``exactdp`` without the package ``__init__`` (fewer
    imports) and caps its address space at 2 GiB."""
    package = str(Path(exactdp.__file__).resolve().parent)

    def run(setup: str, calls: list[str], seconds: float) -> list[str]:
        script = textwrap.dedent(
            f"""
            import resource, sys, types
            stub = types.ModuleType("exactdp")
            stub.__path__ = [{package!r}]
            sys.modules["exactdp"] = stub
            {setup}
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
            print("ready", flush=True)
            for call in {calls!r}:
                try:
                    exec(call)
                    print("returned", flush=True)
                except BaseException as e:
                    print(type(e).__name__, flush=True)
            """
        )
        with subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
        ) as proc:
            assert proc.stdout.readline().strip() == "ready"
            try:
                proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                return proc.stdout.read().split() + ["HUNG"]
            return proc.stdout.read().split()

    return run


class HangGuard(Exception):
    """Raised inside a test that ran past its :func:`hang_guard` limit."""


@pytest.fixture
def hang_guard():
    """``with hang_guard(seconds): ...`` fails the test instead of stalling the suite when
    the block runs past ``seconds`` (a guard against regressions to a hang, not a speed
    assertion: the limits are far above the times measured)."""
    import contextlib
    import signal

    @contextlib.contextmanager
    def guard(seconds: int):
        def alarm(signum, frame):
            raise HangGuard(f"still running after {seconds} s: a hang?")

        old = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)

    return guard


def _quiet_main(argv, code):
    """A call for ``outcomes_in_child`` with setup ``quiet_main.setup``: ``main(argv)`` with
    its output swallowed, asserting it exits ``code``."""
    return (f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    code = main({argv!r})\n"
            f"assert code == {code}, code")


_quiet_main.setup = "import io, contextlib; from exactdp.cli import main"


@pytest.fixture
def quiet_main():
    """``quiet_main(argv, code)``: the text of a CLI call for ``outcomes_in_child``, whose
    setup is ``quiet_main.setup``."""
    return _quiet_main


@pytest.fixture
def cli_run(capsys):
    """``cli_run(*argv)``: ``exactdp.cli.main(argv)`` in this process, as ``(code, out, err)``."""
    from exactdp.cli import main

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def checked_claim():
    """``checked_claim(id)``: the built-in claim's result, asserting it found what the
    registry expects of it."""
    from exactdp import registry

    def run(claim_id):
        claim = registry.claim(claim_id)
        result = claim.check()
        assert claim.meets_expectation(result), (claim_id, result)
        return result

    return run


# Projects copied into temporary folders by their tests, not tests of this suite: the sample
# project (run as a user's project by tests/test_pytestplugin.py and tests/test_cli_check.py)
# and the audit plug-in fixtures.
collect_ignore = ["sample_project"]
