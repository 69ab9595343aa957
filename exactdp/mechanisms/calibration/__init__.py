"""Calibration: noise parameters for a target guarantee (and the guarantee of a parameter),
exact or enclosed and rounded toward the safe side, and the utility they cost."""
