"""Dask scheduler addresses (issue 16): every address that is not a Dask scheduler is
refused in one line naming it, within a few seconds, from the API and from the CLI.

Before: a port answering HTTP 403 gave a traceback ("Unable to allocate 3.07 EiB": Dask
read ``HTTP/1.1`` as a frame length) or ``struct.error``; a plain HTTP server hung the run
(Dask's handshake has no time limit); ``tls://`` and ``ucx://`` gave TypeError tracebacks."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading

import pytest

from exactdp import IntegerRange, Multisets, sensitivity
from exactdp.engine import cluster as _dask
from exactdp.errors import InvalidArgument

SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))
ARGV = ["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2"]
UNANSWERED = "no Dask scheduler answered at "


@pytest.fixture
def http_port():
    """A plain HTTP server on a free port (it waits for a request: Dask's client spoke
    first and then waited for an answer forever)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def forbidden_port():
    """A socket that answers every connection with the bytes of an HTTP 403 at once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn, contextlib.suppress(OSError):
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()


# -- the scheme and form, checked before anything connects ------------------------------

@pytest.mark.parametrize("address, said", [
    ("tls://127.0.0.1:8786", "tls:// is not supported here"),
    ("ucx://127.0.0.1:8786", "ucx:// is not supported here"),
    ("ws://127.0.0.1:8786", "ws:// is not supported here"),
    ("inproc://127.0.0.1/1/1", "inproc:// is not supported here"),
    ("localhost", "is not HOST:PORT with a port 1..65535"),
    ("tcp://127.0.0.1:0", "is not HOST:PORT with a port 1..65535"),
    ("tcp://127.0.0.1:99999", "is not HOST:PORT with a port 1..65535"),
    ("tcp://:8786", "is not HOST:PORT with a port 1..65535"),
    ("tcp://host/path:8786", "is not HOST:PORT with a port 1..65535"),
])
def test_address_refused_before_connecting(address, said):
    with pytest.raises(InvalidArgument) as e:
        sensitivity("sum", SPACE, cluster=address)
    text = str(e.value)
    assert said in text and repr(address) in text
    assert "pass tcp://HOST:PORT or HOST:PORT, such as tcp://127.0.0.1:8786" in text


@pytest.mark.parametrize("address, expected", [
    ("tcp://127.0.0.1:8786", ("tcp://127.0.0.1:8786", "127.0.0.1", 8786)),
    ("127.0.0.1:8786", ("tcp://127.0.0.1:8786", "127.0.0.1", 8786)),
    (" TCP://host.example:1 ", ("tcp://host.example:1", "host.example", 1)),
    ("tcp://[::1]:8786", ("tcp://[::1]:8786", "::1", 8786)),
])
def test_accepted_addresses(address, expected):
    assert _dask.check_address(address) == expected


@pytest.mark.parametrize("address", ["tls://127.0.0.1:8786", "ucx://127.0.0.1:8786"])
def test_cli_scheme_refused_in_one_line(cli_run, address):
    code, out, err = cli_run(*ARGV, "--scheduler", address)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("exactdp") and f"scheduler address {address!r}" in err


# -- something answers, but not a Dask scheduler -----------------------------------------

def _needs_distributed():  # the handshake is decoded with distributed's protocol
    pytest.importorskip("distributed")


def test_http_server_refused_not_hung(http_port, hang_guard):
    _needs_distributed()
    address = f"tcp://127.0.0.1:{http_port}"
    with hang_guard(30), pytest.raises(InvalidArgument) as e:
        sensitivity("sum", SPACE, cluster=address)
    text = str(e.value)
    assert text.startswith(f"{UNANSWERED}{address!r} within 3 s (connected, but nothing was sent")
    assert "cluster=" not in text.split(";")[0]


def test_cli_http_server_one_line(cli_run, http_port, hang_guard):
    _needs_distributed()
    with hang_guard(30):
        code, out, err = cli_run(*ARGV, "--scheduler", f"127.0.0.1:{http_port}")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{UNANSWERED}'127.0.0.1:{http_port}' within 3 s" in err


def test_403_bytes_refused(forbidden_port, hang_guard):
    _needs_distributed()
    address = f"127.0.0.1:{forbidden_port}"
    with hang_guard(30), pytest.raises(InvalidArgument) as e:
        sensitivity("sum", SPACE, cluster=address)
    assert str(e.value).startswith(
        f"{UNANSWERED}{address!r} within 3 s (it answered, but not in the Dask protocol)")


def test_cli_403_bytes_one_line(cli_run, forbidden_port, hang_guard):
    _needs_distributed()
    with hang_guard(30):
        code, out, err = cli_run(*ARGV, "--scheduler", f"tcp://127.0.0.1:{forbidden_port}")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err and "EiB" not in err
    assert "(it answered, but not in the Dask protocol)" in err
    assert "start one with `dask scheduler`" in err


def test_huge_frame_length_not_allocated(hang_guard):
    """A server whose first 8 bytes announce 2**62 bytes is refused without reading them."""
    _needs_distributed()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve():
        conn, _ = listener.accept()
        with conn, contextlib.suppress(OSError):  # the probe closes without reading on
            conn.sendall((2**62).to_bytes(8, "little") + b"x" * 64)
            conn.recv(1)

    threading.Thread(target=serve, daemon=True).start()
    try:
        with hang_guard(30):
            why = _dask._handshake("127.0.0.1", listener.getsockname()[1], _dask.CONNECT_TIMEOUT)
    finally:
        listener.close()
    assert why == "it answered, but not in the Dask protocol"


def test_nothing_listening_names_the_reason(hang_guard):
    _needs_distributed()
    with socket.socket() as s:  # a port that was free a moment ago
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with hang_guard(30), pytest.raises(InvalidArgument, match=r"within 3 s \(connection refused\)"):
        sensitivity("sum", SPACE, cluster=f"127.0.0.1:{port}")


# -- wording right for the API and the CLI ------------------------------------------------

def test_sequences_refusal_names_both_ways(cli_run):
    _needs_distributed()
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..2", "--sizes",
                             "0..2", "--neighbors", "insert-delete", "--dask")
    assert code == 2 and err.count("\n") == 1
    assert "(drop --dask/--scheduler, or cluster= in Python)" in err
    assert "cluster='local'" not in err
