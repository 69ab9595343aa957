"""Claims files and the pytest plugin run only the code a user names, and never pass
silently (issue 16): planted modules, user code that exits, loops or prints its own usage,
files that are not regular files, a byte-order mark, ids that would forge output lines, and
the plugin's report and time limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from exactdp import cli
from exactdp.claimsfile import (
    DEFAULT_TIME_LIMIT,
    ClaimsFileError,
    TimeLimitExceeded,
    check_claims,
    load_claims,
    printable,
    read_time_limit,
    within_time_limit,
)
from exactdp.errors import InvalidArgument

ROOT = Path(__file__).resolve().parent.parent

BUILTIN = """\
[[claim]]
id = "b"
query = "sum"
universe = "0..3"
sizes = "0..2"
claim = "U"
"""
BUILTIN_OUT = [
    "ok   b: sum: HOLDS, tight: claim U = 3 is attained by x=[], x'=[3]: f(x)=0, f(x')=3",
    "     scope: all 15 multisets of size 0..2 over {0..3}; SymmetricDistance <= 1 (add/remove); "
    "both datasets in the space; 20 unordered pairs examined",
    "1 claim(s) checked, 1 as expected",
]

# every name exactdp imports, needs or tries (its dependencies, optional extras and the
# standard-library modules it imports lazily)
PLANTED = ("sympy", "mpmath", "numpy", "gmpy2", "flint", "tomllib", "tomli", "bisect", "struct",
           "random", "decimal", "fractions", "hypothesis", "unicodedata", "signal", "threading",
           "heapq", "statistics", "secrets", "hashlib", "difflib", "shlex", "contextvars",
           "cloudpickle", "distributed", "matplotlib", "opendp", "diffprivlib")


def _function_claim(module: str, *, extra: str = "") -> str:
    return (f'[[claim]]\nid = "c"\nfunction = "{module}:f"\nuniverse = [0, 3]\nsizes = "0..2"\n'
            f'claim = "U"\n{extra}')


def _unique(stem: str) -> str:
    """A module name no other test (in this process) has imported."""
    return f"{stem}_{uuid.uuid4().hex[:10]}"


def _plant(folder: Path, marker_dir: Path) -> None:
    for name in PLANTED:
        (folder / f"{name}.py").write_text(
            f"open({str(marker_dir / ('RAN-' + name + '-' + folder.name))!r}, 'w').write('x')\n"
            "raise ImportError('planted')\n")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    return subprocess.run([sys.executable, "-m", "exactdp", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


# -- 1. only named code runs ---------------------------------------------------------------

def test_planted_dependency_names_beside_the_file_and_in_the_cwd_never_run(tmp_path):
    # was: gmpy2.py beside a claims file naming only query = "sum" ran (exit 0, PWNED written)
    project, elsewhere, markers = tmp_path / "project", tmp_path / "elsewhere", tmp_path / "markers"
    for folder in (project, elsewhere, markers):
        folder.mkdir()
    _plant(project, markers)
    _plant(elsewhere, markers)
    helper = _unique("helper")
    (project / f"{helper}.py").write_text("def double(x):\n    return 2 * x\n")
    (project / "mymod.py").write_text(f"from {helper} import double\n\ndef f(xs):\n    return double(sum(xs))\n")
    # the built-in claim names no code; the second names its function beside the file
    (project / "claims.toml").write_text(
        BUILTIN + "\n" + _function_claim("mymod").replace('claim = "U"', 'claim = "2*U"'))
    for cwd in (project, elsewhere):  # from the claims file's folder, and from another planted one
        done = _run(["check", str(project / "claims.toml")], cwd)
        assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout.splitlines() == BUILTIN_OUT[:2] + [
            "ok   c: f: HOLDS, tight: claim 2*U = 6 is attained by x=[], x'=[3]: f(x)=0, f(x')=6",
            "     scope: all 6 multisets of size 0..2 over {0, 3}; SymmetricDistance <= 1 (add/remove); "
            "both datasets in the space; 6 unordered pairs examined",
            "2 claim(s) checked, 2 as expected"]
    assert sorted(p.name for p in markers.iterdir()) == []


def test_a_function_beside_the_file_is_found_and_the_working_directory_is_not(tmp_path, monkeypatch, capsys):
    project, cwd = tmp_path / "project", tmp_path / "cwd"
    project.mkdir(), cwd.mkdir()
    beside, only_in_cwd = _unique("beside"), _unique("cwdmod")
    (project / f"{beside}.py").write_text("def f(xs):\n    return sum(xs)\n")
    (cwd / f"{only_in_cwd}.py").write_text("def f(xs):\n    return sum(xs)\n")
    (project / "ok.toml").write_text(_function_claim(beside))
    (project / "cwd.toml").write_text(_function_claim(only_in_cwd))
    monkeypatch.chdir(cwd)
    path_before = list(sys.path)
    assert cli.main(["check", str(project / "ok.toml")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"ok   c: f: HOLDS, tight: claim U = 3 is attained by x=[], x'=[3]: f(x)=0, f(x')=3")
    assert sys.path == path_before  # the folder was on the path for the import only
    assert cli.main(["check", str(project / "cwd.toml")]) == 2
    err = capsys.readouterr().err
    assert err == (f"exactdp: error: {project / 'cwd.toml'}:3: claim #1 'c', field 'function': cannot import "
                   f"{only_in_cwd!r} (ModuleNotFoundError: No module named {only_in_cwd!r}); check the dotted "
                   f"path and that the package is installed or beside the claims file\n")


def test_an_installed_module_wins_over_a_file_of_the_same_name_beside_the_claims_file(tmp_path, capsys):
    markers = tmp_path / "markers"
    markers.mkdir()
    _plant(tmp_path, markers)
    user = _unique("usesfractions")
    (tmp_path / f"{user}.py").write_text("import fractions, sympy\n\ndef f(xs):\n"
                                         "    return fractions.Fraction(sum(xs)) + sympy.Integer(0)\n")
    (tmp_path / "c.toml").write_text(_function_claim(user))
    assert cli.main(["check", str(tmp_path / "c.toml")]) == 0
    assert list(markers.iterdir()) == []


# -- 2. no silent pass ------------------------------------------------------------------------

# (module text, words the one-line refusal holds after "field 'function': ")
STOPPING_MODULES = [
    ("import sys\nsys.exit(0)\n", "importing {m!r} called sys.exit(0) (SystemExit); a module named by a "
     "claims file must not run a program when it is imported (guard that part with if __name__ == '__main__':)"),
    ("raise KeyboardInterrupt\n", "importing {m!r} raised KeyboardInterrupt; a module named by"),
    ("import argparse\nargparse.ArgumentParser(prog='mytool').parse_args(['--bogus'])\n",
     "importing {m!r} called sys.exit(2) (SystemExit); it printed 'usage: mytool [-h]' (66 characters in "
     "all), kept apart from exactdp's output; a module named by"),
    ("import sys\ndef f(xs):\n    sys.exit(0)\n", "the function called sys.exit(0) (SystemExit); it must "
     "return a value on every dataset, not end the program"),
    ("def f(xs):\n    raise KeyboardInterrupt\n", "the function raised KeyboardInterrupt; it must return"),
    ("def f(xs):\n    raise GeneratorExit('bye')\n", "the function raised GeneratorExit: bye; it must return"),
    ("import argparse\ndef f(xs):\n    argparse.ArgumentParser(prog='tool2').parse_args(['-x'])\n",
     "the function called sys.exit(2) (SystemExit); it printed 'usage: tool2 [-h]' (59 characters in all), "
     "kept apart from exactdp's output; it must return"),
    ("def f(xs):\n    print('debug', xs)\n    raise ValueError('no')\n",
     "the function raised ValueError: no; it printed 'debug ()', kept apart from exactdp's output; make it "
     "defined on every dataset"),
]


@pytest.mark.parametrize("text, words", STOPPING_MODULES)
@pytest.mark.parametrize("as_json", [False, True])
def test_user_code_that_exits_is_a_refusal_naming_the_claim(tmp_path, capsys, text, words, as_json):
    # was: sys.exit(0) in a user module gave exit 0 and no output (with --json: an empty file)
    m = _unique("stopper")
    (tmp_path / f"{m}.py").write_text(text if "def f" in text else text + "def f(xs):\n    return 0\n")
    path = tmp_path / "c.toml"
    path.write_text(_function_claim(m))
    assert cli.main(["check", str(path), *(["--json"] if as_json else [])]) == 2
    out, err = capsys.readouterr()
    line = f"exactdp: error: {path}:3: claim #1 'c', field 'function': {words.format(m=m)}"
    assert err.startswith(line) and err.count("\n") == 1, err
    assert "usage: exactdp" not in err
    if as_json:  # never an empty report
        report = json.loads(out)
        assert report == {"file": str(path), "passed": False, "error": err[len("exactdp: error: "):-1],
                          "claims": []}
    else:
        assert out == ""


def test_json_report_keeps_the_claims_checked_before_a_refusal(tmp_path, capsys):
    m = _unique("exits")
    (tmp_path / f"{m}.py").write_text("import sys\ndef f(xs):\n    sys.exit(0)\n")
    path = tmp_path / "c.toml"
    path.write_text(BUILTIN + "\n" + _function_claim(m))
    assert cli.main(["check", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["passed"] is False and [c["id"] for c in report["claims"]] == ["b"]
    assert report["error"].startswith(f"{path}:10: claim #2 'c', field 'function': the function called sys.exit(0)")


def test_what_a_passing_function_prints_stays_off_stdout_and_is_noted(tmp_path, capsys):
    m = _unique("chatty")
    (tmp_path / f"{m}.py").write_text("print('loading')\ndef f(xs):\n    print('value of', list(xs))\n"
                                      "    return sum(xs)\n")
    path = tmp_path / "c.toml"
    path.write_text(_function_claim(m))
    assert cli.main(["check", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["passed"] is True  # stdout is exactdp's report, nothing else
    assert err.startswith("exactdp check: note: claim c: the function ran; it printed 'value of []' (")
    assert err.endswith("characters in all), kept apart from exactdp's output\n") and err.count("\n") == 1


# -- 3. time limit ----------------------------------------------------------------------------

LOOPS = [
    ("while True:\n    pass\ndef f(xs):\n    return 0\n", "importing {m!r} did not finish within the time "
     "limit of 0.3 s (time_limit; --time-limit on the command line); a module should only define"),
    ("def f(xs):\n    while True:\n        pass\n", "checking the claim did not finish within the time limit "
     "of 0.3 s (time_limit; --time-limit on the command line); make the space smaller or raise the limit"),
    # swallows the first alarm: the alarm repeats
    ("def f(xs):\n    try:\n        while True:\n            pass\n    except BaseException:\n"
     "        while True:\n            pass\n", "checking the claim did not finish within the time limit of 0.3 s"),
]


@pytest.mark.parametrize("text, words", LOOPS)
def test_a_user_function_that_loops_is_stopped_naming_the_claim_and_the_limit(tmp_path, capsys, text, words):
    m = _unique("loops")
    (tmp_path / f"{m}.py").write_text(text)
    path = tmp_path / "c.toml"
    path.write_text(_function_claim(m))
    assert cli.main(["check", str(path), "--time-limit", "0.3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exactdp: error: {path}:3: claim #1 'c', field 'function': {words.format(m=m)}"), err
    assert err.count("\n") == 1


def test_a_builtin_claim_over_its_time_limit_names_the_sizes(tmp_path, capsys):
    path = tmp_path / "c.toml"
    # 2.3 million datasets: 2.4 s warm here, so 0.01 s is far below it on any machine (0..40 with
    # sizes 0..4 once took 0.03 s warm, and CI finished it within 0.01 s)
    path.write_text(BUILTIN.replace('"0..3"', '"0..30"').replace('"0..2"', '"0..6"'))
    assert cli.main(["check", str(path), "--time-limit", "0.01"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exactdp: error: {path}:5: claim #1 'b', field 'sizes': checking the claim did not "
                          f"finish within the time limit of 0.01 s"), err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e999", "x", "", "2000000"])
def test_bad_time_limits_are_one_line_usage_errors(tmp_path, capsys, value):
    path = tmp_path / "c.toml"
    path.write_text(BUILTIN)
    with pytest.raises(SystemExit) as e:
        cli.main(["check", str(path), f"--time-limit={value}"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == (f"exactdp check: error: argument --time-limit: --time-limit={value!r} is not a time limit; "
                   f"give a positive number of seconds up to 1,000,000, such as 60; see 'exactdp check --help'\n")


def test_time_limit_default_is_stated_in_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--time-limit SECONDS stop a claim (importing its function and checking it) after SECONDS and " \
           "refuse it, exit 2 (default 60)" in out
    assert DEFAULT_TIME_LIMIT == 60.0


def test_read_time_limit_and_within_time_limit():
    assert read_time_limit("0.5") == 0.5 and read_time_limit(3) == 3.0
    for bad in (True, None, [1], "0", "-0.1"):
        with pytest.raises(InvalidArgument, match="is not a time limit"):
            read_time_limit(bad)
    with pytest.raises(TimeLimitExceeded, match=r"^spinning did not finish within the time limit of 0.05 s$") as e:
        with within_time_limit(0.05, "spinning"):
            while True:
                pass
    assert e.value.seconds == 0.05
    with within_time_limit(None):  # no limit: the block runs
        pass


def test_progress_line_names_the_claim_being_checked(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text(BUILTIN + BUILTIN.replace('"b"', '"second"'))
    specs = load_claims(path)
    checked = list(check_claims(specs, path=str(path), progress=True))
    assert [c.spec.id for c in checked] == ["b", "second"]
    err = capsys.readouterr().err
    assert "\rexactdp: check: claim 1 of 2: b, 0.0s" in err and "\rexactdp: check: claim 2 of 2: second, 0.0s" in err
    assert err.endswith("\r")  # the line is cleared before the verdict is printed
    list(check_claims(specs, path=str(path)))  # stderr not a terminal: no line
    assert capsys.readouterr().err == ""


# -- 4. regular files only; a byte-order mark -----------------------------------------------

def test_pipes_devices_and_folders_are_refused_before_reading(tmp_path, capsys, hang_guard):
    fifo = tmp_path / "claims.toml"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: 10 MB + 1 byte of zeros
        f.truncate(10_000_001)
    cases = [(fifo, "this is a named pipe, not a claims file; give the path of a TOML file"),
             (Path("/dev/zero"), "this is a device, not a claims file"),
             (tmp_path, "this is a folder, not a claims file"),
             (big, "the file is larger than 10,000,000 bytes")]
    with hang_guard(20):  # was: a named pipe hung exactdp check
        for path, words in cases:
            assert cli.main(["check", str(path)]) == 2
            err = capsys.readouterr().err
            assert err.startswith(f"exactdp: error: {path}: {words}") and err.count("\n") == 1, err


def test_a_byte_order_mark_is_accepted(tmp_path, capsys):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BUILTIN.encode())
    assert cli.main(["check", str(path)]) == 0  # was: "Invalid statement (at line 1, column 1)"
    assert capsys.readouterr().out.splitlines() == BUILTIN_OUT
    path.write_bytes(b"\xef\xbb\xbf" + BUILTIN.replace('claim = "U"', 'claim = "U"\nepsilon = 1').encode())
    assert cli.main(["check", str(path)]) == 2  # line numbers are still right
    assert capsys.readouterr().err.startswith(f"exactdp: error: {path}:7: claim #1 'b', field 'epsilon': unknown")


# -- 5. ids cannot forge output lines ---------------------------------------------------------

FORGED = "x\x1b[2K\rok   fake\nok   forged\u202e"


def test_control_characters_in_ids_are_escaped_in_text_and_kept_in_json(tmp_path, capsys):
    path = tmp_path / "c.toml"
    toml_id = json.dumps(FORGED)  # a TOML basic string takes JSON's escapes
    path.write_text(BUILTIN.replace('"b"', toml_id).replace('claim = "U"', 'claim = "1"'))
    assert cli.main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    shown = "x\\x1b[2K\\rok   fake\\nok   forged\\u202e"
    assert out.splitlines()[0].startswith(f"FAIL {shown}: sum: VIOLATED: claim 1 < sensitivity 3")
    assert out.splitlines()[2] == f"1 claim(s) checked, 0 as expected; not as expected: {shown}"
    assert len(out.splitlines()) == 3 and "\x1b" not in out and "\r" not in out
    assert cli.main(["check", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["claims"][0]["id"] == FORGED
    assert printable("plain id") == "plain id" and printable("a\tb\x00") == "a\\tb\\x00"


def test_control_characters_in_a_path_are_escaped_in_the_error(tmp_path, capsys):
    path = tmp_path / "a\nok b.toml"
    path.write_text("not toml = = \n")
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exactdp: error: {tmp_path}/a\\nok b.toml:1: not valid TOML") and err.count("\n") == 1


# -- the pytest plugin ----------------------------------------------------------------------

pytest_plugins = ["pytester"]
PLUGIN = ("-p", "exactdp._pytestplugin")

PLUGIN_TESTS = """
import pytest
from exactdp import IntegerRange, Multisets
from exactdp.queries import sum_

SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))

def test_int_id(exactdp_claim):
    exactdp_claim("U", sum_, SPACE, id=7)

def test_same_id_again(exactdp_claim):
    exactdp_claim("U", sum_, SPACE, id="7")

def test_no_id(exactdp_claim):
    exactdp_claim("U", sum_, SPACE)
    exactdp_claim("U", sum_, SPACE)
"""


@pytest.fixture
def plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def test_plugin_report_ids_are_unique_strings_and_its_folder_is_created(pytester, plugin_env):
    pytester.makepyfile(test_ids=PLUGIN_TESTS)
    report = pytester.path / "new" / "folder" / "report.json"  # was: a traceback after the tests passed
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-report", str(report))
    result.assert_outcomes(passed=3, warnings=1)
    result.stdout.fnmatch_lines(["*PytestWarning: exactdp: claim id '7' is already used by another claim in "
                                 "this session; the report names this one '7#2' (give each claim its own id=)"])
    ids = [c["id"] for c in json.loads(report.read_text())["claims"]]
    assert ids == ["7", "7#2", "test_ids.py::test_no_id", "test_ids.py::test_no_id#2"]


def test_plugin_report_that_cannot_be_written_is_one_line(pytester, plugin_env):
    pytester.makepyfile(test_ids=PLUGIN_TESTS)
    (pytester.path / "afile").write_text("x")
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-report", str(pytester.path / "afile" / "r.json"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines([f"*exactdp: cannot write --exactdp-report='{pytester.path / 'afile' / 'r.json'}': "
                                 "a part of its folder is a file; give a path in a folder you can write to"])
    folder = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-report", str(pytester.path))
    assert folder.ret == pytest.ExitCode.USAGE_ERROR  # refused before the tests run
    folder.stderr.fnmatch_lines([f"ERROR: --exactdp-report='{pytester.path}' is a folder; give the path of "
                                 "the JSON file to write*"])


def test_plugin_time_limit_fails_the_test_naming_the_claim(pytester, plugin_env):
    pytester.makepyfile(test_loop="""
        from exactdp import IntegerRange, Multisets

        def spin(xs):
            while True:
                pass

        def test_loop(exactdp_claim):
            exactdp_claim("U", spin, Multisets(IntegerRange(0, 3), sizes=(0, 2)), id="spinner")
        """)
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-time-limit", "0.3")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TimeLimitExceeded: exactdp: claim 'spinner' did not finish within the time "
                                 "limit of 0.3 s (--exactdp-time-limit or the exactdp_time_limit ini option "
                                 "raises it; or make the space smaller)"])
    pytester.makeini("[pytest]\nexactdp_time_limit = 0.2\n")
    result = pytester.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*did not finish within the time limit of 0.2 s*"])
    pytester.makeini("[pytest]\nexactdp_time_limit = soon\n")
    bad = pytester.runpytest_subprocess(*PLUGIN)
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: the ini option exactdp_time_limit='soon' is not a time limit; give a "
                              "positive number of seconds up to 1,000,000, such as 60"])
    bad = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-time-limit", "0")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--exactdp-time-limit='0' is not a time limit*"])
