"""The combat-styles requests beyond the exchange, end to end: the compendium's macros open their
dialogs (combatants from the selected and targeted tokens, stat-block fields remembered per
actor), the real ``arbiter serve`` decides, and each card is checked against the roll log."""

from __future__ import annotations

import json

import pytest

from tests.e2e.support.browser import Page, log_rows, screenshot
from tests.e2e.support.dialogs import fighter, rolled_row, send_dialog
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request, message_of

SHAMAN = {
    "id": "shaman",
    "name": "Shaman",
    "characteristics": {"str": 10, "con": 12, "siz": 11, "dex": 12, "int": 14, "pow": 15},
    "skills": {"willpower": 60},
}
GHOST = {
    "id": "ghost",
    "name": "Ghost",
    "characteristics": {"str": 1, "con": 1, "siz": 1, "dex": 10, "int": 10, "pow": 12},
    "skills": {"willpower": 40},
}


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    """In this module the GM's page is on the bundled module, against the real ``arbiter serve``."""
    return bundled_gm


@pytest.mark.parametrize("generation", [12, 13])
def test_the_spirit_combat_macro_sends_the_stat_block_fields_and_the_card_shows_the_contest(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
    fill = {
        "attacker": json.dumps(SHAMAN),
        "defender": json.dumps(GHOST),
        "attacker.spirit_combat": "65",
        "attacker.magic_points": "11",
        "defender.spirit_combat": "50",
        "defender.magic_points": "12",
    }
    send_dialog(gm, macros[("combat-styles", "spirit_combat")], fill)
    [row] = wait_until(lambda: log_rows(bundled_server))
    request = json.loads(row["request"])
    assert request["type"] == "spirit_combat"
    assert request["encounter"].startswith("free-")
    sent = {b["id"]: b for b in request["body"]["combatants"]}
    assert sent["shaman"] == {**SHAMAN, "spirit_combat": 65, "magic_points": 11}
    assert sent["ghost"] == {**GHOST, "spirit_combat": 50, "magic_points": 12}
    result = json.loads(row["outcome"])["result"]
    card = gm.card(message_of(gm, row["request_id"]))
    attack, resistance = result["attack"], result["resistance"]
    assert rolled_row(card, "attack") == (str(attack["roll"]), attack["level"])
    assert rolled_row(card, "resistance") == (str(resistance["roll"]), resistance["level"])
    shown = card.locator('[data-field="spirit_damage"]')
    assert shown.count() == (1 if result.get("spirit_damage") else 0)  # none while parked
    outcome = json.loads(row["outcome"])
    assert card.locator(".arbiter-die").count() == len(outcome["dice"])
    # The fields were remembered on the server for each token's actor, as the JSON is.
    kept = gm.call(
        """async () => { const api = game.modules.get("arbiter").api.statBlocks;
                         return [await api.get("actorKara0000001", "combat-styles"),
                                 await api.get("actorOrm00000001", "combat-styles")]; }"""
    )
    assert kept[0]["magic_points"] == 11
    assert kept[1]["spirit_combat"] == 50

    # The rule text's procedure with known dice: 20 against 65 succeeds, 70 against 50 fails:
    # the shaman wins one spirit effect; the card offers the eligible ones like an exchange's.
    body = {
        "attacker": "shaman",
        "defender": "ghost",
        "combatants": [
            {**SHAMAN, "spirit_combat": 65, "magic_points": 11},
            {**GHOST, "spirit_combat": 50, "magic_points": 12, "spirit": True},
        ],
    }
    answer = api_request(
        gm, "combat-styles", "spirit_combat", body, dice=[20, 70], encounter="free-known"
    )
    parked = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert (parked["status"], parked["chooser"]) == ("awaiting_effects", "shaman")
    card = gm.card(answer["message"])
    assert rolled_row(card, "attack") == ("20", "success")
    assert rolled_row(card, "resistance") == ("70", "failure")
    assert card.locator('[data-field="winner"]').inner_text().startswith("Winner shaman")
    assert card.locator("[data-arbiter-toggle]").count() == len(parked["eligible"])
    # Spirit Lance: the shaman's 1d8 is rolled twice and the best kept.
    card.locator('[data-arbiter-toggle="spirit_lance"]').click()
    card.locator("button.arbiter-choice__apply").click()
    card.locator('[data-field="spirit_damage"]').wait_for(timeout=30000)
    rows = log_rows(bundled_server)
    assert rows[-1]["type"] == "choose_effects"
    assert json.loads(rows[-1]["request"])["body"] == {
        "token": parked["token"],
        "by": parked["chooser"],
        "effects": [{"id": "spirit_lance"}],
    }
    final = json.loads(rows[-1]["outcome"])["result"]
    hit = final["spirit_damage"]
    assert len(hit["rolls"]) == 2 and hit["rolled"] == max(hit["rolls"])
    assert card.locator('[data-effect="spirit_lance"]').count() == 1
    assert card.locator('[data-field="to"]').inner_text() == "ghost"
    assert card.locator('[data-field="rolled"]').inner_text() == str(hit["rolled"])
    assert card.locator('[data-field="magic_points"]').inner_text() == f"12 → {12 - hit['rolled']}"
    assert card.locator("[data-arbiter-toggle]").count() == 0
    screenshot(gm, f"v{generation}-combat-styles-spirit-combat")
    assert gm.problems == []


@pytest.mark.parametrize("generation", [13, 14])
def test_the_hand_macros_drop_and_pick_up_a_weapon_in_an_encounter_started_by_its_dialog(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
    start = {"attacker": json.dumps(VESSA), "defender": json.dumps(GUARD), "encounter": "gate"}
    send_dialog(gm, macros[("combat-styles", "start_encounter")], start, ("fatigue_checks",))
    [row] = wait_until(lambda: log_rows(bundled_server))
    request = json.loads(row["request"])
    assert (request["type"], request["encounter"]) == ("start_encounter", "gate")
    assert request["body"] == {
        "combatants": [VESSA, GUARD],
        "surprised": [],
        "fatigue_checks": True,
    }

    # The combatant and his weapon come from the block remembered on the selected token.
    send_dialog(gm, macros[("combat-styles", "drop_weapon")], {"encounter": "gate"})
    rows = wait_until(lambda: log_rows(bundled_server)[1:])
    assert json.loads(rows[-1]["request"])["body"] == {
        "combatant": "vessa",
        "action": "drop_weapon",
        "weapon": "dagger",
    }
    hands = json.loads(rows[-1]["outcome"])["result"]["hands"]
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    assert card.locator('[data-field="hands-outcome"]').inner_text() == hands["outcome"]
    assert hands["hands"]["right"] is None
    assert card.locator('[data-hand="right"]').inner_text() == "right: empty"

    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], encounter="gate")
    send_dialog(gm, macros[("combat-styles", "ready_weapon")], {"encounter": "gate"})
    rows = wait_until(lambda: log_rows(bundled_server)[3:])
    result = json.loads(rows[-1]["outcome"])["result"]
    assert result["hands"]["outcome"] == "picking up (1 of 2 turns)"
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    assert card.locator('[data-field="hands-outcome"]').inner_text() == result["hands"]["outcome"]
    where = f"Round {result['round']}, cycle {result['cycle']} · {result['current']}'s turn"
    assert card.locator('[data-field="round"]').inner_text().startswith(where)
    screenshot(gm, f"v{generation}-combat-styles-hands")
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12])
def test_a_round_closing_with_fatigue_checks_shows_each_endurance_roll_and_the_new_level(
    gm: Page, bundled_server: Server
) -> None:
    # CON 4 falls in the data's 1–5 band: an Endurance check every 2 rounds.
    wisp = {
        "id": "wisp",
        "name": "Wisp",
        "characteristics": {"str": 8, "con": 4, "siz": 8, "dex": 12, "int": 12, "pow": 12},
        "skills": {"combat_style": 40, "endurance": 40},
    }
    fight = {"combatants": [wisp, GUARD], "fatigue_checks": True}
    api_request(gm, "combat-styles", "start_encounter", fight, encounter="moor")
    api_request(gm, "combat-styles", "initiative", {}, dice=[5, 5], encounter="moor")
    api_request(gm, "combat-styles", "next_round", {}, encounter="moor")
    answer = api_request(gm, "combat-styles", "next_round", {}, dice=[70], encounter="moor")
    [closed] = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]["fatigue_checks"]
    [check] = closed["checks"]
    assert (closed["round"], check["roll"], check["level"]) == (2, 70, "failure")
    card = gm.card(answer["message"])
    row = card.locator('[data-fatigue="wisp"]')
    assert row.locator('[data-field="roll"]').inner_text() == "70"
    assert row.locator('[data-field="level"]').inner_text() == "failure"
    assert row.locator('[data-field="fatigue"]').inner_text() == "winded (−1)"
    assert "round 2" in card.locator('[data-field="fatigue_checks"]').inner_text()
    # Shown as a table, not repeated as a raw field.
    assert card.locator('dd[data-field="fatigue_checks"]').count() == 0
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12])
def test_mitigate_damage_is_asked_by_the_exchange_dialog_and_shown_on_the_wound(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
    fill = {"attacker": json.dumps(VESSA), "defender": json.dumps(GUARD)}
    ticked = ("mitigate_defender", "charging")
    send_dialog(gm, macros[("combat-styles", "exchange")], fill, ticked)
    [row] = wait_until(lambda: log_rows(bundled_server))
    sent = json.loads(row["request"])["body"]
    assert (sent["mitigate_damage"], sent["situation"]) == (["guard"], {"charging": True})
    assert "defended_by" not in sent

    # 2d6 (6, 6) + the giant's 1d4 (4) to the chosen head: 16 damage, a Major wound that
    # Bors's Luck Point makes Serious.
    giant = {**fighter("giant", 90, "great_club")}
    giant["characteristics"] = {**giant["characteristics"], "str": 18, "siz": 16}
    bors = {**fighter("bors", 40, "shortspear"), "luck_points": 2}
    bors["characteristics"] = giant["characteristics"]  # SIZ 16: no knockback from 16
    exchange = {
        "attacker": "giant",
        "defender": "bors",
        "weapon": "great_club",
        "defence": "none",
        "mitigate_damage": ["bors"],
        "effects": [{"id": "choose_location", "location": "head"}],
        "combatants": [giant, bors],
    }
    dice = [10, 6, 6, 4, 3, 50]
    answer = api_request(gm, "combat-styles", "exchange", exchange, dice=dice, encounter="free-m")
    wound = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]["blow"]["wound"]
    assert (wound["damage"], wound["wound"]) == (16, "serious")
    assert wound["luck_mitigated"]["from"] == "major"
    card = gm.card(answer["message"])
    assert card.locator('[data-field="damage"]').inner_text() == "16"
    shown = card.locator('[data-field="mitigated"]').inner_text()
    assert shown == "Luck spent (1): major wound reduced to serious"
    assert gm.problems == []
