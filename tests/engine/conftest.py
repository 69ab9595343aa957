"""Fixtures of the engine's backend tests."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture(scope="module")
def client():
    """A 2-worker Dask LocalCluster's client, one per test module (about 2 s to start)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
