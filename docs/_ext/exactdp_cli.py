"""The ``exactdp-help`` directive: a command's ``--help`` text, as the installed parser prints
it, so the command-line reference cannot drift from the code.

    ```{exactdp-help} account
    ```

An empty argument gives the top-level ``exactdp --help``.
"""

from __future__ import annotations

import contextlib
import io

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def help_text(command: str) -> str:
    """What ``exactdp COMMAND --help`` prints (exit status 0 is required)."""
    from exactdp.cli import main  # lazy: Sphinx imports this extension before exactdp is needed

    out = io.StringIO()
    argv = ([command] if command else []) + ["--help"]
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(argv)
    text = out.getvalue()
    if not text.strip():
        raise ValueError(f"exactdp {command} --help printed nothing: is {command!r} a command?")
    return text


class ExactdpHelp(SphinxDirective):
    optional_arguments = 1
    has_content = False

    def run(self):
        command = self.arguments[0] if self.arguments else ""
        try:
            text = help_text(command)
        except Exception as e:  # a command that cannot print its help fails the build here
            raise self.error(f"exactdp-help {command!r}: {e}") from e
        return [nodes.literal_block(text, text, language="text")]


def setup(app):
    app.add_directive("exactdp-help", ExactdpHelp)
    return {"parallel_read_safe": True, "version": "1"}
