"""The built module.json follows Foundry's manifest rules; the validator catches each breach."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from rules_fixture import make_rules

from arbiter.compiler.foundry.build import build_module
from arbiter.compiler.foundry.manifest_rules import check, manifest_problems


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("manifest")
    with pytest.MonkeyPatch.context() as mp:
        root = make_rules(tmp, mp)
        return build_module(tmp / "out", root).module_dir


def manifest(module_dir: Path) -> dict[str, Any]:
    return json.loads((module_dir / "module.json").read_text())


def test_the_built_manifest_passes_foundrys_rules(built: Path) -> None:
    assert manifest_problems(built) == []


def test_the_manifest_targets_v12_to_v14_with_no_maximum(built: Path) -> None:
    data = manifest(built)
    assert data["id"] == "arbiter" and built.name == "arbiter"
    assert data["compatibility"] == {"minimum": "12", "verified": "14"}
    assert data["socket"] is True
    assert data["esmodules"] == ["scripts/arbiter.mjs"]
    assert data["styles"] == ["styles/arbiter.css"]
    assert [p["name"] for p in data["packs"]] == ["tables", "reference", "macros"]
    assert [p["type"] for p in data["packs"]] == ["RollTable", "JournalEntry", "Macro"]
    assert all(
        p["ownership"] == {"PLAYER": "OBSERVER", "ASSISTANT": "OWNER"} for p in data["packs"]
    )
    assert data["packFolders"][0]["packs"] == ["tables", "reference", "macros"]


def test_the_manifest_records_each_rulesets_version_and_hash(built: Path) -> None:
    rules = manifest(built)["flags"]["arbiter"]["rules"]
    assert sorted(rules) == ["tiny", "wee"]
    assert rules["tiny"]["version"] == "1.2.0"
    assert len(rules["tiny"]["hash"]) == 64


BREACHES = [
    (lambda m: m.update(id="ar.biter"), "may hold only letters"),
    (lambda m: m.update(id="con"), "reserved file name"),
    (lambda m: m.update(title=""), "title: required"),
    (lambda m: m.update(version='1.0"'), "contains one of"),
    (lambda m: m["compatibility"].update(maximum="13"), "compatibility.maximum: set"),
    (lambda m: m["packs"][0].update(name="rule.tables"), "no periods"),
    (lambda m: m["packs"][1].update(name="tables"), "is used twice"),
    (lambda m: m["packs"][1].update(path="packs/tables"), "path: 'packs/tables' is used twice"),
    (lambda m: m["packs"][0].update(type="Weapon"), "not a compendium document type"),
    (lambda m: m["packs"][0].update(type="Item"), "system: required for Item packs"),
    (lambda m: m["packs"][0].update(ownership={}), "hidden even from GMs"),
    (lambda m: m["packs"][0].update(ownership={"PLAYER": "READ"}), "not a role and a level"),
    (lambda m: m["packs"][0].update(path="packs/missing"), "not a LevelDB folder"),
    (lambda m: m.update(esmodules=["scripts/missing.mjs"]), "not a file of the module"),
    (lambda m: m["packFolders"][0]["packs"].append("ghost"), "'ghost' is not a pack"),
    (lambda m: m.pop("version"), "version: required"),
]


@pytest.mark.parametrize(("breach", "expected"), BREACHES)
def test_the_validator_catches_each_breach(built: Path, breach: Any, expected: str) -> None:
    data = copy.deepcopy(manifest(built))
    breach(data)
    problems = check(data, built)
    assert any(expected in p for p in problems), problems


def test_the_validator_checks_the_folder_name(built: Path, tmp_path: Path) -> None:
    assert any("differs from the folder name" in p for p in check(manifest(built), tmp_path))
