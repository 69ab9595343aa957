"""The sample audit plug-in is a project of its own: exactdp's tests install it into a
temporary folder (tests/audits/test_plugins.py) and run it with ``exactdp audit toydp``;
this suite does not collect it."""

collect_ignore_glob = ["*"]
