"""The README's Python example runs and prints what the README says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
import importlib.util as _util

_spec = _util.spec_from_file_location("readme_guide", Path(__file__).with_name("readme_guide.py"))
guide = _util.module_from_spec(_spec)
_spec.loader.exec_module(guide)  # the README and the guide pages it links, as one text


def test_readme_python_example():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "violated 10 x=[], x'=[10]: f(x)=0, f(x')=10"
    assert lines[1] == "-sqrt(89)/6 + sqrt(273)/6"
    assert lines[2].startswith("percentile:90: sensitivity 7, attained by")


def _run_block(index: int) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", guide.text(), re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[index], f"README.md block {index}", "exec"), {})
    return out.getvalue().splitlines()


def test_readme_symbolic_example():
    lines = _run_block(1)
    assert lines[0] == "d_in*Max(Abs(L), Abs(U))"
    assert lines[1] == "6"
    assert lines[3].startswith("VIOLATED: claim U - L is below the exact sensitivity at L=-2, U=-1, d_in=1")


def test_readme_numeric_example():
    lines = _run_block(2)
    assert lines[:4] == ["violated 2", "True", "7.031826675582492", "False"]
    assert lines[4] == "{'epsilon': Fraction(0, 1), 'delta': Fraction(0, 1), 'rho': None}"


def test_readme_privacy_example():
    lines = _run_block(3)
    assert lines[0] == "holds-tight log(3) x=[], x'=[0]: f(x)=0, f(x')=1, output 0"
    assert lines[1] == "violated"
    assert lines[2] == "3/4 - E/4"


def test_readme_accounting_example():
    lines = _run_block(4)
    assert lines == ["('19.344671446480788', '19.344671461265535')", "violated"]


def test_readme_quick_start_is_two_commands_and_ci_runs_the_second():
    text = README.read_text(encoding="utf-8")
    quick = re.search(r"## Quick start.*?```sh\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert len(quick) == 2
    test_command = quick[1].split("#")[0].strip()
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci
