"""``audits()`` returns no audits."""
DISTRIBUTION = "hostiledp"


def audits():
    return []
