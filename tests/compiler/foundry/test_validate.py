"""The build checks what it wrote before swapping it in: a module breaking Foundry's document or
manifest rules, or using a translation key it does not ship, is refused with the document, field
or key named, and the previous module stays exactly as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rules_fixture import SIZES, make_rules

from arbiter.bridge.cli import main
from arbiter.compiler.foundry import build, command
from arbiter.compiler.foundry.build import STAMP, build_module
from arbiter.compiler.foundry.publish import BUILD_LOCK
from arbiter.compiler.foundry.render import TEMPLATES_ROOT
from arbiter.compiler.foundry.validate import ModuleInvalid, module_problems, unpacked


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_rules(tmp_path, monkeypatch)
    monkeypatch.setattr(command, "RULES_ROOT", root)
    return root


def tree(folder: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every file under ``folder``."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def edit_rules(rules_root: Path) -> None:
    """Change an input, so the next build is not skipped as up to date."""
    (rules_root / "wee" / "sizes.toml").write_text(SIZES.replace("rank = 2", "rank = 7"))


def assert_nothing_swapped(out: Path, before: dict[str, str]) -> None:
    assert tree(out / "arbiter") == before
    leftovers = sorted(p.name for p in out.iterdir() if p.name != "arbiter")
    assert leftovers == [BUILD_LOCK]  # no staging folder; no stamp (the next build rebuilds)
    assert STAMP not in leftovers


def test_a_built_module_passes_every_check(tmp_path: Path, rules_root: Path) -> None:
    module_dir = build_module(tmp_path / "out", rules_root).module_dir
    assert module_problems(module_dir) == []
    # Checked under another name, the same folder breaks the manifest's folder rule: the
    # folder name the build passes matters.
    assert module_problems(module_dir, "elsewhere") == [
        "module.json: id: 'arbiter' differs from the folder name 'elsewhere'"
    ]


def test_a_document_breaking_foundrys_rules_stops_the_build_naming_its_key_and_nothing_is_swapped(
    tmp_path: Path, rules_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    good = build_module(out, rules_root)
    before = tree(good.module_dir)
    edit_rules(rules_root)
    lower = build.lower
    keys: list[str] = []

    def lower_badly(*args: Any, **kwargs: Any) -> dict[str, list[dict[str, Any]]]:
        documents = lower(*args, **kwargs)
        table = next(d for d in documents["tables"] if d["_key"].startswith("!tables!"))
        table["name"] = "  "
        keys.append(table["_key"])
        return documents

    monkeypatch.setattr(build, "lower", lower_badly)
    with pytest.raises(ModuleInvalid) as refused:
        build_module(out, rules_root)
    assert refused.value.problems == (f"packs/tables {keys[0]}: name is required",)
    assert "the previous module stays as it was" in str(refused.value)
    assert_nothing_swapped(out, before)
    # Fixed, the same sources build (and are not taken as up to date).
    monkeypatch.setattr(build, "lower", lower)
    assert not build_module(out, rules_root).skipped
    assert tree(out / "arbiter") != before


def test_a_manifest_breaking_foundrys_rules_stops_the_build_naming_the_field(
    tmp_path: Path, rules_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    before = tree(build_module(out, rules_root).module_dir)
    edit_rules(rules_root)
    manifest = build.manifest

    def manifest_badly(*args: Any) -> dict[str, Any]:
        data = manifest(*args)
        data["packs"][1]["ownership"] = {}
        return data

    monkeypatch.setattr(build, "manifest", manifest_badly)
    with pytest.raises(ModuleInvalid) as refused:
        build_module(out, rules_root)
    assert refused.value.problems == (
        "module.json: packs[1].ownership: empty; the pack would be hidden even from GMs",
    )
    assert_nothing_swapped(out, before)


def test_a_script_using_a_translation_key_the_language_file_lacks_stops_the_build(
    tmp_path: Path, rules_root: Path
) -> None:
    out = tmp_path / "out"
    before = tree(build_module(out, rules_root).module_dir)
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES_ROOT, templates)
    status = templates / "module" / "scripts" / "status.mjs"
    status.write_text(status.read_text() + '\nexport const LOST = "ARBITER.Status.Lost";\n')
    with pytest.raises(ModuleInvalid) as refused:
        build_module(out, rules_root, templates=templates)
    assert refused.value.problems == (
        "scripts/status.mjs: translation key 'ARBITER.Status.Lost' is not in lang/en.json",
    )
    assert_nothing_swapped(out, before)


def test_arbiter_build_reports_a_failed_check_and_exits_1(
    tmp_path: Path,
    rules_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    assert main(["build", "--out", str(out)]) == 0
    before = tree(out / "arbiter")
    edit_rules(rules_root)
    manifest = build.manifest
    monkeypatch.setattr(build, "manifest", lambda *a: {**manifest(*a), "id": "ar.biter"})
    assert main(["build", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("arbiter build: nothing swapped in: the built module fails 2 checks")
    assert "  module.json: id: 'ar.biter' may hold only letters" in err
    assert "  module.json: id: 'ar.biter' differs from the folder name 'arbiter'" in err
    assert tree(out / "arbiter") == before


def test_unpacking_puts_embedded_documents_inline_and_reports_a_missing_one() -> None:
    parent = "a" * 16
    child, lost = "b" * 16, "c" * 16
    entries = [
        (f"!tables!{parent}", {"_id": parent, "name": "T", "results": [child, lost]}),
        (f"!tables.results!{parent}.{child}", {"_id": child, "text": "x"}),
    ]
    docs = unpacked(entries)
    assert list(docs) == [f"!tables!{parent}"]
    assert docs[f"!tables!{parent}"]["results"] == [
        {"_id": child, "text": "x", "_key": f"!tables.results!{parent}.{child}"},
        {"_id": lost, "_key": f"!tables.results!{parent}.{lost}"},
    ]


def test_a_broken_language_file_is_named(tmp_path: Path, rules_root: Path) -> None:
    module_dir = build_module(tmp_path / "out", rules_root).module_dir
    copy = tmp_path / "arbiter"
    shutil.copytree(module_dir, copy)
    (copy / "lang" / "en.json").write_text(json.dumps({"ARBITER.Module.Title": 3}))
    assert module_problems(copy) == ["lang/en.json: not a JSON object of strings"]


def test_a_language_key_that_is_both_a_string_and_an_object_is_named(
    tmp_path: Path, rules_root: Path
) -> None:
    module_dir = build_module(tmp_path / "out", rules_root).module_dir
    copy = tmp_path / "arbiter"
    shutil.copytree(module_dir, copy)
    labels = json.loads((copy / "lang" / "en.json").read_text())
    # Main's language file before issue #14: Foundry's expandObject loses one of the two.
    labels["ARBITER.Dialog.Defence.parry"] = "Parry"
    (copy / "lang" / "en.json").write_text(json.dumps(labels))
    assert module_problems(copy) == [
        "lang/en.json: key 'ARBITER.Dialog.Defence' is both a string and an object "
        "('ARBITER.Dialog.Defence.parry')"
    ]


def test_a_key_family_a_card_completes_must_name_at_least_one_label(
    tmp_path: Path, rules_root: Path
) -> None:
    module_dir = build_module(tmp_path / "out", rules_root).module_dir
    copy = tmp_path / "arbiter"
    shutil.copytree(module_dir, copy)
    card = copy / "templates" / "cards" / "unknown.hbs"
    card.write_text(card.read_text() + '{{localize (concat "ARBITER.Nowhere." result.kind)}}\n')
    assert module_problems(copy) == [
        "templates/cards/unknown.hbs: translation key family 'ARBITER.Nowhere.' has no label "
        "in lang/en.json"
    ]
