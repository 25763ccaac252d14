"""The module's client in Debian's chromium, in V12, V13 and V14 harness flavours, against a
real ``arbiter serve`` process and its SQLite roll log."""

from __future__ import annotations

import json
import re
import signal
from typing import Any

import pytest

from tests.e2e.support.browser import BRAM, GM, PLAYER, OpenPage, Page, log_rows, screenshot
from tests.e2e.support.process import Server, wait_until

GENERATIONS = [12, 13, 14]
EXCHANGE = """async () => game.modules.get("arbiter").api.duel.exchange(
  {attacker: {name: "Kara", skill: 200}, defender: {name: "Orm", skill: 0}})"""


@pytest.mark.parametrize("generation", GENERATIONS)
def test_a_macro_posts_the_logged_outcome_and_a_special_effect_click_updates_the_card_in_place(
    gm: Page, server: Server, generation: int
) -> None:
    answer = gm.call(EXCHANGE)
    [row] = log_rows(server)
    logged = json.loads(row["outcome"])
    assert row["request_id"] == answer["outcome"]["id"]
    assert answer["outcome"]["result"] == logged["result"]
    card = gm.card(answer["message"])
    text = card.inner_text()
    assert f"{logged['result']['attack']}" in card.locator('[data-field="attack"]').inner_text()
    assert f"{logged['result']['parry']}" in card.locator('[data-field="parry"]').inner_text()
    assert card.locator(".arbiter-die").all_inner_texts() == [
        f"{d['result']}/d{d['faces']}" for d in logged["dice"]
    ]
    assert logged["id"] in card.locator("[data-roll-id]").inner_text()
    assert "1.2.0" in text
    # Dice So Nice gets evaluated rolls carrying exactly the server's dice.
    dice3d = gm.call("() => harness.record.dice3d")
    assert [r["total"] for r in dice3d[0]["rolls"]] == [d["result"] for d in logged["dice"]]
    screenshot(gm, f"v{generation}-exchange-pending")

    cards_before = gm.page.locator(".chat-message").count()
    card.locator('[data-arbiter-choice="disarm"]').click()
    card.locator(".arbiter-resolution").wait_for(timeout=10000)
    rows = log_rows(server)
    assert len(rows) == 2
    effect = json.loads(rows[1]["outcome"])
    assert rows[1]["request_id"] == f"{logged['id']}-choice"
    assert card.locator(".arbiter-resolution__text").inner_text() == effect["result"]["summary"]
    assert card.locator("[data-arbiter-choice]").count() == 0
    assert gm.page.locator(".chat-message").count() == cards_before
    screenshot(gm, f"v{generation}-exchange-resolved")
    assert gm.call("() => harness.record.missingKeys") == []
    assert gm.problems == []


@pytest.mark.parametrize("generation", GENERATIONS)
def test_a_request_made_while_the_server_is_down_is_decided_exactly_once_after_it_returns(
    gm: Page, server: Server
) -> None:
    gm.allowed.append(
        re.compile(rf"WebSocket connection to 'ws://127\.0\.0\.1:{server.port}/' failed")
    )
    server.stop()
    gm.wait_status("retrying")
    gm.call("() => { window.queued = game.modules.get('arbiter').api.duel.check({skill: 60}); }")
    assert gm.call("() => game.modules.get('arbiter').api.connection.queued") == 1
    server.start()
    answer = gm.call("async () => window.queued")
    rows = log_rows(server)
    assert [r["request_id"] for r in rows] == [answer["outcome"]["id"]]
    assert gm.page.locator(".chat-message").count() == 1
    assert gm.call("() => game.modules.get('arbiter').api.connection.queued") == 0
    assert gm.problems == []


BIND_ARIA = "async () => game.modules.get('arbiter').api.players.bind('Aria', ['Kara'])"
KARA = '{id: "Kara", name: "Kara", skill: 200}'


