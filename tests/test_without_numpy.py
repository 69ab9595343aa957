"""exactdp without NumPy (issue 29, item 4): NumPy is an extra (``exactdp[fast]``), not a
dependency. With NumPy made unimportable the built-in claims of the seeds give the same
results (the engine falls back to pure Python), and the accountant and a sensitivity run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

BLOCK = """
import sys
class _NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("numpy is blocked for this test")
sys.meta_path.insert(0, _NoNumpy())
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.stdout


def _strip(rows):
    return [{k: v for k, v in row.items() if k not in ("seconds", "time")} for row in rows]


def test_the_seed_claims_are_the_same_without_numpy(capsys):
    out = _run("from exactdp.cli import main\n"
               "code = main(['verify', '--only', 's00', '--no-catalogue', '--json'])\n"
               "assert 'numpy' not in sys.modules\n"
               "raise SystemExit(code)\n")
    without = json.loads(out)
    from exactdp.cli import main
    main(["verify", "--only", "s00", "--no-catalogue", "--json"])
    with_numpy = json.loads(capsys.readouterr().out)
    assert len(without) == len(with_numpy) > 200
    assert _strip(without) == _strip(with_numpy)


def test_a_sensitivity_and_an_account_without_numpy():
    out = _run("from exactdp import sensitivity, Multisets, IntegerRange\n"
               "from exactdp.mechanisms import account\n"
               "r = sensitivity('sum', Multisets(IntegerRange(0, 5), sizes=(0, 4)))\n"
               "a = account('discrete-laplace', 10, params={'scale': 10}, delta='1e-6')\n"
               "assert 'numpy' not in sys.modules\n"
               "print(r.value, a.width_met)\n")
    assert out.split() == ["5", "True"]


def test_numpy_is_an_extra_not_a_dependency():
    tomllib = pytest.importorskip("tomllib")
    with open("pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert not any(d.startswith("numpy") for d in project["dependencies"])
    assert any(d.startswith("numpy") for d in project["optional-dependencies"]["fast"])
