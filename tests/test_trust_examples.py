"""Every example a user is shown runs and prints what it says (issue 16).

* every ``exactdp ...`` line of every sub-command's ``--help`` (read from the parser);
* every ``exactdp ...`` line of the README's ```` ```sh ```` blocks and its inline
  ``exactdp ... --option`` commands (installs are not exactdp's); the cluster example's
  ``exactdp ... --scheduler`` line runs on a real two-worker ``LocalCluster`` (its address in
  place of the README's), and its ``dask scheduler`` and ``dask worker`` lines are read by
  Dask's own command-line parser;
* every ```` ```python ```` block of the README, each ``print`` checked against the result
  its comment states; the plugin snippet (```` ```py ````), the claims file (```` ```toml ````),
  the ``python -c`` line and the inline ``search_claim(...)`` call;
* the output of ``exactdp verify`` shown in the README.

Each command runs in this process (``exactdp.cli.main``, output captured) in a temporary
folder that holds the ``claims.toml`` of ``exactdp check --help``. The table below says,
for each command, the exit status it is meant to have and parts of what it prints (a
verdict, a value, a witness); a command that is not in the table, or a table row that no
help or README shows any more, fails :func:`test_the_table_lists_every_example`.

Before: ``exactdp sensitivity --help``'s second example was refused (62 million pairs at
d_in=4), ``exactdp search --help``'s second was refused (N with sizes 1..10000) and its
third took 35 s; ``from exactdp import search_claim`` failed though the README calls it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import shutil
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
import importlib.util as _util

_spec = _util.spec_from_file_location("readme_guide", Path(__file__).with_name("readme_guide.py"))
guide = _util.module_from_spec(_spec)
_spec.loader.exec_module(guide)  # the README and the guide pages it links, as one text
HEIGHTS = ROOT / "tests" / "sample_project" / "heights"


# -- where the examples are -----------------------------------------------------------------

def _commands(lines: list[str]) -> list[str]:
    """The ``exactdp ...`` commands of ``lines`` (a trailing backslash continues one)."""
    out, held = [], None
    for raw in lines:
        line = raw.strip()
        if held is not None:
            held = held[:-1].rstrip() + " " + line
        elif line.startswith("exactdp "):
            held = line
        else:
            continue
        if not held.endswith("\\"):
            out.append(held)
            held = None
    return out


def _key(command: str) -> str:
    """One spelling of a command: its words as the shell splits them, comments dropped."""
    return " ".join(shlex.split(command, comments=True))


def _subparser(name: str) -> argparse.ArgumentParser:
    from exactdp.cli import _parser

    parser, _ = _parser(name)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


def help_examples() -> dict[str, str]:
    """``{command: sub-command}`` for every example of every sub-command's ``--help``."""
    from exactdp.cli import COMMANDS

    found = {}
    for name in COMMANDS:
        sub = _subparser(name)
        for command in _commands(f"{sub.description or ''}\n{sub.epilog or ''}".splitlines()):
            found[_key(command)] = name
    return found


def readme_commands() -> list[str]:
    text = guide.text()
    found = [c for block in re.findall(r"```sh\n(.*?)```", text, re.S)
             for c in _commands(block.splitlines())]
    # inline commands with options (not 'exactdp audit LIBRARY', 'exactdp ...')
    found += [c for c in re.findall(r"`(exactdp [^`]*)`", text)
              if " -" in c and "..." not in c and not re.search(r"\b[A-Z]{3,}\b", c)]
    return [_key(c) for c in found]


def readme_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", guide.text(), re.S)


def check_claims_toml() -> str:
    """The example claims file of ``exactdp check --help``."""
    epilog = _subparser("check").epilog
    block = re.search(r"example claims\.toml:\n(.*?)\n\s*\n", epilog, re.S).group(1)
    return textwrap.dedent(block) + "\n"


