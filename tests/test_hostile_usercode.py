"""A claims file's function cannot end ``exactdp check`` or fool its report (issue 30):
``os._exit``, a thread left running, a write to descriptor 1, a moved working directory;
and :mod:`exactdp._usercode`, the one door all such code goes through (the audit side is
tests/audits/test_hostile_plugins.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from exactdp import cli
from exactdp._usercode import Stopped, contained, printable

ROOT = Path(__file__).resolve().parent.parent
def _claims(tmp_path: Path, body: str) -> tuple[Path, str]:
    module = f"hostile_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{module}.py").write_text(body)
    path = tmp_path / "c.toml"
    path.write_text(f'[[claim]]\nid = "c"\nfunction = "{module}:f"\nuniverse = [0, 3]\nsizes = "0..2"\nclaim = "U"\n')
    return path, module


def _refusal(capsys, path: Path) -> str:
    assert cli.main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, (out, err)
    prefix = f"exactdp: error: {path}:3: claim #1 'c', field 'function': "
    assert err.startswith(prefix), err
    return err[len(prefix):].rstrip("\n")


def test_os_exit_in_the_function_is_a_refusal_not_a_silent_pass(tmp_path, capsys):
    # was: exit 0 and no output at all
    path, _ = _claims(tmp_path, "import os\ndef f(xs):\n    os._exit(0)\n")
    assert _refusal(capsys, path) == ("the function called os._exit(0); it must return a value on every dataset, "
                                      "not end the program")


def test_os_exit_on_import_is_a_refusal(tmp_path, capsys):
    path, module = _claims(tmp_path, "import os\nos._exit(3)\n")
    assert _refusal(capsys, path).startswith(f"importing {module!r} called os._exit(3); a module named by a "
                                             "claims file must not run a program when it is imported")


def test_a_thread_left_running_is_a_refusal(tmp_path, capsys):
    body = ("import threading\nEVENT = threading.Event()\ndef f(xs):\n    if not hasattr(f, 't'):\n"
            "        f.t = threading.Thread(target=EVENT.wait, name='stuck')\n        f.t.start()\n"
            "    return sum(xs)\n")
    path, module = _claims(tmp_path, body)
    try:
        assert _refusal(capsys, path) == ("the function left 1 thread(s) running ('stuck'), which would keep the "
                                          "process from exiting; a claim's function must only compute its value")
    finally:
        sys.modules[module].EVENT.set()


def test_a_write_to_descriptor_1_and_a_chdir_are_kept_from_the_json(tmp_path, capfd):
    path, _ = _claims(tmp_path, "import os\ndef f(xs):\n    os.write(1, b'raw bytes\\n')\n    os.chdir('/')\n"
                                "    return sum(xs)\n")
    here = os.getcwd()
    assert cli.main(["check", str(path), "--json"]) == 2
    out, err = capfd.readouterr()
    assert os.getcwd() == here
    report = json.loads(out)  # nothing but the report on stdout
    error = report["error"]
    assert "field 'function': the function changed the working directory to '/' (exactdp put it back); it printed " \
           "'raw bytes' (" in error
    assert error.endswith("characters in all), kept apart from exactdp's output; a claim's function must only "
                          "compute its value")


def test_the_command_exits_with_its_status_past_a_thread_left_running(tmp_path):
    # was: the report printed, then the process never exited
    path, _ = _claims(tmp_path, "import threading, time\ndef f(xs):\n    if not hasattr(f, 't'):\n"
                                "        f.t = threading.Thread(target=time.sleep, args=(3600,))\n"
                                "        f.t.start()\n    return sum(xs)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    done = subprocess.run([sys.executable, "-m", "exactdp", "check", str(path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "left 1 thread(s) running" in done.stderr


def test_python_m_exactdp_never_imports_a_planted_typing_module(tmp_path):
    # without site (-S) typing is not imported at start-up, as in a plain interpreter
    (tmp_path / "typing.py").write_text("raise SystemExit('planted typing.py ran')\n")
    done = subprocess.run([sys.executable, "-S", "-m", "exactdp", "--version"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.split()[0], done.stderr) == (0, "exactdp", "")


# -- the door itself -------------------------------------------------------------------------

class _Limit(BaseException):
    pass


@pytest.mark.parametrize("act, described", [
    (lambda: sys.exit(4), "called sys.exit(4) (SystemExit)"),
    (lambda: os._exit(5), "called os._exit(5)"),
    (lambda: (_ for _ in ()).throw(KeyboardInterrupt), "raised KeyboardInterrupt"),
    (lambda: (_ for _ in ()).throw(GeneratorExit("bye")), "raised GeneratorExit: bye"),
])
def test_every_way_out_becomes_stopped(act, described):
    with pytest.raises(Stopped) as caught:
        with contained():
            act()
    assert caught.value.describe() == described


def test_exceptions_and_the_callers_own_stop_pass_through():
    with pytest.raises(ValueError, match="plain"):
        with contained():
            raise ValueError("plain")
    with pytest.raises(_Limit):
        with contained(_Limit):
            raise _Limit()


def test_what_it_prints_and_leaves_is_recorded(tmp_path):
    here, stop = os.getcwd(), threading.Event()
    with contained() as box:
        print("via print")
        os.write(1, b"via fd\n")
        os.chdir(tmp_path)
        threading.Thread(target=stop.wait, name="kept").start()
    stop.set()
    assert os.getcwd() == here and box.moved == str(tmp_path)
    assert box.printed.text == "via print\nvia fd\n" and box.threads == ["kept"]
    assert box.problems() == ["left 1 thread(s) running ('kept'), which would keep the process from exiting",
                              f"changed the working directory to {str(tmp_path)!r} (exactdp put it back)"]


def test_a_forked_child_still_exits_for_real():
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    with contained():
        pid = os.fork()
        if pid == 0:  # the child inherits the patched os._exit: it must still end the child
            os._exit(7)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 7


@pytest.mark.parametrize("text, shown", [
    ("plain", "plain"), ("a\nb", "a\\nb"), ("\x1b[2J", "\\x1b[2J"), ("\u202eevil", "\\u202eevil"),
    ("caf\u00e9", "caf\u00e9"),
])
def test_printable_escapes_what_could_forge_a_line(text, shown):
    assert printable(text) == shown
