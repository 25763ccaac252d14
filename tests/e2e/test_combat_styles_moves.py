"""The combat-styles manoeuvres from the client, end to end: outmanoeuvring, the sweep attack,
mounting and the trip on an entangled foe through their macros and dialogs (or the API with
known dice), every card checked against the real server's roll log; and every new macro's
dialog sending a well-formed request."""

from __future__ import annotations

import json

import pytest

from tests.e2e.support.browser import Page, log_rows, screenshot
from tests.e2e.support.dialogs import fighter, rolled_row, send_dialog
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request, message_of


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    """In this module the GM's page is on the bundled module, against the real ``arbiter serve``."""
    return bundled_gm


@pytest.mark.parametrize("generation", [12, 13])
def test_the_outmaneuver_macro_rolls_the_group_contest_and_the_card_names_who_is_blocked(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
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


def test_a_sweep_attack_card_offers_each_pairs_effects_to_its_winner_and_finishes_pairs_in_place(
    gm: Page, bundled_server: Server
) -> None:
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
    card.locator('[data-exchange="bors"] [data-field="blow"]').wait_for(timeout=30000)
    rows = log_rows(bundled_server)
    assert rows[-1]["request_id"] == f"{answer['outcome']['id']}-sweep-bors"
    token = result["exchanges"][0]["token"]
    chosen = [{"id": "choose_location", "location": "head"}]
    body = {"token": token, "by": "giant", "effects": chosen}
    assert json.loads(rows[-1]["request"])["body"] == body
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


@pytest.mark.parametrize("generation", [14])
def test_the_mount_macro_seats_the_selected_rider_on_the_targeted_mount(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
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
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
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


def test_the_trip_macro_follows_an_entangle_and_the_card_shows_both_rolls_and_the_outcome(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
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
