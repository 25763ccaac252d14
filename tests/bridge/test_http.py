"""The plain HTTP routes on the websocket port, of a server with the bundled rules."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from tests.bridge.support import bundled_config, running


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read()


def fake_module(folder: Path) -> Path:
    """A built module's shape: a manifest and a file in a subfolder."""
    module = folder / "arbiter"
    (module / "scripts").mkdir(parents=True)
    manifest = {"id": "arbiter", "version": "1.0.0", "download": "", "manifest": ""}
    (module / "module.json").write_text(json.dumps(manifest))
    (module / "scripts" / "arbiter.mjs").write_text("export {};\n")
    return module


def test_healthz_reports_the_rulesets_and_connections(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        status, kind, body = get(f"http://127.0.0.1:{srv.server.port}/healthz")
        served = {rid: r.ruleset.content_hash for rid, r in srv.server.rules.served.items()}
        ws, _ = srv.hello()
        connected = json.loads(get(f"http://127.0.0.1:{srv.server.port}/healthz")[2])
        ws.close()
    health = json.loads(body)
    assert (status, kind) == (200, "application/json")
    assert health["ok"] is True and health["connections"] == 0
    assert sorted(health["rulesets"]) == ["combat-styles", "hmk", "karmic"]
    assert health["rulesets"] == served
    assert connected["connections"] == 1


def test_module_json_points_its_download_at_module_zip_on_the_same_host(tmp_path: Path) -> None:
    config = bundled_config(tmp_path, module_dir=fake_module(tmp_path / "out"))
    with running(config) as srv:
        base = f"http://127.0.0.1:{srv.server.port}"
        status, _, body = get(f"{base}/module.json")
        proxied = json.loads(
            get(
                f"{base}/module.json",
                {
                    "X-Forwarded-Proto": "https",
                    "X-Forwarded-Host": "vtt.example",
                    "X-Forwarded-Prefix": "/arbiter/",
                },
            )[2]
        )
        zip_status, zip_kind, data = get(f"{base}/module.zip")
        again = get(f"{base}/module.zip")[2]
        proxied_zip = get(
            f"{base}/module.zip",
            {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "vtt.example"},
        )[2]
    manifest = json.loads(body)
    assert status == 200
    assert manifest["download"] == f"{base}/module.zip"
    assert manifest["manifest"] == f"{base}/module.json"
    assert proxied["download"] == "https://vtt.example/arbiter/module.zip"
    assert (zip_status, zip_kind) == (200, "application/zip")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == ["arbiter/module.json", "arbiter/scripts/arbiter.mjs"]
        packaged = json.loads(archive.read("arbiter/module.json"))
    # The installed copy keeps the packaged manifest: it must say where updates come from.
    assert packaged == manifest
    assert (packaged["manifest"], packaged["download"]) == (
        f"{base}/module.json",
        f"{base}/module.zip",
    )
    with zipfile.ZipFile(io.BytesIO(proxied_zip)) as archive:
        packaged = json.loads(archive.read("arbiter/module.json"))
    assert packaged["download"] == "https://vtt.example/module.zip"
    assert data == again


def test_module_routes_say_so_when_no_module_is_built_and_unknown_paths_are_404(
    tmp_path: Path,
) -> None:
    config = bundled_config(tmp_path, module_dir=tmp_path / "never-built")
    with running(config) as srv:
        base = f"http://127.0.0.1:{srv.server.port}"
        status, _, body = get(f"{base}/module.json")
        missing, _, text = get(f"{base}/admin")
    assert status == 503 and "arbiter build" in json.loads(body)["error"]
    assert missing == 404 and "/healthz" in json.loads(text)["error"]
