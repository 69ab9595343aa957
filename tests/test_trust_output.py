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


# -- capped counts are "more than N", never shown as the count ---------------------------

def test_capped_sequence_count_is_more_than(capsys):
    # 43 sequences of length 0..2 over 6 values; counting stops at 7 (was "7 datasets")
    code = main(["sensitivity", "--query", "sum", "--universe", "0..5", "--sizes", "0..2",
                 "--neighbors", "hamming", "--max-datasets", "4"])
    assert code == 2
    assert capsys.readouterr().err == (
        "exactdp: error: more than 7 datasets in sequences of length 0..2 over {0..5}, over "
        "max_datasets=4; shrink the universe (6 values) or the lengths (0..2), or raise max_datasets\n")


def test_huge_sequence_count_is_more_than(capsys):
    # about 6^(10^6) sequences: was "12,093,235 datasets" (the lengths 0..9 only)
    code = main(["sensitivity", "--query", "sum", "--universe", "0..5", "--sizes", "0..1000000",
                 "--neighbors", "hamming"])
    assert code == 2
    assert capsys.readouterr().err.startswith(
        "exactdp: error: more than 12,093,235 datasets in sequences of length 0..1000000 over {0..5}, "
        "over max_datasets=3,000,000;")


def test_exact_count_over_the_budget_is_still_shown_exactly(capsys):
    code = main(["sensitivity", "--query", "sum", "--universe", "0..5", "--sizes", "2",
                 "--neighbors", "hamming", "--max-datasets", "4"])
    assert code == 2
    assert capsys.readouterr().err.startswith("exactdp: error: 36 datasets in sequences of length 2")


def test_units_capped_count():
    from exactdp import IntegerRange
    from exactdp._budget import MoreThan, show_count
    from exactdp.spaces.units import Units

    u = Units(IntegerRange(0, 1), ids=2, rows_per_id=(1, 2))  # 36 datasets
    assert len(u) == 36 and type(u.count_capped(36)) is int and u.count_capped(35) == 36
    low = u.count_capped(1)  # was 5, shown "5 datasets"
    assert isinstance(low, MoreThan) and low == 5 and show_count(low) == "more than 5"
    assert isinstance(u.contributions_count(1), MoreThan) and u.contributions_count(4) == 5


def test_capped_multiset_counts():
    from exactdp import IntegerRange
    from exactdp._budget import MoreThan, show_count
    from exactdp.spaces.datasets import Multisets, SubMultisets

    big = Multisets(IntegerRange(0, 10**4), sizes=(0, 2000)).count_capped(3_000_000)
    assert isinstance(big, MoreThan) and show_count(big) == "more than 10^2344"
    assert not isinstance(Multisets(IntegerRange(0, 10**4), sizes=(2, 2)).count_capped(4), MoreThan)
    # a small space with per-value caps is counted exactly even over the cap
    assert repr(SubMultisets(list(range(9)), sizes=(2, 2)).count_capped(4)) == "36"
    many = SubMultisets(list(range(1000)) * 3, sizes=(0, 250)).count_capped(4)
    assert isinstance(many, MoreThan) and many > 10**30


def test_refuse_above_refuses_a_bound_equal_to_the_budget():
    from exactdp._budget import MoreThan, refuse_above
    from exactdp.errors import TooLarge

    refuse_above(4, 4, what="datasets", option="max_datasets")  # exactly 4: fits
    with pytest.raises(TooLarge, match=r"^more than 4 datasets, over max_datasets=4; raise max_datasets$") as e:
        refuse_above(MoreThan(4), 4, what="datasets", option="max_datasets")
    assert isinstance(e.value.estimate, MoreThan)


def test_show_count_plain():
    from exactdp._budget import show_count

    assert (show_count(5), show_count(10**18)) == ("5", "about 10^18")


@pytest.mark.parametrize("bound, shown", [
    (7, "more than 7"), (12_093_235, "more than 12,093,235"), (10**18, "more than 10^18"),
    (2 * 10**18 - 1, "more than 10^18"), (2**5000, "more than 10^1505"), (10**5000, "more than 10^4000"),
], ids=["7", "12093235", "1e18", "2e18-1", "2^5000", "10^5000"])
def test_show_count_more_than(bound, shown):
    from exactdp._budget import MoreThan, show_count

    assert show_count(MoreThan(bound)) == shown


