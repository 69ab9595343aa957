"""The lazy packages' names: the ``__init__.pyi`` stub is the one table (type checkers read it
for the types, exactdp._lazy for where each name lives), and every name it lists loads."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from exactdp._lazy import stub_exports

PACKAGES = ("exactdp", "exactdp.checkers", "exactdp.mechanisms", "exactdp.numeric")

SHADOWED = {"exactdp.checkers": ("sensitivity",), "exactdp.numeric": ("decide",)}
"""Names that a submodule of the same name replaces once it is imported (Python sets the
package attribute to the submodule): ``from exactdp.checkers import sensitivity`` may give the
module ``exactdp.checkers.sensitivity``. Import them from ``exactdp`` or their module."""


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_of_the_stub_loads_from_the_module_it_names(package):
    module = importlib.import_module(package)
    table = stub_exports(__import__("pathlib").Path(module.__file__).with_suffix(".pyi"))
    public = [name for name in table if not name.startswith("_")]
    assert module.__all__ == public and len(public) > 20
    for name in public:
        if name in SHADOWED.get(package, ()):
            continue
        value = getattr(module, name)
        assert value is getattr(importlib.import_module(table[name]), name), name
    assert set(public) <= set(dir(module))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        getattr(module, "no_such_name")


def test_a_type_checker_sees_the_real_types():
    mypy = pytest.importorskip("mypy.api", reason="mypy checks what a user's type checker sees")
    code = ("from exactdp import Multisets, sensitivity\n"
            "from exactdp.mechanisms import account\n"
            "reveal_type(sensitivity)\nreveal_type(Multisets)\nreveal_type(account)\n")
    out, err, status = mypy.run(["--no-incremental", "--follow-imports=silent", "-c", code])
    assert "exactdp.checkers.results.SensitivityResult" in out, out + err
    assert "exactdp.spaces.datasets.Multisets" in out and "AccountResult" in out, out + err


def test_importing_exactdp_stays_light():
    code = "import sys, exactdp\nprint(sorted(m for m in ('sympy', 'mpmath', 'numpy') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
