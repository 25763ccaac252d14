"""The combat-styles requests beyond the exchange, end to end: the compendium's macros open their
dialogs (combatants from the selected and targeted tokens, stat-block fields remembered per
actor), the real ``arbiter serve`` decides, and each card is checked against the roll log."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.support.browser import Page, log_rows, screenshot
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


def send_dialog(page: Page, macro: str, fill: dict[str, str], check: tuple[str, ...] = ()) -> None:
    """Run a macro, fill its dialog (field name → value; textareas and inputs alike, selects by
    option), tick ``check`` and press Send."""
    page.run_macro(macro)
    dialog = page.page.locator("dialog.application")
    # The optional stat-block fields are folded away until opened.
    folded = dialog.locator("details.arbiter-stat-fields:not([open]) > summary")
    while folded.count():
        folded.first.click()
    for name, value in fill.items():
        field = dialog.locator(f'[name="{name}"]')
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    for name in check:
        dialog.locator(f'input[name="{name}"]').check()
    dialog.locator('button[data-action="send"]').click()
    page.call("async () => window.macro")


def rolled_row(card: Any, side: str) -> tuple[str, str]:
    row = card.locator(f'[data-side="{side}"]')
    return row.locator('[data-field="roll"]').inner_text(), row.locator(
        '[data-field="level"]'
    ).inner_text()


@pytest.mark.parametrize("generation", [12, 13])
def test_the_spirit_combat_macro_sends_the_stat_block_fields_and_the_card_shows_the_contest(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = Page(chromium, bundled_site, generation, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
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
    assert shown.count() == (1 if result["spirit_damage"] else 0)
    outcome = json.loads(row["outcome"])
    assert card.locator(".arbiter-die").count() == len(outcome["dice"])
    # The fields were remembered on each token's actor, as the JSON is.
    flags = {f["actor"]: f["value"]["combat-styles"] for f in gm.call("() => harness.record.flags")}
    assert flags["actorKara0000001"]["magic_points"] == 11
    assert flags["actorOrm00000001"]["spirit_combat"] == 50

    # The rule text's procedure with known dice: 20 against 65 succeeds, 70 against 50 fails,
    # the shaman's 65% rolls 1d8 on the Spirit Damage table: 5 of the ghost's 12 Magic Points.
    body = {
        "attacker": "shaman",
        "defender": "ghost",
        "combatants": [
            {**SHAMAN, "spirit_combat": 65, "magic_points": 11},
            {**GHOST, "spirit_combat": 50, "magic_points": 12},
        ],
    }
    answer = api_request(
        gm, "combat-styles", "spirit_combat", body, dice=[20, 70, 5], encounter="free-known"
    )
    logged = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert logged["spirit_damage"]["magic_points"] == {"before": 12, "after": 7}
    card = gm.card(answer["message"])
    assert rolled_row(card, "attack") == ("20", "success")
    assert rolled_row(card, "resistance") == ("70", "failure")
    assert card.locator('[data-field="winner"]').inner_text().startswith("Winner shaman")
    assert card.locator('[data-field="to"]').inner_text() == "ghost"
    assert card.locator('[data-field="rolled"]').inner_text() == "5"
    assert card.locator('[data-field="magic_points"]').inner_text() == "12 → 7"
    screenshot(gm, f"v{generation}-combat-styles-spirit-combat")
    assert gm.problems == []


@pytest.mark.parametrize("generation", [13, 14])
def test_the_hand_macros_drop_and_pick_up_a_weapon_in_an_encounter_started_by_its_dialog(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = Page(chromium, bundled_site, generation, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
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


def test_a_round_closing_with_fatigue_checks_shows_each_endurance_roll_and_the_new_level(
    chromium: Any, bundled_site: str, bundled_server: Server, pages: list[Page]
) -> None:
    gm = Page(chromium, bundled_site, 12, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
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


@pytest.mark.parametrize("generation", [12, 13])
def test_the_outmaneuver_macro_rolls_the_group_contest_and_the_card_names_who_is_blocked(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = Page(chromium, bundled_site, generation, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    fight = {"combatants": [VESSA, GUARD]}
    api_request(gm, "combat-styles", "start_encounter", fight, encounter="yard")
    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], encounter="yard")
    fill = {"combatant": "vessa", "opponents": "guard", "then": "withdraw", "encounter": "yard"}
    send_dialog(gm, macros[("combat-styles", "outmaneuver")], fill)
    rows = wait_until(lambda: log_rows(bundled_server)[2:])
    request = json.loads(rows[-1]["request"])
    assert request["type"] == "outmaneuver"
    assert request["body"] == {"combatant": "vessa", "opponents": ["guard"], "then": "withdraw"}
    result = json.loads(rows[-1]["outcome"])["result"]
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    for who, roll in result["rolls"].items():
        assert rolled_row(card, who) == (str(roll["roll"]), roll["level"])
    blocked = card.locator("[data-blocked]").evaluate_all("els => els.map(e => e.dataset.blocked)")
    assert blocked == result["blocked"]
    assert card.locator('[data-field="then"]').count() == (1 if result["then"] else 0)
    outcome = json.loads(rows[-1]["outcome"])
    assert card.locator(".arbiter-die").count() == len(outcome["dice"]) == 2
    screenshot(gm, f"v{generation}-combat-styles-outmaneuver")
    assert gm.problems == []


def fighter(cid: str, skill: int, weapon: str) -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid.title(),
        "characteristics": {"str": 14, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
        "skills": {"combat_style": skill, "evade": 30, "endurance": 35, "willpower": 30},
        "weapons": [weapon],
    }


def test_a_sweep_attack_card_offers_each_pairs_effects_to_its_winner_and_finishes_pairs_in_place(
    chromium: Any, bundled_site: str, bundled_server: Server, pages: list[Page]
) -> None:
    gm = Page(chromium, bundled_site, 13, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    yard = {"encounter": "yard"}
    giant, bors, cade = (
        fighter("giant", 90, "great_club"),
        fighter("bors", 40, "shortspear"),
        fighter("cade", 40, "shortspear"),
    )
    api_request(gm, "combat-styles", "start_encounter", {"combatants": [giant, bors, cade]}, **yard)
    # The stored state lists combatants by id: Bors rolls 3, Cade 1, the giant 10.
    api_request(gm, "combat-styles", "initiative", {}, dice=[3, 1, 10], **yard)
    # One attack roll (10 against 90) for both pairs; both parries (95 against 40) fail.
    sweep = {
        "attacker": "giant",
        "weapon": "great_club",
        "targets": [{"defender": "bors"}, {"defender": "cade"}],
    }
    answer = api_request(gm, "combat-styles", "sweep_attack", sweep, dice=[10, 95, 95], **yard)
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert [p["status"] for p in result["exchanges"]] == ["awaiting_effects"] * 2
    card = gm.card(answer["message"])
    assert card.locator('[data-field="attack_roll"]').inner_text().endswith("10")
    for pair in result["exchanges"]:
        shown = card.locator(f'[data-exchange="{pair["defender"]}"]')
        assert rolled_row(shown, "defence") == ("95", pair["defence_level"])
        section = card.locator(f'[data-choice-key="sweep-{pair["defender"]}"]')
        assert section.locator("[data-arbiter-toggle]").count() == len(pair["eligible"])

    bors_choice = card.locator('[data-choice-key="sweep-bors"]')
    bors_choice.locator('[data-arbiter-toggle="choose_location"]').click()
    bors_choice.locator('select[data-arbiter-param="choose_location"]').select_option("head")
    bors_choice.locator("button.arbiter-choice__apply").click()
    card.locator('[data-exchange="bors"] [data-field="blow"]').wait_for(timeout=10000)
    rows = log_rows(bundled_server)
    assert rows[-1]["request_id"] == f"{answer['outcome']['id']}-sweep-bors"
    token = result["exchanges"][0]["token"]
    chosen = [{"id": "choose_location", "location": "head"}]
    assert json.loads(rows[-1]["request"])["body"] == {"token": token, "effects": chosen}
    finished = json.loads(rows[-1]["outcome"])["result"]
    shown = card.locator('[data-exchange="bors"]')
    assert shown.locator('[data-field="location"]').inner_text() == "head"
    damage = str(finished["blow"]["to_hit_points"])
    assert shown.locator('[data-field="damage"]').inner_text() == damage
    # Cade's pair still waits for the giant's choice; Bors's has no buttons left.
    assert card.locator('[data-choice-key="sweep-bors"]').count() == 0
    assert card.locator('[data-choice-key="sweep-cade"] [data-arbiter-toggle]').count() == len(
        result["exchanges"][1]["eligible"]
    )
    screenshot(gm, "v13-combat-styles-sweep")
    assert gm.problems == []


def test_the_mount_macro_seats_the_selected_rider_on_the_targeted_mount(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
) -> None:
    gm = Page(chromium, bundled_site, 14, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    knight = {**fighter("knight", 60, "lance"), "skills": {"combat_style": 60, "ride": 70}}
    horse = {
        "id": "horse",
        "name": "Horse",
        "characteristics": {"str": 30, "con": 14, "siz": 26, "dex": 10, "int": 3},
        "quadruped": True,
    }
    start = {
        "attacker": json.dumps(knight),
        "defender": json.dumps(horse),
        "defender.movement": "12",
        "encounter": "field",
    }
    send_dialog(gm, macros[("combat-styles", "start_encounter")], start)
    [row] = wait_until(lambda: log_rows(bundled_server))
    sent = json.loads(row["request"])["body"]["combatants"]
    assert sent == [knight, {**horse, "movement": 12}]
    # Rider and mount are the remembered blocks' ids of the selected and targeted tokens.
    send_dialog(gm, macros[("combat-styles", "mount")], {"encounter": "field"})
    rows = wait_until(lambda: log_rows(bundled_server)[1:])
    request = json.loads(rows[-1]["request"])
    assert (request["type"], request["body"]) == ("mount", {"rider": "knight", "mount": "horse"})
    result = json.loads(rows[-1]["outcome"])["result"]
    assert (result["rider"], result["mount"]) == ("knight", "horse")
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    assert card.locator('[data-field="mount"]').inner_text() == "knight mounts horse"
    assert gm.problems == []


NEW_MACROS = {
    "leaping_attack": "leaping_attack",
    "outmaneuver": "outmaneuver",
    "sweep_attack": "sweep_attack",
    "aerial_pass": "aerial_pass",
    "mounted_withdraw": "mounted_withdraw",
    "trip_entangled": "act",
    "ready_weapon": "act",
    "drop_weapon": "act",
}


def test_every_new_combat_styles_macro_sends_a_well_formed_request_from_its_dialogs_defaults(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
) -> None:
    gm = Page(chromium, bundled_site, 13, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    start = {"attacker": json.dumps(VESSA), "defender": json.dumps(GUARD)}
    send_dialog(gm, macros[("combat-styles", "start_encounter")], start)
    refusals = set()
    for macro, type_ in NEW_MACROS.items():
        send_dialog(gm, macros[("combat-styles", macro)], {})
        flags = gm.call("() => game.messages.contents.at(-1).flags.arbiter")
        refusals.add(f"pageerror: {flags.get('error')}")
        # Before initiative most moves are refused by the rules, never as malformed bodies.
        sent = flags["request"] if "error" in flags else flags["outcome"]
        assert sent["type"] == type_, macro
        refused = flags.get("error", "")
        assert not refused.startswith(("invalid", "unknown request type")), (macro, refused)
    # A refused request rejects the macro's promise (as in Foundry); nothing else went wrong.
    assert set(gm.problems) <= refusals


def test_mitigate_damage_is_asked_by_the_exchange_dialog_and_shown_on_the_wound(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
) -> None:
    gm = Page(chromium, bundled_site, 12, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
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


def test_the_trip_macro_follows_an_entangle_and_the_card_shows_both_rolls_and_the_outcome(
    chromium: Any,
    bundled_site: str,
    bundled_server: Server,
    pages: list[Page],
    macros: dict[tuple[str, str], str],
) -> None:
    gm = Page(chromium, bundled_site, 13, bundled_server)
    pages.append(gm)
    gm.wait_status("open")
    whip, foe = fighter("vessa", 60, "whip"), fighter("guard", 40, "shortspear")
    plain = {"str": 11, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": 10}  # no damage step
    whip["characteristics"] = foe["characteristics"] = plain
    entangle = {
        "attacker": "vessa",
        "defender": "guard",
        "defence": "none",
        "effects": [{"id": "entangle", "location": "chest"}],
        "combatants": [whip, foe],
    }
    # Attack 30, the whip's 1d3 rolls 1, location 10; a free encounter (no turns tracked):
    # the follow-up stays ready until used.
    api_request(gm, "combat-styles", "exchange", entangle, dice=[30, 1, 10], encounter="free-t")
    fill = {"combatant": "vessa", "encounter": "free-t"}
    send_dialog(gm, macros[("combat-styles", "trip_entangled")], fill)
    rows = wait_until(lambda: log_rows(bundled_server)[1:])
    request = json.loads(rows[-1]["request"])
    assert request["body"] == {"combatant": "vessa", "action": "trip_entangled"}
    trip = json.loads(rows[-1]["outcome"])["result"]["follow_up"]
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    assert rolled_row(card, "attack") == (str(trip["roll"]["roll"]), trip["roll"]["level"])
    resisted = trip["resistance"]
    assert rolled_row(card, "resistance") == (str(resisted["roll"]), resisted["level"])
    assert card.locator('[data-field="outcome"]').inner_text() == trip["outcome"]
    assert trip["outcome"] in ("prone", "resisted")
    screenshot(gm, "v13-combat-styles-trip")
    assert gm.problems == []
