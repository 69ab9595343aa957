"""The sample project is run by tests/test_pytestplugin.py and tests/test_cli_check.py
(in a temporary directory, with pytester), not collected by exactdp's own suite: one of
its tests fails on purpose (a planted wrong claim)."""

collect_ignore_glob = ["*"]
