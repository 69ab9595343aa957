"""The documentation site builds with warnings as errors, and its reference pages hold what
they promise: an API entry for the main entry points and each command's --help.

The notebooks are not executed here (tests/test_notebook.py runs every cell); the documented
build (docs/conf.py) executes them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("sphinx", reason="the docs extra (sphinx, myst-nb, pydata-sphinx-theme) builds the site")
pytest.importorskip("myst_nb", reason="the docs extra (sphinx, myst-nb, pydata-sphinx-theme) builds the site")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "EXACTDP_DOCS_EXECUTE": "off"}
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_every_page_in_docs_is_built(site):
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")}
    built = {p.stem for p in site.glob("*.html")}
    assert pages <= built, f"pages not reached from the index: {sorted(pages - built)}"


@pytest.mark.parametrize("name", ["exactdp.sensitivity", "exactdp.verify_claim", "exactdp.mechanisms.account",
                                  "exactdp.mechanisms.PrivacyCurve", "exactdp.audits.run_audits",
                                  "exactdp.audit_object"])
def test_api_page_documents(site, name):
    html = (site / "api.html").read_text(encoding="utf-8")
    assert f'id="{name}"' in html


def test_cli_page_is_the_parsers_help(site):
    html = (site / "cli.html").read_text(encoding="utf-8")
    from exactdp.cli import COMMANDS

    for command in COMMANDS:
        assert re.search(rf"exactdp {command} \[-h\]", html), command
