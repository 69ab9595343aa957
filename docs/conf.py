"""Sphinx configuration of exactdp's documentation site.

Build it (warnings are errors; the MyST notebooks are executed):

    python -m pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html

``EXACTDP_DOCS_EXECUTE=off`` skips executing the notebooks (the test suite builds the site
that way; tests/test_notebook.py runs every cell separately).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from exactdp import __version__  # noqa: E402 - after the path

project = "exactdp"
author = "The exactdp developers"
copyright = "2026, the exactdp developers"
release = __version__
version = ".".join(__version__.split(".")[:2])

extensions = [
    "myst_nb",  # Markdown pages and the MyST notebooks (executed)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "exactdp_cli",  # the command line reference, from the parser's own --help
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}
root_doc = "index"

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

nb_execution_mode = os.environ.get("EXACTDP_DOCS_EXECUTE", "force")
nb_execution_raise_on_error = True  # a cell that fails fails the build, naming the cell
nb_execution_timeout = 600
nb_execution_show_tb = True

autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
napoleon_google_docstring = False

html_theme = "pydata_sphinx_theme"
html_title = f"exactdp {release}"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}
html_static_path: list[str] = []

suppress_warnings = ["myst.header"]  # notebooks open with a title below the jupytext header
