"""``audits()`` returns a number."""
DISTRIBUTION = "hostiledp"


def audits():
    return 42
