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
    # Aria's browser learns the request types from whichever GM's browser was connected when it
    # said hello, or from the second GM's welcome (her page may have been ready only after the
    # first GM left): the module socket's message may still be on its way.
    aria.page.wait_for_function("() => game.modules.get('arbiter').api['combat-styles']?.exchange")

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
        page.card(message).locator('[data-field="blow"]').wait_for(timeout=30000)
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


BETWEEN = """(url) => {
    // Stands between the page and the Arbiter server, on sockets made after this (a redial):
    // while holding, the page's requests wait here (the page has sent them); with dropAnswers,
    // the server's answers never reach the module (lost with the socket).
    const P = WebSocket.prototype;
    const send = P.send, add = P.addEventListener;
    const b = (window.between = { held: [], holding: true, dropAnswers: false, dropped: [] });
    P.send = function (data) {
      if (this.url.startsWith(url) && b.holding && JSON.parse(data).type === "request") {
        b.held.push([this, data]);
        return;
      }
      return send.call(this, data);
    };
    P.addEventListener = function (type, listener, ...rest) {
      if (type !== "message" || !this.url.startsWith(url)) return add.call(this, type, listener, ...rest);
      return add.call(this, type, (event) => {
        const data = JSON.parse(event.data);
        if (b.dropAnswers && data.type === "outcome") return void b.dropped.push(data.outcome.id);
        listener(event);
      }, ...rest);
    };
    window.letThrough = () => {
      b.holding = false;
      for (const [socket, data] of b.held) if (socket.readyState === 1) send.call(socket, data);
    };
}"""


FLAGS = "(id) => game.actors.get(id).flags.arbiter ?? {}"
LEGACY = {"statBlocks", "editedStatBlocks"}


def heard_of_the_move(aria: Page, gm: Page) -> None:
    """Wait until Aria's page holds Orm's flags as the GM's client left them when it moved his
    stat block of an earlier version to the server (``fighter``: it connects, puts the block,
    notes its participant, unsets the old flags): each write reaches her page through Foundry's
    server in its own time, and a late one would count among an outcome's writes. The move is
    done when the GM's own page holds no old flag (its last write unsets the last of them)."""

    def moved() -> dict[str, Any] | None:
        flags: dict[str, Any] = gm.call(FLAGS, ORM)
        return None if LEGACY & flags.keys() else flags

    done = wait_until(moved)
    wait_until(lambda: aria.call(FLAGS, ORM) == done)


def stand_between(page: Page, server: Server) -> None:
    """The page's socket to the server is made again with BETWEEN standing on it."""
    page.call(BETWEEN, server.url)
    page.call("() => game.modules.get('arbiter').api.connection.redial()")
    page.wait_status("open")


SENT = """async ([body, encounter, dice, extra]) => { window.answer = game.modules.get("arbiter").api
    .request("combat-styles", "exchange", body, { dice, encounter, ...extra })
    .then((a) => ({ id: a.outcome.id, message: a.message, replayed: a.replayed ?? null }),
          (err) => ({ error: err.code, message: err.message })); }"""
CARDS = "(id) => game.messages.filter((m) => m.flags?.arbiter?.outcome?.id === id).length"
KARA_EVADED = {
    "attacker": KARA,
    "defender": ORM,
    "defence": "evade",
    "effects": [],
    "combatants": [swordsman(KARA), swordsman(ORM)],
}
"""Kara's blow: with the dice 80 and 30 Orm evades, and ends prone (test above)."""


def orm_writes(page: Page) -> list[dict[str, Any]]:
    return [w for w in page.call("() => window.writes") if w["actor"] == ORM]


def relayed_during_handover(
    site: str, server: Server, open_page: OpenPage, slow_first: str | None = None
) -> tuple[Page, Page, Page, dict[str, Any]]:
    """Aria's blow, relayed by the second GM's browser, decided while the first GM's takes the
    connection over; the second GM's browser never hears the answer. ``slow_first``: a script
    run on the first GM's page once it is open (before the blow is let through).
    Returns the first GM's, the second GM's and Aria's pages and Aria's answer."""
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    second.wait_status("open")  # alone, the second GM is the active GM
    aria = open_page(site, server, user=PLAYER, scene=WORLD)  # no token: she asks through him
    assert wait_until(lambda: aria.call("() => game.users.activeGM?.id")) == SECOND_GM
    stand_between(second, server)
    assert second.call(STORE, swordsman(ORM))["ok"] is True
    second.call(f"async () => game.modules.get('arbiter').api.players.bind('Aria', ['{KARA}'])")
    heard_of_the_move(aria, second)
    aria.call(WRITES)

    # Aria's blow reaches the second GM's browser, which sends it (held on the way).
    aria.call(SENT, [KARA_EVADED, "handover-relayed", [80, 30], {}])
    wait_until(lambda: second.call("() => window.between.held.length"))
    first = open_page(site, server, scene=WORLD)  # the first GM comes back: he ranks first
    first.wait_status("open")
    if slow_first:
        first.call(slow_first, ORM)
    # The server decides it now; its answer to the second GM's browser is lost. The first GM's
    # browser hears of it by the outcome event and writes the tabletop.
    second.call("() => { window.between.dropAnswers = true; window.letThrough(); }")
    dropped = wait_until(lambda: second.call("() => window.between.dropped"))
    answer = wait_until(lambda: aria.call("() => window.answer"), timeout=30)
    assert "error" not in answer, answer
    assert answer["id"] == dropped[0]
    return first, second, aria, answer


