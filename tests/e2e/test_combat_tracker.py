"""The encounter bound to the scene's Foundry Combat, in V12, V13 and V14, against a real
``arbiter serve`` with the bundled rules: a GM drops two actors on the scene, puts their
tokens into combat and begins it in the tracker; the server's encounter starts with their stat
blocks (read from a HârnMaster 3 or Mythras actor's data, or saved by Arbiter's editor), the
tracker shows the server's initiative order and round; a blow resolved from the dialogs (no JSON
typed) lands on the defender's token, actor and combatant, and Undo on its card restores every
value; Foundry's next round asks the server for its round. Dice are scripted, so every number
is exact. Screenshots: the tokens before and after the blow, the tracker, the editor."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import ARTIFACTS, PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_dice_queue
from tests.e2e.support.process import Server, wait_until

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EDITOR = "dialog.application:has(.arbiter-editor)"


def fixture_actor(
    name: str, actor_id: str | None = None, actor_name: str | None = None
) -> dict[str, Any]:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.pop("_source")
    if actor_id:
        data["_id"] = actor_id
    if actor_name:
        data["name"] = actor_name
    return data


def hm3_brann() -> dict[str, Any]:
    """A second HârnMaster 3 actor: Aldric's data, a lesser endurance (5: 15 injury points)."""
    data = fixture_actor("hm3_actor.json", BRANN, "Brann of Kaldor")
    data["system"]["endurance"] = 5
    return data


def world(system: dict[str, str], *actors: dict[str, Any]) -> dict[str, Any]:
    """A scene with no token yet: the GM drops the actors on it."""
    return {"system": system, "actors": list(actors), "tokens": [], "controlled": [], "targets": []}


def drop(page: Page, actor_ids: list[str]) -> list[str]:
    """Drop each actor on the scene (a token from it, as Foundry's drop handler makes one)."""
    return page.call("(ids) => ids.map((id) => harness.dropActor(id).id)", actor_ids)


def fight(page: Page, token_ids: list[str]) -> None:
    """Put the tokens into combat (the token HUD's combat toggle)."""
    page.call("(ids) => harness.toggleCombat(ids).then(() => null)", token_ids)


def drop_and_fight(page: Page, actor_ids: list[str]) -> list[str]:
    """Drop the actors and put their tokens into combat; the token ids."""
    tokens = drop(page, actor_ids)
    fight(page, tokens)
    return tokens


def begin_combat(page: Page) -> None:
    """Click Begin Combat in the tracker and wait for the binding's requests to be answered."""
    page.page.locator('#combat-tracker [data-action="startCombat"]').click()
    wait_until(lambda: page.call("() => game.combat.started"))
    page.call("() => game.modules.get('arbiter').api.combat.settled()")


def tracker(page: Page) -> dict[str, Any]:
    """What the combat tracker shows: the round, the rows in order (name, initiative,
    defeated), and the current combatant."""
    return page.call(
        """() => ({
            round: Number(document.querySelector("#combat-tracker .encounter-round")?.textContent ?? 0),
            rows: [...document.querySelectorAll("#combat-tracker li.combatant")].map((li) => [
                li.querySelector(".token-name").textContent,
                li.querySelector(".token-initiative").textContent,
                li.classList.contains("defeated"),
            ]),
            current: document.querySelector("#combat-tracker li.combatant.active .token-name")?.textContent ?? null,
        })"""
    )


def actor_state(page: Page, actor_id: str) -> dict[str, Any]:
    return page.call(
        """(id) => {
            const a = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            const injuries = Array.from(a.items ?? []).filter((i) => i.type === "injury")
                .map((i) => [i.name, i.system.injuryLevel]);
            const hitPoints = Object.fromEntries(Array.from(a.items ?? []).filter((i) => i.type === "hitLocation")
                .map((i) => [i.name, i.system.currentHitPoints]));
            return { health: a.system.health ?? null, vitals: a.getFlag("arbiter", "vitals") ?? null,
                     statuses: [...a.statuses].sort(), injuries, hitPoints };
        }""",
        actor_id,
    )