@pytest.mark.parametrize("generation", [13, 14])
def test_a_player_request_is_relayed_through_the_gm_which_posts_the_card(
    gm: Page, site: str, server: Server, open_page: OpenPage
) -> None:
    player = open_page(site, server, user=PLAYER)
    player.wait_status("relay")
    gm.call(BIND_ARIA)
    # The GM's client tells players which request types the server serves.
    player.page.wait_for_function("() => game.modules.get('arbiter').api.duel?.exchange")
    answer = player.call(
        f"""async () => game.modules.get("arbiter").api.duel.exchange(
        {{attacker: {KARA}, defender: {{name: "Orm", skill: 0}}}},
        {{owners: {{Kara: ["harnessPlayerAa"]}}}})"""
    )
    [row] = log_rows(server)
    assert row["request_id"] == answer["outcome"]["id"]
    assert row["request_id"].startswith(PLAYER)
    # The GM's client posted the card; the request went to the GM's browser by a user query,
    # never over the module socket (which every browser receives).
    assert gm.card(answer["message"]).count() == 1
    assert player.call("() => harness.record.socketOut.map((m) => m.args[0].action)") == ["hello"]
    assert [q["name"] for q in gm.call("() => harness.record.queriesIn")] == ["arbiter.request"]
    assert gm.problems == []
    assert player.problems == []


@pytest.mark.parametrize("generation", [12])
def test_on_v12_a_player_with_his_own_token_connects_and_posts_his_own_card(
    gm: Page, site: str, server: Server, open_page: OpenPage
) -> None:
    player = open_page(site, server, user=PLAYER, token=server.player_token("Aria", ["Kara"]))
    player.wait_status("open")
    answer = player.call(
        f"""async () => game.modules.get("arbiter").api.duel.exchange(
        {{attacker: {KARA}, defender: {{name: "Orm", skill: 0}}}})"""
    )
    [row] = log_rows(server)
    assert row["request_id"] == answer["outcome"]["id"]
    gm.card(answer["message"]).wait_for(timeout=10000)
    assert gm.call(f"() => game.messages.get('{answer['message']}').author") == PLAYER
    # Her choice goes over her own connection too; she re-renders her own card.
    player.card(answer["message"]).locator('[data-arbiter-choice="bleed"]').click()
    gm.card(answer["message"]).locator(".arbiter-resolution").wait_for(timeout=10000)
    rows = log_rows(server)
    assert json.loads(rows[-1]["request"])["body"] == {"by": "Kara", "choice": "bleed"}
    assert player.call("() => harness.record.socketOut.map((m) => m.args[0].action)") == ["hello"]
    assert gm.problems == []
    assert player.problems == []


@pytest.mark.parametrize(
    ("page", "setting", "expected"),
    [
        ("http:", "127.0.0.1:8765", {"url": "ws://127.0.0.1:8765/"}),
        ("https:", "localhost:8765", {"url": "ws://localhost:8765/"}),
        ("https:", "arbiter.example.com/arbiter", {"url": "wss://arbiter.example.com/arbiter"}),
        ("https:", "ws://192.0.2.7:8765", {"error": "MixedContent", "url": "ws://192.0.2.7:8765/"}),
        ("http:", "https://example.com/arbiter", {"url": "wss://example.com/arbiter"}),
        ("http:", "", {"error": "NoUrl"}),
        ("http:", "ftp://example.com", {"error": "BadUrl"}),
    ],
)
def test_the_server_address_gets_ws_or_wss_from_the_page_and_host(
    chromium: Any, site: str, page: str, setting: str, expected: dict[str, str]
) -> None:
    tab = chromium.new_page()
    try:
        tab.goto(site + "/harness/boot.mjs")
        resolved = tab.evaluate(
            """async ([protocol, setting]) => {
                const m = await import("/modules/arbiter/scripts/connection.mjs");
                return m.resolveUrl(setting, {protocol});
            }""",
            [page, setting],
        )
    finally:
        tab.close()
    assert resolved == expected


