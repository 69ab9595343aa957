"""Audit plug-ins that misbehave on purpose (issue 30): tests/hostile_audit_plugins,
installed into a temporary folder as pip would lay it out. Whatever a plug-in does (exit,
raise, return garbage, hang, print, leave a thread, move the working directory, smuggle
control characters), exactdp answers with its own status after its own report: an
``error`` result or a broken plug-in named in one line, never an empty exit 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exactdp.audits import runner
from exactdp.audits.base import Finding, Replay
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HOSTILE = Path(__file__).resolve().parent.parent / "hostile_audit_plugins"
PYPROJECT = tomllib.loads((HOSTILE / "pyproject.toml").read_text(encoding="utf-8"))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(tmp_path, monkeypatch):
    """The hostile plug-ins installed as distribution ``hostiledp`` 0.1.0 in a temporary
    folder at the front of ``sys.path``; their modules are forgotten afterwards."""
    folder = tmp_path / "site"
    folder.mkdir()
    shutil.copytree(HOSTILE / "hostiledp_suites", folder / "hostiledp_suites",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = folder / "hostiledp-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hostiledp\nVersion: 0.1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for group, eps in PYPROJECT["project"]["entry-points"].items()), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    import importlib

    importlib.invalidate_caches()
    before = set(sys.modules)
    yield folder
    stop = sys.modules.get("hostiledp_suites.thread")
    if stop is not None:
        stop.STOP.set()  # let the thread the plug-in left behind end
    for name in set(sys.modules) - before:
        if name.split(".")[0] == "hostiledp_suites":
            del sys.modules[name]


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- broken plug-ins: one line, exit 2 ---------------------------------------------------

@pytest.mark.parametrize("name, said", [
    ("hostile-exit-on-import", "called sys.exit(0) (SystemExit) on import"),
    ("hostile-exit3-in-audits", "audits() called sys.exit(3) (SystemExit)"),
    ("hostile-garbage-list", "audits() returned 1 (int) at position 0 (3 of its 3 items are not an Audit)"),
    ("hostile-garbage-int", "audits() returned 42 (int); expected a list of exactdp.audits.base.Audit"),
    ("hostile-empty", "audits() returned no audits"),
])
def test_a_broken_plugin_is_one_line_and_exit_2(site, capsys, name, said):
    assert main(["audit", name]) == 2
    out, err = capsys.readouterr()
    line = _one_line(err)
    assert out == ""
    assert line.startswith(f"exactdp: error: audit plug-in {name!r} (entry point exactdp.audits '{name} = ")
    assert said in line and line.endswith("fix or uninstall hostiledp")


def test_list_marks_each_broken_plugin_and_still_lists_the_others(site, capsys):
    assert main(["audit", "--list"]) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    broken = sorted(line.split(":")[0] for line in lines if "[broken plug-in:" in line)
    assert broken == ["hostile-empty", "hostile-exit-on-import", "hostile-exit3-in-audits", "hostile-garbage-int",
                      "hostile-garbage-list", "opendp (plug-in)"]
    # the built-in suites and the plug-ins that load are all listed
    assert any(line.startswith("opendp/") for line in lines)
    assert any(line.startswith("diffprivlib/") for line in lines)
    assert "hostiledp/fine: fine: sensitivity 1" in lines and "hostiledp/prints: prints: sensitivity 1" in lines
    assert "'opendp' is the name of a built-in suite" in out
    assert err.strip().startswith("exactdp: 6 audit plug-in(s) could not be loaded")
    # and in JSON, nothing but the JSON on stdout
    assert main(["audit", "--list", "--json"]) == 2
    rows = json.loads(capsys.readouterr().out)
    assert {r["suite"] for r in rows if r.get("broken")} == {n.split(":")[0] for n in broken}


def test_a_builtin_suite_shadowed_by_a_plugin_is_listed_beside_it_marked(site, capsys):
    assert main(["audit", "opendp", "--list"]) == 2  # the built-in suite's list, the plug-in marked broken
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("opendp/") for line in lines) > 10
    (marked,) = [line for line in lines if line.startswith("opendp (plug-in): [broken plug-in: ")]
    assert marked.endswith("'opendp' is the name of a built-in suite, which 'exactdp audit opendp' runs: "
                           "rename the entry point]")
    assert main(["audit", "prv-accountant", "--list"]) == 0  # another library's list: no word of it
    assert "plug-in" not in capsys.readouterr().out


# -- a plug-in's checks: each misbehaviour an error result ---------------------------------

def test_every_misbehaving_check_is_an_error_result(site, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "hostile-checks", "--json", "--time-limit", "1", "--output", "report.json"]) == 2
    out, err = capsys.readouterr()
    assert os.getcwd() == str(tmp_path)  # the chdir was put back
    rows = {r["id"].split("/", 1)[1]: r for r in json.loads((tmp_path / "report.json").read_text())}
    assert out.rstrip().splitlines()[-1] == "hostile-checks 0.1.0: 9 audits: 6 error, 1 holds-on-grid, 2 undecided; all 1 that hold rest on evidence weaker than bit-exact (holds-*: see 'exactdp audit --help')"
    verdicts = {k: r["verdict"] for k, r in rows.items()}
    assert verdicts == {"fine": "holds-on-grid", "sys-exit": "error", "os-exit": "error", "raises": "error",
                        "not-a-finding": "error", "hangs": "error", "chdir": "error",
                        "violated-not-replayed": "undecided", "confirmed-without-witness": "undecided"}
    assert rows["sys-exit"]["note"] == "its check() called sys.exit(0) (SystemExit)"
    assert rows["os-exit"]["note"] == "its check() called os._exit(0)"
    assert rows["raises"]["note"] == "its check() raised RuntimeError: the check broke"
    assert rows["not-a-finding"]["note"] == "its check() returned 'holds' (str); expected an exactdp.audits.base.Finding"
    assert rows["hangs"]["note"] == "stopped after the time limit of 1 s (--time-limit raises it)"
    assert rows["chdir"]["note"].startswith("its check() changed the working directory to ")
    assert rows["violated-not-replayed"]["note"] == "the witness was not replayed through the library: no verdict"
    assert rows["confirmed-without-witness"]["note"] == "a violation without a witness: no verdict"
    assert "exactdp: 6 audit(s) could not run" in err


def test_what_a_plugin_prints_never_reaches_the_json(site, capfd):
    assert main(["audit", "hostile-prints", "--json"]) == 2
    out, _ = capfd.readouterr()
    rows = json.loads(out)  # nothing but the report: neither print() nor a write to descriptor 1
    assert [(r["id"], r["verdict"]) for r in rows] == [("hostiledp/prints", "error"), ("hostiledp/fine", "holds-on-grid")]
    assert rows[0]["note"].startswith("its check() printed to stdout; it printed '[{\"id\": \"forged\", \"verdict\": \"holds\"}]'")
    assert "forged" not in json.dumps(rows[1]) and "descriptor 1" not in out.replace(rows[0]["note"], "")


def test_control_characters_cannot_forge_a_line(site, capsys):
    assert main(["audit", "hostile-controls"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "hostiledp/clear\\x1b[2J [hostiledp 0.1.0] clear\\x1b[2J: HOLDS-ON-GRID (tight)" in out
    assert "  claim: sensitivity 1\\nhostiledp/forged [hostiledp 0.1.0] x: HOLDS" in out
    assert not any(line.startswith("hostiledp/forged") for line in out.splitlines())
    assert main(["audit", "hostile-controls", "--list"]) == 0
    assert "\x1b" not in capsys.readouterr().out


def test_a_thread_left_running_is_an_error_result(site, capsys):
    assert main(["audit", "hostile-thread", "--json"]) == 2
    (row,) = json.loads(capsys.readouterr().out)
    assert row["verdict"] == "error"
    assert row["note"] == ("its check() left 1 thread(s) running ('left-behind'), which would keep the process "
                           "from exiting")


def test_the_command_exits_with_its_own_status_past_a_thread_left_running(site):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "exactdp", "audit", "hostile-thread"], env=env, cwd=site,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout.rstrip().splitlines()[-1] == "hostile-thread 0.1.0: 1 audits: 1 error"


# -- the rules, and the time limit ---------------------------------------------------------

def test_a_violation_needs_a_witness_and_a_confirmed_replay():
    witness = {"x": [0], "x_prime": [0, 1]}
    assert Finding("1", "2", Verdict.VIOLATED, witness=witness, replay=Replay.CONFIRMED).enforced().verdict is Verdict.VIOLATED
    assert Finding("1", "2", Verdict.VIOLATED, witness=witness).enforced().verdict is Verdict.UNDECIDED
    assert Finding("1", "2", Verdict.VIOLATED, replay=Replay.CONFIRMED).enforced().verdict is Verdict.UNDECIDED


@pytest.mark.parametrize("limit", ["1e300", "inf", "nan", "0", "-5", "1000001"])
def test_a_time_limit_the_timer_cannot_hold_is_one_line(capsys, limit):
    with pytest.raises(SystemExit) as stop:  # a usage error: argparse's exit, status 2
        main(["audit", "prv-accountant", "--time-limit", limit])
    assert stop.value.code == 2
    line = _one_line(capsys.readouterr().err)
    assert f"--time-limit={limit!r} is not a time limit; give a positive number of seconds up to 1,000,000" in line


def test_run_audits_refuses_such_a_time_limit_before_any_audit():
    with pytest.raises(InvalidArgument, match=r"time_limit=1e\+300 is not a time limit"):
        runner.run_audits("prv-accountant", time_limit=1e300)
