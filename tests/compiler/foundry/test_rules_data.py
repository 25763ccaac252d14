"""``data/rules.json``: the rule data the client's dialogs read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_fixture import make_rules

from arbiter.compiler.foundry.layout import TABLES
from arbiter.compiler.foundry.lower import lower
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.foundry.rules_data import rules_data, rules_json
from arbiter.compiler.model.loader import load_all


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_rules(tmp_path, monkeypatch)


def test_each_ruleset_carries_its_meta_actions_tables_and_data(rules_root: Path) -> None:
    rulesets = load_all(rules_root)
    data = rules_data(rulesets)
    assert data["module"] == "arbiter"
    tiny = data["rulesets"]["tiny"]
    assert (tiny["title"], tiny["version"]) == ("Tiny Rules", "1.2.0")
    assert tiny["hash"] == rulesets["tiny"].content_hash
    assert tiny["actions"] == [{"id": "tables", "function": "tables.choose", "arguments": ["tiny"]}]
    assert [w["name"] for w in tiny["data"]["weapons"]] == ["Dagger", "Club"]
    assert tiny["data"]["weapons"][1]["assumed"] is True
    assert [t["id"] for t in tiny["tables"]] == ["fumble", "location", "critical"]
    assert tiny["tables"][2] == {
        "id": "critical",
        "name": "Critical success",
        "die": "1d100",
        "formula": "1d100",
        "uuid": tiny["tables"][2]["uuid"],
    }


def test_tables_are_named_by_the_uuid_of_their_roll_table_not_copied(rules_root: Path) -> None:
    rulesets = load_all(rules_root)
    tiny = rules_data(rulesets)["rulesets"]["tiny"]
    table_ids = {
        d["flags"]["arbiter"]["table"]: d["_id"]
        for d in lower(rulesets, Renderer())[TABLES.name]
        if "results" in d and d["flags"]["arbiter"]["ruleset"] == "tiny"
    }
    for ref in tiny["tables"]:
        assert ref["uuid"] == f"Compendium.arbiter.tables.RollTable.{table_ids[ref['id']]}"
    assert tiny["data"]["tables"][0] == {"table": "fumble", "uuid": tiny["tables"][0]["uuid"]}
    assert "rows" not in json.dumps(tiny["data"])


def test_the_json_is_compact_utf8_with_a_trailing_newline(rules_root: Path) -> None:
    raw = rules_json(load_all(rules_root))
    assert raw.endswith(b"}\n") and b"\n" not in raw[:-1]
    assert json.loads(raw) == rules_data(load_all(rules_root))
