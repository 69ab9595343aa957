"""Audit the objects people have (``exactdp.audit_object(obj)``, ``exactdp audit --object
MODULE:EXPR``): an OpenDP Transformation, Measurement or Odometer, a Tumult Core
transformation or measurement, a diffprivlib mechanism, a dp_accounting ``DpEvent`` or an
Opacus accountant.

Each library has a reader module (:data:`READERS`, chosen by the top-level package of the
object's class, so nothing is imported for an object of another library). A reader
defines ``DISTRIBUTION`` (the library's name on PyPI), ``EXTRA`` (exactdp's extra that
installs it), ``reads(obj) -> bool`` and
``audit_of(obj, **options) -> Audit``: it reads the object's domain, metric and claimed
map from the object itself, chooses a small space of neighbours (``options`` override it;
each reader names the ones it takes), and returns an :class:`~exactdp.audits.base.Audit`
whose check runs the object's own code on them. :func:`audit_object` runs that audit as
the suites' audits run (:func:`exactdp.audits.runner.run_one`): contained, under a time
limit, its violation replayed through the object, its hold carrying its evidence word.

An object no reader takes, or one its reader cannot enumerate or has no model for, is one
line of :class:`~exactdp.errors.InvalidArgument` saying what is missing.
"""

from __future__ import annotations

import importlib
from typing import Any

from exactdp import _optional
from exactdp._alarm import read_seconds
from exactdp.audits import runner
from exactdp.audits.base import Audit, AuditResult
from exactdp.errors import InvalidArgument

__all__ = ["READERS", "audit_object", "reader_of", "object_audit"]

READERS: dict[str, str] = {
    "opendp": "exactdp.audits.objects_opendp",
    "tmlt": "exactdp.audits.objects_tumult",
    "diffprivlib": "exactdp.audits.objects_diffprivlib",
    "dp_accounting": "exactdp.audits.objects_dp_accounting",
    "opacus": "exactdp.audits.objects_opacus",
}
"""Top-level package of an object's class -> the module that reads such objects."""


def _describe(obj: object) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def reader_of(obj: object):
    """The reader module for ``obj`` (see the module's note), or one line of
    :class:`InvalidArgument` naming what exactdp reads."""
    package = type(obj).__module__.split(".")[0]
    name = READERS.get(package)
    module = None
    if name is not None:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
    if module is None or not module.reads(obj):
        raise InvalidArgument(
            f"exactdp cannot read an object of type {_describe(obj)}: it reads OpenDP Transformations, "
            f"Measurements and Odometers, Tumult Core transformations and measurements, diffprivlib "
            f"mechanisms, dp_accounting DpEvents and Opacus accountants; audit another object with "
            f"user_query / library_query (exactdp.glue)")
    return module


def object_audit(obj: object, **options: Any) -> Audit:
    """The :class:`Audit` that :func:`audit_object` runs (its reader's ``audit_of``)."""
    return reader_of(obj).audit_of(obj, **options)


def audit_object(obj: object, *, time_limit: float | None = runner.DEFAULT_TIME_LIMIT, depth: str = "quick",
                 **options: Any) -> AuditResult:
    """Audit one library object: its claimed map against the exact truth on a small space
    of neighbours its reader chooses (``options`` override it: each reader says which it
    takes, e.g. ``d_in``, ``values``, ``sizes``, ``delta``), run on the object's own code.

    Returns the usual :class:`AuditResult` (verdict, witness, replay, evidence, settings,
    severity at ``depth="full"``); a library error during the audit is an ``error`` result
    naming the call. An object no reader takes is one line of :class:`InvalidArgument`."""
    reader = reader_of(obj)
    audit = reader.audit_of(obj, **options)
    version = _optional.version(reader.DISTRIBUTION, reader.EXTRA)  # a library pip does not know: say so
    if time_limit is not None:
        time_limit = read_seconds(time_limit, "time_limit", runner.DEFAULT_TIME_LIMIT)
    return runner.run_one(audit, version, time_limit, depth=depth, strict=False)
