"""The pre-commit hook definition runs `exactdp check` as pre-commit would run it."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
yaml = pytest.importorskip("yaml", reason="PyYAML reads .pre-commit-hooks.yaml")


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["exactdp-check"]
    return hooks[0]


def test_the_hook_names_the_console_script_and_its_files():
    hook = _hook()
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    command = shlex.split(hook["entry"])[0]
    assert re.search(rf'^{command} = "exactdp\.cli:console"$', pyproject, re.M)
    files = re.compile(hook["files"])
    assert files.search("heights/__init__.py") and files.search("claims.toml")
    assert not files.search("README.md")


@pytest.mark.parametrize("claim, status", [("U", 0), ("U - L", 1)])
def test_the_hook_runs_exactdp_check_on_the_projects_claims(tmp_path, claim, status):
    sample = ROOT / "tests" / "sample_project"
    shutil.copytree(sample / "heights", tmp_path / "heights", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "claims.toml").write_text(
        '[[claim]]\nid = "total"\nfunction = "heights:clipped_total"\nuniverse = [140, 150, 175, 200]\n'
        f'sizes = "0..2"\nclaim = "{claim}"\n', encoding="utf-8")
    hook = _hook()
    argv = [sys.executable, "-m", "exactdp", *shlex.split(hook["entry"])[1:], *hook["args"]]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stdout + done.stderr
    if status:
        assert "VIOLATED" in done.stdout and "x'=[200]" in done.stdout
