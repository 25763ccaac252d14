"""The module's client in Debian's chromium, in V12, V13 and V14 harness flavours, against the
real ``arbiter serve`` with the bundled rules (in its own process) and its SQLite roll log.

The scenarios are the bundled rulesets' own: a combat-styles exchange whose winner is offered
special effects (answered by the GM: ``choose_effects`` is a table action), a combat-styles
check for a player's combatant, a karmic reveal whose hit draws belong to each duellist's
player, and house rules laid over the bundled ones."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import BRAM, GM, PLAYER, OpenPage, Page, log_rows, screenshot
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import GUARD, VESSA, api_request

GENERATIONS = [12, 13, 14]
EXCHANGE = {
    "attacker": "vessa",
    "defender": "guard",
    "weapon": "dagger",
    "defence": "parry",
    "combatants": [VESSA, GUARD],
}
"""A free exchange (the stat blocks inline): with the dice 30 and 90, Vessa (70) hits and the
guard (55) fails his parry, so she wins one special effect and the exchange waits for it."""
WINNING = [30, 90]
CHECK = "async (body) => game.modules.get('arbiter').api['combat-styles'].check(body)"
BIND_ARIA = "async () => game.modules.get('arbiter').api.players.bind('Aria', ['vessa'])"
STORE_GUARD = (
    "async (b) => game.modules.get('arbiter').api.statBlocks.save(null, 'combat-styles', b)"
)
"""The GM keeps the guard's block on the server: a player's request is decided with the GM's
block of every participant he does not hold, whatever it writes in (docs/protocol.md)."""


def exchange(page: Page, encounter: str, dice: list[int] | None = WINNING, **options: Any) -> Any:
    """Vessa's free exchange against the guard, sent from ``page`` (scripted ``dice``)."""
    if dice is not None:
        options["dice"] = dice
    return api_request(page, "combat-styles", "exchange", EXCHANGE, encounter=encounter, **options)


def choose_first_effect(page: Page, message: str) -> str:
    """Press the first eligible effect's toggle on the card and apply it; returns its id."""
    card = page.card(message)
    toggle = card.locator("[data-arbiter-toggle]:enabled").first
    effect = toggle.get_attribute("data-arbiter-toggle")
    assert effect is not None
    toggle.click()
    card.locator("button.arbiter-choice__apply").click()
    return effect


@pytest.mark.parametrize("generation", GENERATIONS)
def test_a_macro_posts_the_logged_outcome_and_a_special_effect_click_updates_the_card_in_place(
    gm: Page, server: Server, generation: int
) -> None:
    answer = exchange(gm, "free-gate")
    [row] = log_rows(server)
    logged = json.loads(row["outcome"])
    result = logged["result"]
    assert row["request_id"] == answer["outcome"]["id"]
    assert answer["outcome"]["result"] == result
    assert (result["status"], result["chooser"]) == ("awaiting_effects", "vessa")
    card = gm.card(answer["message"])
    attack, defence = card.locator('[data-side="attack"]'), card.locator('[data-side="defence"]')
    assert attack.locator('[data-field="roll"]').inner_text() == "30"
    assert attack.locator('[data-field="level"]').inner_text() == result["attack"]["level"]
    assert defence.locator('[data-field="level"]').inner_text() == result["defence_level"]
    assert card.locator(".arbiter-die").all_inner_texts() == [
        f"{d['result']}/d{d['faces']}" for d in logged["dice"]
    ]
    assert logged["id"] in card.locator("[data-roll-id]").inner_text()
    assert logged["rules_version"] in card.locator(".arbiter-card__rules").inner_text()
    assert card.locator("[data-arbiter-toggle]").count() == len(result["eligible"])
    # Dice So Nice gets evaluated rolls carrying exactly the server's dice.
    dice3d = gm.call("() => harness.record.dice3d")
    assert [r["total"] for r in dice3d[0]["rolls"]] == [30, 90]
    screenshot(gm, f"v{generation}-exchange-pending")

    cards_before = gm.page.locator(".chat-message").count()
    effect = choose_first_effect(gm, answer["message"])
    card.locator('[data-field="blow"]').wait_for(timeout=30000)
    rows = log_rows(server)
    assert len(rows) == 2
    assert rows[1]["request_id"] == f"{logged['id']}-choice"
    assert json.loads(rows[1]["request"])["body"] == {
        "token": result["token"],
        "by": "vessa",
        "effects": [{"id": effect}],
    }
    final = json.loads(rows[1]["outcome"])["result"]
    assert [e["id"] for e in final["effects"]] == [effect]
    shown = card.locator("[data-effect]").evaluate_all("els => els.map(e => e.dataset.effect)")
    assert shown == [effect]
    assert card.locator('[data-field="location"]').inner_text() == final["blow"]["location"]
    assert card.locator("[data-arbiter-toggle]").count() == 0
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
    gm.call(
        "() => { window.queued = game.modules.get('arbiter').api['combat-styles']"
        ".check({skill: 60}); }"
    )
    assert gm.call("() => game.modules.get('arbiter').api.connection.queued") == 1
    server.start()
    answer = gm.call("async () => window.queued")
    rows = log_rows(server)
    assert [r["request_id"] for r in rows] == [answer["outcome"]["id"]]
    assert json.loads(rows[0]["outcome"])["result"]["kind"] == "check"
    assert gm.page.locator(".chat-message").count() == 1
    assert gm.call("() => game.modules.get('arbiter').api.connection.queued") == 0
    assert gm.problems == []


