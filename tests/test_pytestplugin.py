"""The pytest plugin (exactdp/_pytestplugin.py), run on the sample project with pytester."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "sample_project"
PLUGIN = ("-p", "exactdp._pytestplugin")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner runs are subprocesses (as in a user's CI: the plugin is imported fresh, so
    pytest can rewrite its asserts) that import this checkout of exactdp and no other
    installed pytest plugin."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


@pytest.fixture
def sample(pytester: pytest.Pytester) -> pytest.Pytester:
    """A copy of the sample project, as a user would copy it."""
    for name in ("heights", "tests", "pyproject.toml", "claims.toml"):
        src = SAMPLE / name
        if src.is_dir():
            shutil.copytree(src, pytester.path / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists():
            shutil.copy(src, pytester.path / name)
    return pytester


PLANTED = '''"""A wrong claim planted beside the sample project's own tests."""

from exactdp import Multisets
from tests.test_heights_claims import HEIGHTS, TOTAL


def test_clipped_total_add_remove_planted_wrong(exactdp_claim):
    # planted wrong: with L > 0, adding one person moves the total by up to U = 200, not U - L
    exactdp_claim("U - L", TOTAL, Multisets(HEIGHTS, sizes=(0, 2)),
                  id="total-add-remove-wrong")
'''


def test_sample_project_passes_as_copied(sample: pytest.Pytester):
    result = sample.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=3)


def test_sample_project_planted_wrong_claim_fails_with_witness(sample: pytest.Pytester):
    (sample.path / "tests" / "__init__.py").write_text("")
    (sample.path / "tests" / "test_planted.py").write_text(PLANTED)
    report = sample.path / "exactdp-report.json"
    result = sample.runpytest_subprocess(*PLUGIN, "--exactdp-report", str(report))
    result.assert_outcomes(passed=3, failed=1)
    out = result.stdout.str()
    for line in (  # the failure names the verdict, the claim against the exact value, the witness, the scope
        "E       exactdp.errors.ClaimViolated: exactdp: claim U - L = 60 on clipped_total: VIOLATED",
        "E         claim 60 < exact sensitivity 200",
        "E         witness: x=[], x'=[200]: f(x)=0, f(x')=200",
        ("E         scope: all 15 multisets of size 0..2 over {140, 150, 175, 200}; SymmetricDistance "
         "<= 1 (add/remove); both datasets in the space; 20 unordered pairs examined"),
    ):
        assert line in out.splitlines(), line
    # the short summary line carries the message too when the terminal is wide enough (CI's is)
    result.stdout.fnmatch_lines(["FAILED tests/test_planted.py::test_clipped_total_add_remove_planted_wrong*"])
    result.stdout.fnmatch_lines(["*- exactdp -*"])  # the report section
    assert "AssertionError" not in result.stdout.str()

    claims = {c["id"]: c for c in json.loads(report.read_text())["claims"]}
    assert sorted(claims) == ["mean-substitute", "total-add-remove-wrong", "total-marker",
                              "total-regression"]
    right = claims["mean-substitute"]
    assert (right["verdict"], right["claim"], right["claim_value"], right["sensitivity"], right["passed"]) \
        == ("holds-tight", "(U - L)/N", "20", "20", True)
    assert right["witness"] == {"x": ["140", "200", "200"], "x_prime": ["200", "200", "200"],
                                "fx": "180", "fx_prime": "200", "distance": "20"}
    assert right["scope"]["datasets"] == 20 and right["scope"]["pairs"] == 60
    assert right["test"] == "tests/test_heights_claims.py::test_clipped_mean_substitute"
    wrong = claims["total-add-remove-wrong"]
    assert (wrong["verdict"], wrong["claim_value"], wrong["sensitivity"], wrong["passed"]) \
        == ("violated", "60", "200", False)
    assert wrong["witness"]["x"] == [] and wrong["witness"]["x_prime"] == ["200"]
    kept = claims["total-regression"]
    assert (kept["verdict"], kept["expect"], kept["passed"]) == ("violated", "violated", True)
    marker = claims["total-marker"]
    assert (marker["verdict"], marker["claim_value"], marker["sensitivity"]) == ("holds-tight", "200", "200")


def test_expect_violated_fails_once_the_claim_holds(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest
        from exactdp import IntegerRange, Multisets
        from exactdp.queries import clipped, sum_

        SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))

        def test_stale_regression(exactdp_claim):
            exactdp_claim("U", clipped(sum_, 0, 3), SPACE, expect="violated")

        def test_plain_function(exactdp_claim):
            r = exactdp_claim(3, lambda xs: xs[-1] if xs else 0, SPACE)
            assert r.sensitivity.value == 3

        def test_assertrepr(exactdp_claim):
            from exactdp import verify_claim
            r = verify_claim(2, clipped(sum_, 0, 3), SPACE)
            assert r == "holds"

        @pytest.mark.exactdp_claim("U - L", clipped(sum_, 1, 3), SPACE)
        def test_marker():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-max-pairs", "1000", "-W", "error")
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    assert "claim U = 3 on clipped(sum, 0, 3): HOLDS-TIGHT (expected violated)" in out
    assert "claim U - L = 2 on clipped(sum, 1, 3): VIOLATED" in out
    assert "E         witness: x=[], x'=[3]: f(x)=0, f(x')=3" in out
    assert "PytestUnknownMarkWarning" not in out
    # pytest_assertrepr_compare: a ClaimResult operand shows the verdict and the witness
    result.stdout.fnmatch_lines(["E*exactdp result violated == 'holds'",
                                 "E*claim 2 < exact sensitivity 3"])


def test_budget_options_reach_the_check(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        from exactdp import IntegerRange, Multisets
        from exactdp.queries import sum_

        def test_big(exactdp_claim):
            exactdp_claim("U", sum_, Multisets(IntegerRange(0, 9), sizes=(0, 3)))
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-max-datasets", "10")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TooLarge*max_datasets=10*"])
    bad = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-max-pairs", "0")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--exactdp-max-pairs*is not a positive whole number*"])


def test_plugin_loads_no_sympy_at_import():
    """It loads in every pytest run of every project: at import only pytest and the few light
    exactdp modules its options need; the checker (exactdp._pytest_impl, SymPy, mpmath, NumPy,
    FLINT) waits for the first claim."""
    import subprocess
    import sys

    code = ("import sys, pytest\nbefore = set(sys.modules)\nimport exactdp._pytestplugin\n"
            "added = set(sys.modules) - before\n"
            "print(sorted(m for m in added if m.split('.')[0] in ('sympy', 'mpmath', 'numpy', 'flint')))\n"
            "print(' '.join(sorted(m for m in added if m.split('.')[0] == 'exactdp')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == [
        "[]",
        "exactdp exactdp._alarm exactdp._budget exactdp._lazy exactdp._pytestplugin exactdp._version "
        "exactdp.errors exactdp.numeric exactdp.numeric.exact",
    ], done.stderr
