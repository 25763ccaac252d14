"""Dice So Nice throws every die a viewer may see, once, and never a die of hidden state.

The harness's Dice So Nice stand-in records what it throws: a message's rolls when the message
is created (what the real module does on ``createChatMessage``), and every
``game.dice3d.showForRoll`` it is asked for. Against the real ``arbiter serve`` with the bundled
rules: an exchange's attack roll is thrown with its card, and the blow's dice rolled when the
winner chose his effects — which only update the card, so Dice So Nice would never see them —
are thrown once, synchronised to everybody, on that card. A karmic duel's deck shuffle is never
thrown: the server withholds those dice and the card only counts them.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.support.browser import Page, log_rows
from tests.e2e.support.process import Server
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    return bundled_gm


def thrown(page: Page, message: str) -> list[tuple[str, list[int], bool]]:
    """What the stand-in threw for one message: (how, the dice's results, synchronised)."""
    return [
        (
            entry.get("by", "create"),
            [r["total"] for r in entry["rolls"]],
            entry.get("synchronize", False),
        )
        for entry in page.call("() => harness.record.dice3d")
        if entry["message"] == message
    ]


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_exchanges_dice_and_its_chosen_blows_dice_are_each_thrown_once(
    gm: Page, bundled_server: Server, generation: int
) -> None:
    encounter = {"encounter": "gatehouse"}
    body = {"combatants": [GUARD, VESSA], "surprised": ["guard"]}
    api_request(gm, "combat-styles", "start_encounter", body, **encounter)
    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], **encounter)
    exchange = {"attacker": "vessa", "defender": "guard", "weapon": "dagger", "defence": "parry"}
    answer = api_request(gm, "combat-styles", "exchange", exchange, dice=[30], **encounter)
    message = answer["message"]
    assert thrown(gm, message) == [("create", [30], False)]

    # The winner's choice, from the card's own buttons; the server rolls the blow (1d4, 1d3).
    card = gm.card(message)
    card.locator('[data-arbiter-toggle="choose_location"]').click()
    card.locator('select[data-arbiter-param="choose_location"]').select_option("head")
    card.locator('[data-arbiter-toggle="kill_silently"]').click()
    gm.call(
        """() => { const c = game.modules.get("arbiter").api.connection; const send = c.request;
            c.request = function (envelope, scripted) { c.request = send;
              return send.call(this, envelope, scripted ?? [4, 2]); }; }"""
    )
    card.locator("button.arbiter-choice__apply").click()
    card.locator('[data-field="blow"]').wait_for(timeout=30000)
    blow = json.loads(log_rows(bundled_server)[-1]["outcome"])
    assert [d["result"] for d in blow["dice"]] == [4, 2]
    gm.page.wait_for_function(
        "(id) => harness.record.dice3d.filter((e) => e.message === id).length === 3", arg=message
    )
    assert thrown(gm, message) == [
        ("create", [30], False),
        ("showForRoll", [4], True),
        ("showForRoll", [2], True),
    ]
    assert gm.problems == []


@pytest.mark.parametrize("generation", [13])
def test_a_duels_shuffle_is_never_thrown_and_its_card_counts_the_withheld_dice(
    gm: Page, bundled_server: Server
) -> None:
    with open("docs/examples/karmic.json", encoding="utf-8") as f:
        start = json.load(f)["requests"][0]
    answer = api_request(
        gm, "karmic", "start_duel", start["body"], encounter="duel", dice=start["dice"]
    )
    logged = json.loads(log_rows(bundled_server)[-1]["outcome"])
    assert len(logged["dice"]) == 47 and all(d.get("hidden") for d in logged["dice"])
    assert answer["outcome"]["dice"] == [] and answer["outcome"]["hidden_dice"] == 47
    assert gm.call("() => harness.record.dice3d") == []
    card = gm.card(answer["message"])
    assert card.locator(".arbiter-die").count() == 0
    assert "47 dice withheld" in card.locator('[data-field="hidden_dice"]').inner_text()
    assert gm.call("(id) => game.messages.get(id).rolls.length", answer["message"]) == 0
    assert gm.problems == []
