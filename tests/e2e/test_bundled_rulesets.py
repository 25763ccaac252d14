"""Cards for the bundled rulesets' real outcomes: the real ``arbiter serve`` (with scripted dice
so the rolls are those of the rule texts' examples), the module built from the bundled rules."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.support.browser import BRAM, GM, PLAYER, OpenPage, Page, log_rows, screenshot
from tests.e2e.support.paths import ARTIFACTS, ROOT
from tests.e2e.support.process import Server, wait_until

GUARD = {
    "id": "guard",
    "name": "Gate guard",
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear", "heater"],
    "armor": {"chest": "laminated", "abdomen": "laminated"},
}
VESSA = {
    "id": "vessa",
    "name": "Vessa",
    "characteristics": {"str": 11, "con": 12, "siz": 11, "dex": 16, "int": 14, "pow": 12},
    "skills": {"combat_style": 70, "evade": 60, "endurance": 40, "willpower": 45},
    "weapons": ["dagger"],
    "traits": ["assassination"],
}


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    """In this module the GM's page is on the bundled module, against the real ``arbiter serve``."""
    return bundled_gm


def message_of(page: Page, request_id: str) -> str:
    """The id of the chat message that carries the outcome of ``request_id`` (waiting for it:
    the roll is logged before the answer that posts the card is sent)."""
    return page.page.wait_for_function(
        "(id) => game.messages.find((m) => m.flags.arbiter?.outcome?.id === id)?.id",
        arg=request_id,
        timeout=30000,
    ).json_value()


def api_request(page: Page, ruleset: str, type_: str, body: Any, **options: Any) -> Any:
    return page.call(
        """async ([ruleset, type, body, options]) =>
            game.modules.get("arbiter").api.request(ruleset, type, body, options)""",
        [ruleset, type_, body, options],
    )


@pytest.mark.parametrize("generation", [12, 14])
def test_a_combat_styles_exchange_card_shows_the_rolls_then_the_winners_chosen_effects(
    gm: Page, bundled_server: Server, generation: int
) -> None:
    encounter = {"encounter": "gatehouse"}
    body = {"combatants": [GUARD, VESSA], "surprised": ["guard"]}
    api_request(gm, "combat-styles", "start_encounter", body, **encounter)
    api_request(gm, "combat-styles", "initiative", {}, dice=[6, 4], **encounter)
    exchange = {"attacker": "vessa", "defender": "guard", "weapon": "dagger", "defence": "parry"}
    answer = api_request(gm, "combat-styles", "exchange", exchange, dice=[30], **encounter)
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert result["status"] == "awaiting_effects"
    card = gm.card(answer["message"])
    attack = card.locator('[data-side="attack"]')
    assert attack.locator('[data-field="roll"]').inner_text() == "30"
    assert attack.locator('[data-field="level"]').inner_text() == result["attack"]["level"]
    defence = card.locator('[data-side="defence"]')
    assert defence.locator('[data-field="level"]').inner_text() == result["defence_level"]
    toggles = card.locator("[data-arbiter-toggle]")
    assert toggles.count() == len(result["eligible"])
    screenshot(gm, f"v{generation}-combat-styles-awaiting")

    # The rule text's example: Choose Location (the head) and Kill Silently.
    card.locator('[data-arbiter-toggle="choose_location"]').click()
    card.locator('select[data-arbiter-param="choose_location"]').select_option("head")
    card.locator('[data-arbiter-toggle="kill_silently"]').click()
    card.locator("button.arbiter-choice__apply").click()
    card.locator('[data-field="blow"]').wait_for(timeout=30000)
    rows = log_rows(bundled_server)
    assert rows[-1]["type"] == "choose_effects"
    request = json.loads(rows[-1]["request"])
    chosen = [{"id": "choose_location", "location": "head"}, {"id": "kill_silently"}]
    assert request["body"] == {"token": result["token"], "by": "vessa", "effects": chosen}
    final = json.loads(rows[-1]["outcome"])["result"]
    assert card.locator("[data-effect]").evaluate_all("els => els.map(e => e.dataset.effect)") == [
        e["id"] for e in final["effects"]
    ]
    assert final["blow"]["location"] == "head"
    assert card.locator('[data-field="location"]').inner_text() == "head"
    assert card.locator('[data-field="damage"]').inner_text() == str(final["blow"]["to_hit_points"])
    assert card.locator("[data-arbiter-toggle]").count() == 0
    screenshot(gm, f"v{generation}-combat-styles-finished")
    assert gm.problems == []


