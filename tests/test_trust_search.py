"""``exactdp search`` hygiene (issue 16): nothing written into the working directory,
``search_claim`` importable from ``exactdp``, large fixed sizes searched in seconds."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.checkers.search import SearchVerdict, search_claim

ROOT = Path(__file__).resolve().parent.parent


def test_cli_search_writes_no_hypothesis_folder(tmp_path):
    """A fresh interpreter (Hypothesis caches constants of local modules once per process,
    under ``./.hypothesis`` by default: 140 kB were left in the user's folder)."""
    proc = subprocess.run(
        [sys.executable, "-m", "exactdp", "search", "--query", "sum", "--clip", "10,20",
         "--universe", "0..1000000", "--sizes", "0..10000", "--claim", "U-L"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("violated (search): claim U-L = 10 < |f(x) - f(x')| = 11 at x=[], x'=[11]")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_api_search_writes_nothing_and_restores_hypothesis_home(tmp_path, monkeypatch):
    from hypothesis import configuration

    mine = tmp_path / "mine"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    key = "__hypothesis_home_directory"
    before = vars(configuration)[key]
    configuration.set_hypothesis_home_dir(mine)
    try:
        r = search_claim("U - L", "sum", "0..5", (0, 3), budget=50, enumerate_corner=False)
        assert vars(configuration)[key] == mine  # the user's choice, back after the search
    finally:
        configuration.set_hypothesis_home_dir(before)
    assert r.verdict is SearchVerdict.NOT_FOUND and r.examples == 50
    assert list(work.iterdir()) == []


def test_search_claim_exported_lazily():
    code = ("import sys, exactdp; assert 'hypothesis' not in sys.modules; "
            "assert {'search_claim', 'SearchResult', 'SearchVerdict'} <= set(exactdp.__all__); "
            "assert 'search_claim' in dir(exactdp); "
            "from exactdp import search_claim; "
            "import exactdp.checkers.search as s; assert search_claim is s.search_claim; "
            "assert 'hypothesis' not in sys.modules; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.stdout == "ok\n", proc.stderr


def test_fixed_size_100_substitute_shrinks_to_one_changed_record(hang_guard):
    """Sizes 100..100 with substitute neighbours (15 s before: each of 100 records drawn
    one by one, a strategy built per example, every record evaluated as a Fraction): the
    witness shrinks to 100 equal records and one changed to the smallest value that
    violates the claim."""
    with hang_guard(120):
        r = search_claim("(U-L)/(2*N)", "mean", "0..1000000", (100, 100), "substitute")
    assert r.verdict is SearchVerdict.VIOLATED and r.found_by == "search"
    # which side holds the changed record depends on the constants Hypothesis read from the
    # modules this process imported (see the report of issue 16): either shrunk form
    same, changed = sorted((r.witness.x, r.witness.x_prime), key=lambda d: len(set(d)))
    [v] = set(same)
    assert len(same) == len(changed) == 100 and changed.count(v) == 99
    assert {v, *changed} == {Fraction(0), Fraction(500001)}
    assert r.witness.distance == Fraction(500001, 100)


def test_fixed_size_100_not_found_within_budget(hang_guard):
    with hang_guard(120):
        r = search_claim("(U-L)/N", "mean", "0..1000000", (100, 100), "substitute", budget=300,
                         seed=3, enumerate_corner=False)
    assert r.verdict is SearchVerdict.NOT_FOUND and r.examples == 300


@pytest.mark.parametrize("lo, hi", [(17, 17), (40, 45), (100, 100)])
def test_runs_draw_every_size_in_range(lo, hi):
    """Datasets of more than RUNS_FROM required records (drawn as runs) keep their sizes."""
    from hypothesis import HealthCheck, given, settings

    from exactdp import IntegerRange, Multisets
    from exactdp.strategies import datasets
    from exactdp.spaces.pairs import RUNS_FROM

    assert lo > RUNS_FROM
    space = Multisets(IntegerRange(-3, 10**6), sizes=(lo, hi))

    @settings(max_examples=30, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(datasets(space))
    def check(x):
        assert lo <= len(x) <= hi and list(x) == sorted(x)
        assert all(-3 <= v <= 10**6 for v in x)

    check()
