"""Issue 16's "Bad input": a Hypothesis property over claims files (random TOML with valid
and invalid fields; user modules that raise, exit, loop, print, or return NaN, floats or
huge values). Exit 0 only when every claim was checked and held; a refusal is exactly one
line on stderr; never a traceback; with --json always one JSON object; no file written."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from exactdp import cli

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "h1prop_"  # the user modules' names, unique to this file

# name -> (source, whether a claim naming it can pass: it returns exact numbers on every dataset)
MODULES = {
    "good": ("def f(xs):\n    return sum(xs)\n", True),
    "chatty": ("print('loading chatty')\ndef f(xs):\n    print('called', len(xs))\n    return sum(xs)\n", True),
    "huge": ("def f(xs):\n    return sum(xs) * 10**400\n", True),
    "raises": ("def f(xs):\n    raise ValueError('broken')\n", False),
    "exits": ("import sys\ndef f(xs):\n    sys.exit(0)\n", False),
    "kbd": ("def f(xs):\n    raise KeyboardInterrupt\n", False),
    "loops": ("def f(xs):\n    while True:\n        pass\n", False),
    "floaty": ("def f(xs):\n    return float(sum(xs))\n", False),
    "nan": ("def f(xs):\n    return float('nan')\n", False),
    "decnan": ("from decimal import Decimal\ndef f(xs):\n    return Decimal('NaN')\n", False),
    "exit_import": ("import sys\nsys.exit(0)\ndef f(xs):\n    return 0\n", False),
    "loop_import": ("while True:\n    pass\ndef f(xs):\n    return 0\n", False),
    "argp": ("import argparse\nargparse.ArgumentParser(prog='tool').parse_args(['--x'])\n"
             "def f(xs):\n    return 0\n", False),
}

# each field: (valid values, invalid values); a claim is valid when every field drawn is
VALID, INVALID = True, False
SOURCES = ([("query", "sum"), ("query", "count")] + [("function", f"{PREFIX}{m}:f") for m in MODULES],
           [("query", "nope"), ("query", 3), ("function", f"{PREFIX}missing:f"),
            ("function", f"{PREFIX}good:nope"), ("function", "not a path")])
FIELDS = {
    "universe": (["0..3", [0, 2], ["1/2", 1]], ["x", [0.5], 5]),
    "sizes": (["0..2", "1..2"], ["a", -1, 0.5]),
    "claim": (["U", "2*U", "U - L", 1, "1/2", "1e999"], [0.5, "U +", "nan", "inf", True, "U/0"]),
}
OPTIONAL = {
    "neighbors": (["substitute", "add-remove"], ["swap"]),
    "expect": (["holds", "violated"], ["maybe"]),
    "epsilon": ([], [1]),
}


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string takes JSON's escapes
    return "[" + ", ".join(_toml(v) for v in value) + "]"


@st.composite
def pick(draw, pools, clean: bool):
    valid, invalid = pools
    if not clean and invalid and (not valid or draw(st.integers(0, 5)) == 0):
        return draw(st.sampled_from(invalid)), INVALID
    return draw(st.sampled_from(valid)), VALID


@st.composite
def claims_files(draw):
    """(TOML text, number of claims, every field valid, every function can pass). Half of
    the files are clean (valid fields, functions that return exact numbers)."""
    clean = draw(st.booleans())
    n = draw(st.integers(1, 3))
    parts, all_valid, can_pass = [], True, True
    for i in range(n):
        cid = f"c{i}" + draw(st.sampled_from(["", "\x1b[2K\rok   forged", "\nFAIL x"]))
        fields = {"id": cid}
        sources = SOURCES
        if clean:
            sources = ([s for s in SOURCES[0] if s[0] == "query" or MODULES[s[1][len(PREFIX):-2]][1]], [])
        (key, source), ok = draw(pick(sources, clean))
        fields[key] = source
        all_valid &= ok
        if key == "function" and ok:
            can_pass &= MODULES[source[len(PREFIX):-2]][1]
        for name, pools in FIELDS.items():
            fields[name], ok = draw(pick(pools, clean))
            all_valid &= ok
        for name, pools in OPTIONAL.items():
            if draw(st.booleans()) and (pools[0] or not clean):
                fields[name], ok = draw(pick(pools, clean))
                all_valid &= ok
        parts.append("[[claim]]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in fields.items()))
    text = "\n".join(parts)
    if not clean and draw(st.integers(0, 9)) == 0:
        text, all_valid = text + "\nnot = = toml\n", False
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text, n, all_valid, can_pass


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("claims_property")
    for name, (source, _) in MODULES.items():
        (folder / f"{PREFIX}{name}.py").write_text(source)
    return folder


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=claims_files(), as_json=st.booleans())
def test_claims_files_never_pass_silently(project, monkeypatch, case, as_json):
    text, n, all_valid, can_pass = case
    path = project / "claims.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.chdir(project)
    before = _listing(project)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["check", str(path), "--time-limit", "0.25", *(["--json"] if as_json else [])])
    out, err = out.getvalue(), err.getvalue()
    assert _listing(project) == before  # nothing written (no __pycache__, no report)
    assert "Traceback" not in out + err
    errors = [ln for ln in err.splitlines() if not ln.startswith("exactdp check: note: ")]
    assert code in (0, 1, 2)
    event(f"exit {code}")
    if code == 2:  # a refusal: exactly one line
        assert len(errors) == 1 and errors[0].startswith("exactdp: error: "), err
    else:
        assert errors == [], err
    if not all_valid or not can_pass:
        assert code == 2, (text, out, err)
    else:  # every claim is valid, small (well under the time limit) and its function exact
        assert code in (0, 1), (text, out, err)
    if as_json:  # always one JSON object, passed only with exit 0
        report = json.loads(out)
        assert report["passed"] is (code == 0)
        assert ("error" in report) is (code == 2)
        if code == 0:
            assert len(report["claims"]) == n and all(c["passed"] for c in report["claims"])
    else:
        lines = out.splitlines()
        assert all(not ln.startswith(("ok", "FAIL")) or ln.count("\x1b") == 0 for ln in lines)
        if code == 0:
            assert lines[-1] == f"{n} claim(s) checked, {n} as expected"
            assert len(lines) == 2 * n + 1  # no forged line: two per claim and the summary


def test_a_module_printing_its_own_usage_in_a_real_process(project, tmp_path):
    """One subprocess: the real sys.argv, stdout and stderr of `python -m exactdp`."""
    path = tmp_path / "claims.toml"
    path.write_text(f'[[claim]]\nid = "c"\nfunction = "{PREFIX}argp:f"\nuniverse = "0..3"\nsizes = "0..2"\n'
                    'claim = "U"\n')
    (tmp_path / f"{PREFIX}argp.py").write_text(MODULES["argp"][0])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "exactdp", "check", str(path), "--json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    line = (f"exactdp: error: {path}:3: claim #1 'c', field 'function': importing '{PREFIX}argp' called "
            f"sys.exit(2) (SystemExit); it printed 'usage: tool [-h]' (58 characters in all), kept apart from "
            f"exactdp's output; a module named by a claims file must not run a program when it is imported "
            f"(guard that part with if __name__ == '__main__':)")
    assert done.stderr == line + "\n"
    assert json.loads(done.stdout) == {"file": str(path), "passed": False,
                                       "error": line[len("exactdp: error: "):], "claims": []}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.toml", f"{PREFIX}argp.py"]