def test_a_leaping_attack_card_offers_the_winners_effects_like_an_exchange(
    gm: Page, bundled_server: Server
) -> None:
    encounter = {"encounter": "kennel"}
    hound = {
        "id": "hound",
        "characteristics": {"str": 9, "con": 12, "siz": 8, "dex": 15, "int": 5},
        "skills": {"athletics": 60},
        "quadruped": True,
    }
    api_request(gm, "combat-styles", "start_encounter", {"combatants": [hound, GUARD]}, **encounter)
    # The stored state lists combatants by id: the guard rolls first (2), the hound 8.
    api_request(gm, "combat-styles", "initiative", {}, dice=[2, 8], **encounter)
    leap = {"attacker": "hound", "defender": "guard", "resist_with": "brawn"}
    answer = api_request(gm, "combat-styles", "leaping_attack", leap, dice=[33, 71], **encounter)
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert (result["status"], result["chooser"]) == ("awaiting_effects", "hound")
    card = gm.card(answer["message"])
    assert card.locator("[data-arbiter-toggle]").count() == len(result["eligible"])
    card.locator('[data-arbiter-toggle="grip"]').click()
    card.locator("button.arbiter-choice__apply").click()
    card.locator("[data-resolution]").wait_for(timeout=30000)
    rows = log_rows(bundled_server)
    assert rows[-1]["type"] == "choose_effects"
    assert json.loads(rows[-1]["request"])["body"] == {
        "token": result["token"],
        "by": "hound",
        "effects": [{"id": "grip"}],
    }
    final = json.loads(rows[-1]["outcome"])["result"]
    assert (final["kind"], final["leap"]["leaper_won"]) == ("leaping_attack", True)
    assert card.locator("[data-arbiter-toggle]").count() == 0
    assert gm.problems == []


def test_an_hmk_attack_card_shows_the_roll_against_the_effective_chance_and_the_injury(
    gm: Page, bundled_server: Server
) -> None:
    with open("docs/examples/hmk.json", encoding="utf-8") as f:
        example = json.load(f)["requests"]
    answer = None
    for entry in example[:3]:
        options = {"encounter": entry.get("encounter") or "table"}
        if entry.get("dice"):
            options["dice"] = [d if isinstance(d, int) else d["result"] for d in entry["dice"]]
        answer = api_request(gm, "hmk", entry["type"], entry["body"], **options)
    assert answer is not None
    result = json.loads(log_rows(bundled_server)[-1]["outcome"])["result"]
    assert result["kind"] == "attack"
    card = gm.card(answer["message"])
    assert card.locator('[data-field="roll"]').inner_text() == str(result["roll"])
    assert card.locator('[data-field="chance"]').inner_text() == str(result["chance"]["effective"])
    assert card.locator('[data-field="outcome"]').inner_text() == result["outcome"]
    if result.get("injury"):
        assert (
            str(result["injury"]["suffered"]) in card.locator('[data-field="injury"]').inner_text()
        )
    screenshot(gm, "v13-hmk-attack")
    assert gm.problems == []


def test_the_exchange_macro_opens_a_dialog_that_sends_both_stat_blocks_and_remembers_them(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str]
) -> None:
    gm.run_macro(macros[("combat-styles", "exchange")])
    dialog = gm.page.locator("dialog.application")
    dialog.locator('textarea[name="attacker"]').fill(json.dumps(VESSA))
    dialog.locator('textarea[name="defender"]').fill(json.dumps(GUARD))
    dialog.locator('select[name="weapon"]').select_option("dagger")
    dialog.locator('select[name="defence"]').select_option("parry")
    dialog.locator('select[name="parry_weapon"]').select_option("heater")
    dialog.locator('input[name="odds"]').check()
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(bundled_server))
    request = json.loads(row["request"])
    assert request["body"]["attacker"] == "vessa"
    assert request["body"]["combatants"] == [VESSA, GUARD]
    assert request["body"]["parry_weapon"] == "heater"
    assert request["encounter"].startswith("free-")
    result = json.loads(row["outcome"])["result"]
    card = gm.card(message_of(gm, row["request_id"]))
    assert card.locator('[data-side="attack"] [data-field="roll"]').inner_text() == str(
        result["attack"]["roll"]
    )
    assert (
        card.locator('[data-field="odds"]')
        .inner_text()
        .endswith(result["odds"]["attack_succeeds"]["exact"])
    )
    # Remembered on the server (the GM's stat blocks); the actors note only their combatants.
    noted = gm.call(
        "() => (harness.record.actorUpdates ?? []).filter((u) => Object.keys(u.data)"
        ".some((k) => k.startsWith('flags.')))"
    )
    assert [(u["actor"], u["data"]) for u in noted] == [
        ("actorKara0000001", {"flags.arbiter.participant.combat-styles": "vessa"}),
        ("actorOrm00000001", {"flags.arbiter.participant.combat-styles": "guard"}),
    ]
    assert gm.call("() => harness.record.flags") == []
    kept = gm.call(
        """async () => { const api = game.modules.get("arbiter").api.statBlocks;
                         return [await api.get("actorKara0000001", "combat-styles"),
                                 await api.get("actorOrm00000001", "combat-styles")]; }"""
    )
    assert kept == [VESSA, GUARD]
    screenshot(gm, "v13-combat-styles-dialog")
    assert gm.problems == []


@pytest.mark.parametrize("generation", [14])
def test_a_karmic_hand_reaches_its_owner_alone_and_the_register_dialog_plays_from_it(
    gm: Page, bundled_site: str, bundled_server: Server, open_page: OpenPage
) -> None:
    with open("docs/examples/karmic.json", encoding="utf-8") as f:
        example = json.load(f)["requests"]
    aria = open_page(bundled_site, bundled_server, user=PLAYER)
    bram = open_page(bundled_site, bundled_server, user=BRAM)
    # The server's record says whose hand is whose; `owners` only says who presses which button.
    gm.call("async () => game.modules.get('arbiter').api.players.bind('Aria', ['devon'])")
    owners = {"devon": [PLAYER], "soldier": [GM]}
    for entry in example[:3]:
        # The example's shuffle, so Devon (the rule text's hero) wins the initiative.
        dice = {"dice": entry["dice"]} if entry.get("dice") else {}
        api_request(
            gm, "karmic", entry["type"], entry["body"], encounter="duel", owners=owners, **dice
        )
    # The deck's shuffle is on the duel's card, not thrown as 3D dice.
    start = json.loads(log_rows(bundled_server)[0]["outcome"])
    assert start["dice"] and all(d["expr"] == "shuffle" for d in start["dice"])
    assert gm.call("() => harness.record.dice3d") == []
    hands = json.loads(log_rows(bundled_server)[-1]["outcome"])["private"]
    devon = [c["card"] for c in hands["devon"]["hand"]]
    aria.page.locator('[data-private="devon"]').wait_for(timeout=30000)
    shown = aria.page.locator('[data-private="devon"] [data-card]')
    assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == devon
    assert aria.page.locator('[data-private="soldier"]').count() == 0
    assert bram.page.locator("[data-private]").count() == 0

    aria.call(
        "() => { window.sent = game.modules.get('arbiter').api.dialogs.open('karmic', 'register'); }"
    )
    dialog = aria.page.locator("dialog.application")
    assert dialog.locator('input[name="combatant"]').input_value() == "devon"
    assert (
        dialog.locator('select[name="card"] option').evaluate_all("els => els.map(e => e.value)")
        == devon
    )
    dialog.locator('select[name="maneuver"]').select_option("attack")
    dialog.locator('select[name="card"]').select_option(devon[0])
    dialog.locator('input[name="target"]').fill("soldier")
    dialog.locator('input[name="encounter"]').fill("duel")
    dialog.locator('button[data-action="send"]').click()
    aria.call("async () => window.sent")
    last = log_rows(bundled_server)[-1]
    assert last["type"] == "declare"
    assert json.loads(last["request"])["body"] == {
        "combatant": "devon",
        "maneuvers": [
            {"maneuver": "attack", "card": devon[0], "target": "soldier", "weapon": "main"}
        ],
    }
    # The soldier parries with his -2 "hit" card (the text's second register); the register is
    # revealed with two hit cards: each player, and only he (or the GM), may draw on his own.
    api_request(gm, "karmic", "declare", example[6]["body"], encounter="duel", owners=owners)
    reveal = api_request(gm, "karmic", "reveal", {"register": 1}, encounter="duel", owners=owners)
    message, reveal_id = reveal["message"], reveal["outcome"]["id"]
    devon_hit = '[data-choice-key="hit-devon-0"] [data-arbiter-choice="hit"]'
    soldier_hit = '[data-choice-key="hit-soldier-0"] [data-arbiter-choice="hit"]'
    for page in (gm, aria, bram):
        page.card(message).locator(soldier_hit).wait_for(timeout=30000)
    assert bram.card(message).locator("[data-arbiter-choice]:enabled").count() == 0
    assert aria.card(message).locator(f"{devon_hit}:enabled").count() == 1
    assert aria.card(message).locator(f"{soldier_hit}:disabled").count() == 1
    aria.card(message).locator(devon_hit).click()
    aria.card(message).locator(".arbiter-resolution").wait_for(timeout=30000)
    last = log_rows(bundled_server)[-1]
    assert (last["type"], last["request_id"]) == ("hit_draw", f"{reveal_id}-hit-devon-0")
    assert json.loads(last["request"])["body"] == {"combatant": "devon", "register": 1, "play": 0}
    # The soldier's hit draw is still open after Devon's, and the GM (his owner) draws it.
    gm.card(message).locator(f"{soldier_hit}:enabled").click()
    wait_until(lambda: aria.card(message).locator(".arbiter-resolution").count() == 2)
    rows = log_rows(bundled_server)
    assert [r["type"] for r in rows[-2:]] == ["hit_draw", "hit_draw"]
    assert rows[-1]["request_id"] == f"{reveal_id}-hit-soldier-0"
    assert json.loads(rows[-1]["request"])["body"] == {
        "combatant": "soldier",
        "register": 1,
        "play": 0,
    }
    drawn = [json.loads(r["outcome"])["result"] for r in rows[-2:]]
    assert [(d["combatant"], d["card"]) for d in drawn] == [
        ("devon", {"value": 3, "hit": True}),
        ("soldier", {"value": -2, "hit": True}),
    ]
    for page in (gm, aria, bram):
        card = page.card(message)
        wait_until(lambda card=card: card.locator(".arbiter-resolution").count() == 2)
        assert card.locator("[data-arbiter-choice]").count() == 0
    screenshot(aria, "v14-karmic-hand")
    for page in (gm, aria, bram):
        assert page.problems == []