def shoot(page: Page, name: str, what: str = "#board") -> None:
    if what == "#board":
        page.call("() => harness.drawTokens()")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator(what).screenshot(path=str(ARTIFACTS / f"{name}.png"))


def select(page: Page, controlled: str, targeted: str) -> None:
    page.call("([c, t]) => harness.select([c], [t])", [controlled, targeted])


def send_dialog(page: Page, macro: str, fill: dict[str, str] | None = None) -> None:
    """Run a request macro, fill its dialog's fields (no JSON), press Send and wait for the card."""
    page.run_macro(macro)
    dialog = page.page.locator("dialog.application")
    for name, value in (fill or {}).items():
        field = dialog.locator(f'[name="{name}"]')
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    before = page.call("() => game.messages.size")
    dialog.locator('button[data-action="send"]').click()
    page.call("async () => window.macro")
    page.page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=30000)


def undo_card_of(page: Page, request_type: str) -> None:
    """Press Undo on the last card of a request type, and wait until it is done."""
    message = page.call(
        """(type) => game.messages.contents.filter((m) => m.flags?.arbiter?.outcome?.type === type).at(-1).id""",
        request_type,
    )
    page.card(message).locator("[data-arbiter-undo]").click()
    wait_until(
        lambda: page.call(
            "(id) => game.messages.get(id).flags.arbiter.applied.every((a) => a.undone)", message
        )
    )


def requests_logged(server: Server) -> list[tuple[str, str]]:
    return [(r["ruleset"], r["type"]) for r in log_rows(server)]


HM3 = {"id": "hm3", "title": "HârnMaster 3"}
ALDRIC = "actorHm3Aldric01"
BRANN = "actorHm3Brann001"


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_hm3_combat_starts_the_hmk_encounter_shows_its_order_and_a_deadly_blow_is_undone(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(site, server, scene=world(HM3, fixture_actor("hm3_actor.json"),
                                             hm3_brann()))  # fmt: skip
    gm.wait_status("open")
    aldric, brann = drop(gm, [ALDRIC, BRANN])
    shoot_editor_from_system(gm, ALDRIC, "hmk", f"v{generation}-combat-editor-hmk-from-hm3")
    fight(gm, [aldric, brann])
    # The server's initiative (d10 each, in the start's order, by name: 3 for Aldric, 7 for
    # Brann) puts Brann first.
    script_dice_queue(gm, [[], [3, 7]])
    begin_combat(gm)
    assert requests_logged(server) == [("hmk", "start"), ("hmk", "initiative")]
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    # The stat blocks came from the HârnMaster 3 data (the hm3 → hmk preset), no JSON typed.
    assert [b["id"] for b in start] == [ALDRIC, BRANN] and start[0]["skills"] == {
        "long-sword": 62,
        "dagger": 45,
    }
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Brann of Kaldor", "2", False], ["Aldric of Kaldor", "1", False]],
        "current": "Brann of Kaldor",
    }
    shoot(gm, f"v{generation}-hm3-tracker-order", "#combat-tracker")
    # An initiative set in Foundry (an edit, a roll) does not change the server's order.
    gm.call("() => game.combat.turns[1].update({initiative: 20})")
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert tracker(gm)["rows"] == [
        ["Brann of Kaldor", "2", False],
        ["Aldric of Kaldor", "1", False],
    ]
    assert gm.call("() => harness.record.notifications.map((n) => n.message)") == [
        "Arbiter: the initiative of Aldric of Kaldor is the server's; its order stands "
        "(roll initiative through the ruleset's own request)."
    ]
    assert len(log_rows(server)) == 2
    before = actor_state(gm, BRANN)
    shoot(gm, f"v{generation}-hm3-token-before-blow")
    # Aldric strikes Brann in the encounter: d100 5 is a critical (5 × 10 < 62), d10 injury 10,
    # the critical table's 99: a Vital Hit; Brann is dead, and defeated in the tracker.
    select(gm, aldric, brann)
    script_dice_queue(gm, [[5, 10, 99]])
    send_dialog(gm, macros[("hmk", "attack")])
    attack = log_rows(server)[-1]
    assert (attack["type"], attack["encounter"]) == (
        "attack",
        gm.call("() => `combat-${game.combat.id}`"),
    )
    result = json.loads(attack["outcome"])["result"]
    assert result["combatants"][BRANN]["status"] == "dead"

    wait_until(lambda: tracker(gm)["rows"][0][2])
    after = actor_state(gm, BRANN)
    assert after["statuses"] == ["bleeding", "dead"]
    # d10 10 + STR and skill bonuses, +200 %: 42 dealt, 6 absorbed by mail: 15 - 36 = -21.
    assert result["injury"]["dealt"] == 42 and result["injury"]["suffered"] == 36
    assert result["combatants"][BRANN]["lasting"] == ["bleeding"]
    assert after["vitals"]["hmk"] == {
        "value": -21,
        "max": 15,
        "status": "dead",
        "conditions": ["dead", "bleeding"],
        "locations": {},
    }
    # HârnMaster 3's own data holds the wound too: an injury item named after the critical
    # (system-fields.mjs).
    assert after["injuries"] == [["Vital Hit", 12]]
    assert tracker(gm)["rows"] == [["Brann of Kaldor", "2", True], ["Aldric of Kaldor", "1", False]]
    shoot(gm, f"v{generation}-hm3-token-after-blow")
    shoot(gm, f"v{generation}-hm3-tracker-defeated", "#combat-tracker")
    # Undo on the attack's card: the values before the blow, the combatant no longer defeated.
    undo_card_of(gm, "attack")
    assert actor_state(gm, BRANN) == before
    assert tracker(gm)["rows"] == [
        ["Brann of Kaldor", "2", False],
        ["Aldric of Kaldor", "1", False],
    ]
    # Next round in the tracker asks the server for its round; the tracker shows the server's.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("hmk", "round"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert json.loads(log_rows(server)[-1]["outcome"])["result"]["round"] == 2
    assert tracker(gm)["round"] == 2
    # End Combat ends the binding; no request is sent (none ends an encounter).
    bound = "() => game.modules.get('arbiter').api.combat.bound('hmk')"
    assert gm.call(bound)["encounter"] == attack["encounter"]
    logged = len(log_rows(server))
    gm.page.locator('#combat-tracker [data-action="endCombat"]').click()
    wait_until(lambda: gm.call("() => game.combat === null"))
    assert gm.call(bound) is None and len(log_rows(server)) == logged
    assert gm.problems == []


