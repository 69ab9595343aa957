"""Dask connections (the optional extra ``exactdp[dask]``): a ``distributed.Client`` for
``cluster="local"`` (an embedded LocalCluster), a scheduler address or a given client.

A ``Client`` is a ``concurrent.futures.Executor`` for :mod:`.backends`: the partitions of
a plan are submitted to it exactly as to a process pool. Addresses are checked, and the
scheduler's handshake read, before Dask itself is asked to connect (it waited without a
limit on an HTTP server), so a wrong address is refused in one line.
"""

from __future__ import annotations

from contextlib import contextmanager, suppress

from exactdp import _optional
from exactdp.errors import InvalidArgument

__all__ = ["CONNECT_TIMEOUT", "open_client", "check_address", "worker_count", "check_picklable",
           "distributed_module", "MISSING"]

CONNECT_TIMEOUT = 3
"""Seconds to wait for a scheduler to answer (``cluster="tcp://host:8786"``)."""


MISSING = "the Dask engine needs dask.distributed"


def distributed_module():
    """``dask.distributed``, or :class:`~exactdp.errors.MissingDependency` naming the dask extra."""
    return _optional.require("distributed", library="dask[distributed]", extra="dask", note=MISSING)


ACCEPTED = "tcp://HOST:PORT or HOST:PORT, such as tcp://127.0.0.1:8786"
"""The scheduler addresses accepted (TLS, UCX, websockets and inproc need set-up exactdp
does not do: a security object, UCX-Py, or the same process)."""

HANDSHAKE_MAX = 1 << 20
"""Most bytes a scheduler's first message (its handshake, about 60 bytes) may announce;
anything larger is not a Dask scheduler (an HTTP server's ``HTTP/1.1`` read as a length
announces 3.5e18 bytes, which Dask itself tried to allocate)."""


def check_address(address: str) -> tuple[str, str, int]:
    """``(tcp://host:port, host, port)`` from a scheduler address, refused in one line
    unless it is ``tcp://HOST:PORT`` or ``HOST:PORT`` (IPv6 hosts in brackets)."""
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme.lower() != "tcp":
        raise InvalidArgument(
            f"scheduler address {address!r}: {scheme}:// is not supported here; pass "
            f"{ACCEPTED}"
        )
    if rest.startswith("["):
        host, close, tail = rest[1:].partition("]")
        port_text = tail[1:] if close and tail.startswith(":") else None
    else:
        host, colon, port_text = rest.rpartition(":")
        port_text = port_text if colon else None
    if (not host or port_text is None or not port_text.isascii() or not port_text.isdigit()
            or not 0 < int(port_text) < 65536 or any(c in host for c in "/ @?#")):
        raise InvalidArgument(
            f"scheduler address {address!r} is not HOST:PORT with a port 1..65535; pass "
            f"{ACCEPTED}"
        )
    return f"tcp://{rest}", host, int(port_text)


def _handshake(host: str, port: int, seconds: float) -> str | None:
    """Read a Dask server's first message (it speaks first) at ``host:port`` within
    ``seconds``; ``None`` when it is a Dask handshake, else why not (a few words)."""
    import socket
    import struct
    import threading
    import time

    outcome: list[str | None] = []
    deadline = time.monotonic() + seconds

    def receive(s, n: int) -> bytes:
        data = b""
        while len(data) < n:
            s.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = s.recv(min(n - len(data), 65536))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def probe() -> None:
        why: str | None = "no connection"
        try:
            with socket.create_connection((host, port), timeout=seconds) as s:
                why = "connected, but nothing was sent (a Dask scheduler speaks first)"
                (n,) = struct.unpack("Q", receive(s, 8))
                why = "it answered, but not in the Dask protocol"
                if 0 < n <= HANDSHAKE_MAX:
                    from distributed.protocol.core import loads
                    from distributed.protocol.utils import unpack_frames

                    message = loads(unpack_frames(receive(s, n)))
                    if isinstance(message, dict) and "pickle-protocol" in message:
                        why = None
        except socket.gaierror:
            why = f"host {host!r} not found"
        except ConnectionRefusedError:
            why = "connection refused"
        except (TimeoutError, socket.timeout):
            pass  # no connection, nothing said, or what was said so far was not Dask's
        except EOFError:
            why = "the connection was closed without a Dask handshake"
        except Exception as e:  # noqa: BLE001 - bytes that are not Dask's, a reset, a bad route
            if why == "no connection":
                why = f"the connection failed: {type(e).__name__}"
            elif why is None or why.startswith("connected"):
                why = "it answered, but not in the Dask protocol"
        outcome.append(why)

    worker = threading.Thread(target=probe, name="exactdp-dask-probe", daemon=True)
    worker.start()
    worker.join(seconds + 0.5)  # a name lookup does not honour the socket's timeout
    return outcome[0] if outcome else "no answer"  # still resolving the host or connecting


