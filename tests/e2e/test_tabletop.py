"""Outcomes on the tabletop, in V12, V13 and V14: the GM resolves an hmk attack between two
tokens from the dialog (no JSON typed); the defender's actor then holds the injury the server's
result states (its Arbiter data and its system's `health`, the token's bar), and Undo on the
card restores every value. Screenshots of the token before and after the blow."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbiter.compiler.model.loader import load_all
from tests.e2e.support.browser import ARTIFACTS, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_next_dice
from tests.e2e.support.process import Server, wait_until

READY = {c.id: c.stat_block for c in load_all()["hmk"].model.combatants}


def fighter(actor_id: str, name: str, ready: str) -> dict[str, Any]:
    """An actor as an earlier version left it: its stat block in its flags (the GM's client
    moves it to the server when it connects)."""
    block = {**READY[ready], "id": actor_id, "name": name}
    return {
        "_id": actor_id,
        "name": name,
        "type": "npc",
        "system": {"health": {"value": block["ip"], "min": 0, "max": block["ip"]}},
        "flags": {"arbiter": {"statBlocks": {"hmk": block}, "editedStatBlocks": {"hmk": True}}},
    }


SCENE = {
    "system": {"id": "worldbuilding", "title": "Simple Worldbuilding"},
    "actors": [
        fighter("actorKara0000001", "Kara", "ana"),
        fighter("actorOrm00000001", "Orm", "bandit"),
    ],
    "tokens": [
        {"id": "tokenKara0000001", "name": "Kara", "actor": "actorKara0000001"},
        {"id": "tokenOrm00000001", "name": "Orm", "actor": "actorOrm00000001"},
    ],
    "controlled": ["tokenKara0000001"],
    "targets": ["tokenOrm00000001"],
}
ORM = "actorOrm00000001"


def orm(page: Page) -> dict[str, Any]:
    return page.call(
        """(id) => {
            const a = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            return { health: a.system.health, vitals: a.getFlag("arbiter", "vitals") ?? null,
                     statuses: [...a.statuses] };
        }""",
        ORM,
    )


def migrated(page: Page) -> list[Any]:
    """Each token's actor's Arbiter flags once the GM's client has moved its stat blocks to the
    server (no block left in any flag)."""

    def flags() -> list[Any] | None:
        found = page.call("() => canvas.tokens.placeables.map((t) => t.actor.flags.arbiter ?? {})")
        return None if any("statBlocks" in f for f in found) else found

    return wait_until(flags)  # type: ignore[no-any-return]


def board(page: Page, name: str) -> None:
    page.call("() => harness.drawTokens()")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator("#board").screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_hmk_blow_lowers_the_defenders_bar_and_undo_restores_it(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(site, server, scene=SCENE)
    gm.wait_status("open")
    assert [f.get("participant") for f in migrated(gm)] == [
        {"hmk": "actorKara0000001"},
        {"hmk": ORM},
    ]
    before = orm(gm)
    assert before == {"health": {"value": 28, "min": 0, "max": 28}, "vitals": None, "statuses": []}
    board(gm, f"v{generation}-token-before-blow")
    # Ana's long sword (65) against the bandit's Defensive Tactics 20: roll 30 hits; d6 injury 5.
    script_next_dice(gm, [30, 5])
    gm.run_macro(macros[("hmk", "attack")])
    dialog = gm.page.locator("dialog.application")
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(server))
    result = json.loads(row["outcome"])["result"]
    after_ip = result["combatants"][ORM]["ip"]
    assert result["outcome"] == "hit" and after_ip < 28
    wait_until(lambda: orm(gm)["vitals"])
    after = orm(gm)
    assert after["health"]["value"] == after_ip
    assert after["vitals"]["hmk"]["value"] == after_ip and after["vitals"]["hmk"]["max"] == 28
    board(gm, f"v{generation}-token-after-blow")
    # Undo on the card: the previous values back, the Arbiter data gone.
    undo = gm.page.locator("[data-arbiter-undo]")
    undo.wait_for()
    undo.click()
    wait_until(lambda: orm(gm)["health"]["value"] == 28)
    assert orm(gm) == {"health": {"value": 28, "min": 0, "max": 28}, "vitals": {}, "statuses": []}
    assert gm.problems == []


def replayed(example: str, request_id: str) -> dict[str, Any]:
    """The outcome of one request of a docs example, as ``arbiter replay`` decides it, without
    its state (a client never receives state)."""
    import subprocess
    import sys

    from tests.e2e.support.paths import ROOT

    out = subprocess.run(
        [sys.executable, "-c", "import sys; from arbiter.bridge.cli import main; sys.exit(main(sys.argv[1:]))",
         "replay", str(ROOT / "docs" / "examples" / example)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    outcome = next(o for o in json.loads(out) if o["id"] == request_id)
    return {**outcome, "state": None}


def duellist(actor_id: str, participant: str) -> dict[str, Any]:
    return {
        "_id": actor_id,
        "name": participant.title(),
        "type": "npc",
        "system": {"health": {"value": 7, "min": 0, "max": 10}},
        "flags": {"arbiter": {"participant": {"karmic": participant}}},
    }


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_karmic_view_sets_vitality_and_the_disarmed_status_and_undo_takes_them_back(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    scene = {
        **SCENE,
        "actors": [duellist("actorDevon000001", "devon"), duellist("actorSoldier0001", "soldier")],
        "tokens": [
            {"id": "tokenDevon000001", "name": "Devon", "actor": "actorDevon000001"},
            {"id": "tokenSoldier0001", "name": "Soldier", "actor": "actorSoldier0001"},
        ],
    }
    gm = open_page(site, server, scene=scene)
    gm.wait_status("open")
    outcome = replayed("karmic.json", "k-16")  # the soldier has been disarmed by Devon
    undo = gm.call("(o) => game.modules.get('arbiter').api.tabletop.apply(o)", outcome)
    soldier = gm.call(
        """() => { const a = canvas.tokens.placeables[1].actor;
                   return { health: a.system.health.value, statuses: [...a.statuses],
                            vitals: a.getFlag("arbiter", "vitals.karmic") }; }"""
    )
    assert soldier["health"] == 10
    assert soldier["statuses"] == ["arbiter-disarmed"]
    assert soldier["vitals"]["conditions"] == ["disarmed"]
    names = gm.call("() => CONFIG.statusEffects.map((s) => s.id + ':' + s.name)")
    assert "arbiter-disarmed:Disarmed" in names
    board(gm, f"v{generation}-karmic-disarmed")
    gm.call("([u]) => game.modules.get('arbiter').api.tabletop.undo('karmic', u)", [undo])
    restored = gm.call(
        """() => canvas.tokens.placeables.map((t) => [t.actor.system.health.value, [...t.actor.statuses],
                                                     t.actor.getFlag("arbiter", "vitals.karmic") ?? null])"""
    )
    assert restored == [[7, [], None], [7, [], None]]
    assert gm.problems == []


def swordsman(actor_id: str) -> dict[str, Any]:
    """A plain combat-styles human (Combat Style 60, Evade 40, broadsword and heater)."""
    return {
        "id": actor_id,
        "name": actor_id,
        "characteristics": {"str": 11, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": 10},
        "skills": {"combat_style": 60, "evade": 40, "endurance": 40, "athletics": 30},
        "weapons": ["broadsword", "heater"],
    }


def statuses_of(page: Page, actor_id: str) -> list[str]:
    return page.call(  # type: ignore[no-any-return]
        "(id) => [...canvas.tokens.placeables.find((t) => t.actor.id === id).actor.statuses]"
        ".sort()",
        actor_id,
    )


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_combat_styles_fighter_stays_prone_across_a_later_blow_until_he_stands(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    gm = open_page(site, server, scene=SCENE)
    gm.wait_status("open")
    kara, orm_id = "actorKara0000001", ORM

    def send(type_: str, body: dict[str, Any], dice: list[int]) -> dict[str, Any]:
        """Send one request; once the GM's client has written its outcome onto the tabletop
        (the card's Undo appears), return its result as the server logged it."""
        answer = gm.call(
            """async ([type, body, dice]) => game.modules.get("arbiter").api.request(
                "combat-styles", type, body, { dice, encounter: "prone-e2e" })""",
            [type_, body, dice],
        )
        gm.card(answer["message"]).locator("[data-arbiter-undo]").wait_for()
        return json.loads(log_rows(server)[-1]["outcome"])["result"]  # type: ignore[no-any-return]

    # Orm evades Kara's blow (attack 80 fails, Evade 30 succeeds) and ends prone.
    first = {"attacker": kara, "defender": orm_id, "defence": "evade", "effects": []}
    combatants = [swordsman(kara), swordsman(orm_id)]
    result = send("exchange", {**first, "combatants": combatants}, [80, 30])
    assert result["lasting"][orm_id] == ["prone"]
    assert statuses_of(gm, orm_id) == ["prone"]
    # Kara's next blow lands on the prone Orm (attack 30, 1d8 3 to the right leg, 1d20 2):
    # a minor wound whose result says nothing of his being down. He stays prone.
    second = {"attacker": kara, "defender": orm_id, "defence": "none", "effects": []}
    result = send("exchange", second, [30, 3, 2])
    assert result["blow"]["wound"]["consequences"] == []
    assert result["lasting"][orm_id] == ["prone"]
    leg = "(id) => canvas.tokens.placeables.find((t) => t.actor.id === id).actor"
    leg += ".getFlag('arbiter', 'vitals.combat-styles')?.locations?.right_leg ?? null"
    assert wait_until(lambda: gm.call(leg, orm_id)) == 2
    assert statuses_of(gm, orm_id) == ["prone"]
    board(gm, f"v{generation}-combat-styles-still-prone")
    # He stands (Regain Footing, unengaged): the status goes.
    result = send("act", {"combatant": orm_id, "action": "regain_footing"}, [])
    assert result["lasting"] == {orm_id: []}
    assert statuses_of(gm, orm_id) == []
    assert statuses_of(gm, kara) == []
    assert gm.problems == []


def world_orm(page: Page) -> dict[str, Any]:
    """Orm as the world's actor (``game.actors``), not his token's."""
    return page.call(
        """(id) => {
            const a = game.actors.get(id);
            return { health: a.system.health, vitals: a.getFlag("arbiter", "vitals") ?? null,
                     statuses: [...a.statuses], token: a.isToken };
        }""",
        ORM,
    )


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_blow_on_an_unlinked_token_changes_that_token_s_actor_and_never_the_world_s(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    # Orm's token is unlinked, as an NPC's token is in Foundry: its actor is its own synthetic
    # one (the token's ActorDelta); the world's Orm (the sidebar's, every other token's) is
    # another document.
    tokens = [SCENE["tokens"][0], {**SCENE["tokens"][1], "actorLink": False}]
    gm = open_page(site, server, scene={**SCENE, "tokens": tokens})
    gm.wait_status("open")
    migrated(gm)
    assert gm.call(
        "(id) => canvas.tokens.placeables.find((t) => t.actor.id === id).actor.isToken", ORM
    )
    untouched = {"health": {"value": 28, "min": 0, "max": 28}, "vitals": None,
                 "statuses": [], "token": False}  # fmt: skip
    assert world_orm(gm) == untouched
    script_next_dice(gm, [30, 5])
    gm.run_macro(macros[("hmk", "attack")])
    gm.page.locator("dialog.application").locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(server))
    after_ip = json.loads(row["outcome"])["result"]["combatants"][ORM]["ip"]
    assert after_ip < 28
    wait_until(lambda: orm(gm)["vitals"])
    assert orm(gm)["health"]["value"] == after_ip
    assert world_orm(gm) == untouched
    undo = gm.page.locator("[data-arbiter-undo]")
    undo.wait_for()
    undo.click()
    wait_until(lambda: orm(gm)["health"]["value"] == 28)
    assert orm(gm) == {"health": {"value": 28, "min": 0, "max": 28}, "vitals": {}, "statuses": []}
    assert world_orm(gm) == untouched
    assert gm.problems == []
