"""Foundry's own Roll button on one of Arbiter's RollTables draws through the server.

The sheet's Roll button calls ``RollTable#draw`` (V12 RollTableConfig, V13+ RollTableSheet);
Foundry has no hook before a draw, so the module wraps the document class's ``draw``,
``drawMany`` and ``roll`` for tables that carry its flags. The table here is the compendium's
own document (``packs/tables`` of the bundled module), loaded into the harness's RollTable
stand-in, which records every die Foundry would roll locally. Against the real ``arbiter
serve``: the draw is logged by the server, posted as Arbiter's card (no Foundry message), no
local die is rolled, and ``draw`` returns the roll and the table's result for the server's
die. Any other table still draws as Foundry does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.compiler.foundry.packs import read_pack
from tests.e2e.support.browser import Page, log_rows
from tests.e2e.support.process import Server, wait_until


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    return bundled_gm


def packed_table(module_dir: Path, ruleset: str, table: str) -> dict[str, Any]:
    """The compendium's RollTable with its embedded results, as Foundry loads it."""
    entries = read_pack(module_dir / "packs" / "tables")
    [doc] = [
        d
        for k, d in entries.items()
        if k.startswith("!tables!")
        and d["flags"].get("arbiter") == {"ruleset": ruleset, "table": table}
    ]
    results = [entries[f"!tables.results!{doc['_id']}.{rid}"] for rid in doc["results"]]
    return {**doc, "results": results}


DRAW = """async (data) => {
  const table = new CONFIG.RollTable.documentClass(data);
  const before = game.messages.size;
  const drawn = await table.draw();  // what the sheet's Roll button calls
  return { total: drawn.roll.total, results: drawn.results.map((r) => r._id),
           local: harness.record.localTableRolls.length, messages: game.messages.size - before };
}"""


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_the_roll_button_of_an_arbiter_table_draws_through_the_server_and_posts_its_card(
    gm: Page, bundled_server: Server, bundled_module: Path, generation: int
) -> None:
    data = packed_table(bundled_module, "hmk", "melee-fumbles")
    drawn = gm.call(DRAW, data)
    [row] = wait_until(lambda: log_rows(bundled_server))
    outcome = json.loads(row["outcome"])
    assert (row["type"], json.loads(row["request"])["body"]) == ("draw", {"table": "melee-fumbles"})
    assert drawn["local"] == 0  # Foundry rolled nothing of its own
    assert drawn["total"] == outcome["result"]["roll"]
    low_high = {r["_id"]: r["range"] for r in data["results"]}
    assert len(drawn["results"]) == 1
    low, high = low_high[drawn["results"][0]]
    assert low <= outcome["result"]["roll"] <= high
    assert drawn["messages"] == 1  # Arbiter's card, not Foundry's table message
    message = gm.call(
        "(id) => game.messages.find((m) => m.flags.arbiter?.outcome?.id === id)?.id",
        row["request_id"],
    )
    card = gm.card(message)
    assert card.locator('[data-field="roll"]').inner_text() == str(outcome["result"]["roll"])
    assert card.locator('[data-field="text"]').inner_text() == outcome["result"]["text"]
    assert gm.problems == []


def test_any_other_table_still_draws_as_foundry_does(gm: Page, bundled_server: Server) -> None:
    data = {
        "_id": "otherTable000001",
        "name": "Weather",
        "formula": "1d2",
        "flags": {},
        "results": [
            {"_id": "sunResult0000001", "range": [1, 1], "text": "Sun"},
            {"_id": "rainResult000001", "range": [2, 2], "text": "Rain"},
        ],
    }
    drawn = gm.call(DRAW, data)
    assert drawn["local"] == 1 and drawn["messages"] == 1
    assert log_rows(bundled_server) == []
    assert gm.problems == []
