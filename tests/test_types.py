"""mypy over exactdp's public modules (issue 29, item 5): the modules that define the names of
``exactdp/__init__.pyi``, the accountant and its drop-in classes. They have no mypy error (69 on
the morning of 2026-11-28, 31 on 2026-11-29, 0 since), and must stay at none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRA = ["exactdp/mechanisms/accounting/accountant.py", "exactdp/mechanisms/accounting/curve.py",
         "exactdp/mechanisms/accounting/events.py", "exactdp/accountants.py", "exactdp/glue.py"]


def public_modules() -> list[str]:
    stub = (ROOT / "exactdp" / "__init__.pyi").read_text()
    found = sorted({m.replace(".", "/") + ".py" for m in re.findall(r"^from (exactdp[\w.]*) import", stub, re.M)})
    return [m for m in found if (ROOT / m).exists()] + EXTRA


def test_mypy_finds_no_error_in_the_public_modules():
    mypy = pytest.importorskip("mypy.api", reason="mypy over exactdp's public modules")
    modules = public_modules()
    assert len(modules) >= 25
    out, err, status = mypy.run(["--no-incremental", "--ignore-missing-imports", "--follow-imports=silent",
                                 *(str(ROOT / m) for m in modules)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert errors == [], f"{len(errors)} mypy errors in the public modules:\n" + "\n".join(errors)
    assert status == 0, out + err  # no error line, yet mypy failed (a crash, a bad option)
    assert f"in {len(set(modules))} source files" in out  # every module was checked
