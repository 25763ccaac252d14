"""``arbiter serve --certfile --keyfile`` (wss:// and https:// on one port) and ``--public-url``
(the addresses a remote Foundry server fetches the module from), with a certificate made here."""

from __future__ import annotations

import datetime
import io
import ipaddress
import json
import ssl
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from websockets.sync.client import connect

from tests.bridge.support import bundled_config, bundled_request, hello_message, running
from tests.bridge.test_http import fake_module

PUBLIC = "https://arbiter.example.com/vtt"


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and ``127.0.0.1`` and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return make_certificate(tmp_path / "tls")


def trusting(cert: Path) -> ssl.SSLContext:
    """A client context that trusts exactly the test's certificate (and checks the host)."""
    return ssl.create_default_context(cafile=str(cert))


def https_get(url: str, cert: Path, headers: dict[str, str] | None = None) -> bytes:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=5, context=trusting(cert)) as response:
        return response.read()


def test_a_wss_client_gets_an_outcome_from_a_server_given_a_certificate(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    with running(bundled_config(tmp_path, certfile=cert, keyfile=key)) as srv:
        url = f"wss://localhost:{srv.server.port}"
        with connect(url, ssl=trusting(cert), open_timeout=5) as ws:
            ws.send(json.dumps(hello_message(srv.server.secret)))
            assert json.loads(ws.recv(5))["type"] == "welcome"
            ws.send(json.dumps(bundled_request("tls-1", "check", {"skill": 60})))
            reply = json.loads(ws.recv(5))
    assert reply["type"] == "outcome"
    assert reply["outcome"]["id"] == "tls-1" and reply["outcome"]["result"]["kind"] == "check"


def test_a_plain_ws_client_gets_no_session_from_a_tls_port(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    with running(bundled_config(tmp_path, certfile=cert, keyfile=key)) as srv:
        with pytest.raises(Exception) as refused:
            connect(f"ws://127.0.0.1:{srv.server.port}", open_timeout=3).close()
        health = json.loads(https_get(f"https://127.0.0.1:{srv.server.port}/healthz", cert))
    assert not isinstance(refused.value, AssertionError)
    assert health["connections"] == 0


def test_https_module_json_names_the_public_url_whatever_host_the_request_names(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    config = bundled_config(
        tmp_path,
        certfile=cert,
        keyfile=key,
        public_url=PUBLIC,
        module_dir=fake_module(tmp_path / "out"),
    )
    with running(config) as srv:
        base = f"https://localhost:{srv.server.port}"
        plain = json.loads(https_get(f"{base}/module.json", cert))
        forged = json.loads(
            https_get(
                f"{base}/module.json",
                cert,
                {"Host": "evil.example", "X-Forwarded-Host": "evil.example"},
            )
        )
        zipped = https_get(f"{base}/module.zip", cert, {"Host": "evil.example"})
    for manifest in (plain, forged):
        assert manifest["manifest"] == f"{PUBLIC}/module.json"
        assert manifest["download"] == f"{PUBLIC}/module.zip"
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        packaged = json.loads(archive.read("arbiter/module.json"))
    assert packaged["manifest"] == f"{PUBLIC}/module.json"
    assert packaged["download"] == f"{PUBLIC}/module.zip"


def test_without_a_public_url_a_tls_port_names_its_own_https_addresses(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    config = bundled_config(
        tmp_path, certfile=cert, keyfile=key, module_dir=fake_module(tmp_path / "out")
    )
    with running(config) as srv:
        base = f"https://localhost:{srv.server.port}"
        manifest = json.loads(https_get(f"{base}/module.json", cert))
    assert manifest["manifest"] == f"{base}/module.json"
    assert manifest["download"] == f"{base}/module.zip"


def test_a_certificate_that_cannot_be_read_stops_serve_naming_the_file(tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not a certificate\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arbiter.bridge.cli",
            "serve",
            "--port",
            "0",
            "--no-build",
            "--data",
            str(tmp_path / "data"),
            "--certfile",
            str(cert),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"cannot use the certificate {cert}" in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("arbiter.example.com", "is not an http:// or https:// address"),
        ("ftp://arbiter.example.com", "is not an http:// or https:// address"),
        ("https://arbiter.example.com/?x=1", "no query"),
    ],
)
def test_a_public_url_that_is_not_an_http_address_is_refused_with_its_reason(
    tmp_path: Path, url: str, problem: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.bridge.cli", "serve", "--no-build", "--public-url", url],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert problem in done.stderr, done.stderr
