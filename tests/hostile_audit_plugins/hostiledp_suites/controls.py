"""Ids and claims holding control characters: a screen clear and a forged line."""
from hostiledp_suites import audit, holds

DISTRIBUTION = "hostiledp"


def audits():
    return [audit("clear\x1b[2J", holds, claim="sensitivity 1\nhostiledp/forged [hostiledp 0.1.0] x: HOLDS")]
