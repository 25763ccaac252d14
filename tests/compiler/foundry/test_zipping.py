"""The module zip: the same bytes from the build's ``--zip`` and from the server's route."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from arbiter.bridge.http import ModuleFiles
from arbiter.compiler.foundry.publish import zip_module
from arbiter.compiler.foundry.zipping import module_zip, with_urls


def _module(root: Path) -> Path:
    folder = root / "arbiter"
    (folder / "scripts").mkdir(parents=True)
    (folder / "module.json").write_text(json.dumps({"id": "arbiter", "version": "1.2"}) + "\n")
    (folder / "scripts" / "arbiter.mjs").write_text("export {};\n")
    (folder / "lang").mkdir()
    (folder / "lang" / "en.json").write_text("{}\n")
    return folder


def test_the_build_and_the_server_zip_a_published_module_to_the_same_bytes(tmp_path: Path) -> None:
    folder = _module(tmp_path)
    built = tmp_path / "arbiter.zip"
    zip_module(folder, built, "https://dice.example/arbiter/")
    served = ModuleFiles(folder).zipped("https://dice.example/arbiter")
    assert served == built.read_bytes()


def test_a_module_zip_is_sorted_dated_1980_and_carries_the_published_urls(tmp_path: Path) -> None:
    folder = _module(tmp_path)
    manifest = json.dumps(with_urls({"id": "arbiter"}, "http://h:1/")).encode()
    with zipfile.ZipFile(io.BytesIO(module_zip(folder, manifest))) as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == [
            "arbiter/lang/en.json",
            "arbiter/module.json",
            "arbiter/scripts/arbiter.mjs",
        ]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos} == {0o644}
        zipped = json.loads(archive.read("arbiter/module.json"))
    assert zipped["manifest"] == "http://h:1/module.json"
    assert zipped["download"] == "http://h:1/module.zip"


def test_without_a_public_url_the_zipped_manifest_is_the_files_own(tmp_path: Path) -> None:
    folder = _module(tmp_path)
    built = tmp_path / "arbiter.zip"
    zip_module(folder, built)
    with zipfile.ZipFile(built) as archive:
        assert archive.read("arbiter/module.json") == (folder / "module.json").read_bytes()
    assert module_zip(folder) == built.read_bytes()
