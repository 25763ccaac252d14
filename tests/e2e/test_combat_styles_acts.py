"""Combat actions (``act``) from the client, end to end: the act dialogs offer the opponents the
client has seen in the encounter and the skills the rule data allows, the real ``arbiter serve``
decides, and the card shows the rolls the roll log recorded."""

from __future__ import annotations

import json

import pytest

from tests.e2e.support.browser import Page, log_rows, screenshot
from tests.e2e.support.dialogs import option_values, script_next_dice, send_dialog
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request, message_of

# The guard falls when he evades; he stands with Athletics (50), Vessa resists with her better
# of Brawn (40) and Athletics (45).
GUARD_ON_FOOT = {**GUARD, "skills": {**GUARD["skills"], "brawn": 35, "athletics": 50}}
VESSA_ON_FOOT = {**VESSA, "skills": {**VESSA["skills"], "brawn": 40, "athletics": 45}}


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
    bundled_gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
    gm = bundled_gm
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