def _unanswered(address: str, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"no Dask scheduler answered at {address!r} within {CONNECT_TIMEOUT} s ({why}); start "
        f"one with `dask scheduler` (it listens on port 8786; 8787 is its dashboard) and "
        f"workers with `dask worker ADDRESS`, or use an embedded cluster (--dask, or "
        f"cluster='local' in Python)"
    )


@contextmanager
def open_client(cluster: object, workers: int):
    """A ``distributed.Client`` for ``cluster``: ``"local"`` starts an embedded LocalCluster
    of ``workers`` processes (closed afterwards), an address ``"tcp://host:8786"`` or
    ``"host:8786"`` connects to a running scheduler (refused in one line unless a Dask
    scheduler answers within :data:`CONNECT_TIMEOUT` seconds), a ``Client`` is used as given."""
    if isinstance(cluster, str) and cluster.strip() and cluster != "local":
        address, host, port = check_address(cluster)  # before importing Dask (about 1 s)
    distributed = distributed_module()
    if isinstance(cluster, distributed.Client):
        yield cluster
        return
    if not isinstance(cluster, str) or not cluster.strip():
        raise InvalidArgument(
            f"cluster={cluster!r} is not a cluster; pass 'local' (an embedded LocalCluster), a "
            f"scheduler address such as 'tcp://host:8786', or a distributed.Client"
        )
    if cluster == "local":
        import logging

        import dask

        # Dask's workers return freed memory to the system at 64 KiB (MALLOC_TRIM_THRESHOLD_),
        # so every large NumPy temporary is mapped and faulted in afresh (the partitions ran
        # 2x slower than in a process pool here), and sample every task's stack every 10 ms.
        # An embedded cluster lives for one run: neither is needed.
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                              "distributed.worker.profile.enabled": False}):
            local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                             processes=True, dashboard_address=":0",
                                             silence_logs=logging.ERROR)
        try:
            with distributed.Client(local) as client:
                yield client
        finally:
            local.close()
        return
    # Dask's own connect waits without a limit for the handshake (an HTTP server hung it)
    # and reads any 8 bytes as a frame length: the scheduler's handshake is read here first
    why = _handshake(host, port, CONNECT_TIMEOUT)
    if why is not None:
        raise _unanswered(cluster, why)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except Exception as e:  # noqa: BLE001 - any failure to become a client: one line
        raise _unanswered(cluster, f"the client could not register: {type(e).__name__}") from None
    try:
        yield client
    finally:
        client.close()


def worker_count(client) -> int:
    """Workers connected to the scheduler (waiting up to :data:`CONNECT_TIMEOUT` s for one)."""
    n = len(client.scheduler_info()["workers"])
    if n == 0:
        with suppress(Exception):  # a timeout of any flavour: refused below
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        n = len(client.scheduler_info()["workers"])
    if n == 0:
        raise InvalidArgument(
            "the Dask scheduler has no workers; start some with `dask worker ADDRESS`"
        )
    return n


def check_picklable(spec: dict) -> int:
    """Refuse, before any task is sent, a spec the workers could not receive; its size in
    bytes, pickled."""
    try:
        import cloudpickle

        return len(cloudpickle.dumps(spec))
    except Exception as e:  # noqa: BLE001 - any pickling failure
        raise InvalidArgument(
            f"query={spec['query'].name!r} cannot be sent to Dask workers ({type(e).__name__}: "
            f"{e}); define its function at module level in an importable module (installed "
            f"on the workers) or use a built-in query"
        ) from None