MYTHRAS = {"id": "mythras-foundry", "title": "Mythras"}
VESSA = "actorMythVessa01"
GORM = "actorMythGorm001"


def choose_on_card(page: Page, request_type: str, picks: dict[str, dict[str, str]]) -> None:
    """Answer the pending choice on the last card of a request type: toggle each option (with
    its parameter's value picked in its select), then press the answer button."""
    message = page.call(
        """(type) => game.messages.contents.filter((m) => m.flags?.arbiter?.outcome?.type === type).at(-1).id""",
        request_type,
    )
    card = page.card(message)
    for option, params in picks.items():
        card.locator(f'[data-arbiter-toggle="{option}"]').click()
        for value in params.values():
            card.locator(f'[data-arbiter-param="{option}"]').select_option(value)
    card.locator("[data-arbiter-choice]:enabled").first.click()


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_mythras_combat_starts_the_combat_styles_encounter_and_follows_its_turns_and_rounds(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(site, server, scene=world(MYTHRAS, fixture_actor("mythras_actor.json"),
                                             fixture_actor("mythras_actor.json", GORM, "Gorm")))  # fmt: skip
    gm.wait_status("open")
    vessa, gorm = drop(gm, [VESSA, GORM])
    shoot_editor_from_system(
        gm, VESSA, "combat-styles", f"v{generation}-combat-editor-combat-styles-from-mythras"
    )
    fight(gm, [vessa, gorm])
    # Initiative d10 each in the start's order (Gorm, Vessa by name): 2 and 9; both add 12.
    script_dice_queue(gm, [[], [2, 9]])
    begin_combat(gm)
    assert requests_logged(server) == [
        ("combat-styles", "start_encounter"),
        ("combat-styles", "initiative"),
    ]
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    assert [b["id"] for b in start] == [GORM, VESSA] and start[1]["skills"]["combat_style"] == 70
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Vessa the Quick", "2", False], ["Gorm", "1", False]],
        "current": "Vessa the Quick",
    }
    shoot(gm, f"v{generation}-mythras-tracker-order", "#combat-tracker")
    before = actor_state(gm, GORM)
    shoot(gm, f"v{generation}-mythras-token-before-blow")
    # Vessa's exchange in the encounter: 05 a critical, Gorm's parry 90 fails; two effects:
    # Choose Location (head) and Bypass Armour; the broadsword's d8 7 (then a d3 2), Gorm's
    # Endurance 30 does not resist: a Serious Wound to the head, -2 hit points, unconscious.
    select(gm, vessa, gorm)
    script_dice_queue(gm, [[5, 90]])
    send_dialog(
        gm,
        macros[("combat-styles", "exchange")],
        {"weapon": "broadsword", "parry_weapon": "broadsword"},
    )
    exchange = log_rows(server)[-1]
    assert (exchange["type"], exchange["encounter"]) == (
        "exchange",
        gm.call("() => `combat-${game.combat.id}`"),
    )
    script_dice_queue(gm, [[7, 2, 30]])
    choose_on_card(
        gm,
        "exchange",
        {"choose_location": {"location": "head"}, "bypass_armor": {"bypass": "worn"}},
    )
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "choose_effects"))
    wait_until(lambda: actor_state(gm, GORM)["statuses"])
    after = actor_state(gm, GORM)
    assert after["statuses"] == ["arbiter-wounded", "unconscious"]
    vitals = after["vitals"]["combat-styles"]
    assert vitals["locations"] == {"head": -2}
    # Mythras's own data holds it too: the head's hit-location item (Cabeza) at -2.
    assert before["hitPoints"]["Cabeza"] == 5 and after["hitPoints"]["Cabeza"] == -2
    assert vitals["wound"] == {
        "location": "head",
        "level": "serious",
        "consequences": ["cannot attack for 2 turns", "unconscious for 7 minutes"],
    }
    shoot(gm, f"v{generation}-mythras-token-after-blow")
    undo_card_of(gm, "exchange")  # the choice resolved the exchange's card: its Undo is there
    assert before["vitals"] is None
    assert actor_state(gm, GORM) == {**before, "vitals": {}}  # the Arbiter data gone
    # Next round in the tracker: the server's next round (2), Vessa current again.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "next_round"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert tracker(gm) == {
        "round": 2,
        "rows": [["Vessa the Quick", "2", False], ["Gorm", "1", False]],
        "current": "Vessa the Quick",
    }
    # Next turn in the tracker: Vessa passes (the server's next_turn); the server keeps her
    # current (unconscious Gorm does not act), and the tracker shows the server's turn.
    gm.page.locator('#combat-tracker [data-action="nextTurn"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "next_turn"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert json.loads(log_rows(server)[-1]["outcome"])["result"]["current"] == VESSA
    wait_until(lambda: tracker(gm)["current"] == "Vessa the Quick")
    # Back a round has no request: the server's round is written back, and the GM told.
    logged = len(log_rows(server))
    gm.page.locator('#combat-tracker [data-action="previousRound"]').click()
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    wait_until(lambda: tracker(gm)["round"] == 2)
    assert tracker(gm)["current"] == "Vessa the Quick"
    assert len(log_rows(server)) == logged
    warnings = gm.call("() => harness.record.notifications.filter((n) => n.type === 'warning')")
    assert [w["message"] for w in warnings] == [
        "Arbiter: the server's encounter cannot go back a round; its round stands."
    ]
    assert gm.problems == []


WORLDBUILDING = {"id": "worldbuilding", "title": "Simple Worldbuilding"}


def plain(actor_id: str, name: str, health: int) -> dict[str, Any]:
    """A Simple Worldbuilding actor: a name and a `health` bar, nothing Arbiter can read."""
    return {
        "_id": actor_id,
        "name": name,
        "type": "character",
        "system": {"health": {"value": health, "min": 0, "max": health}},
    }


def edit_from_ready(
    page: Page, actor_id: str, ruleset: str, ready: str, shot: str | None = None
) -> dict[str, Any]:
    """Arbiter's editor for an actor: start from a ready combatant of the rule data, Save (the
    server checks it); the saved block."""
    page.call(
        "([id, r]) => { window.edited = game.modules.get('arbiter').api.statBlocks.edit(id, r); }",
        [actor_id, ruleset],
    )
    editor = page.page.locator(EDITOR)
    editor.locator('select[name="__from"]').select_option(ready)
    editor.locator('button[data-action="load"]').click()
    page.page.locator(EDITOR).wait_for()
    if shot:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.page.locator(EDITOR).screenshot(path=str(ARTIFACTS / f"{shot}.png"))
    page.page.locator(EDITOR).locator('button[data-action="save"]').click()
    return page.call("async () => window.edited")


def shoot_editor_from_system(page: Page, actor_id: str, ruleset: str, shot: str) -> None:
    """Arbiter's editor for an actor, filled from the world's system ("Read from …"): a
    screenshot, then closed without saving (the combat reads the system's data itself)."""
    page.call(
        "([id, r]) => { window.edited = game.modules.get('arbiter').api.statBlocks.edit(id, r); }",
        [actor_id, ruleset],
    )
    page.page.locator(EDITOR).locator('button[data-action="system"]').click()
    page.page.locator(EDITOR).wait_for()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator(EDITOR).screenshot(path=str(ARTIFACTS / f"{shot}.png"))
    page.page.locator(EDITOR).locator('button[data-action="cancel"]').click()
    assert page.call("async () => window.edited") is None


KARA = "actorKara0000001"
CY = "actorCy000000001"
ORM = "actorOrm00000001"


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_plain_actors_with_editor_blocks_fight_an_hmk_combat_and_the_bar_follows_the_server(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(
        site, server, scene=world(WORLDBUILDING, plain(KARA, "Kara", 10), plain(ORM, "Orm", 10))
    )
    gm.wait_status("open")
    kara, orm = drop(gm, [KARA, ORM])
    kara_block = edit_from_ready(gm, KARA, "hmk", "ana", f"v{generation}-combat-editor-hmk-ana")
    orm_block = edit_from_ready(gm, ORM, "hmk", "bandit")
    fight(gm, [kara, orm])
    # Initiative d10 in the start's order (Kara, Orm): 4 and 8: Orm acts first.
    script_dice_queue(gm, [[], [4, 8]])
    begin_combat(gm)
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    assert start == [kara_block, orm_block]
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Orm", "2", False], ["Kara", "1", False]],
        "current": "Orm",
    }
    # The start's summaries are the server's injury points: the bars show them (28 for the bandit).
    assert actor_state(gm, ORM)["health"] == {"value": 28, "min": 0, "max": 28}
    before = actor_state(gm, ORM)
    shoot(gm, f"v{generation}-plain-hmk-token-before-blow")
    # Kara (Ana's long sword 65) strikes Orm: 05 a critical, d10 10, the critical table's 70
    # (Shield Arm Hit, +100 %): Orm unconscious at -1 injury points.
    select(gm, kara, orm)
    script_dice_queue(gm, [[5, 10, 70]])
    send_dialog(gm, macros[("hmk", "attack")])
    result = json.loads(log_rows(server)[-1]["outcome"])["result"]
    assert result["combatants"][orm_block["id"]] == {
        "death_in": 11,
        "ip": -1,
        "lasting": ["penalized"],
        "max_ip": 28,
        "name": orm_block["name"],
        "status": "unconscious",
    }
    wait_until(lambda: actor_state(gm, ORM)["statuses"])
    after = actor_state(gm, ORM)
    assert after["health"] == {"value": -1, "min": 0, "max": 28}  # the token's bar
    # Unconscious, its death timer running, and the critical's lasting penalty.
    assert after["statuses"] == ["arbiter-dying", "arbiter-penalized", "unconscious"]
    assert (
        after["vitals"]["hmk"]["value"] == -1 and after["vitals"]["hmk"]["status"] == "unconscious"
    )
    shoot(gm, f"v{generation}-plain-hmk-token-after-blow")
    undo_card_of(gm, "attack")
    assert actor_state(gm, ORM) == before
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Orm", "2", False], ["Kara", "1", False]],
        "current": "Orm",
    }
    assert gm.problems == []


