"""Proof documents in ``proofs/``, tied to the code they prove.

Each proof is a short Markdown file whose header names the code object it covers and pins
a hash of that object's source::

    # Clipped sum under add/remove

    - covers: `exactdp.symbolic.constructors.make_clipped_sum`
    - source-hash: `3f1c0a9e2b7d4c61`
    - catalogue: `s000/clipped-sum/add-remove`

    ## Statement
    ...

``covers`` may be repeated (one line per object); ``catalogue`` (a catalogue entry) and
``claim`` (a built-in privacy claim of ``exactdp verify``) are optional and may be repeated. The hash is the first 16 hex digits of the SHA-256 of ``inspect.getsource(obj)``.
When the code changes, the test suite reports the proof as stale: re-read the argument,
then update the hash with ``python -m exactdp._proofs hash <dotted.name>``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import re
import sys
from pathlib import Path

__all__ = ["Proof", "PROOFS_DIR", "load_proofs", "resolve", "source_hash", "stale"]

PROOFS_DIR = Path(__file__).resolve().parent.parent / "proofs"

_COVERS = re.compile(r"^- covers: `([\w.]+)`\s*$", re.M)
_HASH = re.compile(r"^- source-hash: `([0-9a-f]{16})`\s*$", re.M)
_CATALOGUE = re.compile(r"^- catalogue: `([^`]+)`\s*$", re.M)
_CLAIM = re.compile(r"^- claim: `([^`]+)`\s*$", re.M)


@dataclasses.dataclass(frozen=True)
class Proof:
    path: Path
    title: str
    covers: tuple[str, ...]
    hashes: tuple[str, ...]
    catalogue: tuple[str, ...]
    claims: tuple[str, ...] = ()


def resolve(dotted: str):
    """The object named by ``package.module.attr[.attr...]``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"cannot resolve {dotted!r}")


def source_hash(dotted: str) -> str:
    """First 16 hex digits of the SHA-256 of the source of ``dotted``."""
    source = inspect.getsource(resolve(dotted))
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def load_proofs(directory: Path = PROOFS_DIR) -> list[Proof]:
    proofs = []
    for path in sorted(directory.glob("*.md")):
        if path.name == "README.md":
            continue
        text = path.read_text(encoding="utf-8")
        first = text.splitlines()[0] if text else ""
        proofs.append(Proof(path, first.lstrip("# ").strip(), tuple(_COVERS.findall(text)),
                            tuple(_HASH.findall(text)), tuple(_CATALOGUE.findall(text)),
                            tuple(_CLAIM.findall(text))))
    return proofs


def stale(proof: Proof) -> list[str]:
    """Problems with one proof: missing header lines, unresolvable names, changed code."""
    problems = []
    if not proof.title:
        problems.append("no title line")
    if not proof.covers:
        problems.append("no '- covers: `dotted.name`' line")
    if len(proof.hashes) != len(proof.covers):
        problems.append(f"{len(proof.covers)} covers lines but {len(proof.hashes)} source-hash lines")
    for dotted, pinned in zip(proof.covers, proof.hashes):
        try:
            now = source_hash(dotted)
        except (ImportError, AttributeError, TypeError, OSError) as e:
            problems.append(f"covers {dotted!r}, which cannot be read: {e}")
            continue
        if now != pinned:
            problems.append(f"the source of {dotted} changed (pinned {pinned}, now {now}): "
                            f"re-check the argument, then run python -m exactdp._proofs hash {dotted}")
    return problems


def _main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "hash":
        for dotted in argv[1:]:
            print(f"- covers: `{dotted}`\n- source-hash: `{source_hash(dotted)}`")
        return 0
    if argv == ["check"]:
        bad = 0
        for proof in load_proofs():
            for problem in stale(proof):
                bad += 1
                print(f"{proof.path.name}: {problem}")
        return 1 if bad else 0
    print("usage: python -m exactdp._proofs hash DOTTED.NAME... | check", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main(sys.argv[1:]))
