"""The README and the guide pages it links under "## More", read as one text (in that order):
the tests of the README's commands and examples read every page that used to be part of it.
The list of pages is the README's own (one place)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def pages() -> list[Path]:
    """README.md, then each page linked in its "## More" section, in order."""
    text = README.read_text(encoding="utf-8")
    more = text.split("\n## More\n", 1)[1]
    return [README] + [ROOT / link for link in re.findall(r"\]\((docs/[\w-]+\.md)\)", more)]


def text() -> str:
    return "\n\n".join(p.read_text(encoding="utf-8") for p in pages())