@pytest.mark.parametrize("generation", [13, 14])
def test_a_players_relayed_request_decided_while_the_connection_changes_hands_is_rolled_once(
    site: str, server: Server, open_page: OpenPage
) -> None:
    first, second, aria, answer = relayed_during_handover(site, server, open_page)

    # Aria's browser sent it again, with its id, to the first GM's: the stored outcome.
    rows = log_rows(server)
    assert [row["request_id"] for row in rows] == [answer["id"]]
    assert first.call(CARDS, answer["id"]) == 1
    assert [q["name"] for q in first.call("() => harness.record.queriesIn")] == ["arbiter.request"]
    assert [s["statusId"] for s in first.call("() => harness.record.statuses")] == ["prone"]
    # Written by the first GM's browser alone: its writes reach Aria's page in their own time.
    assert wait_until(lambda: orm_writes(aria))
    assert {w["user"] for w in orm_writes(aria)} == {GM}
    assert first.problems == second.problems == aria.problems == []


SLOW_FLAGS = """(actorId) => {
    // The first write of the outcome's flags on this actor waits 8 s: longer than the second
    // GM's browser holds the sent blow (5 s) before Aria's browser sends it again.
    const actor = game.actors.get(actorId);
    const setFlag = actor.setFlag.bind(actor);
    let slow = true;
    actor.setFlag = async (...args) => {
        if (slow) { slow = false; await new Promise((r) => setTimeout(r, 8000)); }
        return setFlag(...args);
    };
}"""
APPLICATIONS = """(id) => game.messages.find((m) => m.flags?.arbiter?.outcome?.id === id)
    ?.flags.arbiter.applied?.map((a) => a.outcome) ?? []"""


@pytest.mark.parametrize("generation", [13])
def test_a_card_posted_while_its_outcome_is_still_being_written_gets_its_undo(
    site: str, server: Server, open_page: OpenPage
) -> None:
    # The outcome event starts writing the tabletop; the resent request's card comes before the
    # write is done: the card waits for it and carries its Undo.
    first, second, aria, answer = relayed_during_handover(site, server, open_page, SLOW_FLAGS)

    assert first.call(CARDS, answer["id"]) == 1
    assert wait_until(lambda: first.call(APPLICATIONS, answer["id"])) == [answer["id"]]
    assert [s["statusId"] for s in first.call("() => harness.record.statuses")] == ["prone"]
    assert wait_until(lambda: orm_writes(aria))
    assert {w["user"] for w in orm_writes(aria)} == {GM}
    assert first.problems == second.problems == aria.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_gms_own_request_sent_as_the_connection_changes_hands_is_answered_not_refused(
    site: str, server: Server, open_page: OpenPage
) -> None:
    second = open_page(site, server, user=SECOND_GM, token=server.secret, scene=WORLD)
    second.wait_status("open")
    aria = open_page(site, server, user=PLAYER, scene=WORLD)
    stand_between(second, server)
    assert second.call(STORE, swordsman(ORM))["ok"] is True
    heard_of_the_move(aria, second)
    aria.call(WRITES)

    second.call(SENT, [KARA_EVADED, "handover-own", [80, 30], {}])
    wait_until(lambda: second.call("() => window.between.held.length"))
    first = open_page(site, server, scene=WORLD)
    first.wait_status("open")
    second.wait_status("relay")
    # Sent before the handover, decided after it: the browser that let go still gets the answer.
    second.call("() => window.letThrough()")
    answer = wait_until(lambda: second.call("() => window.answer"))

    assert "error" not in answer, answer
    assert [row["request_id"] for row in log_rows(server)] == [answer["id"]]
    assert answer["id"].startswith(SECOND_GM)
    # The second GM's browser posted the card before its answer came back; Foundry's server
    # relays it to the first GM's page in its own time: wait for it there before counting.
    wait_until(lambda: first.call(CARDS, answer["id"]))
    assert first.call(CARDS, answer["id"]) == second.call(CARDS, answer["id"]) == 1
    # Written once, by the active GM's browser (from the outcome event): Aria's page hears of
    # the flags it wrote first, its statuses come after them.
    assert wait_until(lambda: orm_writes(aria))
    wait_until(lambda: first.call("() => harness.record.statuses ?? []"))
    assert [s["statusId"] for s in first.call("() => harness.record.statuses")] == ["prone"]
    assert {w["user"] for w in orm_writes(aria)} == {GM}
    assert second.call("() => game.modules.get('arbiter').api.connection") is None
    assert first.problems == second.problems == aria.problems == []