HEAR = """() => { window.heard = [];
  game.modules.get("arbiter").api.connection.addEventListener("event", ({detail}) => {
    if (detail.event === "outcome") window.heard.push([detail.outcome.id, detail.replayed ?? false]);
  }); }"""
"""Record the outcome events the GM's connection hands on to the module (after its dedupe)."""


@pytest.mark.parametrize("generation", GENERATIONS)
def test_outcomes_decided_while_the_gm_was_disconnected_reach_his_client_once_when_it_reconnects(
    gm: Page, site: str, server: Server, open_page: OpenPage
) -> None:
    player = open_page(site, server, user=PLAYER, token=server.player_token("Aria", ["vessa"]))
    player.wait_status("open")
    assert gm.call(STORE_GUARD, GUARD)["ok"] is True
    gm.call(HEAR)
    heard = lambda: gm.call("() => window.heard")  # noqa: E731
    answers = [exchange(player, "gap-1")]
    wait_until(lambda: len(heard()) == 1)
    gm.call("() => game.modules.get('arbiter').api.connection.stop()")
    answers += [exchange(player, f"gap-{n}") for n in (2, 3)]
    gm.call("() => game.modules.get('arbiter').api.connection.start()")
    gm.wait_status("open")
    wait_until(lambda: len(heard()) == 3)
    answers.append(exchange(player, "gap-4"))
    wait_until(lambda: len(heard()) == 4)
    first, *missed, last = [a["outcome"]["id"] for a in answers]
    assert heard() == [[first, False], [missed[0], True], [missed[1], True], [last, False]]
    seq = gm.call("() => game.modules.get('arbiter').api.connection.lastSeq")
    assert seq == max(r["seq"] for r in log_rows(server))
    # The player posts his cards; Foundry's server relays each to the GM's page in its own time
    # (the outcome event can come first), so wait for every card before counting.
    for answer in answers:
        gm.card(answer["message"]).wait_for(timeout=30000)
    # Events post no card: the player's four cards are all the chat holds.
    assert gm.page.locator(".chat-message").count() == 4
    assert gm.problems == []
    assert player.problems == []


