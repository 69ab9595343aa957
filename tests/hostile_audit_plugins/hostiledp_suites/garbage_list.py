"""``audits()`` returns a list of things that are not audits."""
DISTRIBUTION = "hostiledp"


def audits():
    return [1, "x", None]
