"""The built wheel holds what an installed exactdp needs (the stubs the lazy loader reads,
the JSON schemas, the data, py.typed, the licence) and works from where pip puts it."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source")  # built from a copy: pip builds in the tree it is given
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "exactdp", source / "exactdp", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No module named" in done.stderr:  # pragma: no cover - setuptools missing
        pytest.skip(f"cannot build here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    (found,) = glob.glob(str(out / "exactdp-*.whl"))
    return Path(found)


def test_the_wheel_holds_the_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("exactdp/__init__.pyi", "exactdp/checkers/__init__.pyi", "exactdp/mechanisms/__init__.pyi",
                   "exactdp/numeric/__init__.pyi", "exactdp/py.typed", "exactdp/schemas/check-v1.json",
                   "exactdp/schemas/verify-v1.json", "exactdp/data/seed003_tables.json",
                   "exactdp/mechanisms/specs.py"):
        assert needed in names, needed
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any("/tests/" in n or n.startswith("tests/") for n in names)


def test_the_installed_wheel_answers(wheel, tmp_path):
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    code = ("import exactdp, sys\n"
            "assert exactdp.__file__.startswith(sys.argv[1]), exactdp.__file__\n"
            "from exactdp import IntegerRange, Multisets, sensitivity\n"
            "print(sensitivity('sum', Multisets(IntegerRange(0, 4), sizes=(0, 2))).value)\n"
            "print(exactdp.mechanisms.specs.names('account')[0])\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)  # before the editable checkout: the wheel's copy is imported
    run = subprocess.run([sys.executable, "-c", "import exactdp.mechanisms.specs\n" + code, str(target)],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["4", "discrete-laplace"]
