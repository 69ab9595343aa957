"""A user's ``mypy --strict`` on the README's Python examples (and the guide pages it links)
reports no error that comes from exactdp (issue 29, item 5). Each example runs inside a
typed function, as a user's code would, so calls to untyped exactdp functions and
``Any`` leaking from them would be reported."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("readme_guide", Path(__file__).with_name("readme_guide.py"))
readme_guide = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_guide)  # the README and the guide pages it links


def _as_function(code: str) -> str:
    lines = code.splitlines()
    imports = [line for line in lines if re.match(r"(from|import) ", line)]
    body = [line for line in lines if line not in imports]
    return "\n".join(imports + ["", "", "def example() -> None:"]
                     + [("    " + line) if line.strip() else "" for line in body] + ["    pass", ""])


def test_readme_examples_pass_mypy_strict(tmp_path):
    mypy = pytest.importorskip("mypy.api", reason="mypy checks what a user's type checker sees")
    files = []
    for page in readme_guide.pages():
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)):
            path = tmp_path / f"{page.stem.replace('-', '_')}_{i}.py"
            path.write_text(_as_function(block), encoding="utf-8")
            files.append(str(path))
    assert len(files) >= 5
    old = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = str(readme_guide.ROOT)  # exactdp as a user's installed copy sees it
    try:
        out, err, _ = mypy.run(["--strict", "--no-incremental", "--follow-imports=silent",
                                "--cache-dir", str(tmp_path / "cache"), *files])
    finally:
        if old is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = old
    errors = [line for line in out.splitlines() if ": error:" in line]
    # a third-party library without stubs (diffprivlib, in the audit example) is not exactdp's
    others = [e for e in errors if "[import-untyped]" in e and '"exactdp' not in e]
    assert [e for e in errors if e not in others] == [], out
