"""A karmic duel at a table of three browsers: the GM's and two players', each in its own browser
context, against the real ``arbiter serve`` with the bundled rules. Aria holds Devon, Bram holds
the soldier. Whatever Bram's browser receives (module socket messages, user queries, chat
messages and their flags, the page's DOM, every websocket frame) never holds Devon's cards, and
Bram cannot act for Devon: not through the GM, not by claiming to be Aria, not over his own
connection."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e.support.browser import BRAM, GM, PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_bundled_rulesets import api_request

ENCOUNTER = "devon-vs-soldier"
HIDDEN_DIE = re.compile(r'expr\\*"\s*:\s*\\*"shuffle')


@pytest.fixture
def example() -> list[dict[str, Any]]:
    """The rule text's round of Devon against the soldier (docs/examples/karmic.json)."""
    with open("docs/examples/karmic.json", encoding="utf-8") as f:
        return json.load(f)["requests"]


def deal(gm: Page, example: list[dict[str, Any]]) -> None:
    """The GM starts the duel (the example's shuffle: Devon wins the initiative) and deals."""
    for entry in example[:3]:
        dice = {"dice": entry["dice"]} if entry.get("dice") else {}
        api_request(gm, "karmic", entry["type"], entry["body"], encounter=ENCOUNTER, **dice)


def card_ids(value: Any) -> set[str]:
    """Every card id in a private part: the ``card`` strings at any depth (hand and sealed)."""
    if isinstance(value, list):
        return set().union(*map(card_ids, value)) if value else set()
    if not isinstance(value, dict):
        return set()
    found = {value["card"]} if isinstance(value.get("card"), str) else set()
    return found.union(*map(card_ids, value.values()))


def private_cards(server: Server, participant: str) -> set[str]:
    """Every card id the roll log shows in ``participant``'s private parts."""
    cards: set[str] = set()
    for row in log_rows(server):
        cards |= card_ids(json.loads(row["outcome"]).get("private", {}).get(participant, {}))
    return cards


def hand(server: Server, participant: str) -> list[str]:
    """``participant``'s hand after the last outcome that shows it."""
    for row in reversed(log_rows(server)):
        mine = json.loads(row["outcome"]).get("private", {}).get(participant)
        if mine is not None:
            return [c["card"] for c in mine["hand"]]
    raise AssertionError(f"no hand of {participant} in the log")


def everything_received(page: Page) -> dict[str, str]:
    """What a browser holds: socket messages and queries it received, the DOM, every chat
    message's flags and content, and every websocket frame it sent or received."""
    held = page.call(
        """() => ({
            socket: JSON.stringify(harness.record.socketIn),
            queries: JSON.stringify(harness.record.queriesIn),
            dom: document.documentElement.outerHTML,
            chat: JSON.stringify(game.messages.contents.map((m) => m.toObject())),
        })"""
    )
    held["frames"] = "\n".join(payload for _url, _way, payload in page.frames)
    return held


def holding(text: str, cards: set[str]) -> set[str]:
    """The card ids of ``cards`` in ``text`` (``plus-3#1`` is not found inside ``plus-3#10``)."""
    return {c for c in cards if re.search(re.escape(c) + r"(?![0-9])", text)}


def refusal(page: Page, script: str) -> dict[str, Any]:
    """Run ``script`` (an async function body's expression) expecting it to be refused."""
    return page.call(
        f"""async () => {{
            try {{ await {script}; return {{code: null}}; }}
            catch (err) {{ return {{code: err.code ?? null, message: err.message}}; }}
        }}"""
    )


def declare(combatant: str, card: str) -> dict[str, Any]:
    return {
        "combatant": combatant,
        "maneuvers": [
            {
                "maneuver": "attack",
                "card": card,
                "target": "soldier" if combatant == "devon" else "devon",
            }
        ],
    }


