"""Which TLS context a provider's client gets (`ssl_context_for`): the shared certificate store for https, and for a
plain-http provider one that loads nothing and trusts nothing, so it costs no start-up and fails closed."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.engine.providers._httpx import PROXY_VARIABLES, shared_ssl_context, ssl_context_for


@pytest.fixture(autouse=True)
def no_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_an_https_provider_verifies_against_the_shared_store() -> None:
    context = ssl_context_for("https://api.example.invalid/v1")
    assert context is shared_ssl_context() and context.cert_store_stats()["x509_ca"] > 0


def test_a_plain_http_provider_loads_no_certificate_yet_verifies_strictly() -> None:
    context = ssl_context_for("http://127.0.0.1:8080/v1")
    assert context is not shared_ssl_context()
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname


@pytest.mark.parametrize("name", ["HTTPS_PROXY", "http_proxy", "ALL_PROXY"])
def test_with_a_proxy_in_the_environment_a_plain_http_provider_gets_the_shared_store(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(name, "https://proxy.example.invalid:3128")
    assert ssl_context_for("http://127.0.0.1:8080/v1") is shared_ssl_context()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[int]:
    """A loopback TLS server with a self-signed certificate for 127.0.0.1 (made with the openssl command)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    names = ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), *names],
        check=True,
        capture_output=True,
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])

    def serve() -> None:
        connection, _ = listener.accept()
        try:
            server_context.wrap_socket(connection, server_side=True).close()
        except (ssl.SSLError, OSError):  # the client refused the certificate: what the test expects
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        listener.close()
        thread.join(timeout=10)


def test_tls_through_the_plain_http_context_fails_closed(tls_server: int) -> None:
    context = ssl_context_for("http://127.0.0.1:8080/v1")
    raw = socket.create_connection(("127.0.0.1", tls_server), timeout=10)
    with raw, pytest.raises(ssl.SSLCertVerificationError):
        context.wrap_socket(raw, server_hostname="127.0.0.1")
