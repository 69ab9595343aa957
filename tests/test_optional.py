"""The one door to optional libraries (exactdp._optional.require)."""

from __future__ import annotations

import pytest

from exactdp._optional import require
from exactdp.errors import MissingDependency


def test_require_returns_the_first_module():
    import json

    assert require("json", "json.decoder", library="json") is json


def test_a_missing_library_names_the_extra_and_what_failed():
    with pytest.raises(MissingDependency) as e:
        require("exactdp_no_such_library", library="no-such", extra="opendp", note="needed for X")
    assert str(e.value) == ("no-such is not installed (ModuleNotFoundError: No module named "
                            "'exactdp_no_such_library'; needed for X): install it with pip install 'exactdp[opendp]'")
    assert isinstance(e.value, ImportError) and (e.value.library, e.value.extra) == ("no-such", "opendp")


def test_without_an_extra_the_library_s_own_install_line():
    with pytest.raises(MissingDependency, match=r"install it with pip install python-flint-x$"):
        require("json", "exactdp_no_such_library", library="python-flint-x")


def test_every_adapter_goes_through_the_door():
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "exactdp"
    raising = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "MissingDependency"
                    and path.name not in ("_optional.py", "errors.py")):
                raising.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert raising == [], f"MissingDependency raised outside exactdp._optional.require: {raising}"