DEVON = "actorDevon000001"
SOLDIER = "actorSoldier0001"
# The deck's shuffle of docs/examples/karmic.json (47 hidden dice): Devon is dealt +3✶, -2 and
# +10, the soldier -2✶ and +5; the first initiative draws give Devon 2 and the soldier -4.
SHUFFLE = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "examples" / "karmic.json").read_text()
)["requests"][0]["dice"]


def declare(page: Page, macro: str, me: str, foe: str, maneuver: str, card: str) -> None:
    """A karmic declaration from the register dialog: the selected token's fighter, the targeted
    one's as target, a maneuver and a card from the hand this GM was whispered."""
    select(page, me, foe)
    send_dialog(page, macro, {"maneuver": maneuver, "card": card})


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_karmic_duel_in_the_tracker_shows_initiative_changes_and_vitality(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(
        site,
        server,
        scene=world(WORLDBUILDING, plain(DEVON, "Devon", 10), plain(SOLDIER, "Soldier", 10)),
    )
    gm.wait_status("open")
    devon, soldier = drop(gm, [DEVON, SOLDIER])
    devon_block = edit_from_ready(
        gm, DEVON, "karmic", "devon", f"v{generation}-combat-editor-karmic-devon"
    )
    soldier_block = edit_from_ready(gm, SOLDIER, "karmic", "soldier")
    fight(gm, [devon, soldier])
    script_dice_queue(gm, [SHUFFLE, [], []])
    begin_combat(gm)
    assert requests_logged(server) == [
        ("karmic", "start_duel"),
        ("karmic", "draw_initiative"),
        ("karmic", "draw_hands"),
    ]
    assert json.loads(log_rows(server)[1]["request"])["body"] == {
        "between": [devon_block["id"], soldier_block["id"]]
    }
    # Devon won the initiative draw (2 against -4): he holds it; round 1 began with the hands.
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Devon", "2", False], ["Soldier", "1", False]],
        "current": "Devon",
    }
    register = macros[("karmic", "register")]
    encounter = gm.call("() => `combat-${game.combat.id}`")
    reveal, resolve = macros[("karmic", "reveal")], macros[("karmic", "resolve")]
    # Register 1 (declared, revealed and resolved from the dialogs): Devon's attack (+3✶) fails
    # against the soldier's parry (+5); the soldier seizes the initiative, and the tracker's
    # order turns round.
    declare(gm, register, devon, soldier, "attack", "plus-3-hit#1")
    declare(gm, register, soldier, devon, "parry", "plus-5#1")
    send_dialog(gm, reveal)
    send_dialog(gm, resolve)
    resolved = json.loads(log_rows(server)[-1]["outcome"])["result"]
    assert resolved["initiative"] == [{"holder": soldier_block["id"], "over": devon_block["id"]}]
    wait_until(lambda: tracker(gm)["rows"][0][0] == "Soldier")
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Soldier", "2", False], ["Devon", "1", False]],
        "current": "Soldier",
    }
    shoot(gm, f"v{generation}-karmic-tracker-initiative", "#combat-tracker")
    before = actor_state(gm, SOLDIER)
    shoot(gm, f"v{generation}-karmic-token-before-blow")
    # Register 2 (the holder declares first): the soldier's parry (-2✶) against Devon's attack
    # (+10): it lands; the soldier's vitality 10 → 8.
    declare(gm, register, soldier, devon, "parry", "minus-2-hit#1")
    declare(gm, register, devon, soldier, "attack", "plus-10#1")
    send_dialog(gm, reveal)
    send_dialog(gm, resolve)
    blow = json.loads(log_rows(server)[-1]["outcome"])["result"]["outcomes"][0]
    assert (blow["combatant"], blow["success"], blow["vitality"]) == (devon_block["id"], True, 8)
    wait_until(lambda: actor_state(gm, SOLDIER)["health"]["value"] == 8)
    after = actor_state(gm, SOLDIER)
    assert after["health"] == {"value": 8, "min": 0, "max": 10}
    assert after["vitals"]["karmic"]["value"] == 8
    shoot(gm, f"v{generation}-karmic-token-after-blow")
    # Every request of the duel, from the dialogs, acted in the combat's encounter.
    assert {row["encounter"] for row in log_rows(server)} == {encounter}
    undo_card_of(gm, "resolve_register")
    assert actor_state(gm, SOLDIER) == before
    # Next round in the tracker: the server's next round (fresh hands), round 2.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("karmic", "draw_hands"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    wait_until(lambda: tracker(gm)["round"] == 2)
    assert gm.problems == []


