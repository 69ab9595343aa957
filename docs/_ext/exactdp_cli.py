"""Directives that print what the code holds, so the reference cannot drift from it:

* ``exactdp-help``: a command's ``--help`` text, as the installed parser prints it (no
  argument: the top-level ``exactdp --help``);
* ``exactdp-mechanisms``: the table of mechanisms (:mod:`exactdp.mechanisms.specs`): each
  name, its parameters, and which operations it has.

    ```{exactdp-help} account
    ```
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


def mechanism_rows() -> list[tuple[str, str, str]]:
    """``(name, parameters, operations)`` for every mechanism spec, in table order."""
    from exactdp.mechanisms import specs  # lazy: Sphinx imports this extension before exactdp is needed

    words = {"model": "exact model (privacy)", "account": "accountant (account)", "rdp": "Renyi DP (--rdp)"}
    return [(s.name, s.help, ", ".join(words[op] for op in s.operations())) for s in specs.SPECS]


class ExactdpMechanisms(SphinxDirective):
    has_content = False

    def run(self):
        table = nodes.table()
        group = nodes.tgroup(cols=3)
        table += group
        for width in (20, 50, 30):
            group += nodes.colspec(colwidth=width)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        for cells, part in ((("mechanism", "parameters", "operations"), head), *((r, body) for r in mechanism_rows())):
            row = nodes.row()
            for i, text in enumerate(cells):
                entry = nodes.entry()
                para = nodes.paragraph()
                para += nodes.literal(text, text) if i == 0 and part is body else nodes.Text(text)
                entry += para
                row += entry
            part += row
        return [table]


def setup(app):
    app.add_directive("exactdp-help", ExactdpHelp)
    app.add_directive("exactdp-mechanisms", ExactdpMechanisms)
    return {"parallel_read_safe": True, "version": "1"}
