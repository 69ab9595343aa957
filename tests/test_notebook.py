"""The MyST notebook in docs/ runs cell by cell, as Jupyter would run it."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "explore-catalogue.md"
CELL = re.compile(r"^```\{code-cell\} ipython3\n(.*?)^```$", re.S | re.M)


def test_notebook_cells_run_in_order(capsys):
    cells = CELL.findall(DOC.read_text(encoding="utf-8"))
    assert len(cells) >= 8
    namespace: dict = {}
    for i, source in enumerate(cells):
        try:
            exec(compile(source, f"{DOC.name}, cell {i + 1}", "exec"), namespace)
        except Exception as e:  # pragma: no cover - the message says which cell failed
            pytest.fail(f"cell {i + 1} of {DOC.name} raised {e!r}:\n{source}")
    out = capsys.readouterr().out
    assert "VIOLATED" in out and "s002/table/sum/LU" in out
    assert "SpaceMismatch" not in out and "sum" in out
    # the table cell printed one line per cell of seed 002's table (12 cells, plus variants)
    assert sum(line.startswith("s002/table/") for line in out.splitlines()) >= 12