@pytest.mark.parametrize("generation", [13, 14])
def test_the_second_players_browser_never_holds_the_first_players_hand_nor_acts_for_him(
    bundled_gm: Page,
    bundled_site: str,
    bundled_server: Server,
    open_page: OpenPage,
    example: list[dict[str, Any]],
) -> None:
    gm = bundled_gm
    aria = open_page(bundled_site, bundled_server, user=PLAYER)
    bram = open_page(bundled_site, bundled_server, user=BRAM)
    gm.call("async () => game.modules.get('arbiter').api.players.bind('Aria', ['devon'])")
    gm.call("async () => game.modules.get('arbiter').api.players.bind('Bram', ['soldier'])")
    deal(gm, example)
    devon, soldier = hand(bundled_server, "devon"), hand(bundled_server, "soldier")

    # Each hand reached its owner's browser (by a query to that user alone) …
    aria.page.locator('#arbiter-private [data-private="devon"] [data-card]').first.wait_for()
    shown = aria.page.locator('[data-private="devon"] [data-card]')
    assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == devon
    bram.page.locator('#arbiter-private [data-private="soldier"] [data-card]').first.wait_for()
    # … and Aria plays from hers, through the GM's browser, as herself.
    played = aria.call(
        """async ([body, encounter]) => game.modules.get("arbiter").api.request(
            "karmic", "declare", body, {encounter})""",
        [declare("devon", devon[0]), ENCOUNTER],
    )
    rows = log_rows(bundled_server)
    assert (rows[-1]["type"], rows[-1]["request_id"]) == ("declare", played["outcome"]["id"])
    assert json.loads(rows[-1]["request"])["body"] == declare("devon", devon[0])
    card = gm.call(f"() => game.messages.get('{played['message']}').flags.arbiter.outcome")
    assert card["private"] == {} and card["result"]["kind"]

    # Naming himself as Devon's owner gets Bram nothing: he may not ask for Devon's view, and
    # when the GM asks for it with those owners, the hand goes to Devon's player alone.
    owners = {"devon": [BRAM]}
    view = {"viewer": "devon"}
    refused = refusal(
        bram,
        f"""game.modules.get("arbiter").api.request("karmic", "view", {json.dumps(view)},
            {{encounter: "{ENCOUNTER}", owners: {json.dumps(owners)}}})""",
    )
    assert refused["code"] == "forbidden"
    api_request(gm, "karmic", "view", view, encounter=ENCOUNTER, owners=owners)
    wait_until(lambda: len(aria.call("() => harness.record.queriesIn")) == 3)
    # Bram's browser was asked only for his own hand (dealt) and to confirm his own request.
    assert [q["name"] for q in bram.call("() => harness.record.queriesIn")] == [
        "arbiter.private",
        "arbiter.confirm",
    ]
    assert aria.call("() => harness.record.queriesIn")[-1]["data"]["participant"] == "devon"
    rows = log_rows(bundled_server)
    # Nothing of Devon's reached Bram's browser so far.
    for where, text in everything_received(bram).items():
        assert holding(text, private_cards(bundled_server, "devon")) == set(), where
    # Bram tries to play Devon's card (say he guessed its id): through the GM's browser …
    attempt = declare("devon", devon[1])
    refused = refusal(
        bram,
        f"""game.modules.get("arbiter").api.request("karmic", "declare", {json.dumps(attempt)},
            {{encounter: "{ENCOUNTER}"}})""",
    )
    assert refused == {"code": "forbidden", "message": "this connection does not act for 'devon'"}
    # … and by a query claiming to be Aria: her browser does not confirm it.
    forged = bram.call(
        """async ([aria, request]) => game.users.activeGM.query("arbiter.request",
            {user: aria, ticket: "forged", payload: {request, owners: {}}})""",
        [
            PLAYER,
            {
                "id": "bram-forged",
                "ruleset": "karmic",
                "type": "declare",
                "body": attempt,
                "encounter": ENCOUNTER,
                "mode": "public",
            },
        ],
    )
    assert forged["error"]["code"] == "forbidden"
    assert "could not be confirmed with Aria" in forged["error"]["message"]
    assert log_rows(bundled_server) == rows
    assert hand(bundled_server, "devon") == devon[1:]

    # Nothing of Devon's reached Bram's browser but the card id Bram typed himself.
    secrets = private_cards(bundled_server, "devon") - {devon[1]}
    assert set(devon) - {devon[1]} <= secrets
    for where, text in everything_received(bram).items():
        assert holding(text, secrets) == set(), where
        assert not HIDDEN_DIE.search(text), where
    # The search would have found a card: Bram's own hand is in his page.
    assert holding(everything_received(bram)["dom"], set(soldier)) == set(soldier)
    assert holding(everything_received(aria)["dom"], set(devon[1:])) == set(devon[1:])
    assert gm.problems == aria.problems == bram.problems == []


@pytest.mark.parametrize("generation", [13])
def test_a_hand_in_the_answer_of_a_relayed_request_reaches_only_its_owners_page(
    bundled_gm: Page,
    bundled_site: str,
    bundled_server: Server,
    open_page: OpenPage,
    example: list[dict[str, Any]],
) -> None:
    gm = bundled_gm
    aria = open_page(bundled_site, bundled_server, user=PLAYER)
    bram = open_page(bundled_site, bundled_server, user=BRAM)
    # Dealt before anybody is bound: the GM's browser delivers the hands to no one.
    deal(gm, example)
    devon = hand(bundled_server, "devon")
    assert aria.page.locator("[data-private]").count() == 0
    gm.call("async () => game.modules.get('arbiter').api.players.bind('Aria', ['devon'])")
    answer = aria.call(
        """async (encounter) => game.modules.get("arbiter").api.request(
            "karmic", "view", {viewer: "devon"}, {encounter})""",
        ENCOUNTER,
    )
    assert [c["card"] for c in answer["outcome"]["private"]["devon"]["hand"]] == devon
    shown = aria.page.locator('#arbiter-private [data-private="devon"] [data-card]')
    assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == devon
    # The card of the view is public and empty of the hand; Bram's browser got nothing of it.
    card = gm.call(f"() => game.messages.get('{answer['message']}').flags.arbiter.outcome")
    assert card["private"] == {}
    wait_until(lambda: bram.call(f"() => game.messages.has('{answer['message']}')"))
    for where, text in everything_received(bram).items():
        assert holding(text, set(devon)) == set(), where
    assert [q["name"] for q in aria.call("() => harness.record.queriesIn")] == ["arbiter.confirm"]
    assert bram.call("() => harness.record.queriesIn") == []
    assert gm.problems == aria.problems == bram.problems == []


