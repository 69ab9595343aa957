"""Exits the process when imported."""
import sys

DISTRIBUTION = "hostiledp"
sys.exit(0)
