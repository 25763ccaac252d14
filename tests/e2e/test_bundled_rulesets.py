"""Cards for the bundled rulesets' real outcomes: the real ``arbiter serve`` (with scripted dice
so the rolls are those of the rule texts' examples), the module built from the bundled rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.support.browser import Page, log_rows, screenshot
from tests.e2e.support.process import Server

GUARD = {
    "id": "guard",
    "name": "Gate guard",
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear", "heater"],
    "armor": {"chest": "laminated", "abdomen": "laminated"},
}
VESSA = {
    "id": "vessa",
    "name": "Vessa",
    "characteristics": {"str": 11, "con": 12, "siz": 11, "dex": 16, "int": 14, "pow": 12},
    "skills": {"combat_style": 70, "evade": 60, "endurance": 40, "willpower": 45},
    "weapons": ["dagger"],
    "traits": ["assassination"],
}


def api_request(page: Page, ruleset: str, type_: str, body: Any, **options: Any) -> Any:
    return page.call(
        """async ([ruleset, type, body, options]) =>
            game.modules.get("arbiter").api.request(ruleset, type, body, options)""",
        [ruleset, type_, body, options],
    )


@pytest.mark.parametrize("generation", [12, 14])
def test_a_combat_styles_exchange_card_shows_the_rolls_then_the_winners_chosen_effects(
    chromium: Any, bundled_site: str, bundled_server: Server, pages: list[Page], generation: int
) -> None:
    gm = Page(chromium, bundled_site, generation, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    encounter = {"encounter": "gatehouse"}
    body = {"combatants": [GUARD, VESSA], "surprised": ["guard"]}
    api_request(gm, "combat-styles", "start_encounter", body, **encounter)
    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], **encounter)
    exchange = {"attacker": "vessa", "defender": "guard", "weapon": "dagger", "defence": "parry"}
    answer = api_request(gm, "combat-styles", "exchange", exchange, dice=[30], **encounter)
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert result["status"] == "awaiting_effects"
    card = gm.card(answer["message"])
    attack = card.locator('[data-side="attack"]')
    assert attack.locator('[data-field="roll"]').inner_text() == "30"
    assert attack.locator('[data-field="level"]').inner_text() == result["attack"]["level"]
    defence = card.locator('[data-side="defence"]')
    assert defence.locator('[data-field="level"]').inner_text() == result["defence_level"]
    toggles = card.locator("[data-arbiter-toggle]")
    assert toggles.count() == len(result["eligible"])
    screenshot(gm, f"v{generation}-combat-styles-awaiting")

    card.locator('[data-arbiter-toggle="kill_silently"]').click()
    card.locator('[data-arbiter-toggle="bleed"]').click()
    card.locator("button.arbiter-choice__apply").click()
    card.locator('[data-field="blow"]').wait_for(timeout=10000)
    rows = log_rows(bundled_server)
    assert rows[-1]["type"] == "choose_effects"
    request = json.loads(rows[-1]["request"])
    chosen = [{"id": e["id"]} for e in result["eligible"] if e["id"] in ("kill_silently", "bleed")]
    assert request["body"] == {"token": result["token"], "effects": chosen}
    final = json.loads(rows[-1]["outcome"])["result"]
    assert card.locator("[data-effect]").evaluate_all("els => els.map(e => e.dataset.effect)") == [
        e["id"] for e in final["effects"]
    ]
    assert card.locator('[data-field="location"]').inner_text() == final["blow"]["location"]
    assert card.locator('[data-field="damage"]').inner_text() == str(final["blow"]["to_hit_points"])
    assert card.locator("[data-arbiter-toggle]").count() == 0
    screenshot(gm, f"v{generation}-combat-styles-finished")
    assert gm.problems == []


def test_an_hmk_attack_card_shows_the_roll_against_the_effective_chance_and_the_injury(
    chromium: Any, bundled_site: str, bundled_server: Server, pages: list[Page]
) -> None:
    with open("docs/examples/hmk.json", encoding="utf-8") as f:
        example = json.load(f)["requests"]
    gm = Page(chromium, bundled_site, 13, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    answer = None
    for entry in example[:3]:
        options = {"encounter": entry.get("encounter") or "table"}
        if entry.get("dice"):
            options["dice"] = [d if isinstance(d, int) else d["result"] for d in entry["dice"]]
        answer = api_request(gm, "hmk", entry["type"], entry["body"], **options)
    assert answer is not None
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert result["kind"] == "attack"
    card = gm.card(answer["message"])
    assert card.locator('[data-field="roll"]').inner_text() == str(result["roll"])
    assert card.locator('[data-field="chance"]').inner_text() == str(result["chance"]["effective"])
    assert card.locator('[data-field="outcome"]').inner_text() == result["outcome"]
    if result.get("injury"):
        assert (
            str(result["injury"]["suffered"]) in card.locator('[data-field="injury"]').inner_text()
        )
    screenshot(gm, "v13-hmk-attack")
    assert gm.problems == []