@pytest.mark.parametrize("generation", [12])
def test_on_v12_a_player_without_a_token_is_refused_and_one_with_his_own_token_connects_himself(
    bundled_gm: Page,
    bundled_site: str,
    bundled_server: Server,
    open_page: OpenPage,
    example: list[dict[str, Any]],
) -> None:
    gm = bundled_gm
    lone = open_page(bundled_site, bundled_server, user=PLAYER)
    refused = refusal(
        lone,
        """game.modules.get("arbiter").api.request("karmic", "view", {viewer: "devon"},
            {encounter: "x"})""",
    )
    assert "set your own player token" in refused["message"]
    # Nothing went over the module socket but the page's hello (asking for the request types).
    sent = "() => harness.record.socketOut.map((m) => m.args[0].action)"
    wait_until(lambda: lone.call(sent))
    assert lone.call(sent) == ["hello"]
    assert log_rows(bundled_server) == []

    aria = open_page(
        bundled_site,
        bundled_server,
        user=PLAYER,
        token=bundled_server.player_token("Aria", ["devon"]),
    )
    bram = open_page(
        bundled_site,
        bundled_server,
        user=BRAM,
        token=bundled_server.player_token("Bram", ["soldier"]),
    )
    aria.wait_status("open")
    bram.wait_status("open")
    deal(gm, example)
    devon = hand(bundled_server, "devon")
    # Aria's hand came over her own connection (the server's view of the GM's deal for her).
    shown = aria.page.locator('#arbiter-private [data-private="devon"] [data-card]')
    shown.first.wait_for()
    assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == devon
    played = aria.call(
        """async ([body, encounter]) => game.modules.get("arbiter").api.request(
            "karmic", "declare", body, {encounter})""",
        [declare("devon", devon[0]), ENCOUNTER],
    )
    assert log_rows(bundled_server)[-1]["request_id"] == played["outcome"]["id"]
    gm.card(played["message"]).wait_for()
    rows = log_rows(bundled_server)
    bram.page.locator('#arbiter-private [data-private="soldier"]').wait_for()
    for where, text in everything_received(bram).items():
        assert holding(text, private_cards(bundled_server, "devon")) == set(), where
        assert not HIDDEN_DIE.search(text), where
    refused = refusal(
        bram,
        f"""game.modules.get("arbiter").api.request("karmic", "declare",
            {json.dumps(declare("devon", devon[1]))}, {{encounter: "{ENCOUNTER}"}})""",
    )
    assert refused == {"code": "forbidden", "message": "this connection does not act for 'devon'"}
    assert log_rows(bundled_server) == rows
    # The refusal brought nothing of Devon's but the card id Bram typed himself.
    secrets = private_cards(bundled_server, "devon") - {devon[1]}
    for where, text in everything_received(bram).items():
        assert holding(text, secrets) == set(), where
    assert bram.call("() => harness.record.queriesIn") == []

    # The soldier parries with his hit card (the GM plays him) and the register is revealed:
    # Aria draws on her hit card over her own connection; the GM's browser, which posted the
    # card, re-renders it from the server's event.
    api_request(gm, "karmic", "declare", example[6]["body"], encounter=ENCOUNTER)
    owners = {"devon": [PLAYER], "soldier": [GM]}
    reveal = api_request(
        gm, "karmic", "reveal", {"register": 1}, encounter=ENCOUNTER, owners=owners
    )
    hit = '[data-choice-key="hit-devon-0"] [data-arbiter-choice="hit"]'
    aria.card(reveal["message"]).locator(f"{hit}:enabled").click()
    for page in (gm, aria, bram):
        page.card(reveal["message"]).locator(".arbiter-resolution").wait_for(timeout=30000)
    last = log_rows(bundled_server)[-1]
    assert (last["type"], last["request_id"]) == (
        "hit_draw",
        f"{reveal['outcome']['id']}-hit-devon-0",
    )
    assert gm.problems == aria.problems == bram.problems == []
