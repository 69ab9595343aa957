"""CHANGELOG.md in Keep a Changelog's form (issue 29, item 4): an Unreleased section, then
dated versions newest first, each with the standard kinds of change; the newest version is
the package's own (exactdp/_version.py, the one source of the version)."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from exactdp._version import __version__

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
VERSION = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$")


def _sections() -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = []
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    return sections


def test_unreleased_then_dated_versions_newest_first():
    sections = _sections()
    assert sections[0][0] == "## [Unreleased]"
    versions = []
    for heading, _ in sections[1:]:
        m = VERSION.match(heading)
        assert m, f"{heading!r} is not '## [X.Y.Z] - YYYY-MM-DD'"
        datetime.date.fromisoformat(m.group(4))
        versions.append((tuple(int(g) for g in m.groups()[:3]), m.group(4)))
    assert versions, "no released version"
    assert versions == sorted(versions, reverse=True)


def test_every_change_is_filed_under_a_standard_kind():
    for heading, lines in _sections():
        kinds = [line[4:] for line in lines if line.startswith("### ")]
        assert all(k in KINDS for k in kinds), (heading, kinds)
        assert len(kinds) == len(set(kinds)), (heading, kinds)  # each kind once per version


def test_the_newest_version_is_the_package_version():
    newest = VERSION.match(_sections()[1][0])
    assert newest is not None
    released = tuple(int(g) for g in newest.groups()[:3])
    base, _, dev = __version__.partition(".dev")
    ours = tuple(int(p) for p in base.split("."))
    # the package is that version, or a development version after it (e.g. 0.2.0.dev0)
    assert ours == released and not dev or (dev and ours > released), (__version__, released)
