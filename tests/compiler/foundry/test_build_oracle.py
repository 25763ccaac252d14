"""The oracle: the official Foundry CLI unpacks every pack of a built module, and what comes
out equals what lowering produced and what the rule files say (names, ranges, texts, counts)."""

from __future__ import annotations

import html
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from rules_fixture import RULESETS, make_rules

from arbiter.compiler.foundry.build import build_module
from arbiter.compiler.foundry.document_rules import document_problems
from arbiter.compiler.foundry.layout import PACKS, REFERENCE, TABLES
from arbiter.compiler.foundry.lower import lower
from arbiter.compiler.foundry.packs import read_pack
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.foundry.tables import rollable_tables
from arbiter.compiler.model.loader import RULES_ROOT, Ruleset, available_rulesets, load_all

if TYPE_CHECKING:
    # Only a type: importing the fixture's module by the bare name 'conftest' at run time
    # collides with other conftest modules when several test folders are collected together.
    from conftest import FoundryCli

Docs = dict[str, dict[str, Any]]


def unpack_module(module_dir: Path, work: Path, fvtt: FoundryCli) -> dict[str, Docs]:
    """Pack name → the CLI's unpacked documents, after checking they are what we wrote."""
    out = {}
    for pack in PACKS:
        unpacked = fvtt.unpack(module_dir / pack.path, work)
        assert unpacked == fvtt.expected(read_pack(module_dir / pack.path).items())
        assert document_problems(pack.type, unpacked) == []
        out[pack.name] = unpacked
    return out


def assert_matches_lowering(unpacked: dict[str, Docs], rulesets: dict[str, Ruleset]) -> None:
    lowered = lower(rulesets, Renderer())
    for pack in PACKS:
        expected = {}
        for doc in lowered[pack.name]:
            if doc["_key"].startswith("!journal!"):
                doc = {**doc, "categories": []}  # the CLI gives every journal this list
            expected[doc["_key"]] = doc
        assert unpacked[pack.name] == expected


def roll_tables(unpacked: dict[str, Docs], ruleset_id: str) -> dict[str, dict[str, Any]]:
    return {
        d["flags"]["arbiter"]["table"]: d
        for d in unpacked[TABLES.name].values()
        if d["_key"].startswith("!tables!") and d["flags"]["arbiter"]["ruleset"] == ruleset_id
    }


def assert_matches_rules(unpacked: dict[str, Docs], rulesets: dict[str, Ruleset]) -> None:
    """Every rollable table is a RollTable with its rows; every ruleset has its folders and
    its reference journal."""
    for rid, ruleset in rulesets.items():
        tables = roll_tables(unpacked, rid)
        expected = rollable_tables(ruleset.model)
        assert sorted(tables) == sorted(t.id for t in expected)
        for table in expected:
            doc = tables[table.id]
            assert doc["name"] == table.name
            assert [r["range"] for r in doc["results"]] == [list(row.range) for row in table.rows]
            texts = [html.unescape(r["text"].split("<br>")[0]) for r in doc["results"]]
            assert texts == [row.text for row in table.rows]
        title = ruleset.model.ruleset.title
        for pack in PACKS:
            folders = [d for d in unpacked[pack.name].values() if d["_key"].startswith("!folders!")]
            assert title in [f["name"] for f in folders]
        journals = [
            d
            for d in unpacked[REFERENCE.name].values()
            if d["_key"].startswith("!journal!") and d["flags"]["arbiter"]["ruleset"] == rid
        ]
        assert len(journals) == 1
        assert len(journals[0]["pages"]) >= 2


def test_the_cli_unpacks_a_built_module_to_what_the_rule_files_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fvtt: FoundryCli
) -> None:
    root = make_rules(tmp_path, monkeypatch)
    module_dir = build_module(tmp_path / "out", root).module_dir
    unpacked = unpack_module(module_dir, tmp_path / "work", fvtt)
    rulesets = load_all(root)
    assert_matches_lowering(unpacked, rulesets)
    assert_matches_rules(unpacked, rulesets)
    # And straight from the TOML, without our loader in between:
    for rid in RULESETS:
        tables = roll_tables(unpacked, rid)
        for file, key in (("tables.toml", "tables"), ("criticals.toml", "criticals")):
            source = tomllib.loads((root / rid / file).read_text())[key]
            for entry in source:
                doc = tables[entry["id"]]
                assert doc["name"] == entry["name"]
                assert doc["formula"] == entry["die"]
                assert len(doc["results"]) == len(entry["rows"])
                for result, row in zip(doc["results"], entry["rows"], strict=True):
                    assert result["range"] == row["range"]
                    assert result["weight"] == row["range"][1] - row["range"][0] + 1
                    assert html.unescape(result["text"]).startswith(row["text"])
    assert len(unpacked[TABLES.name]) == 2 + 2 * 3  # folders + tables (results are inline)


def test_the_cli_unpacks_the_bundled_rulesets_to_what_the_rule_files_say(
    tmp_path: Path, fvtt: FoundryCli
) -> None:
    bundled = available_rulesets(RULES_ROOT)
    assert bundled == ["combat-styles", "hmk", "karmic"]
    module_dir = build_module(tmp_path / "out").module_dir
    unpacked = unpack_module(module_dir, tmp_path / "work", fvtt)
    rulesets = load_all()
    assert sorted(rulesets) == bundled
    assert_matches_lowering(unpacked, rulesets)
    assert_matches_rules(unpacked, rulesets)