def test_a_start_the_server_refuses_leaves_the_combat_foundrys_alone(
    site: str, server: Server, open_page: OpenPage
) -> None:
    # The GM chose hmk for the tracker; these plain actors have no stat block: the start sends
    # their names alone, which the server refuses.
    gm = open_page(
        site,
        server,
        settings={"arbiter.combatRuleset": "hmk"},
        scene=world(WORLDBUILDING, plain(KARA, "Kara", 10), plain(ORM, "Orm", 10)),
    )
    gm.wait_status("open")
    gm.allowed.append(re.compile("."))  # the refusal's notification
    drop_and_fight(gm, [KARA, ORM])
    gm.page.locator('#combat-tracker [data-action="startCombat"]').click()
    # The refusal is an error card with the server's own messages; nothing logged or bound.
    error = gm.page.locator(".arbiter-card--error")
    error.wait_for()
    assert "body.combatants.1.attributes: Field required" in error.inner_text()
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert log_rows(server) == []
    assert gm.call("() => game.modules.get('arbiter').api.combat.bound('hmk')") is None
    # Foundry's next round is Foundry's own now: no request.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: tracker(gm)["round"] == 2)
    assert log_rows(server) == []
    assert gm.call("() => game.messages.size") == 1


def test_two_tokens_of_one_actor_are_not_sent_as_one_combatant_twice(
    site: str, server: Server, open_page: OpenPage
) -> None:
    gm = open_page(
        site,
        server,
        settings={"arbiter.combatRuleset": "hmk"},
        scene=world(WORLDBUILDING, plain(KARA, "Kara", 10)),
    )
    gm.wait_status("open")
    gm.allowed.append(re.compile("."))
    drop_and_fight(gm, [KARA, KARA])
    gm.page.locator('#combat-tracker [data-action="startCombat"]').click()
    wait_until(lambda: gm.call("() => harness.record.notifications.length"))
    [note] = gm.call("() => harness.record.notifications")
    assert note["type"] == "warning" and KARA in note["message"]
    assert log_rows(server) == [] and gm.call("() => game.messages.size") == 0


