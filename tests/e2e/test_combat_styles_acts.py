"""Combat actions (``act``) from the client, end to end: the act dialogs offer the opponents the
client has seen in the encounter and the skills the rule data allows, the real ``arbiter serve``
decides, and the card shows the rolls the roll log recorded."""

from __future__ import annotations

import json

import pytest

from arbiter.bridge.engine.combat_styles import ENGINE
from tests.e2e.support.browser import Page, log_rows, screenshot
from tests.e2e.support.dialogs import option_values, script_next_dice, send_dialog
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request, message_of

# The guard falls when he evades; he stands with Athletics (50), Vessa resists with her better
# of Brawn (40) and Athletics (45).
GUARD_ON_FOOT = {**GUARD, "skills": {**GUARD["skills"], "brawn": 35, "athletics": 50}}
VESSA_ON_FOOT = {**VESSA, "skills": {**VESSA["skills"], "brawn": 40, "athletics": 45}}


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    """In this module the GM's page is on the bundled module, against the real ``arbiter serve``."""
    return bundled_gm


def knock_the_guard_down(gm: Page, macros: dict[tuple[str, str], str], encounter: str) -> None:
    """Start the encounter through its dialog (the guard on the selected token, Vessa on the
    targeted one), roll initiative (Vessa first), and let the guard evade her attack: evading
    leaves him prone, and it is his turn."""
    start = {
        "attacker": json.dumps(GUARD_ON_FOOT),
        "defender": json.dumps(VESSA_ON_FOOT),
        "encounter": encounter,
    }
    send_dialog(gm, macros[("combat-styles", "start_encounter")], start)
    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], encounter=encounter)
    evade = {"attacker": "vessa", "defender": "guard", "defence": "evade", "effects": []}
    api_request(gm, "combat-styles", "exchange", evade, dice=[80, 20], encounter=encounter)


