"""Issue 16, part 4: what the command does around the answer. Output that cannot be
written (a full device, a closed pipe, an ASCII-only encoding), a plot target that cannot
be written, capped counts printed as exact, and API words in CLI messages."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys

import pytest

from exactdp.cli import ascii_safe, main

QUICK = ["verify", "--only", "s000/count/add-remove/sizes=0..4", "--no-catalogue"]
ALDA = ["verify", "--only", "s004/sensitivity-sampler", "--no-catalogue"]  # prints "Aldà"


class _Broken(io.TextIOBase):
    """A text stream whose every write fails with ``error`` (a full device, a closed pipe)."""

    encoding = "utf-8"

    def __init__(self, error: OSError):
        self.error = error

    def writable(self):
        return True

    def write(self, text):
        raise self.error


def _run_into(monkeypatch, capsys, stream, argv):
    monkeypatch.setattr(sys, "stdout", stream)
    code = main(argv)
    return code, capsys.readouterr().err


def test_full_device_is_one_line_and_exit_2(monkeypatch, capsys):
    code, err = _run_into(monkeypatch, capsys, _Broken(OSError(errno.ENOSPC, "No space left on device")), QUICK)
    assert code == 2
    assert err == ("exactdp: error: could not write the output: [Errno 28] No space left on device; "
                   "send it to a file or device with room\n")


def test_help_to_a_full_device_is_not_exit_0(monkeypatch, capsys):
    # argparse swallows the failed write of --help itself; it was exit 0 with nothing written
    code, err = _run_into(monkeypatch, capsys, _Broken(OSError(errno.ENOSPC, "No space left on device")),
                          ["verify", "--help"])
    assert code == 2 and err.startswith("exactdp: error: could not write the output: ")


def test_closed_pipe_exits_2_without_a_word(monkeypatch, capsys):
    code, err = _run_into(monkeypatch, capsys, _Broken(BrokenPipeError(errno.EPIPE, "Broken pipe")), QUICK)
    assert (code, err) == (2, "")


def test_an_os_error_of_the_command_itself_is_one_line(monkeypatch, capsys):
    # not an output failure: named as it is, exit 2, no traceback
    import exactdp.cli.verify as verify

    def boom(args):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/nowhere/x")

    monkeypatch.setattr(verify, "run", boom)
    code = main(QUICK)
    assert (code, capsys.readouterr().err) == (
        2, "exactdp: error: '/nowhere/x': No such file or directory\n")


def test_ascii_only_stdout_gets_ascii(monkeypatch, capsys):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")  # strict errors, like PYTHONIOENCODING=ascii
    monkeypatch.setattr(sys, "stdout", stream)
    code = main(ALDA)
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert code == 0 and capsys.readouterr().err == ""
    assert "Rubinstein and Ald\\xe0 (2017)" in text
    assert text.rstrip().endswith("1 built-in privacy claims checked: 1 violated; 0 departed from what was expected")


def test_ascii_safe_spells_the_symbols():
    assert ascii_safe("ε ≤ 1… δ = 10⁻⁶, σ ≥ 2, ∞, Aldà") == \
        "epsilon <= 1... delta = 10\\u207b\\u2076, sigma >= 2, inf, Ald\\xe0"


def test_stdout_is_restored_after_main(capsys):
    before = sys.stdout, sys.stderr
    main(QUICK)
    assert (sys.stdout, sys.stderr) == before


def _cli(*argv, **kw):
    env = dict(os.environ, **kw.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "exactdp", *argv], capture_output=True, text=True,
                          env=env, **kw)


def test_real_ascii_encoding_end_to_end():
    done = _cli(*ALDA, env={"PYTHONIOENCODING": "ascii"})
    assert (done.returncode, done.stderr) == (0, "")
    assert "Rubinstein and Ald\\xe0 (2017)" in done.stdout and "Traceback" not in done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_real_full_device_end_to_end():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "exactdp", *QUICK], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == ("exactdp: error: could not write the output: [Errno 28] No space left on "
                           "device; send it to a file or device with room\n")


def test_plot_to_an_unwritable_path_is_refused_before_the_computation(capsys, tmp_path):
    target = "/proc/x.png" if os.path.isdir("/proc") else str(tmp_path / "missing" / "x.png")
    code = main(["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2", "--plot", target])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    if target == "/proc/x.png":
        assert err == ("exactdp: error: plot path='/proc/x.png' cannot be written (No such file or "
                       "directory); choose a file in a folder you can write to\n")
    else:
        assert "does not exist; create it first" in err


def test_plot_probe_leaves_no_file(tmp_path):
    pytest.importorskip("matplotlib")
    from exactdp.checkers.sensitivity import check_plot_target

    target = tmp_path / "x.png"
    assert check_plot_target(str(target)) == str(target)
    assert list(tmp_path.iterdir()) == []
    target.write_bytes(b"old")
    check_plot_target(str(target))
    assert target.read_bytes() == b"old"
