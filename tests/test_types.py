"""mypy over exactdp's public modules (issue 29, item 5): the modules that define the names of
``exactdp/__init__.pyi``, the accountant and its drop-in classes. The errors may only go down:
files with none must stay at none, and the count may not pass the last one measured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRA = ["exactdp/mechanisms/accounting/accountant.py", "exactdp/mechanisms/accounting/curve.py",
         "exactdp/mechanisms/accounting/events.py", "exactdp/accountants.py", "exactdp/glue.py"]
MOST_ERRORS = 31
"""Measured on 2026-11-29 (69 on the morning of 2026-11-28); lower it when errors are fixed."""
WITH_ERRORS = {
    "exactdp/checkers/float_witness.py", "exactdp/checkers/privacy.py",
    "exactdp/checkers/sensitivity.py", "exactdp/mechanisms/accounting/accountant.py",
    "exactdp/mechanisms/accounting/ledger.py", "exactdp/numeric/rounding.py",
    "exactdp/spaces/datasets.py", "exactdp/spaces/metrics.py",
}
"""The public modules mypy still reports errors in; every other one must stay clean."""


def public_modules() -> list[str]:
    stub = (ROOT / "exactdp" / "__init__.pyi").read_text()
    found = sorted({m.replace(".", "/") + ".py" for m in re.findall(r"^from (exactdp[\w.]*) import", stub, re.M)})
    return [m for m in found if (ROOT / m).exists()] + EXTRA


def test_mypy_errors_in_the_public_modules_only_go_down():
    mypy = pytest.importorskip("mypy.api", reason="mypy over exactdp's public modules")
    modules = public_modules()
    assert len(modules) >= 25
    out, err, _ = mypy.run(["--no-incremental", "--ignore-missing-imports", "--follow-imports=silent",
                            *(str(ROOT / m) for m in modules)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    files = {str(Path(line.split(":")[0]).resolve().relative_to(ROOT)) for line in errors}
    assert not files - WITH_ERRORS, "\n".join(line for line in errors if line.split(":")[0] not in WITH_ERRORS)
    assert len(errors) <= MOST_ERRORS, f"{len(errors)} mypy errors, more than {MOST_ERRORS}:\n" + "\n".join(errors)