@pytest.mark.parametrize("generation", [12, 14])
def test_a_prone_engaged_fighter_regains_his_footing_through_the_dialog_and_the_card_shows_both_rolls(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
    knock_the_guard_down(gm, macros, "ditch")
    evaded = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert "Gate guard ends prone after evading" in evaded["notes"]

    gm.run_macro(macros[("combat-styles", "regain_footing")])
    dialog = gm.page.locator("dialog.application")
    # The selected token's combatant acts in the encounter last seen; his possible opponents
    # are the encounter's other combatants, his skills those combat.regain_footing lists.
    assert dialog.locator('input[name="combatant"]').input_value() == "guard"
    assert dialog.locator('input[name="encounter"]').input_value() == "ditch"
    assert option_values(gm, "target") == ["", "vessa"]
    assert option_values(gm, "skill") == ["", "brawn", "athletics"]
    dialog.locator('select[name="target"]').select_option("vessa")
    dialog.locator('select[name="skill"]').select_option("athletics")
    # The guard's 10 against Athletics 50 made Formidable by lying prone (25) succeeds; Vessa's
    # 90 against her Athletics 45 fails.
    script_next_dice(gm, [10, 90])
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")

    rows = wait_until(lambda: log_rows(bundled_server)[3:])
    request = json.loads(rows[-1]["request"])
    assert (request["type"], request["encounter"]) == ("act", "ditch")
    assert request["body"] == {
        "combatant": "guard",
        "action": "regain_footing",
        "target": "vessa",
        "skill": "athletics",
    }
    footing = json.loads(rows[-1]["outcome"])["result"]["footing"]
    assert footing["stood"] is True
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    stander = card.locator('[data-side="stander"]')
    opponent = card.locator('[data-side="opponent"]')
    assert stander.locator("th").inner_text() == "guard athletics"
    assert stander.locator('[data-field="roll"]').inner_text() == "10"
    assert stander.locator("td").nth(1).inner_text() == "25 formidable"
    assert stander.locator('[data-field="level"]').inner_text() == "success"
    assert opponent.locator("th").inner_text() == "vessa athletics"
    assert opponent.locator('[data-field="roll"]').inner_text() == "90"
    assert opponent.locator("td").nth(1).inner_text() == "45 standard"
    assert opponent.locator('[data-field="level"]').inner_text() == "failure"
    shown = card.locator('[data-field="footing"]').inner_text()
    assert shown == "guard regains his footing against vessa"
    assert card.locator(".arbiter-die").all_inner_texts() == ["10/d100", "90/d100"]
    screenshot(gm, f"v{generation}-combat-styles-regain-footing")
    assert gm.problems == []


# The request types no macro's dialog sends as such: the card's effect buttons send
# choose_effects; spend_ap is act under another name; delay and interrupt are sent as the act
# dialog's actions of the same names (which the engine treats as those requests).
NOT_FROM_MACROS = {"choose_effects", "spend_ap", "delay", "interrupt"}
ROUND_STEPS = ("initiative", "next_turn", "next_cycle", "next_round", "state")


def test_every_combat_styles_request_type_is_sent_by_a_macros_dialog_and_gets_a_card(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
    start = {"attacker": json.dumps(VESSA), "defender": json.dumps(GUARD)}
    send_dialog(gm, macros[("combat-styles", "start_encounter")], start)
    dialogs = sorted(a for o, a in macros if o == "combat-styles")
    runs = [(a, {}) for a in dialogs if a not in ("tables", "start_encounter", "round")]
    runs += [("act", {"action": action}) for action in ("delay", "interrupt")]
    runs += [("round", {"step": step}) for step in ROUND_STEPS]
    sent, refusals = {"start_encounter"}, set()
    for macro, fill in runs:
        send_dialog(gm, macros[("combat-styles", macro)], fill)
        message = gm.call(
            "() => { const m = game.messages.contents.at(-1); return {id: m.id, flags: m.flags}; }"
        )
        flags = message["flags"]["arbiter"]
        # Refused by the rules (it is nobody's turn yet…), never as a malformed request.
        refused = flags.get("error", "")
        assert not refused.startswith(("invalid", "unknown request type")), (macro, refused)
        if refused:
            refusals.add(f"pageerror: {refused}")
            sent.add(flags["request"]["type"])
            continue
        outcome = flags["outcome"]
        sent.add(outcome["type"])
        card = gm.card(message["id"])
        assert outcome["id"] in card.locator("[data-roll-id]").inner_text(), macro
        assert "[object Object]" not in card.inner_text(), macro
    assert set(ENGINE.requests) - sent == NOT_FROM_MACROS
    # Sent in turn: the round's steps from the round dialog, after its initiative.
    assert [r["type"] for r in log_rows(bundled_server)][-5:] == list(ROUND_STEPS)
    assert set(gm.problems) <= refusals


def test_the_opposed_dialog_sends_both_sides_and_the_card_shows_both_rolls_and_the_winner(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
    fill = {
        "protagonist_skill": "60",
        "antagonist_skill": "40",
        "antagonist_grade_steps": "1",
        "protagonist_luck": "success",
    }
    # 30 against 60 succeeds; 50 against 40 made Hard (one step: 27) fails.
    script_next_dice(gm, [30, 50])
    send_dialog(gm, macros[("combat-styles", "opposed")], fill)
    [row] = wait_until(lambda: log_rows(bundled_server))
    request = json.loads(row["request"])
    assert (request["type"], request["encounter"]) == ("opposed", None)
    assert request["body"] == {
        "protagonist": {
            "skill": 60,
            "grades": [],
            "grade_steps": 0,
            "augment": 0,
            "luck": "success",
        },
        "antagonist": {"skill": 40, "grades": [], "grade_steps": 1, "augment": 0},
        "differential": True,
    }
    result = json.loads(row["outcome"])["result"]
    card = gm.card(message_of(gm, row["request_id"]))
    for side in ("protagonist", "antagonist"):
        shown = card.locator(f'[data-side="{side}"]')
        roll = result[side]
        assert shown.locator('[data-field="roll"]').inner_text() == str(roll["roll"])
        assert shown.locator("td").nth(1).inner_text() == f"{roll['target']} {roll['grade']}"
        assert shown.locator('[data-field="level"]').inner_text() == roll["level"]
    protagonist, antagonist = result["protagonist"], result["antagonist"]
    assert (protagonist["roll"], protagonist["target"], protagonist["level"]) == (30, 60, "success")
    assert (antagonist["roll"], antagonist["target"], antagonist["level"]) == (50, 27, "failure")
    assert card.locator('[data-field="winner"]').inner_text() == "Winner protagonist"
    assert (
        card.locator('[data-field="differential"]').inner_text() == "Special effects protagonist: 1"
    )
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12])
def test_the_round_dialog_rolls_initiative_in_the_encounter_seen_last(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
    fight = {"combatants": [GUARD, VESSA]}
    api_request(gm, "combat-styles", "start_encounter", fight, encounter="gatehouse")
    gm.run_macro(macros[("combat-styles", "round")])
    dialog = gm.page.locator("dialog.application")
    assert dialog.locator('input[name="encounter"]').input_value() == "gatehouse"
    assert option_values(gm, "step") == list(ROUND_STEPS)
    # The stored state lists combatants by id: the guard rolls 6 (16), Vessa 4 (19).
    script_next_dice(gm, [6, 4])
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    rows = wait_until(lambda: log_rows(bundled_server)[1:])
    request = json.loads(rows[-1]["request"])
    assert (request["type"], request["encounter"], request["body"]) == (
        "initiative",
        "gatehouse",
        {},
    )
    card = gm.card(message_of(gm, rows[-1]["request_id"]))
    assert card.locator('[data-field="order"]').inner_text() == "vessa, guard"
    assert card.locator('[data-field="current"]').inner_text() == "vessa"
    assert gm.problems == []
