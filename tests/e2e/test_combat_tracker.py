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
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import ARTIFACTS, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_dice_queue
from tests.e2e.support.process import Server, wait_until

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EDITOR = "dialog.application:has(.arbiter-editor)"


def fixture_actor(name: str, actor_id: str | None = None, actor_name: str | None = None) -> dict[str, Any]:
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


def drop_and_fight(page: Page, actor_ids: list[str]) -> list[str]:
    """Drop each actor on the scene (a token from it, as Foundry's drop handler makes one) and
    put the tokens into combat (the token HUD's combat toggle); the token ids."""
    return page.call(
        """async (ids) => {
            const tokens = ids.map((id) => harness.dropActor(id));
            await harness.toggleCombat(tokens.map((t) => t.id));
            return tokens.map((t) => t.id);
        }""",
        actor_ids,
    )


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
            return { health: a.system.health ?? null, vitals: a.getFlag("arbiter", "vitals") ?? null,
                     statuses: [...a.statuses].sort() };
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
    page.page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=15000)


def undo_card_of(page: Page, request_type: str) -> None:
    """Press Undo on the last card of a request type, and wait until it is done."""
    message = page.call(
        """(type) => game.messages.contents.filter((m) => m.flags?.arbiter?.outcome?.type === type).at(-1).id""",
        request_type,
    )
    page.card(message).locator("[data-arbiter-undo]").click()
    wait_until(lambda: page.call("(id) => game.messages.get(id).flags.arbiter.applied.every((a) => a.undone)", message))


def requests_logged(server: Server) -> list[tuple[str, str]]:
    return [(r["ruleset"], r["type"]) for r in log_rows(server)]


