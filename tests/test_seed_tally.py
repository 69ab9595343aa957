"""docs/seed-tally.md, the statement-by-statement tally of the five seeds (issues 20, 28).

Every checkable statement is a row with a class: *reproduced* or *corrected* (exactdp's
claims compute it), *partial* (part of it is computed; the row says what is missing),
*needs-data* (a value computed from data that is not shipped; the row says what would
check it), *missing* (not checked; the row says what is missing). Each claim a row names
is written `id` (verdict): the test runs ``exactdp verify --json`` and requires that every
id exists with that verdict, and that no row's class is better than its claims show. A
row is never failed for being *partial*, *needs-data* or *missing*."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
TALLY = DOCS / "seed-tally.md"
STATUSES = ("reproduced", "corrected", "partial", "needs-data", "missing")
ROW = re.compile(r"^\| (\d+) \| (00[0-4]) \| ([^|]+) \| ([^|]+) \| ([\w-]+) \| ([^|]+) \|$", re.M)
TOTALS = re.compile(r"^Totals: (\d+) statements: (\d+) reproduced, (\d+) corrected, (\d+) partial, "
                    r"(\d+) needs-data, (\d+) missing\.$", re.M)
NAMED = re.compile(r"`([^`]+)` \(([\w, -]+)\)")
# a verdict that computes a statement wrong (a corrected row needs one among its claims)
REFUTING = {"violated", "unbounded"}
# verdicts that show nothing either way
SHOWS_NOTHING = {"undecided", "vacuous", "skipped"}


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def verdict_of(row: dict) -> str:
    """A claim's verdict as the tally writes it; a catalogue cell printed blank (no
    published formula) has none of its own: ``derived <the derived formula's verdict>``."""
    if row.get("verdict") is not None:
        return row["verdict"]
    return f"derived {row.get('derived_verdict')}"


@pytest.fixture(scope="module")
def rows():
    text = TALLY.read_text(encoding="utf-8")
    found = ROW.findall(text)
    assert len(found) == text.count("\n| ") - 2  # every table line but the header and separator
    return found


@pytest.fixture(scope="module")
def verified():
    out = subprocess.run([sys.executable, "-m", "exactdp", "verify", "--json"], capture_output=True,
                         text=True, check=False)
    assert out.stdout, out.stderr
    return {r["id"]: r for r in json.loads(out.stdout)}


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


def test_every_named_claim_exists_with_the_stated_verdict(rows, verified):
    named = [(r[0], i, v) for r in rows for i, v in NAMED.findall(r[5])]
    assert named
    # every backquoted id is written with its verdict
    assert sum(len(re.findall(r"`[^`]+`", r[5])) for r in rows) == len(named)
    absent = [(n, i) for n, i, _ in named if i not in verified]
    assert not absent, absent
    wrong = [(n, i, v, verdict_of(verified[i])) for n, i, v in named if verdict_of(verified[i]) != v]
    assert not wrong, wrong


def test_no_class_is_better_than_its_claims_show(rows, verified):
    for n, seed, _section, _statement, status, shown in rows:
        named = [i for i, _ in NAMED.findall(shown)]
        links = re.findall(r"\]\(([\w.-]+\.md)#([\w-]+)\)", shown)
        if status in ("reproduced", "corrected"):
            assert named or links, f"row {n}: {status} names no claim and no notebook cell"
            assert "missing:" not in shown and "needs:" not in shown, f"row {n}: {status} but says what is missing"
            for i in named:
                r = verified[i]
                assert r.get("as_expected") is True, f"row {n}: {i} is not as expected"
                assert verdict_of(r) not in SHOWS_NOTHING, f"row {n}: {i} is {verdict_of(r)}"
        if status == "corrected":
            assert any(verified[i]["verdict"] in REFUTING for i in named), \
                f"row {n}: corrected, but none of its claims computes the statement wrong"
        if status in ("partial", "missing"):
            assert re.search(r"missing: \w", shown), f"row {n}: {status} must say what is missing"
        if status == "needs-data":
            assert re.search(r"needs: \w", shown), f"row {n}: needs-data must say what would check it"


def test_every_notebook_link_points_at_a_heading(rows):
    links = [link for r in rows for link in re.findall(r"\]\(([\w.-]+\.md)#([\w-]+)\)", r[5])]
    assert links
    for name, anchor in links:
        text = (DOCS / name).read_text(encoding="utf-8")
        assert anchor in {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}, (name, anchor)
