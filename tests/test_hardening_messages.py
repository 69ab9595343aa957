"""Regression tests of user-facing messages: a bad input is refused in one line on stderr
(``exactdp: error: ...``), exit 2, naming the value as typed, what was expected and what to
do, with no Python internals (function names, reprs such as ``Fraction(0, 1)``)."""

from __future__ import annotations

import pytest

from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.mechanism import make_mechanism

INTERNALS = ("Fraction(", "__init__", "()", "Traceback", "keyword argument", "usage:")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv) -> str:
    """The one error line of ``exactdp *argv``, checked to be one line, exit 2, no internals."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("exactdp: error: "), err
    for word in INTERNALS:
        assert word not in lines[0], lines[0]
    return lines[0]


# -- 1. mechanism parameters: a missing or unknown name --------------------------------

@pytest.mark.parametrize("argv, fragment", [
    # was: "_report_noisy_max() missing 1 required keyword-only argument: 'noise'"
    (("--mechanism", "report-noisy-max", "--param", "epsilon=1", "--values", "0,0;1,-1"),
     "report-noisy-max needs the parameter noise: noise=gumbel|exponential"),
    # was: "DiscreteLaplace.__init__() got an unexpected keyword argument 'bogus'"
    (("--mechanism", "discrete-laplace", "--param", "bogus=1", "--values", "0,1"),
     "discrete-laplace has no parameter bogus; its parameters are scale, variant, lower, upper"),
    (("--mechanism", "gaussian", "--param", "sigma2=1", "--values", "0,1"),
     "gaussian has no parameter sigma2 (did you mean sigma?); its parameters are sigma"),
    (("--mechanism", "laplace", "--values", "0,1"), "laplace needs the parameter scale: scale=B"),
    (("--mechanism", "exponential", "--param", "epsilon=1", "--param", "x=1", "--param", "y=2",
      "--values", "0,0;1,-1"), "exponential has no parameters x, y; its parameters are epsilon"),
])
def test_privacy_mechanism_parameters(capsys, argv, fragment):
    assert fragment in refused(capsys, "privacy", *argv)


@pytest.mark.parametrize("name, params, fragment", [
    ("report-noisy-max", {"epsilon": 1}, "report-noisy-max needs the parameter noise"),
    ("discrete-laplace", {"scale": 1, "bogus": 1}, "discrete-laplace has no parameter bogus"),
    ("randomized-response", {"q": 1}, "randomized-response has no parameter q; its parameters are p, epsilon, k_values"),
    ("float-laplace", {}, "float-laplace needs the parameter scale"),
])
def test_make_mechanism_parameters(name, params, fragment):
    with pytest.raises(InvalidArgument) as info:
        make_mechanism(name, **params)
    assert fragment in str(info.value)
    assert "__init__" not in str(info.value) and "keyword" not in str(info.value)


@pytest.mark.parametrize("argv, fragment", [
    (("--mechanism", "discrete-laplace", "--param", "bogus=1"), "bogus; its parameters"),
    (("--mechanism", "discrete-laplace"), "discrete-laplace needs the parameter scale; its parameters are scale, sensitivity"),
])
def test_account_mechanism_parameters(capsys, argv, fragment):
    assert fragment in refused(capsys, "account", *argv, "--k", "2", "--delta", "1e-6")


# -- 2. --values: quoted as typed, two numbers or two vectors of one length --------------

RR = ("--mechanism", "randomized-response", "--param", "p=3/4")
EM = ("--mechanism", "exponential", "--param", "epsilon=1")


@pytest.mark.parametrize("mechanism, values, fragment", [
    # was: "value=(Fraction(0, 1), Fraction(1, 1)) (type tuple) is not an exact number"
    (RR, "0,1;2", "randomized-response takes one number per query value; --values '0,1;2' "
                  "gives vectors: write --values 0,1"),
    (RR, "0;1", "--values '0;1' gives vectors: write --values 0,1"),
    # was: "--values='' has an empty entry"
    (RR, ";", "--values ';' has an empty vector; give two numbers A,B, e.g. --values 0,1"),
    (RR, "", "--values '' is empty"),
    (RR, "0", "--values 0 gives one number; give exactly two, A,B"),
    (RR, "0,1,2", "--values 0,1,2 gives 3 numbers; give exactly two"),
    (RR, "0;1;2", "--values '0;1;2' gives vectors"),
    (RR, "a,b", "--values a,b: value='a' is not an exact number"),
    (RR, "0,,1", "--values 0,,1 has an empty entry"),
    (RR, "1/0,1", "--values 1/0,1: value='1/0' divides by zero"),
    # was: "--values='0..3' needs exactly two values A,B"
    (RR, "0..3", "--values 0..3 is a range; --values takes two numbers A,B"),
    # was: "the utilities (Fraction(0, 1), Fraction(1, 1)) and (Fraction(2, 1),) have ..."
    (EM, "0,1;2", "--values '0,1;2' gives vectors of different lengths (2 and 1)"),
    (EM, "0,1", "exponential takes a vector (the utilities of its candidates) per query value; "
                "--values 0,1 gives numbers"),
    (EM, "0;1;2", "--values '0;1;2' gives 3 vectors; give exactly two"),
    (EM, "0,1;", "--values '0,1;' has an empty vector"),
    (("--mechanism", "permute-and-flip", "--param", "epsilon=1"), "0,1;2", "different lengths"),
])
def test_privacy_values(capsys, mechanism, values, fragment):
    assert fragment in refused(capsys, "privacy", *mechanism, "--values", values)


@pytest.mark.parametrize("name, params, values, fragment", [
    ("randomized-response", {"p": "3/4"}, ((0, 1), (2,)),
     "randomized-response takes one number per query value; the value (0, 1) is a vector of 2"),
    # gaussian takes numbers or vectors (issue 28), never one of each
    ("gaussian", {"sigma": 1}, ([0, 1], 2),
     "the query values (0, 1) and 2 are a vector and a number; gaussian takes two numbers or two vectors"),
    ("laplace", {"scale": 1}, ((0, 1), (2,)),
     "the query values (0, 1) and (2,) have different lengths (2 and 1); laplace needs one entry per coordinate"),
    ("discrete-laplace", {"scale": 1}, ((0,), 1), "discrete-laplace takes one number per query value"),
    ("exponential", {"epsilon": 1}, (("1/2", 1), (2,)),
     "the query values (1/2, 1) and (2,) have different lengths (2 and 1); exponential needs"),
    # permute-and-flip and the float sampler read the missing candidate as an infinite loss
    ("permute-and-flip", {"epsilon": 1}, ((0, 1), (2,)),
     "the query values (0, 1) and (2,) have different lengths (2 and 1); permute-and-flip"),
    ("exponential-float-sampler", {"epsilon": 1}, ((0, 1), (2,)),
     "(2 and 1); exponential-float-sampler needs one entry per candidate in both"),
])
def test_check_mechanism_values(name, params, values, fragment):
    from exactdp.checkers.privacy import check_mechanism

    with pytest.raises(InvalidArgument) as info:
        check_mechanism(make_mechanism(name, **params), values=values)
    assert fragment in str(info.value)
    assert "Fraction(" not in str(info.value)


# -- 3. budget options: a bad value in one line, not argparse's usage block -------------

GAUSS = ("privacy", "--mechanism", "gaussian", "--param", "sigma=1", "--values", "0,1")
SPACE = ("sensitivity", "--query", "count", "--universe", "0..3", "--sizes", "0..2")


@pytest.mark.parametrize("argv, fragment", [
    # was: argparse's usage block and "argument --max-pairs: '0' must be at least 1"
    ((*GAUSS, "--max-pairs", "0"), "--max-pairs=0 is not a positive whole number; pass e.g. --max-pairs 50000000"),
    ((*GAUSS, "--max-pairs", "-1"), "--max-pairs=-1 is not a positive whole number"),
    ((*GAUSS, "--max-pairs", "abc"), "--max-pairs=abc is not a whole number; pass e.g. --max-pairs 50000000"),
    ((*GAUSS, "--max-pairs", "1.5"), "--max-pairs=1.5 is not a whole number"),
    ((*GAUSS, "--max-datasets=0"), "--max-datasets=0 is not a positive whole number; pass e.g. --max-datasets 3000000"),
    # was: accepted (type=int), then every pair refused
    ((*GAUSS, "--max-value-pairs", "0"), "--max-value-pairs=0 is not a positive whole number"),
    ((*SPACE, "--max-pairs", "-5"), "--max-pairs=-5 is not a positive whole number"),
    ((*SPACE, "--max-datasets", "x"), "--max-datasets=x is not a whole number"),
    (("check", "claims.toml", "--max-pairs", "0"), "--max-pairs=0 is not a positive whole number"),
])
def test_budget_options_one_line(capsys, argv, fragment):
    assert fragment in refused(capsys, *argv)


def test_budget_options_read_whole_numbers(capsys):
    code, out, err = run(capsys, *GAUSS, "--max-pairs", "5e7", "--max-value-pairs", "1_000")
    assert code == 0, err


def test_budget_argument_for_other_parsers():
    import argparse

    from exactdp._budget import budget_argument

    assert budget_argument("12") == 12
    assert budget_argument("5e7") == 50_000_000  # read as the exactdp options read it
    with pytest.raises(argparse.ArgumentTypeError, match="'0' is not a positive whole number; pass e.g. 1000000"):
        budget_argument("0")


# -- 4. --floats binary: a number stored as 0.0 is said; one stored as inf is refused ----

RR_CLAIM = ("privacy", *RR, "--values", "0,1")
DL = ("account", "--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "10")


@pytest.mark.parametrize("argv, fragment", [
    # was: delta silently 0 (the report showed "at delta=0" and nothing else)
    ((*DL, "--delta", "1e-400"), "--delta=1e-400 is stored as 0.0 (below the smallest float64"),
    ((*DL, "--delta", "0x1p-1080"), "--delta=0x1p-1080 is stored as 0.0"),
    ((*RR_CLAIM, "--epsilon", "1e-400"), "--epsilon=1e-400 is stored as 0.0"),
    ((*RR_CLAIM, "--epsilon", "log(3)-1e-400"), "1e-400 in --epsilon='log(3)-1e-400' is stored as 0.0"),
    (("privacy", "--mechanism", "laplace", "--param", "scale=1", "--values", "0,1e-400"),
     "1e-400 in --values=0,1e-400 is stored as 0.0"),
    (("compose", "--spend", "1e-400x3", "--budget", "1"), "1e-400 in --spend=1e-400x3 is stored as 0.0"),
])
def test_floats_binary_underflow_is_reported(capsys, argv, fragment):
    code, out, err = run(capsys, *argv, "--floats", "binary")
    assert code in (0, 1), err
    assert fragment in out.splitlines()[0]


def test_floats_binary_underflow_in_json(capsys):
    import json

    code, out, err = run(capsys, *DL, "--delta", "1e-400", "--floats", "binary", "--json")
    assert code == 0, err
    assert json.loads(out)["floats_stored_as_zero"] == ["--delta=1e-400"]


@pytest.mark.parametrize("argv", [(*DL, "--delta", "1e-320"), (*DL, "--delta", "1e-6", "--floats", "decimal")])
def test_no_underflow_note_for_subnormals_or_decimal(capsys, argv):
    code, out, err = run(capsys, *argv, *(("--floats", "binary") if "--floats" not in argv else ()))
    assert "stored as 0.0" not in out


@pytest.mark.parametrize("argv, fragment", [
    # was: "epsilon='1e-400' is not positive; pass a number > 0", the user typed a positive number
    (("calibrate", "laplace", "--epsilon", "1e-400"),
     "epsilon='1e-400' is not positive; pass a number > 0 (--floats binary: --epsilon=1e-400 is stored as 0.0"),
    (("privacy", "--mechanism", "laplace", "--param", "scale=1e-400", "--values", "0,1"),
     "(--floats binary: --param scale=1e-400 is stored as 0.0"),
    # was: "claim literal='1e400' is beyond the largest float64 ... (floats='binary') ..."
    ((*RR_CLAIM, "--epsilon", "1e400"),
     "--epsilon=1e400 is beyond the largest float64 (1.7976931348623157e+308): --floats binary "
     "would read it as inf; write a smaller number"),
    (("account", "--mechanism", "discrete-laplace", "--param", "scale=1e400", "--k", "2", "--delta", "1e-6"),
     "--param scale=1e400 is beyond the largest float64"),
    (("compose", "--spend", "1e400", "--budget", "1"), "--spend=1e400 is beyond the largest float64"),
])
def test_floats_binary_refusals_name_the_option(capsys, argv, fragment):
    assert fragment in refused(capsys, *argv, "--floats", "binary")


# -- usage errors: one line for every command (argparse printed its usage block) -----------

@pytest.mark.parametrize("argv, fragment", [
    (("search", "--query", "sum", "--universe", "0..3", "--sizes", "0..2", "--budget", "abc"),
     "exactdp search: error: argument --budget: invalid int value: 'abc'; see 'exactdp search --help'"),
    (("floatsum", "--budget", "5"),
     "exactdp floatsum: error: the following arguments are required: --model"),
    (("bogus",), "exactdp: error: argument command: invalid choice: 'bogus'"),
    ((), "exactdp: error: the following arguments are required: command; see 'exactdp --help'"),
])
def test_usage_errors_are_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "usage:" not in err, err


@pytest.mark.parametrize("param", [["--param", "epsilon=-1"], ["--param=epsilon=-1"]])
def test_a_parameter_given_with_param_is_not_pointed_at_the_option_of_its_name(capsys, param):
    # was: "... pass a number > 0 (on the command line: --epsilon)": --epsilon is the claimed
    # epsilon, the user's value came from --param epsilon=
    line = refused(capsys, "privacy", "--mechanism", "exponential", *param, "--query", "count",
                   "--universe", "0..1", "--sizes", "0..2")
    assert line == "exactdp: error: epsilon='-1' is not positive; pass a number > 0"


def test_a_bad_max_slots_is_one_line(capsys):
    # --max-slots is read by the accountant's own reader since issue 30 (it refuses 0 and
    # negatives too): one line, exit 2, no usage block
    line = refused(capsys, "account", "--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "2",
                   "--delta", "1e-6", "--max-slots", "x")
    assert line == "exactdp: error: --max-slots=x is not a whole number; pass e.g. --max-slots 100000"