HM3 = {"id": "hm3", "title": "HârnMaster 3"}
ALDRIC = "actorHm3Aldric01"
BRANN = "actorHm3Brann001"


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_hm3_combat_starts_the_hmk_encounter_shows_its_order_and_a_deadly_blow_is_undone(
    site: str, server: Server, open_page: OpenPage, macros: dict[tuple[str, str], str], generation: int
) -> None:
    gm = open_page(site, server, scene=world(HM3, fixture_actor("hm3_actor.json"),
                                             hm3_brann()))  # fmt: skip
    gm.wait_status("open")
    aldric, brann = drop_and_fight(gm, [ALDRIC, BRANN])
    # Foundry sorts the unrolled combatants by name; the server's initiative (d10 each, in the
    # start's order: 3 for Aldric, 7 for Brann) puts Brann first.
    assert [row[0] for row in tracker(gm)["rows"]] == ["Aldric of Kaldor", "Brann of Kaldor"]
    script_dice_queue(gm, [[], [3, 7]])
    begin_combat(gm)
    assert requests_logged(server) == [("hmk", "start"), ("hmk", "initiative")]
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    # The stat blocks came from the HârnMaster 3 data (the hm3 → hmk preset), no JSON typed.
    assert [b["id"] for b in start] == [ALDRIC, BRANN] and start[0]["skills"] == {"long-sword": 62, "dagger": 45}
    assert tracker(gm) == {
        "round": 1,
        "rows": [["Brann of Kaldor", "2", False], ["Aldric of Kaldor", "1", False]],
        "current": "Brann of Kaldor",
    }
    shoot(gm, f"v{generation}-hm3-tracker-order", "#combat-tracker")
    before = actor_state(gm, BRANN)
    shoot(gm, f"v{generation}-hm3-token-before-blow")
    # Aldric strikes Brann in the encounter: d100 5 is a critical (5 × 10 < 62), d10 injury 10,
    # the critical table's 99: a Vital Hit; Brann is dead, and defeated in the tracker.
    select(gm, aldric, brann)
    script_dice_queue(gm, [[5, 10, 99]])
    send_dialog(gm, macros[("hmk", "attack")])
    attack = log_rows(server)[-1]
    assert (attack["type"], attack["encounter"]) == ("attack", gm.call("() => `combat-${game.combat.id}`"))
    result = json.loads(attack["outcome"])["result"]
    assert result["combatants"][BRANN]["status"] == "dead"

    wait_until(lambda: tracker(gm)["rows"][0][2])
    after = actor_state(gm, BRANN)
    assert after["statuses"] == ["dead"]
    # d10 10 + STR and skill bonuses, +200 %: 42 dealt, 6 absorbed by mail: 15 - 36 = -21.
    assert result["injury"]["dealt"] == 42 and result["injury"]["suffered"] == 36
    assert after["vitals"]["hmk"] == {"value": -21, "max": 15, "status": "dead", "conditions": ["dead"], "locations": {}}
    assert tracker(gm)["rows"] == [["Brann of Kaldor", "2", True], ["Aldric of Kaldor", "1", False]]
    shoot(gm, f"v{generation}-hm3-token-after-blow")
    shoot(gm, f"v{generation}-hm3-tracker-defeated", "#combat-tracker")
    # Undo on the attack's card: the values before the blow, the combatant no longer defeated.
    undo_card_of(gm, "attack")
    assert actor_state(gm, BRANN) == before
    assert tracker(gm)["rows"] == [["Brann of Kaldor", "2", False], ["Aldric of Kaldor", "1", False]]
    # Next round in the tracker asks the server for its round; the tracker shows the server's.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("hmk", "round"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert json.loads(log_rows(server)[-1]["outcome"])["result"]["round"] == 2
    assert tracker(gm)["round"] == 2
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
    site: str, server: Server, open_page: OpenPage, macros: dict[tuple[str, str], str], generation: int
) -> None:
    gm = open_page(site, server, scene=world(MYTHRAS, fixture_actor("mythras_actor.json"),
                                             fixture_actor("mythras_actor.json", GORM, "Gorm")))  # fmt: skip
    gm.wait_status("open")
    vessa, gorm = drop_and_fight(gm, [VESSA, GORM])
    # Initiative d10 each in the start's order (Gorm, Vessa by name): 2 and 9; both add 12.
    script_dice_queue(gm, [[], [2, 9]])
    begin_combat(gm)
    assert requests_logged(server) == [("combat-styles", "start_encounter"), ("combat-styles", "initiative")]
    start = json.loads(log_rows(server)[0]["request"])["body"]["combatants"]
    assert [b["id"] for b in start] == [GORM, VESSA] and start[1]["skills"]["combat_style"] == 70
    assert tracker(gm) == {"round": 1, "rows": [["Vessa the Quick", "2", False], ["Gorm", "1", False]], "current": "Vessa the Quick"}
    shoot(gm, f"v{generation}-mythras-tracker-order", "#combat-tracker")
    before = actor_state(gm, GORM)
    shoot(gm, f"v{generation}-mythras-token-before-blow")
    # Vessa's exchange in the encounter: 05 a critical, Gorm's parry 90 fails; two effects:
    # Choose Location (head) and Bypass Armour; the broadsword's d8 7 (then a d3 2), Gorm's
    # Endurance 30 does not resist: a Serious Wound to the head, -2 hit points, unconscious.
    select(gm, vessa, gorm)
    script_dice_queue(gm, [[5, 90]])
    send_dialog(gm, macros[("combat-styles", "exchange")], {"weapon": "broadsword", "parry_weapon": "broadsword"})
    exchange = log_rows(server)[-1]
    assert (exchange["type"], exchange["encounter"]) == ("exchange", gm.call("() => `combat-${game.combat.id}`"))
    script_dice_queue(gm, [[7, 2, 30]])
    choose_on_card(gm, "exchange", {"choose_location": {"location": "head"}, "bypass_armor": {"bypass": "worn"}})
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "choose_effects"))
    wait_until(lambda: actor_state(gm, GORM)["statuses"])
    after = actor_state(gm, GORM)
    assert after["statuses"] == ["arbiter-wounded", "unconscious"]
    vitals = after["vitals"]["combat-styles"]
    assert vitals["locations"] == {"head": -2}
    assert vitals["wound"] == {"location": "head", "level": "serious", "consequences": ["cannot attack for 2 turns", "unconscious for 7 minutes"]}
    shoot(gm, f"v{generation}-mythras-token-after-blow")
    undo_card_of(gm, "exchange")  # the choice resolved the exchange's card: its Undo is there
    assert before["vitals"] is None
    assert actor_state(gm, GORM) == {**before, "vitals": {}}  # the Arbiter data gone
    # Next round in the tracker: the server's next round (2), Vessa current again.
    gm.page.locator('#combat-tracker [data-action="nextRound"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "next_round"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert tracker(gm) == {"round": 2, "rows": [["Vessa the Quick", "2", False], ["Gorm", "1", False]], "current": "Vessa the Quick"}
    # Next turn in the tracker: Vessa passes (the server's next_turn); the server keeps her
    # current (unconscious Gorm does not act), and the tracker shows the server's turn.
    gm.page.locator('#combat-tracker [data-action="nextTurn"]').click()
    wait_until(lambda: requests_logged(server)[-1] == ("combat-styles", "next_turn"))
    gm.call("() => game.modules.get('arbiter').api.combat.settled()")
    assert json.loads(log_rows(server)[-1]["outcome"])["result"]["current"] == VESSA
    wait_until(lambda: tracker(gm)["current"] == "Vessa the Quick")
    assert gm.problems == []
