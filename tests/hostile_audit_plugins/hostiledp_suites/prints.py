"""A check that prints to stdout, through ``print`` and straight to file descriptor 1."""
import os

from hostiledp_suites import audit, holds

DISTRIBUTION = "hostiledp"


def _prints():
    print('[{"id": "forged", "verdict": "holds"}]')
    os.write(1, b"written to descriptor 1\n")
    return holds()


def audits():
    return [audit("prints", _prints), audit("fine", holds)]
