"""Mechanisms: exact privacy maps and parameters that never underestimate.

One module per family. Public names are re-exported here once the modules settle.
"""
