"""Stat blocks from the world's game system, in V12, V13 and V14: a HârnMaster 3 actor read by
the hm3 → hmk preset, a Mythras actor by the mythras-foundry → combat-styles preset (fixtures
shaped from those systems' public data models, tests/e2e/fixtures/), and a GM's own mapping
for another system, edited in its dialog; each block is one the server accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import ARTIFACTS, OpenPage, Page, log_rows
from tests.e2e.support.process import Server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EDITOR = "dialog.application:has(.arbiter-editor)"


def actor(name: str) -> dict[str, Any]:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.pop("_source")
    return data


def scene(system: dict[str, str], *actors: dict[str, Any]) -> dict[str, Any]:
    tokens = [{"id": f"token{a['_id'][5:]}", "name": a["name"], "actor": a["_id"]} for a in actors]
    return {
        "system": system,
        "actors": list(actors),
        "tokens": tokens,
        "controlled": [],
        "targets": [],
    }


def from_system(page: Page, actor_id: str, ruleset: str) -> dict[str, Any]:
    return page.call(
        """([id, ruleset]) => {
            const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            return game.modules.get("arbiter").api.statBlocks.fromSystem(actor, ruleset);
        }""",
        [actor_id, ruleset],
    )


def check(page: Page, ruleset: str, block: dict[str, Any]) -> dict[str, Any]:
    return page.call(
        "([r, b]) => game.modules.get('arbiter').api.statBlocks.check(r, b)", [ruleset, block]
    )


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_harnmaster_3_actor_gives_an_hmk_stat_block_the_server_accepts(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    hm3 = actor("hm3_actor.json")
    gm = open_page(site, server, scene=scene({"id": "hm3", "title": "HârnMaster 3"}, hm3))
    gm.wait_status("open")
    block = from_system(gm, hm3["_id"], "hmk")
    assert block == {
        "id": "actorHm3Aldric01",
        "name": "Aldric of Kaldor",
        # Abilities × 5 (HM3 rolls d100 against them so); Awareness and Dodge are its skills.
        "attributes": {"STR": 65, "DEX": 70, "AGL": 55, "HEA": 60, "INT": 50, "AWA": 48},
        "ip": 36,
        "defensive_tactics": 33,
        "weapon": "long-sword",
        "weapons": ["long-sword", "dagger"],
        "skills": {"long-sword": 62, "dagger": 45},
        "armor": "chain-mail",
    }
    answer = check(gm, "hmk", block)
    assert (answer["type"], answer["ok"], answer["problems"]) == ("checked", True, [])
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_mythras_actor_gives_a_combat_styles_stat_block_through_the_editor(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    mythras = actor("mythras_actor.json")
    gm = open_page(
        site, server, scene=scene({"id": "mythras-foundry", "title": "Mythras"}, mythras)
    )
    gm.wait_status("open")
    expected = {
        "id": "actorMythVessa01",
        "name": "Vessa the Quick",
        "characteristics": {"str": 11, "con": 12, "siz": 11, "dex": 16, "int": 14, "pow": 12, "cha": 10},
        "skills": {"evade": 60, "endurance": 40, "willpower": 45, "brawn": 27, "combat_style": 70},
        "weapons": ["broadsword", "heater"],
        "armor": {"chest": "mail", "abdomen": "mail", "head": "laminated"},
        "hit_points": {"right_leg": 5, "left_leg": 5, "abdomen": 6, "chest": 7, "right_arm": 4,
                       "left_arm": 4, "head": 5},
    }  # fmt: skip
    assert from_system(gm, mythras["_id"], "combat-styles") == expected
    # In the editor: "Read from Mythras" fills the form, Save checks it with the server.
    gm.call(
        """(id) => { window.edited = game.modules.get("arbiter").api.statBlocks.edit(id, "combat-styles"); }""",
        mythras["_id"],
    )
    editor = gm.page.locator(EDITOR)
    editor.locator('button[data-action="system"]').click()
    gm.page.locator(EDITOR).wait_for()
    assert gm.page.locator(f'{EDITOR} input[name="skills.combat_style"]').input_value() == "70"
    assert gm.page.locator(f'{EDITOR} select[name="armor.head"]').input_value() == "laminated"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    gm.page.locator(EDITOR).screenshot(
        path=str(ARTIFACTS / f"v{generation}-editor-from-mythras.png")
    )
    gm.page.locator(f'{EDITOR} button[data-action="save"]').click()
    saved = gm.call("async () => window.edited")
    assert saved == expected
    assert log_rows(server) == []
    assert gm.problems == []


def test_a_gm_maps_another_systems_fields_and_items_in_the_mapping_dialog(
    site: str, server: Server, open_page: OpenPage
) -> None:
    plain = {
        "_id": "actorPlainBrom01",
        "name": "Brom",
        "type": "npc",
        "system": {"stats": {"fin": 1, "frc": 2}, "health": {"max": 12}, "team": "raiders"},
        "items": [
            {"_id": "plainItemAxe0001", "name": "Spear", "type": "gear", "system": {"slot": "main"}}
        ],
    }
    gm = open_page(
        site, server, scene=scene({"id": "worldbuilding", "title": "Simple Worldbuilding"}, plain)
    )
    gm.wait_status("open")
    # Simple Worldbuilding's preset only writes vitals back (its `health`): no field is read.
    preset = gm.call("() => game.modules.get('arbiter').api.statBlocks.mapping('karmic')")
    assert preset["fields"] == {} and preset["vitals"]["value"] == "system.health.value"
    gm.call(
        "() => { window.mapped = game.modules.get('arbiter').api.statBlocks.editMapping('karmic'); }"
    )
    dialog = gm.page.locator("dialog.application:has(.arbiter-mapping)")
    for field, path in (("finesse", "system.stats.fin"), ("force", "system.stats.frc"),
                        ("vitality", "system.health.max"), ("side", "system.team")):  # fmt: skip
        dialog.locator(f'input[name="path:{field}"]').fill(path)
    rule = [{"type": "gear", "where": {"system.slot": "main"}, "into": "main", "first": True,
             "value": {"path": "name", "map": {"Spear": "spear"}}}]  # fmt: skip
    dialog.locator('textarea[name="items"]').fill(json.dumps(rule))
    dialog.locator('button[data-action="save"]').click()
    mapping = gm.call("async () => window.mapped")
    assert mapping["fields"]["vitality"] == {"path": "system.health.max"}
    assert (
        gm.call("() => game.settings.get('arbiter', 'mappings')")["worldbuilding/karmic"] == mapping
    )
    block = from_system(gm, plain["_id"], "karmic")
    assert block == {"id": "actorPlainBrom01", "name": "Brom", "finesse": 1, "force": 2,
                     "vitality": 12, "side": "raiders", "main": "spear"}  # fmt: skip
    assert check(gm, "karmic", block)["ok"] is True
    assert gm.problems == []
