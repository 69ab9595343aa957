"""Mechanism models: exact output distributions of what a mechanism (or a library's sampler,
as its code is written) draws, each registered under its CLI name."""
