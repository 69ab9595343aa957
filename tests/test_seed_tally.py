"""docs/seed-tally.md, the statement-by-statement tally of the five seeds (issue 20): every
claim id it names is a claim of the registry, every notebook link points at a heading of
a notebook in docs/, and the totals line counts the rows."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
TALLY = DOCS / "seed-tally.md"
STATUSES = ("reproduced", "corrected", "partial", "missing")
ROW = re.compile(r"^\| (\d+) \| (00[0-4]) \| ([^|]+) \| ([^|]+) \| (\w+) \| ([^|]+) \|$", re.M)
TOTALS = re.compile(r"^Totals: (\d+) statements: (\d+) reproduced, (\d+) corrected, (\d+) partial, "
                    r"(\d+) missing\.$", re.M)


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


@pytest.fixture(scope="module")
def rows():
    text = TALLY.read_text(encoding="utf-8")
    found = ROW.findall(text)
    assert len(found) == text.count("\n| ") - 2  # every table line but the header and separator
    return found


def test_rows_are_numbered_and_every_status_is_known(rows):
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    assert {r[4] for r in rows} <= set(STATUSES)
    assert {r[1] for r in rows} == {"000", "001", "002", "003", "004"}


def test_totals_line_matches_the_rows(rows):
    m = TOTALS.search(TALLY.read_text(encoding="utf-8"))
    assert m is not None, "the tally needs its 'Totals: ...' line"
    counts = Counter(r[4] for r in rows)
    assert int(m.group(1)) == len(rows)
    assert [int(g) for g in m.groups()[1:]] == [counts[s] for s in STATUSES]
    # issue 20's target: at least 140 reproduced or corrected, none missing
    assert counts["reproduced"] + counts["corrected"] >= 140 and counts["missing"] == 0


def test_every_named_claim_exists(rows):
    from exactdp import registry

    ids = {c.id for c in registry.claims(("sensitivity", "privacy", "formula"), all_k=True)}
    named = [i for r in rows for i in re.findall(r"`([^`]+)`", r[5])]
    assert named and not [i for i in named if i not in ids]
    # every row names a claim or a notebook section
    assert all("`" in r[5] or "](" in r[5] for r in rows)


def test_every_notebook_link_points_at_a_heading(rows):
    links = [link for r in rows for link in re.findall(r"\]\(([\w.-]+\.md)#([\w-]+)\)", r[5])]
    assert links
    for name, anchor in links:
        text = (DOCS / name).read_text(encoding="utf-8")
        assert anchor in {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}, (name, anchor)
