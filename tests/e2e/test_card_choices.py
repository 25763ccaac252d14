"""A GM's card is resolved only by the answer to one of its own pending choices, in V12, V13 and
V14. A player with his own token chooses his request ids: a request of another type whose id
merely begins with the card's outcome id (`<card>-…`, the form a choice's id takes) reaches the
active GM's browser as an outcome event like any other, and must not re-render the card (before,
any id beginning so did: a player could put his own roll on the GM's card)."""

from __future__ import annotations

import pytest

from tests.e2e.support.browser import PLAYER, OpenPage, log_rows
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD
from tests.e2e.test_client import EXCHANGE, STORE_GUARD, choose_first_effect
from tests.e2e.test_tabletop import SCENE


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_players_request_whose_id_begins_with_a_gm_cards_does_not_resolve_it(
    site: str, server: Server, open_page: OpenPage
) -> None:
    aria = open_page(
        site, server, user=PLAYER, token=server.player_token("Aria", ["vessa"]), scene=SCENE
    )
    aria.wait_status("open")
    gm = open_page(site, server, scene=SCENE)
    gm.wait_status("open")
    assert gm.call(STORE_GUARD, GUARD)["ok"] is True
    # The GM's exchange: Vessa wins a special effect, Aria's to choose on his card.
    answer = gm.call(
        """async (body) => game.modules.get("arbiter").api.request("combat-styles", "exchange",
        body, {encounter: "free-spoof", owners: {vessa: ["harnessPlayerAa"]}, dice: [30, 90]})""",
        EXCHANGE,
    )
    message, card_id = answer["message"], answer["outcome"]["id"]
    aria.card(message).locator("[data-arbiter-toggle]:enabled").first.wait_for()
    # Aria's own check, under an id shaped like an answer to the card.
    spoof = f"{card_id}-effects"
    aria.call(
        """async (id) => game.modules.get("arbiter").api.request("combat-styles", "check",
        {skill: 60, combatant: "vessa"}, {id, encounter: "free-spoof"})""",
        spoof,
    )
    wait_until(lambda: any(r["request_id"] == spoof for r in log_rows(server)))
    # Her real choice on the card: the GM's browser re-renders it from the outcome event once.
    choose_first_effect(aria, message)
    gm.card(message).locator('[data-field="blow"]').wait_for(timeout=30000)
    updated = "(id) => harness.record.updated.filter((m) => m === id).length"
    assert gm.call(updated, message) == 1
    resolutions = gm.call(
        "(id) => (game.messages.get(id).flags.arbiter.resolutions ?? []).map((r) => r.id)",
        message,
    )
    assert spoof not in resolutions and len(resolutions) == 1
    assert gm.problems == aria.problems == []
