"""The server builds the module if stale, serves it, and rebuilds it on a rule change."""

from __future__ import annotations

import io
import json
import time
import urllib.request
import zipfile
from pathlib import Path

from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.loader import available_rulesets, load_ruleset
from tests.bridge.support import receive, running, tiny_config


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def test_serve_builds_the_module_serves_it_and_rebuilds_it_when_the_rules_change(
    tmp_path: Path,
) -> None:
    [first, *_] = available_rulesets()
    meta = load_ruleset(first).model.ruleset
    overlay = tmp_path / "house"
    (overlay / first).mkdir(parents=True)
    module_dir = tmp_path / "out" / "arbiter"
    config = tiny_config(
        tmp_path,
        rules=RuleSource(overlay=overlay),
        module_dir=module_dir,
        build=True,
        reload_interval=0.1,
    )
    with running(config) as srv:
        base = f"http://127.0.0.1:{srv.server.port}"
        manifest = get_json(f"{base}/module.json")
        assert (module_dir / "module.json").is_file(), "the server built the module at start"
        assert manifest["id"] == "arbiter"
        assert manifest["download"] == f"{base}/module.zip"
        with urllib.request.urlopen(f"{base}/module.zip", timeout=10) as resp:
            archive = zipfile.ZipFile(io.BytesIO(resp.read()))
        assert json.loads(archive.read("arbiter/module.json"))["version"] == manifest["version"]

        ws, _ = srv.hello(events=["rules"])
        (overlay / first / "ruleset.toml").write_text(
            f'[ruleset]\nid = "{first}"\ntitle = "{meta.title} (house)"\nversion = "{meta.version}.1"\n'
        )
        event = receive(ws, timeout=60)
        ws.close()
        assert event["event"] == "rules_updated"
        assert event["rulesets"][first]["version"] == f"{meta.version}.1"
        rebuilt = get_json(f"{base}/module.json")
        assert rebuilt["version"] != manifest["version"]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{base}/module.zip", timeout=10) as resp:
                zipped = zipfile.ZipFile(io.BytesIO(resp.read()))
            if json.loads(zipped.read("arbiter/module.json"))["version"] == rebuilt["version"]:
                break
        else:
            raise AssertionError("module.zip still holds the old module")