# -- messages worded for the Python API name the command-line option too -----------------

def test_local_on_sequences_names_both_the_api_and_the_options(capsys):
    code = main(["sensitivity", "--query", "sum", "--universe", "0..2", "--sizes", "0..2",
                 "--neighbors", "hamming", "--local", "1,2"])
    assert code == 2
    assert capsys.readouterr().err == (
        "exactdp: error: space=Sequences(IntegerRange(0, 2), sizes=(0, 2)) is a space of sequences "
        "(ordered data); this works on multisets only: build one with Multisets(universe, sizes=(A, B)) "
        "or SubMultisets(pool, size=N) (on the command line: --neighbors add-remove or substitute, with "
        "--universe and --sizes or --pool and --size)\n")


@pytest.mark.parametrize("argv, tail", [
    (["account", "--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "100000000000",
      "--delta", "1e-6"], "or raise max_k (on the command line: --max-k)\n"),
    (["account", "--mechanism", "gaussian", "--param", "sigma=1", "--k", "2"],
     "exactly one (on the command line: --delta, --epsilon)\n"),
    (["sensitivity", "--query", "mean", "--universe", "0..2", "--sizes", "0..2", "--neighbors", "hamming"],
     "or undefined=<exact number> to state a value (on the command line: --undefined)\n"),
    (["sensitivity", "--query", "sum", "--universe", "0..2000000", "--sizes", "0..2"],
     "or raise max_datasets (on the command line: --max-datasets)\n"),
], ids=["max_k", "delta-epsilon", "undefined", "max_datasets"])
def test_api_keywords_get_their_options(capsys, argv, tail):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error: ") and err.endswith(tail) and err.count("\n") == 1


def test_an_option_the_user_typed_is_not_repeated(capsys):
    assert main(["sensitivity", "--query", "sum", "--universe", "0..2000000", "--sizes", "0..2",
                 "--max-datasets", "5"]) == 2
    assert capsys.readouterr().err.endswith("over max_datasets=5; shrink the universe (2,000,001 values) "
                                            "or the sizes (0..2), or raise max_datasets\n")


def test_a_parameter_that_is_no_option_gets_nothing(capsys):
    # scale= is a --param KEY=VALUE, not an option: no suffix
    assert main(["privacy", "--mechanism", "laplace", "--param", "scale=-1", "--values", "0,1"]) == 2
    assert capsys.readouterr().err == "exactdp: error: scale='-1' is not positive; pass a number > 0\n"


# -- float_records refuses Python floats, as the README says every function does ---------

@pytest.mark.parametrize("bounds, message", [
    ((0.0, 1), "lower bound=0.0 is a float, which is not exact; pass the number you mean as a string "
               "('0.0'), an int or a Fraction, or use exactdp.from_float(0.0)"),
    ((0, 0.1), "upper bound=0.1 is a float, which is not exact; pass the number you mean as a string "
               "('0.1'), an int or a Fraction, or use exactdp.from_float(0.1)"),
    ((float("nan"), 1), "lower bound=nan is a float that is not finite;"),
], ids=["0.0", "0.1", "nan"])
def test_float_records_refuses_python_floats(bounds, message):
    pytest.importorskip("hypothesis")
    from exactdp.errors import InexactInput
    from exactdp.strategies import float_records

    with pytest.raises(InexactInput) as e:
        float_records("float64", bounds)
    assert str(e.value).startswith(message)


def test_float_records_takes_a_float_through_the_named_doors():
    pytest.importorskip("hypothesis")
    from fractions import Fraction

    from hypothesis import find, settings

    import exactdp
    from exactdp.strategies import float_records

    tenth = Fraction(3602879701896397, 36028797018963968)  # the float64 nearest 0.1
    quick = settings(database=None, derandomize=True, max_examples=50)
    lowest = find(float_records("float64", (exactdp.from_float(0.1), 1)), lambda v: True, settings=quick)
    assert lowest == tenth
    with exactdp.float_reading("binary"):
        strategy = float_records("float64", (0.1, 1.0))
    assert find(strategy, lambda v: True, settings=quick) == tenth
    # '0.1' is exactly one tenth; the first float64 at or above it is 0.1's float (above 1/10)
    assert find(float_records("float64", ("0.1", 1)), lambda v: True, settings=quick) == tenth > Fraction(1, 10)
