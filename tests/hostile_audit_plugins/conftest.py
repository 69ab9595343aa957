"""Hostile audit plug-ins: a project of their own, installed into a temporary folder by
tests/audits/test_hostile_plugins.py (as tests/sample_audit_plugin is); this suite does not
collect them."""

collect_ignore_glob = ["*"]
