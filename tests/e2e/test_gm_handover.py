"""The world's connection follows the active GM (docs/client.md, "Who holds the connection").

Two GMs' browsers and a player's, each its own browser context; the hub plays Foundry's server:
a page opening or closing marks its user active or inactive in every other page's `game.users`
and calls `userConnected(user, connected)` there, as Foundry's `userActivity` does. Foundry's
`activeGM` is the active GM of the highest role, then of the smallest id: the harness's GM
(``harnessGamemast``) ranks before the second GM (``harnessGmSecond``), both full GMs.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e.support.browser import GM, PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD
from tests.e2e.test_client import BIND_ARIA, EXCHANGE, STORE_GUARD, choose_first_effect
from tests.e2e.test_tabletop import ORM, SCENE, swordsman

SECOND_GM = "harnessGmSecond"
KARA = "actorKara0000001"
WORLD: dict[str, Any] = {
    **SCENE,
    "users": [{"id": SECOND_GM, "name": "Second GM", "role": 4, "active": True}],
}
WRITES = """() => {
    window.writes = [];
    Hooks.on("updateActor", (actor, changed, options, userId) => window.writes.push({ actor: actor.id, user: userId }));
}"""
"""Every browser hears every actor update with the id of the user whose browser made it."""
STORE = "async (b) => game.modules.get('arbiter').api.statBlocks.save(null, 'combat-styles', b)"
RECORDED = """() => ({ updates: harness.record.actorUpdates ?? [], flags: harness.record.flags,
    statuses: harness.record.statuses ?? [] })"""
"""The actor writes a page made itself."""


def frames_to_server(page: Page, server: Server, direction: str) -> list[dict[str, Any]]:
    """The messages this page sent to (or received from) the Arbiter server."""
    return [
        json.loads(payload)
        for url, way, payload in page.frames
        if url.startswith(server.url) and way == direction
    ]


def exchange(page: Page, body: dict[str, Any], dice: list[int], encounter: str) -> Any:
    return page.call(
        """async ([body, dice, encounter]) => game.modules.get("arbiter").api.request(
            "combat-styles", "exchange", body, { dice, encounter })""",
        [body, dice, encounter],
    )


@pytest.mark.parametrize("generation", [13, 14])
def test_when_the_active_gm_leaves_the_other_gm_connects_and_answers_a_players_relayed_request(
    site: str, server: Server, open_page: OpenPage, pages: list[Page]
) -> None:
    first = open_page(site, server, scene=WORLD)
    first.wait_status("open")
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    aria = open_page(site, server, user=PLAYER, scene=WORLD)
    # The second GM's browser holds no connection while the first GM's does.
    second.wait_status("relay")
    assert frames_to_server(second, server, "sent") == []
    assert aria.call("() => game.users.activeGM.id") == GM
    first.call(BIND_ARIA)
    assert first.call(STORE_GUARD, GUARD)["ok"] is True

    first.close()  # the first GM closes his tab
    pages.remove(first)
    second.wait_status("open")
    [hello] = [m for m in frames_to_server(second, server, "sent") if m["type"] == "hello"]
    assert hello["client"]["user"] == SECOND_GM and hello["client"]["role"] == "gm"
    [welcome] = [m for m in frames_to_server(second, server, "received") if m["type"] == "welcome"]
    assert welcome["you"]["gm"] is True
    assert wait_until(lambda: aria.call("() => game.users.activeGM?.id")) == SECOND_GM

    # Aria's request goes to the active GM at send time: the second GM's browser answers it.
    answer = aria.call(
        """async (body) => game.modules.get("arbiter").api["combat-styles"].exchange(body,
        {encounter: "free-relay", owners: {vessa: ["harnessPlayerAa"]}, dice: [30, 90]})""",
        EXCHANGE,
    )
    [row] = log_rows(server)
    assert row["request_id"] == answer["outcome"]["id"]
    assert row["request_id"].startswith(PLAYER)
    assert [q["name"] for q in second.call("() => harness.record.queriesIn")] == ["arbiter.request"]
    assert second.card(answer["message"]).count() == 1
    assert second.problems == aria.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_gm_ranking_first_takes_the_connection_over_and_an_outcome_reaches_the_tabletop_once(
    site: str, server: Server, open_page: OpenPage
) -> None:
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    second.wait_status("open")  # alone, the second GM is the active GM
    aria = open_page(
        site, server, user=PLAYER, token=server.player_token("Aria", [KARA]), scene=WORLD
    )
    aria.wait_status("open")

    first = open_page(site, server, scene=WORLD)  # the first GM comes back: he ranks first
    first.wait_status("open")
    second.wait_status("relay")
    assert second.call("() => game.modules.get('arbiter').api.connection") is None
    assert aria.call("() => game.users.activeGM.id") == GM
    # Orm's block is the GM's to keep: Aria's request is decided with it.
    assert first.call(STORE, swordsman(ORM))["ok"] is True
    aria.call(WRITES)
    # What the second GM's browser wrote while it held the connection (its stat-block moves).
    written = second.call(RECORDED)

    # Kara's blow, on Aria's own connection: both GMs' browsers hear of nothing but by the
    # server's outcome event, which only the connected one receives.
    body = {
        "attacker": KARA,
        "defender": ORM,
        "defence": "evade",
        "effects": [],
        "combatants": [swordsman(KARA), swordsman(ORM)],
    }
    answer = exchange(aria, body, [80, 30], "handover-e2e")  # Orm evades, and ends prone
    assert json.loads(log_rows(server)[-1]["outcome"])["result"]["lasting"][ORM] == ["prone"]
    wait_until(lambda: first.call("() => harness.record.statuses ?? []"))
    # A second blow, so the first outcome's event has reached every connection long before.
    again = {"attacker": KARA, "defender": ORM, "defence": "none", "effects": []}
    exchange(aria, again, [30, 3, 2], "handover-e2e")
    leg = "(id) => game.actors.get(id).getFlag('arbiter', 'vitals.combat-styles')?.locations"
    leg += "?.right_leg ?? null"
    assert wait_until(lambda: aria.call(leg, ORM)) == 2

    writes = aria.call("() => window.writes")
    assert writes and {w["user"] for w in writes} == {GM}
    assert second.call(RECORDED) == written
    assert written["statuses"] == []
    assert [s["statusId"] for s in first.call("() => harness.record.statuses")] == ["prone"]
    assert answer["outcome"]["id"].startswith(PLAYER)
    assert first.problems == second.problems == aria.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_players_choice_on_a_gm_card_is_written_once_after_the_first_gm_takes_over(
    site: str, server: Server, open_page: OpenPage
) -> None:
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    second.wait_status("open")
    aria = open_page(
        site, server, user=PLAYER, token=server.player_token("Aria", ["vessa"]), scene=WORLD
    )
    aria.wait_status("open")
    first = open_page(site, server, scene=WORLD)
    first.wait_status("open")
    second.wait_status("relay")
    assert first.call(STORE_GUARD, GUARD)["ok"] is True
    # The first GM's exchange: Vessa wins a special effect, Aria's to choose on his card.
    answer = first.call(
        """async (body) => game.modules.get("arbiter").api.request("combat-styles", "exchange",
        body, {encounter: "free-handover", owners: {vessa: ["harnessPlayerAa"]}, dice: [30, 90]})""",
        EXCHANGE,
    )
    message = answer["message"]
    aria.card(message).locator("[data-arbiter-toggle]:enabled").first.wait_for()
    choose_first_effect(aria, message)
    # Her choice goes over her own connection; the GM's browser re-renders his card from the
    # server's outcome event, and every page shows it resolved.
    for page in (first, second, aria):
        page.card(message).locator('[data-field="blow"]').wait_for(timeout=10000)
    updated = "(id) => harness.record.updated.filter((m) => m === id).length"
    assert first.call(updated, message) == 1
    assert second.call(updated, message) == 0
    assert first.problems == second.problems == aria.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_request_still_queued_when_the_connection_changes_hands_is_refused_with_a_retry_message(
    site: str, server: Server, open_page: OpenPage
) -> None:
    down = re.compile(rf"WebSocket connection to 'ws://127\.0\.0\.1:{server.port}/' failed")
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    second.allowed.append(down)
    second.wait_status("open")
    server.stop()
    second.wait_status("retrying")
    second.call(
        """() => { window.queued = game.modules.get('arbiter').api['combat-styles']
        .check({skill: 60}).then(() => null, (err) => ({ code: err.code, message: err.message })); }"""
    )
    assert second.call("() => game.modules.get('arbiter').api.connection.queued") == 1
    # The first GM comes back while the server is down: the second GM's browser lets go.
    first = open_page(site, server, scene=WORLD)
    first.allowed.append(down)
    second.wait_status("relay")
    refused = second.call("async () => window.queued")
    assert refused["code"] == "handed_over"
    assert "another GM's browser now holds" in refused["message"]
    assert "send it again" in refused["message"]
    # Its error card says so, in the second GM's chat.
    assert "send it again" in second.page.locator(".chat-message").last.inner_text()
    server.start()
    first.wait_status("open")
    # Nothing was decided twice, nor sent again from the browser that let go.
    assert log_rows(server) == []
    assert first.problems == second.problems == []