@pytest.fixture(scope="module")
def example_outcomes() -> list[dict[str, Any]]:
    """Every outcome of the rulesets' worked examples (``arbiter replay docs/examples/*``)."""
    outcomes = []
    for path in sorted((ROOT / "docs" / "examples").glob("*.json")):
        command = [sys.executable, "-m", "arbiter.bridge.cli", "replay", str(path)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        outcomes.extend(json.loads(done.stdout))
    return outcomes


def test_every_example_outcome_renders_a_card_with_its_dice_roll_id_and_rules_version(
    gm: Page, bundled_server: Server, example_outcomes: list[dict[str, Any]]
) -> None:
    assert {o["ruleset"] for o in example_outcomes} == {"combat-styles", "hmk", "karmic"}
    for outcome in example_outcomes:
        html = gm.call("async (o) => game.modules.get('arbiter').api.renderCard(o)", outcome)
        gm.call(
            """(html) => { const li = document.createElement("li");
              li.className = "chat-message gallery"; li.innerHTML = html;
              document.getElementById("chat-log").append(li); }""",
            html,
        )
        card = gm.page.locator("li.gallery").last
        where = f"{outcome['ruleset']} {outcome['type']} ({outcome['id']})"
        assert "[object Object]" not in card.inner_text(), where
        assert card.locator(".arbiter-die").all_inner_texts() == [
            f"{d['result']}/d{d['faces']}" for d in outcome["dice"] if not d.get("hidden")
        ], where  # a logged outcome still holds its hidden dice: the card never shows them
        assert outcome["id"] in card.locator("[data-roll-id]").inner_text(), where
        assert outcome["rules_version"] in card.locator(".arbiter-card__rules").inner_text(), where
        if outcome["result"]["kind"] == "odds" and outcome["ruleset"] == "combat-styles":
            exact = outcome["result"]["attack_succeeds"]["exact"]
            assert card.locator('[data-field="attack_succeeds"]').inner_text() == exact
        if outcome["result"]["kind"] == "odds" and outcome["ruleset"] == "hmk":
            assert (
                card.locator('[data-field="hit"]').inner_text() == outcome["result"]["hit"]["exact"]
            )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    gm.page.locator("#chat-log").screenshot(path=str(ARTIFACTS / "v13-example-gallery.png"))
    assert gm.call("() => harness.record.missingKeys") == []
    assert gm.problems == []


@pytest.mark.parametrize("ruleset", ["combat-styles", "hmk"])
@pytest.mark.parametrize("generation", [14])
def test_the_draw_macro_dialog_draws_from_a_table_and_the_card_shows_the_logged_row(
    gm: Page, bundled_server: Server, macros: dict[tuple[str, str], str], ruleset: str
) -> None:
    gm.run_macro(macros[(ruleset, "tables")])
    dialog = gm.page.locator("dialog.application")
    tables = dialog.locator('select[name="table"] option').evaluate_all(
        "els => els.map(e => e.value)"
    )
    assert len(tables) >= 1
    dialog.locator('select[name="table"]').select_option(tables[-1])
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(bundled_server))
    result = json.loads(row["outcome"])["result"]
    assert json.loads(row["request"])["body"] == {"table": tables[-1]}
    card = gm.card(message_of(gm, row["request_id"]))
    assert card.locator('[data-field="roll"]').inner_text() == str(result["roll"])
    assert card.locator('[data-field="text"]').inner_text() == result["text"]
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12])
def test_the_draw_macro_of_a_ruleset_without_tables_says_so_and_sends_nothing(
    gm: Page, bundled_server: Server
) -> None:
    gm.call("async () => game.modules.get('arbiter').api.tables.choose('karmic')")
    notices = gm.call("() => harness.record.notifications")
    assert notices[-1]["type"] == "warning"
    assert "has no tables to draw from" in notices[-1]["message"]
    assert gm.page.locator("dialog.application").count() == 0
    assert log_rows(bundled_server) == []
