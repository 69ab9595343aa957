"""A tiny project with its own query: the clipped mean of heights (in cm).

Its privacy argument claims a sensitivity for the clipped mean; exactdp checks it.
"""

from fractions import Fraction

LOW, HIGH = 140, 200


def clipped_mean(heights):
    """The mean of heights clipped to [140, 200]; 0 for no heights (a public default).

    >>> clipped_mean((Fraction(130), Fraction(190)))
    Fraction(165, 1)
    """
    if not heights:
        return Fraction(0)
    clipped = [min(max(h, LOW), HIGH) for h in heights]
    return Fraction(sum(clipped)) / len(clipped)


def float_mean(heights):
    """The same mean in floats: exactdp refuses it (it returns a float)."""
    return float(clipped_mean(heights))


def clipped_total(heights):
    """The sum of heights clipped to [140, 200]."""
    return sum(min(max(h, LOW), HIGH) for h in heights)
