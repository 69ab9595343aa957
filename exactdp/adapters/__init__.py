"""Adapters to real DP libraries: read their claims at exact binary values, model their
float arithmetic bit for bit, enumerate their own functions and replay witnesses through them.

One module per library (``opendp``, ``diffprivlib``, ``tumult``), each behind its own extra;
a module imports its library inside the functions that need it, so importing the adapter
never fails, and a missing library raises :class:`~exactdp.errors.MissingDependency` naming
the extra to install.
"""