def readme_verify_lines() -> list[str]:
    """The lines of ``exactdp verify``'s output the README shows (``...`` left out)."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"ends with its summary,\ne\.g\.\n\n```\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and line.strip() != "..."]


# -- what each prints -----------------------------------------------------------------------

README_SCHEDULER = "tcp://127.0.0.1:8786"
"""The scheduler address of the README's cluster example (a test cluster's is used instead)."""

EXPECT: dict[str, tuple[int, tuple[str, ...]]] = {
    # verify
    "exactdp verify": (0, ("(the README's lines, below)",)),
    "exactdp verify --only s000 --no-catalogue": (0, (
        "VIOLATED    s000/clipped-sum/add-remove/L>0: claim U - L = 8 vs exact 10",
        "            witness x=[], x'=[10]: f(x)=0, f(x')=10",)),
    "exactdp verify --all --json": (0, (
        '"query": "count"', '"verdict": "violated"', '"evidence": "bit-exact"')),
    # vector queries and values (docs/command-line.md)
    "exactdp sensitivity --query quantile-score:1/3:0,1,2 --universe 0..3 --sizes 0..3 --claim 2/3": (0, (
        "quantile-score:1/3:0,1,2: HOLDS, tight: claim 2/3 is attained by x=[], x'=[0]: f(x)=(0, 0, 0), "
        "f(x')=(0, -2/3, -2/3)",)),
    "exactdp privacy --mechanism exponential --param epsilon=1 --query quantile-score:1/2:0,1,2,3 "
    "--universe 0..3 --sizes 0..3": (0, (
        "~ [0.326809369873, 0.326809369874]; witness x=[2, 3], x'=[0, 2, 3]",
        "60 distinct pairs of quantile-score:1/2:0,1,2,3 values")),
    "exactdp privacy --mechanism laplace --param scale=1 --values 1,2;3,4 --epsilon 1 --delta 1/2": (1, (
        "laplace(scale=1): VIOLATED: claim (1, 1/2)-DP, exact delta(1) = 1 - 7*exp(-3/2)/4",)),
    "exactdp privacy --mechanism laplace --param scale=1 --values 1,2;3,4 --epsilon 4 --delta 0": (0, (
        "laplace(scale=1): HOLDS, tight: claim (4, 0)-DP, exact delta(4) = 0",)),
    # sensitivity
    "exactdp sensitivity --query sum --universe=-3..13 --sizes 0..3 --clip 2,10 --claim U-L": (1, (
        "clipped(sum, 2, 10): VIOLATED: claim U-L = 8 < sensitivity 10; witness x=[], x'=[10]",)),
    "exactdp sensitivity --query mean --universe 0..7 --sizes 1..6 --d-in 1..4": (0, (
        "mean over multisets of size 1..6 over {0..7}",
        "    1  7/2                            10,288  x=[7], x'=[0, 7]: f(x)=7, f(x')=7/2",
        "    4  7                             521,038  x=[7], x'=[0, 0]: f(x)=7, f(x')=0")),
    "exactdp sensitivity --query median --pool 1,2,2,2,5,5,7,8,9,9 --size 6 --neighbors "
    "substitute --json": (0, ('"query": "median"', '"sensitivity": "3"', '"verdict": null')),
    "exactdp sensitivity --query mean --universe 0..7 --sizes 1..8 --d-in 2 --claim (U-L)/2": (1, (
        "mean: VIOLATED: claim (U-L)/2 = 7/2 < sensitivity 7; witness x=[0], x'=[7]",
        "339,724 unordered pairs examined")),
    "exactdp sensitivity --query percentile:25 --pool 1,2,2,2,5,5,7,8,9,9 --size 6 --neighbors "
    "add-remove --d-in 2 --exact-k --release-centred --json": (0, (
        '"query": "percentile:25"', '"d_in": 2', '"sensitivity": "9/2"')),
    "exactdp sensitivity --query sum --universe=-3..13 --sizes 0..3 --clip 2,10 --d-in 1..4 "
    "--plot sum.png": (0, (
        "    2  20                             28,917  x=[], x'=[10, 10]",
        "    4  30                            253,062  x=[], x'=[13, 13, 13]",
        "plot written to sum.png")),
    "exactdp sensitivity --query mean --universe 0..4 --sizes 1..3 --local 1,2": (0, (
        "mean: local sensitivity 5/6, attained by x=[1, 2], x'=[1, 2, 4]: f(x)=3/2, f(x')=7/3",)),
    "exactdp sensitivity --query mean --universe 0..9 --sizes 1..16 --scheduler "
    "tcp://127.0.0.1:8786": (0, (  # on a 2-worker LocalCluster (before: 0..24, over any 4 workers' budget)
        "mean: sensitivity 9/2, attained by x=[9], x'=[0, 9]: f(x)=9, f(x')=9/2",
        "all 5,311,734 multisets of size 1..16 over {0..9}", "32,687,590 unordered pairs examined")),
    "exactdp sensitivity --query sum --query mean --query median --universe 0..6 --sizes 1..4 "
    "--d-in 1..3 --plot three.png": (0, (
        "sum over multisets of size 1..4 over {0..6}", "median over multisets of size 1..4",
        "plot written to three.png")),
    # search
    "exactdp search --query sum --clip 10,20 --universe 0..1000000 --sizes 0..10000 --claim U-L": (1, (
        "violated (search): claim U-L = 10 < |f(x) - f(x')| = 11 at x=[], x'=[11]",
        "seed=0 (search_claim(..., seed=0) reproduces it)")),
    "exactdp search --query mean --universe 0..1000000 --sizes 100..100 --neighbors substitute "
    "--claim (U-L)/N --budget 200 --seed 3": (1, (
        "not-found: no pair beyond claim (U-L)/N = 10000 in 200 examples (a search, not a proof)",
        "seed=3")),
    "exactdp search --query sum --clip 0,5 --universe=-10..1000000 --sizes 0..100 --neighbors "
    "substitute --d-in 2 --claim U-L --json": (1, (
        '"verdict": "violated"', '"found_by": "search"', '"corner_sensitivity": "0"',
        '"claim_value": "5"')),
    # calibrate
    "exactdp calibrate laplace --epsilon 0.1 --sensitivity 3": (0, (
        "exact      30", "safe float 30.0")),
    "exactdp calibrate gaussian-analytic --epsilon 0.5 --delta 1e-5 --json": (0, (
        '"scale": "7.031826675582492"',)),
    "exactdp calibrate gaussian-analytic --epsilon 0.5 --delta 1e-5 --sensitivity 1": (0, (
        "safe float 7.031826675582492",)),
    "exactdp calibrate zcdp-to-approx --rho 0.5 --delta 1e-6 --method bun-steinke": (0, (
        "1/2 + sqrt(2)*sqrt(log(1000000))", "safe float 5.756521769756932")),
    "exactdp calibrate zcdp-to-approx --rho 0.5 --delta 1e-6 --json": (0, (
        '"epsilon": "5.221534444530169"',)),
    "exactdp calibrate dp-sgd --epsilon 1 --delta 1e-5 --rate 0.1 --steps 10": (0, (
        "sigma = 1.75 for 10 steps", "(above the target)")),
    # compose
    "exactdp compose --method sequential --spend 0.1 --spend 0.5,0.1 --spend 0.4,0.1 --budget 1,0.19": (0, (
        "epsilon = 1, delta = 19/100 (<= 0.19)", "delta = 1 - prod(1 - delta_i)")),
    "exactdp compose --spend 0.1x10 --budget 0.8,1e-3": (0, (  # optimal: fits where the sum overspends
        "delta at the budget epsilon 0.8: <= 0.000288234", "(enclosure [0.753573, 0.753574])", "FITS")),
    "exactdp compose --spend 0.1x100 --method advanced --delta-prime 1e-6 --budget 7,1e-6": (0, (
        "<= 6.308230950513408", "FITS")),
    "exactdp compose --floats binary --spend 0.1x10 --budget 1": (1, (  # README: 2^-54 overspent
        "needs delta >= 8.8267555208197408E-20 > budget delta 0",
        "read as decimals (--floats decimal): the spends fit the budget (1, 0)")),
    "exactdp compose --spend 0.5,0.1x2 --budget 1,0.19": (0, (  # README: fits (1 - 0.9^2 = 0.19)
        "delta at the budget epsilon 1: 0.19", "FITS")),
    # floatsum
    "exactdp floatsum --model sequential --dtype float32 --bounds 0,1 --max-n 10000": (1, (
        "VIOLATED: the sequential sum in float32 moves by 2 > claim 1",)),
    "exactdp floatsum --model pairwise --bounds -1,1 --max-n 100000 --claim 2 --json": (0, (
        '"verdict": "holds"', '"bound": "9007199259880337/9007199254740959"')),
    "exactdp floatsum --model pairwise --dtype float32 --bounds 0,1 --max-n 10000 --maximize "
    "--budget 300": (1, ("VIOLATED: the pairwise sum in float32 moves by 513/512 > claim 1",)),
    "exactdp floatsum --model pairwise --dtype float64 --bounds 0,1 --max-n 100000 --json": (1, (
        '"verdict": "violated"', '"exact_difference": "137438953473/137438953472"')),
    # catalog
    "exactdp catalog": (0, (
        "s000/sum/bounded-values", "published -L + U: VIOLATED at L=2, U=5, d_in=1")),
    "exactdp catalog --only s002/table --json": (0, ('"id": "s002/table/count/any"',)),
    "exactdp catalog --only s001": (0, (
        "s001/flat-map/add-max-rows", "published F*n: HOLDS ON GRID, tight at n=1, F=3")),
    # privacy
    "exactdp privacy --mechanism randomized-response --param p=3/4 --values 0,1 --epsilon log(3)": (0, (
        "HOLDS, tight: claim epsilon log(3)", "witness f(x)=0, f(x')=1, output 0")),
    "exactdp privacy --mechanism randomized-response --param epsilon=1 --values 0,1 --epsilon 1 "
    "--delta 0": (0, ("HOLDS, tight: claim (1, 0)-DP, exact delta(1) = 0",)),
    "exactdp privacy --mechanism randomized-response --param p=3/4 --query count --universe 0..3 "
    "--sizes 0..1 --json": (0, ('"epsilon": "log(3)"', '"output": "0"')),
    "exactdp privacy --mechanism exponential --param epsilon=1 --values 0,0;1,-1 --epsilon 1": (0, (
        "HOLDS: claim epsilon 1, exact epsilon = log(1/2 + E/2)",)),
    "exactdp privacy --help": (0, ("randomized-response", "usage: exactdp privacy")),
    # account
    "exactdp account --mechanism discrete-laplace --param scale=10 --k 1000 --delta 1e-6": (0, (
        "epsilon in [19.344671446480788, 19.344671461265535]",)),
    "exactdp account --mechanism discrete-gaussian --param sigma=10 --k 1000 --delta 1e-6 --width "
    "1e-6 --json": (0, ('"epsilon_lower": "19.423660278320312"', '"width_met": true')),
    "exactdp account --mechanism gaussian --param sigma=2 --k 50 --epsilon 1": (0, (
        "delta in [0.876437913341947219380688, 0.876437913341947219407794]",)),
    "exactdp account --mechanism gaussian --param sigma=1 --param sampling=poisson --param "
    "rate=0.01 --k 10 --delta 1e-6": (0, ("epsilon in [0.592041015625, 0.5924224853515625]",)),
    "exactdp account --mechanism laplace --param scale=1 --param sampling=poisson --param rate=0.01 "
    "--k 100 --delta 1e-6": (0, ("epsilon in [0.38765845075249671, 0.3878990113735199]",)),
    "exactdp account --mechanism gaussian --param sigma=1 --param sampling=poisson --param rate=0.01 "
    "--k 100 --delta 1e-6": (0, ("epsilon in [0.95388909243047237, 0.95435843989253045]",)),
    "exactdp account --mechanism gaussian --param sigma=1 --param sampling=poisson --param rate=0.01 --k 1000 "
    "--delta 1e-6 --rdp 2..64": (0, (
        "order      8: [0.89364390760603184, 0.89364390760603185]",
        "epsilon at most 2.4366938030221433 at order 8", "(Mironov 2017), delta=0.000001: epsilon at most 2.867")),
    "exactdp account --mechanism randomized-response --param p=3/4 --k 10 --delta 1e-6 --check "
    "10.9": (1, ("check: VIOLATED: epsilon = 10.9 is below the certified lower bound 10.9861051224",)),
    "exactdp account --mechanism discrete-laplace --param scale=10 --mechanism discrete-gaussian "
    "--param sigma=3 --k 20 --delta 1e-5": (0, (
        "epsilon in [7.3645907822065055, 7.3645907889585943]",)),
    # check (on the claims file of its own --help)
    "exactdp check claims.toml": (0, (
        "ok   clipped-sum: clipped(sum, 2, 10): HOLDS, tight: claim U = 10",
        "1 claim(s) checked, 1 as expected")),
    "exactdp check claims.toml --json --max-pairs 1000000": (0, (
        '"passed": true', '"id": "clipped-sum"')),
    "exactdp check claims.toml --time-limit 600": (0, ("ok   clipped-sum",)),
    # audit (the test extra installs opendp and diffprivlib)
    "exactdp audit diffprivlib": (1, (
        "diffprivlib/tools/var/float-rounding [diffprivlib ", "VIOLATED", "replay: confirmed")),
    "exactdp audit diffprivlib --json": (1, (
        '"id": "diffprivlib/tools/sum/float-rounding"', '"verdict": "violated"')),
    "exactdp audit diffprivlib --only diffprivlib/tools/var/float-rounding": (1, (
        "tools.var and tools.std: VIOLATED",  # README: 8006399337547549/2^55 > 2001599834386887/2^53
        "witness: x=[0.0, 0.0, 0.0], x_prime=[1.0, 0.0, 0.0]",
        "truth: >= 8006399337547549/36028797018963968",
        "2001599834386887/9007199254740992")),
    "exactdp audit opendp --only opendp/variance/sum-of-squared-deviations": (1, (
        "VIOLATED", "exact: >= 1027/16", "(~40.600936889833257)", "replay: confirmed")),
    "exactdp audit opendp --only opendp/variance/sum-of-squared-deviations --json": (1, (
        '"id": "opendp/variance/sum-of-squared-deviations"', '"verdict": "violated"')),
    "exactdp audit opendp --list": (0, ("opendp/variance/sum-of-squared-deviations: ",)),
    "exactdp audit opendp --only opendp/variance/variance --depth full": (1, (
        "depth: full\n", "opendp/variance/variance [opendp", "VIOLATED",
        "severity: exceeds: worst |f(x') - f(x)| (variance) = 65536 against the claim ~118.265626101: "
        "ratio = ~554.14241788", "(replay confirmed; evidence bit-exact)")),
    "exactdp audit --object diffprivlib.mechanisms:Laplace(epsilon=0.7,sensitivity=2.0)": (1, (
        "diffprivlib/object/Laplace [diffprivlib 0.6.6] mechanisms.Laplace: VIOLATED on 1 setting",
        "  replay: confirmed")),
    "exactdp audit diffprivlib --coverage": (0, (
        "diffprivlib.validation.clip_to_norm             diffprivlib/validation/clip_to_norm",
        "diffprivlib 0.6.6: 45 of 47 listed primitives audited (95.7%)")),
    "exactdp audit --list": (0, (
        "opendp/variance/sum-of-squared-deviations: ", "diffprivlib/tools/var/float-rounding: ")),
    # reports (issue 18): the terminal shows the text with times, the file holds the report
    "exactdp audit diffprivlib --only diffprivlib/tools/var/float-rounding --format junit --output audit.xml": (1, (
        "tools.var and tools.std: VIOLATED", "  time: ", "the junit report is in audit.xml")),
    "exactdp audit diffprivlib --only diffprivlib/tools/var/float-rounding --format sarif": (1, (
        '"version": "2.1.0"', '"ruleId": "diffprivlib/tools/var/float-rounding"', '"level": "error"',
        "x_prime=[1.0, 0.0, 0.0]")),
    "exactdp --version": (0, ("exactdp ",)),
}


def all_examples() -> list[str]:
    return sorted(set(help_examples()) | set(readme_commands()))


def test_the_table_lists_every_example():
    shown = set(all_examples())
    assert sorted(shown - set(EXPECT)) == [], "examples with no row in EXPECT"
    assert sorted(set(EXPECT) - shown) == [], "rows of EXPECT that nothing shows any more"


def test_every_subcommand_has_examples():
    from exactdp.cli import COMMANDS

    commands = set(help_examples().values())
    assert commands == set(COMMANDS)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """A temporary working folder with the claims file of ``exactdp check --help``."""
    (tmp_path / "claims.toml").write_text(check_claims_toml(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EXACTDP_FIGURES", str(tmp_path))
    return tmp_path


def run_cli(command: str) -> tuple[int, str, str]:
    from exactdp.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(shlex.split(command)[1:])
        except SystemExit as e:  # --help and --version exit through argparse
            code = e.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def readme_scheduler():
    """The address of a 2-worker Dask LocalCluster, for the README's ``dask worker ...
    --nworkers 2`` (as ``tests/engine/conftest.py``'s; started only if a test asks for it)."""
    import logging

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("command", all_examples())
def test_example_runs_and_prints_what_it_should(command, in_tmp, request):
    if "--scheduler" in command:  # the README's cluster example, on a cluster started here
        assert README_SCHEDULER in command
        code, out, err = run_cli(command.replace(README_SCHEDULER, request.getfixturevalue("readme_scheduler")))
    else:
        code, out, err = run_cli(command)
    status, parts = EXPECT[command]
    if command == "exactdp verify":
        parts = tuple(readme_verify_lines())
    assert "Traceback" not in out + err
    assert code == status, (code, err[-2000:])
    lines = (out + err).splitlines()
    for part in parts:
        assert part in out + err, part
        if command == "exactdp verify":
            assert part in lines, f"the README's line {part!r} is not a line of the output"
    if status == 2:
        assert err.count("\n") == 1 and out == ""


def test_readme_cluster_example_starts_what_the_command_uses():
    """The README's ``dask scheduler`` and ``dask worker`` lines, read by Dask's own parser:
    the scheduler listens where ``--scheduler`` looks, two workers join it (each line is
    parsed, not run: the command itself runs on a LocalCluster above)."""
    pytest.importorskip("distributed.cli")
    from distributed.cli import dask_scheduler, dask_worker  # lazy: the dask extra, optional

    lines = [line for block in readme_blocks("sh") for line in block.splitlines()
             if line.startswith(("dask scheduler", "dask worker"))]
    scheduler, worker = (shlex.split(line, comments=True) for line in lines)
    s = dask_scheduler.main.make_context("dask scheduler", scheduler[2:]).params
    w = dask_worker.main.make_context("dask worker", worker[2:]).params
    assert f"tcp://{s['host']}:{s['port']}" == README_SCHEDULER == w["scheduler"]
    assert (int(w["n_workers"]), w["nthreads"]) == (2, 1)
    [command] = [c for c in readme_commands() if "--scheduler" in c]
    assert command.endswith(f"--scheduler {README_SCHEDULER}")


def test_readme_verify_block_is_its_summary():
    from exactdp import registry

    lines = readme_verify_lines()
    counts = {kind: len(registry.claims(kind)) for kind in ("sensitivity", "privacy")}
    assert lines[-1].startswith(f"{counts['sensitivity']} built-in claims checked: ") and len(lines) == 5
    assert lines[-2].startswith(f"{counts['privacy']} built-in privacy claims checked: ")


# -- the README's Python ------------------------------------------------------------------

def _variance_formula(expr) -> bool:
    """``(N-1)(U-L)^2/N^2 once N >= 2``, the README's reading of ``make_variance(size=N).map(1)``."""
    import sympy

    symbols = {s.name: s for s in expr.free_symbols}
    n, lo, hi = (symbols[k] for k in ("N", "L", "U"))
    return all(sympy.simplify(expr.subs(n, k) - (k - 1) * (hi - lo) ** 2 / k**2) == 0
               for k in range(2, 7))


# each print of a README python block: what its output must be, or contain ("in", ...), or
# a check of the printed object; the comment beside it in the README says the same
PRINTS = {
    "print(r.verdict, r.sensitivity.value, r.witness)":
        ("==", "violated 10 x=[], x'=[10]: f(x)=0, f(x')=10"),
    "print(sensitivity(std(), pool, ChangeDistance(), 1).value)":
        ("==", "-sqrt(89)/6 + sqrt(273)/6"),
    'print(sensitivity(percentile(90), pool, "add-remove", 2, exact_k=True, scope="release-centred"))':
        ("in", "percentile:90: sensitivity 7, attained by x=[1, 2, 2, 2, 9, 9], x'=[1, 2, 2, 2]"),
    "print(clipped_sum.map())": ("==", "d_in*Max(Abs(L), Abs(U))"),
    "print(clipped_sum.bind(L=-3, U=2).map(2))": ("==", "6"),
    "print(make_variance(size=N).map(1))": ("check", _variance_formula),
    'print(verify("U - L", make_sum()).summary())':
        ("in", "VIOLATED", "at L=-2, U=-1, d_in=1"),
    "print(r.verdict, r.witness.exact_difference)": ("==", "violated 2"),
    'print(sensitivity_bound("sequential", "float32", (0, 1), 10_000) > 1)': ("==", "True"),
    'print(analytic_sigma("0.5", "1e-5", 1).safe_float)': ("==", "7.031826675582492"),
    'print(check_sigma(7.03182667558249, "0.5", "1e-5", 1))': ("==", "False"),
    "print(ledger.remaining())":
        ("==", "{'epsilon': Fraction(0, 1), 'delta': Fraction(0, 1), 'rho': None}"),
    "print(r.verdict, r.epsilon, r.witness)":
        ("==", "holds-tight log(3) x=[], x'=[0]: f(x)=0, f(x')=1, output 0"),
    "print(check_mechanism(rr, values=(0, 1), epsilon=1).verdict)": ("==", "violated"),
    'print(check_mechanism(rr, values=(0, 1), epsilon=1, delta="1/10").delta)': ("==", "3/4 - E/4"),
    "print(r.decimal_bounds())": ("==", "('19.344671446480788', '19.344671461265535')"),
    "print(r.verdict, r.witness)": ("in", "violated x=[1, 1], x'=[1, 1, 1]: f(x)=3602879701896397/18014398509481984"),
    "print(library_number(0.1))": ("==", "3602879701896397/36028797018963968"),
    "print(result.verdict, result.evidence, result.replay)": ("==", "violated ideal-noise confirmed"),
    'print(r.check("19.3446").verdict)': ("==", "violated"),
}


def _run_block(block: str) -> list[tuple[str, str, tuple]]:
    """``(code, printed, objects)`` for each ``print`` of a block, in order."""
    printed: list[tuple[str, tuple]] = []

    def capture(*objects, **kwargs):
        text = io.StringIO()
        print(*objects, file=text, **{k: v for k, v in kwargs.items() if k != "file"})
        printed.append((text.getvalue().rstrip("\n"), objects))

    exec(compile(block, "README.md", "exec"), {"print": capture})
    calls = [line.split("#")[0].strip() for line in block.splitlines() if line.startswith("print(")]
    assert len(calls) == len(printed)
    return [(code, text, objects) for code, (text, objects) in zip(calls, printed)]


@pytest.mark.parametrize("index", range(len(readme_blocks("python"))))
def test_readme_python_block(index):
    block = readme_blocks("python")[index]
    for code, text, objects in _run_block(block):
        assert code in PRINTS, f"README print {code!r} has no row in PRINTS"
        how, *expected = PRINTS[code]
        if how == "==":
            assert text == expected[0], code
        elif how == "in":
            assert all(part in text for part in expected), (code, text)
        else:
            assert expected[0](*objects), (code, text)
        comment = next((line.split("#", 1)[1].strip() for line in block.splitlines()
                        if line.startswith(code) and "#" in line), None)
        if comment and how == "==":  # the README's comment states the value printed (then maybe a remark)
            assert comment.startswith(text.split(": ")[0]), (code, comment, text)


def test_readme_prints_all_have_rows():
    codes = {code for block in readme_blocks("python")
             for code in (line.split("#")[0].strip() for line in block.splitlines())
             if code.startswith("print(")}
    assert codes == set(PRINTS)


def test_readme_search_claim_call():
    """The README's inline call: ``search_claim("U - L", clipped(sum_, 10, 20),
    IntegerRange(0, 10**6), (0, 10**4))`` finds ``x = [], x' = [11]`` with seed 0, and
    ``search_claim`` is importable from ``exactdp`` as the README uses it."""
    from fractions import Fraction

    from exactdp import IntegerRange, SearchVerdict, search_claim
    from exactdp.queries import clipped, sum_

    text = README.read_text(encoding="utf-8")
    assert ('`search_claim("U - L", clipped(sum_, 10, 20), IntegerRange(0, 10**6), (0, 10**4))` '
            'finds\n`x = [], x\' = [11]` (seed 0') in text
    r = search_claim("U - L", clipped(sum_, 10, 20), IntegerRange(0, 10**6), (0, 10**4))
    assert r.verdict is SearchVerdict.VIOLATED and r.seed == 0
    assert (r.witness.x, r.witness.x_prime) == ((), (Fraction(11),))


def test_readme_python_c_line(capsys):
    [line] = [line for block in readme_blocks("sh") for line in block.splitlines()
              if line.startswith("python -c ")]
    code = shlex.split(line)[2]
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "is exactly epsilon_true = 300/b-DP" in out and "violated (witness x=0, x'=300" in out


def test_readme_claims_file(in_tmp):
    """The README's claims file, with the sample project's ``heights`` beside it."""
    [toml] = [block for block in readme_blocks("toml") if "[[claim]]" in block]  # not the plug-in's
    (in_tmp / "claims.toml").write_text(toml, encoding="utf-8")
    shutil.copytree(HEIGHTS, in_tmp / "heights", ignore=shutil.ignore_patterns("__pycache__"))
    code, out, err = run_cli("exactdp check claims.toml")
    assert (code, err) == (0, "")
    assert "ok   total-add-remove: clipped_total: HOLDS" in out
    assert "1 claim(s) checked, 1 as expected" in out


def test_readme_plugin_snippet(pytester):
    """The README's test with the ``exactdp_claim`` fixture passes as written."""
    [snippet] = readme_blocks("py")
    shutil.copytree(HEIGHTS, pytester.path / "heights", ignore=shutil.ignore_patterns("__pycache__"))
    pytester.makepyfile(test_total=snippet)
    pytester.syspathinsert()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