def test_reconnect_delays_double_and_stop_at_the_cap(chromium: Any, site: str) -> None:
    tab = chromium.new_page()
    try:
        tab.goto(site + "/harness/boot.mjs")
        delays = tab.evaluate(
            """async () => {
                const m = await import("/modules/arbiter/scripts/connection.mjs");
                return [0, 1, 2, 3, 4, 5, 6, 10].map(m.backoff);
            }"""
        )
    finally:
        tab.close()
    assert delays == [500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]


@pytest.mark.parametrize("generation", [12, 14])
def test_a_wrong_secret_stops_retrying_and_the_doctor_says_which_command_fixes_it(
    site: str, server: Server, open_page: OpenPage
) -> None:
    gm = open_page(site, server, token="not-the-secret")
    gm.wait_status("refused")
    gm.call("async () => game.modules.get('arbiter').api.doctor()")
    doctor = gm.page.locator(".arbiter-doctor").inner_text()
    assert "refused the access token" in doctor
    assert "arbiter token" in doctor
    assert log_rows(server) == []
    assert gm.problems == []


@pytest.mark.parametrize("generation", [13, 14])
def test_only_the_owner_of_the_winning_side_can_press_the_special_effect_buttons(
    gm: Page, site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    aria = open_page(site, server, user=PLAYER)
    bram = open_page(site, server, user=BRAM)
    gm.call(BIND_ARIA)
    answer = aria.call(
        f"""async () => game.modules.get("arbiter").api.request("duel", "exchange",
        {{attacker: {KARA}, defender: {{name: "Orm", skill: 0}}}},
        {{owners: {{Kara: ["harnessPlayerAa"]}}, mode: "public"}})"""
    )
    message = answer["message"]
    for page in (gm, aria, bram):
        page.card(message).locator("[data-arbiter-choice]").first.wait_for(timeout=10000)
    assert aria.card(message).locator("[data-arbiter-choice]:disabled").count() == 0
    assert bram.card(message).locator("[data-arbiter-choice]:enabled").count() == 0
    # Bram's own client will not send Aria's choice …
    refused = bram.call(
        f"""async () => game.modules.get("arbiter").api.choose("{message}", "trip")
            .then(() => null, (err) => err.message)"""
    )
    assert refused == "Arbiter: this choice belongs to another player."
    # … and a query to the GM's browser claiming to be Aria is not confirmed by hers.
    forged = bram.call(
        f"""async () => game.users.activeGM.query("arbiter.choose",
            {{user: "{PLAYER}", ticket: "forged", payload: {{message: "{message}", option: "trip"}}}})"""
    )
    assert forged["error"]["code"] == "forbidden"
    assert len(log_rows(server)) == 1
    aria.card(message).locator('[data-arbiter-choice="bleed"]').click()
    for page in (gm, aria, bram):
        page.card(message).locator(".arbiter-resolution").wait_for(timeout=10000)
    rows = log_rows(server)
    assert [r["type"] for r in rows] == ["exchange", "choose"]
    assert json.loads(rows[1]["request"])["body"] == {"by": "Kara", "choice": "bleed"}
    screenshot(aria, f"v{generation}-owner-chose")
    for page in (gm, aria, bram):
        assert page.problems == []


@pytest.mark.parametrize(
    ("mode", "seen_by"),
    [
        ("public", {GM, PLAYER, BRAM}),
        ("gm", {GM, PLAYER}),
        ("blind", {GM}),
        ("self", {GM, PLAYER}),
    ],
)
@pytest.mark.parametrize("generation", [13])
def test_a_players_chat_mode_decides_who_sees_the_card(
    gm: Page, site: str, server: Server, open_page: OpenPage, mode: str, seen_by: set[str]
) -> None:
    aria = open_page(site, server, user=PLAYER)
    bram = open_page(site, server, user=BRAM)
    gm.call(BIND_ARIA)
    answer = aria.call(
        f"""async () => game.modules.get("arbiter").api.request(
          "duel", "check", {{skill: 50, who: "Kara"}}, {{mode: "{mode}"}})"""
    )
    message = answer["message"]
    gm.card(message).wait_for(timeout=10000)
    # Give the other pages time to receive (or not) the broadcast message.
    wait_until(lambda: all(p.call(f"() => game.messages.has('{message}')") for p in (aria, bram)))
    seen = {
        user
        for user, page in ((GM, gm), (PLAYER, aria), (BRAM, bram))
        if page.card(message).count() == 1
    }
    assert seen == seen_by


def test_requests_over_the_rate_limit_are_sent_again_and_each_decided_once(
    site: str, server: Server, open_page: OpenPage
) -> None:
    server.stop()
    server.extra = ("--rate", "2", "--burst", "2")
    server.start()
    gm = open_page(site, server)
    gm.wait_status("open")
    answers = gm.call(
        """async () => Promise.all([1, 2, 3, 4, 5].map((n) =>
            game.modules.get("arbiter").api.duel.check({skill: 10 * n})))"""
    )
    rows = log_rows(server)
    assert sorted(r["request_id"] for r in rows) == sorted(a["outcome"]["id"] for a in answers)
    assert gm.page.locator(".chat-message").count() == 5
    assert gm.problems == []


@pytest.mark.parametrize("generation", [14])
def test_a_rule_change_on_the_server_makes_the_doctor_say_the_module_is_older(
    gm: Page, server: Server
) -> None:
    assert "match" in gm.page.get_attribute("#arbiter-status", "title")
    tables = server.rules / "duel" / "tables.toml"
    tables.write_text(tables.read_text().replace("Disarm", "Disarm and trip"))
    wait_until(lambda: gm.call("() => harness.record.notifications.length"), timeout=15)
    [notice] = gm.call("() => harness.record.notifications")
    assert notice["type"] == "warning"
    assert "older than the server's rules (duel)" in notice["message"]
    gm.call("async () => game.modules.get('arbiter').api.doctor()")
    assert (
        "Reinstall it from the server's /module.json"
        in gm.page.locator(".arbiter-doctor").inner_text()
    )
    assert gm.problems == []


@pytest.mark.parametrize(
    ("generation", "setting", "value"),
    [
        (12, "core.rollMode", "gmroll"),
        (13, "core.rollMode", "gmroll"),
        (14, "core.messageMode", "gm"),
    ],
)
def test_without_a_mode_the_card_follows_the_players_chat_mode_setting_of_each_generation(
    gm: Page,
    site: str,
    server: Server,
    open_page: OpenPage,
    setting: str,
    value: str,
    generation: int,
) -> None:
    # V12: Aria connects with her own token; V13+: through the GM, who binds her.
    token = server.player_token("Aria", ["Kara"]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, settings={setting: value}, token=token)
    bram = open_page(site, server, user=BRAM)
    if token:
        aria.wait_status("open")
    else:
        gm.call(BIND_ARIA)
    answer = aria.call(
        "async () => game.modules.get('arbiter').api.request('duel', 'check', {skill: 5, who: 'Kara'})"
    )
    message = answer["message"]
    gm.card(message).wait_for(timeout=10000)
    wait_until(lambda: all(p.call(f"() => game.messages.has('{message}')") for p in (aria, bram)))
    assert aria.card(message).count() == 1
    assert bram.card(message).count() == 0
    assert gm.problems == aria.problems == bram.problems == []


def test_a_server_that_stops_answering_is_dropped_by_the_heartbeat_and_dialled_again(
    site: str, server: Server, open_page: OpenPage
) -> None:
    gm = open_page(site, server, settings={"arbiter.heartbeat": 1})
    gm.wait_status("open")
    assert server.process is not None
    server.process.send_signal(signal.SIGSTOP)
    try:
        gm.wait_status("retrying")
        gm.call(
            "() => { window.queued = game.modules.get('arbiter').api.duel.check({skill: 40}); }"
        )
    finally:
        server.process.send_signal(signal.SIGCONT)
    answer = gm.call("async () => window.queued")
    assert [r["request_id"] for r in log_rows(server)] == [answer["outcome"]["id"]]
    assert gm.page.locator(".chat-message").count() == 1
    assert gm.problems == []