@pytest.mark.parametrize("generation", [13, 14])
def test_a_player_request_is_relayed_through_the_gm_which_posts_the_card(
    gm: Page, site: str, server: Server, open_page: OpenPage
) -> None:
    player = open_page(site, server, user=PLAYER)
    player.wait_status("relay")
    gm.call(BIND_ARIA)
    assert gm.call(STORE_GUARD, GUARD)["ok"] is True
    # The GM's client tells players which request types the server serves.
    player.page.wait_for_function(
        "() => game.modules.get('arbiter').api['combat-styles']?.exchange"
    )
    answer = player.call(
        """async (body) => game.modules.get("arbiter").api["combat-styles"].exchange(body,
        {encounter: "free-relay", owners: {vessa: ["harnessPlayerAa"]}})""",
        EXCHANGE,
    )
    [row] = log_rows(server)
    assert row["request_id"] == answer["outcome"]["id"]
    assert row["request_id"].startswith(PLAYER)
    assert json.loads(row["request"])["body"]["attacker"] == "vessa"
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
    player = open_page(site, server, user=PLAYER, token=server.player_token("Aria", ["vessa"]))
    player.wait_status("open")
    assert gm.call(STORE_GUARD, GUARD)["ok"] is True
    answer = exchange(player, "free-v12")
    [row] = log_rows(server)
    assert row["request_id"] == answer["outcome"]["id"]
    gm.card(answer["message"]).wait_for(timeout=30000)
    assert gm.call(f"() => game.messages.get('{answer['message']}').author") == PLAYER
    # The effects are the GM's to apply (combat-styles choose_effects is a table action): he
    # answers on her card, and her browser sees it re-rendered in place.
    effect = choose_first_effect(gm, answer["message"])
    player.card(answer["message"]).locator('[data-field="blow"]').wait_for(timeout=30000)
    rows = log_rows(server)
    assert json.loads(rows[-1]["request"])["body"]["effects"] == [{"id": effect}]
    assert player.card(answer["message"]).locator("[data-arbiter-toggle]").count() == 0
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
    context = chromium.new_context()
    try:
        tab = context.new_page()
        tab.goto(site + "/harness/boot.mjs")
        resolved = tab.evaluate(
            """async ([protocol, setting]) => {
                const m = await import("/modules/arbiter/scripts/connection.mjs");
                return m.resolveUrl(setting, {protocol});
            }""",
            [page, setting],
        )
    finally:
        context.close()
    assert resolved == expected


def test_reconnect_delays_double_and_stop_at_the_cap(chromium: Any, site: str) -> None:
    context = chromium.new_context()
    try:
        tab = context.new_page()
        tab.goto(site + "/harness/boot.mjs")
        delays = tab.evaluate(
            """async () => {
                const m = await import("/modules/arbiter/scripts/connection.mjs");
                return [0, 1, 2, 3, 4, 5, 6, 10].map(m.backoff);
            }"""
        )
    finally:
        context.close()
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


def karmic_reveal(gm: Page, encounter: str) -> tuple[str, str]:
    """The rule text's first register of Devon against the soldier (docs/examples/karmic.json),
    played by the GM and revealed with two hit draws: Devon's owned by Aria, the soldier's by
    the GM. Returns the reveal's message and outcome id."""
    with open("docs/examples/karmic.json", encoding="utf-8") as f:
        example = json.load(f)["requests"]
    owners = {"devon": [PLAYER], "soldier": [GM]}
    for entry in [*example[:3], example[3], example[6]]:
        dice = {"dice": entry["dice"]} if entry.get("dice") else {}
        api_request(gm, "karmic", entry["type"], entry["body"], encounter=encounter, **dice)
    reveal = api_request(
        gm, "karmic", "reveal", {"register": 1}, encounter=encounter, owners=owners, mode="public"
    )
    return reveal["message"], reveal["outcome"]["id"]