def test_a_players_client_with_its_own_connection_never_binds_or_writes_a_combat(
    site: str, server: Server, open_page: OpenPage
) -> None:
    # The tracker's ruleset is set, so the combat would bind on a GM's client.
    token = server.player_token("Aria", [KARA])
    player = open_page(
        site,
        server,
        user=PLAYER,
        token=token,
        settings={"arbiter.combatRuleset": "hmk"},
        scene=world(WORLDBUILDING, plain(KARA, "Kara", 10), plain(ORM, "Orm", 10)),
    )
    player.wait_status("open")
    drop_and_fight(player, [KARA, ORM])
    player.page.locator('#combat-tracker [data-action="startCombat"]').click()
    player.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: tracker(player)["round"] == 2)
    player.call("() => game.modules.get('arbiter').api.combat.settled()")
    # Only Foundry's own updates (begin, next round); no request, no initiative written.
    assert log_rows(server) == []
    updates = player.call("() => harness.record.combatUpdates.map((u) => u.data)")
    assert updates == [{"round": 1, "turn": 0}, {"round": 2, "turn": 0}]
    assert player.call("() => harness.record.combatantUpdates ?? []") == []
    assert player.problems == []


def test_a_combatant_joining_a_bound_combat_is_reported_not_sent(
    site: str, server: Server, open_page: OpenPage
) -> None:
    actors = [plain(KARA, "Kara", 10), plain(ORM, "Orm", 10), plain(CY, "Cy", 10)]
    gm = open_page(site, server, scene=world(WORLDBUILDING, *actors))
    gm.wait_status("open")
    kara, orm, cy = drop(gm, [KARA, ORM, CY])
    for actor_id, ready in ((KARA, "ana"), (ORM, "bandit"), (CY, "cy")):
        edit_from_ready(gm, actor_id, "hmk", ready)
    fight(gm, [kara, orm])
    script_dice_queue(gm, [[], [4, 8]])
    begin_combat(gm)
    logged = len(log_rows(server))
    assert logged == 2
    fight(gm, [cy])
    [note] = gm.call("() => harness.record.notifications")
    assert note == {"type": "warning", "message": (
        "Arbiter: Cy joined the combat after it began and is not in its encounter (the server adds "
        "no combatant to a running encounter). End the combat and begin a new one to include him."
    )}  # fmt: skip
    assert len(log_rows(server)) == logged
    assert [row[:2] for row in tracker(gm)["rows"]] == [["Orm", "2"], ["Kara", "1"], ["Cy", ""]]


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_player_attacks_an_npc_whose_block_only_its_system_gives_once_the_gm_began_combat(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    # Aldric is Aria's HârnMaster 3 character, Brann the GM's NPC; nobody saved a block in the
    # editor: the hm3 → hmk preset reads both from their HM3 data.
    aldric = {**fixture_actor("hm3_actor.json"), "ownership": {PLAYER: 3}}
    tokens = [{"id": "tokenHm3Aldric01", "name": "Aldric of Kaldor", "actor": ALDRIC},
              {"id": "tokenHm3Brann001", "name": "Brann of Kaldor", "actor": BRANN}]  # fmt: skip
    scene = {**world(HM3, aldric, hm3_brann()), "tokens": tokens}
    # V12 has no user queries: Aria needs her own player token there.
    token = server.player_token("Aria", [ALDRIC]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, token=token, scene={
        **scene, "controlled": ["tokenHm3Aldric01"], "targets": ["tokenHm3Brann001"]})  # fmt: skip
    gm = open_page(site, server, scene=scene)
    gm.wait_status("open")
    if generation >= 13:
        gm.call(f"async () => game.modules.get('arbiter').api.players.bind('Aria', ['{ALDRIC}'])")
    else:
        aria.wait_status("open")
    fight(gm, ["tokenHm3Aldric01", "tokenHm3Brann001"])
    begin_combat(gm)
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    blocks = {block["id"]: block for block in start}
    # The GM's client stored the blocks the start read from the system: a player's request is
    # decided with the GM's block of every participant he does not hold (docs/protocol.md).
    expected = [{"hmk": ALDRIC}, {"hmk": BRANN}]
    flags = "() => canvas.tokens.placeables.map((t) => t.actor.flags.arbiter?.participant ?? {})"
    wait_until(lambda: aria.call(flags) == expected)

    # Aria attacks Brann from her tokens: her dialog names his block, the server fills it in.
    aria.run_macro(macros[("hmk", "attack")])
    dialog = aria.page.locator("dialog.application")
    dialog.locator('button[data-action="send"]').wait_for()
    shown = [json.loads(dialog.locator(f'textarea[name="{side}"]').input_value())
             for side in ("attacker", "defender")]  # fmt: skip
    dialog.locator('button[data-action="send"]').click()
    aria.call("async () => window.macro")
    assert shown[1] == {"id": BRANN, "stored": True}
    # Her own character's block she reads over her own connection (V12); relayed, she names it.
    assert shown[0] == (blocks[ALDRIC] if generation == 12 else {"id": ALDRIC, "stored": True})
    rows = wait_until(lambda: len(log_rows(server)) == 3) and log_rows(server)
    mine = json.loads(rows[2]["request"])
    assert mine["type"] == "attack" and rows[2]["user"].startswith("Aria")
    assert mine["body"]["defender"] == blocks[BRANN] and mine["body"]["attacker"] == blocks[ALDRIC]
    assert json.loads(rows[2]["outcome"])["result"]["defender"] == BRANN
    assert aria.problems == [] and gm.problems == []
