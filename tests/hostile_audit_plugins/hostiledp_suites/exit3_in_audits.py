"""``audits()`` exits with status 3."""
import sys

DISTRIBUTION = "hostiledp"


def audits():
    sys.exit(3)
