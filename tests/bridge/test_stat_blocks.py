"""Stat-block schemas: the ones in docs (and so in the module) are the models' own, and the
problems they report are the server's messages, field by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.stat_blocks import problems, schema, schema_text, schemas
from arbiter.compiler.model.common import Bound
from arbiter.compiler.model.loader import load_all
from tests.bridge.engine.rule_edits import edited

ROOT = Path(__file__).resolve().parents[2]


def test_the_stat_block_schemas_in_docs_are_the_ones_the_models_generate() -> None:
    for rel, value in schemas().items():
        on_disk = (ROOT / "docs" / "schemas" / rel).read_text(encoding="utf-8")
        assert on_disk == schema_text(value), (
            f"run `python -m arbiter.bridge.stat_blocks docs/schemas` ({rel})"
        )


def test_each_schema_lists_the_fields_in_the_models_order_with_where_to_pick_gear() -> None:
    hmk = json.loads(schema_text(schemas()["stat-blocks/hmk.schema.json"]))
    assert list(hmk["properties"])[:4] == ["id", "name", "party", "attributes"]
    assert hmk["properties"]["weapon"]["x-arbiter-values"] == ["weapons"]
    assert hmk["required"] == ["id", "attributes", "ip"]
    styles = schemas()["stat-blocks/combat-styles.schema.json"]
    assert styles["properties"]["armor"]["x-arbiter-keys"] == ["hit_locations"]
    # The JSON keys a request carries (aliases), not the Python names.
    assert list(styles["$defs"]["Characteristics"]["properties"])[:2] == ["str", "con"]


def test_problems_name_each_bad_field_with_the_message_a_refused_request_carries() -> None:
    block = {"id": "ana", "attributes": {"STR": 55, "DEX": "60", "AGL": 50, "HEA": 44,
             "INT": 50, "AWA": 45}, "ip": 0, "hand": "middle"}  # fmt: skip
    # Under the served rules, as a request is read: the bounds are the data's stat_block_limits.
    served = {rid: ruleset.model for rid, ruleset in load_all().items()}
    assert problems("hmk", block, served) == [
        ("attributes.DEX", "Input should be a valid integer"),
        ("ip", "Input should be greater than or equal to 1"),
        ("hand", "Input should be 'left' or 'right'"),
    ]


def test_a_good_stat_block_has_no_problems_in_any_ruleset() -> None:
    assert (
        problems("karmic", {"id": "devon", "name": "Devon", "side": "heroes", "vitality": 10}) == []
    )
    assert problems("combat-styles", {"id": "v", "characteristics": {"str": 1, "con": 1, "siz": 1,
                    "dex": 1, "int": 1}}) == []  # fmt: skip


def _schema_has(ruleset: str, path: str) -> bool:
    """Whether the dotted ``path`` names a property of ``ruleset``'s stat-block JSON Schema
    (what the client's stat-block editor writes as each input's ``data-field``)."""
    root = schema(ruleset)
    node: dict[str, Any] = root
    for key in path.split("."):
        if "$ref" in node:
            node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        props = node.get("properties", {})
        if key not in props:
            return False
        node = props[key]
    return True


def test_a_left_out_characteristic_s_problem_names_the_key_a_written_one_s_problem_names() -> None:
    # Under a house characteristics min of 1, CHA written 0 and CHA left out (default 0) are the
    # same breach, at the key the block writes and the editor marks (data-field
    # "characteristics.cha"), not pydantic's field name (CHA); the left-out one says so.
    served = {rid: ruleset.model for rid, ruleset in load_all().items()}
    house = edited(
        served["combat-styles"], "stat_block_limits.characteristics", Bound(min=1, max=200)
    )
    models = {**served, "combat-styles": house}
    block: dict[str, Any] = {
        "id": "x",
        "characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10, "int": 10, "pow": 10},
    }
    left_out = problems("combat-styles", block, models)
    block["characteristics"]["cha"] = 0
    written = problems("combat-styles", block, models)
    assert written == [("characteristics.cha", "Input should be greater than or equal to 1")]
    assert _schema_has("combat-styles", "characteristics.cha")
    assert left_out == [
        (
            "characteristics.cha",
            "left out, its default 0 is outside the served bound: "
            "Input should be greater than or equal to 1",
        )
    ]