@pytest.mark.parametrize("generation", [13, 14])
def test_only_the_owner_of_a_pending_choice_can_press_its_button(
    gm: Page, site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    aria = open_page(site, server, user=PLAYER)
    bram = open_page(site, server, user=BRAM)
    gm.call("async () => game.modules.get('arbiter').api.players.bind('Aria', ['devon'])")
    message, reveal_id = karmic_reveal(gm, "owners")
    devon_hit = '[data-choice-key="hit-devon-0"] [data-arbiter-choice="hit"]'
    for page in (gm, aria, bram):
        page.card(message).locator(devon_hit).wait_for(timeout=30000)
    assert aria.card(message).locator(f"{devon_hit}:enabled").count() == 1
    assert bram.card(message).locator("[data-arbiter-choice]:enabled").count() == 0
    rows = log_rows(server)
    # Bram's own client will not send Aria's draw …
    refused = bram.call(
        f"""async () => game.modules.get("arbiter").api.choose("{message}", "hit", undefined,
            "hit-devon-0").then(() => null, (err) => err.message)"""
    )
    assert refused == "Arbiter: this choice belongs to another player."
    # … and a query to the GM's browser claiming to be Aria is not confirmed by hers.
    forged = bram.call(
        f"""async () => game.users.activeGM.query("arbiter.choose", {{user: "{PLAYER}",
            ticket: "forged", payload: {{message: "{message}", option: "hit",
            key: "hit-devon-0"}}}})"""
    )
    assert forged["error"]["code"] == "forbidden"
    assert log_rows(server) == rows
    aria.card(message).locator(devon_hit).click()
    for page in (gm, aria, bram):
        page.card(message).locator(".arbiter-resolution").wait_for(timeout=30000)
    last = log_rows(server)[-1]
    assert (last["type"], last["request_id"]) == ("hit_draw", f"{reveal_id}-hit-devon-0")
    assert json.loads(last["request"])["body"] == {"combatant": "devon", "register": 1, "play": 0}
    screenshot(aria, f"v{generation}-owner-chose")
    for page in (gm, aria, bram):
        assert page.problems == []


def start_gate(gm: Page) -> None:
    """The GM starts the encounter "gate" (Vessa and the guard) and binds Aria to Vessa."""
    api_request(
        gm, "combat-styles", "start_encounter", {"combatants": [VESSA, GUARD]}, encounter="gate"
    )
    gm.call(BIND_ARIA)


ARIAS_CHECK = """async ([mode]) => game.modules.get("arbiter").api.request("combat-styles", "check",
    {skill: 50, combatant: "vessa"}, {encounter: "gate", ...(mode ? {mode} : {})})"""


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
    start_gate(gm)
    answer = aria.call(ARIAS_CHECK, [mode])
    message = answer["message"]
    assert log_rows(server)[-1]["request_id"] == answer["outcome"]["id"]
    gm.card(message).wait_for(timeout=30000)
    # Every page holds the message (Foundry delivers it to all; a whisper hides it on render).
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
            game.modules.get("arbiter").api["combat-styles"].check({skill: 10 * n})))"""
    )
    rows = log_rows(server)
    assert sorted(r["request_id"] for r in rows) == sorted(a["outcome"]["id"] for a in answers)
    assert sorted(json.loads(r["request"])["body"]["skill"] for r in rows) == [10, 20, 30, 40, 50]
    assert gm.page.locator(".chat-message").count() == 5
    assert gm.problems == []


@pytest.mark.parametrize("generation", [14])
def test_a_house_rule_change_on_the_server_makes_the_doctor_say_the_module_is_older(
    site: str, server: Server, open_page: OpenPage, tmp_path: Path
) -> None:
    # The bundled module was built from the bundled rules; the server watches an (empty) house
    # rule folder over them, so both start with the same rules.
    server.stop()
    server.rules = tmp_path / "house"
    (server.rules / "combat-styles").mkdir(parents=True)
    server.reload_interval = 0.2
    server.start()
    gm = open_page(site, server)
    gm.wait_status("open")
    assert "match" in gm.page.get_attribute("#arbiter-status", "title")
    bundled = Path("compiler/rules/combat-styles/ruleset.toml").read_text(encoding="utf-8")
    (server.rules / "combat-styles" / "ruleset.toml").write_text(
        bundled.replace('version = "1.0.0"', 'version = "1.0.1"'), encoding="utf-8"
    )
    wait_until(lambda: gm.call("() => harness.record.notifications.length"), timeout=30)
    [notice] = gm.call("() => harness.record.notifications")
    assert notice["type"] == "warning"
    assert "older than the server's rules (combat-styles)" in notice["message"]
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
    token = server.player_token("Aria", ["vessa"]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, settings={setting: value}, token=token)
    bram = open_page(site, server, user=BRAM)
    api_request(
        gm, "combat-styles", "start_encounter", {"combatants": [VESSA, GUARD]}, encounter="gate"
    )
    if token:
        aria.wait_status("open")
    else:
        gm.call(BIND_ARIA)
    answer = aria.call(ARIAS_CHECK, [None])
    message = answer["message"]
    gm.card(message).wait_for(timeout=30000)
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
        gm.call(f"() => {{ window.queued = ({CHECK})({{skill: 40}}); }}")
    finally:
        server.process.send_signal(signal.SIGCONT)
    answer = gm.call("async () => window.queued")
    assert [r["request_id"] for r in log_rows(server)] == [answer["outcome"]["id"]]
    assert gm.page.locator(".chat-message").count() == 1
    assert gm.problems == []
