"""Outcomes in the game systems' own fields, in V12, V13 and V14, after real served outcomes
(the real ``arbiter serve``, the bundled rules, recorded dice): a HârnMaster 3 actor gets the
system's own `injury` item for a blow, a Mythras actor its hit-location item's current hit points
and the system's own wound status, and Undo on the card puts every value back (the injury item
deleted). A bleeding hmk combatant shows the status across rounds and loses it on a cure. The
actors are shaped from the systems' public sources (tests/e2e/fixtures/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import ARTIFACTS, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_next_dice
from tests.e2e.support.process import Server, wait_until

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HM3 = {"id": "hm3", "title": "HârnMaster 3"}
MYTHRAS = {"id": "mythras-foundry", "title": "Mythras"}
# The statuses Mythras registers at its init (scripts/rules/statuses.js, registration.js).
MYTHRAS_STATUSES = [
    {"id": "incapacitated", "name": "MYTHRASF.Status.Incapacitated", "img": "icons/svg/unconscious.svg"},
    {"id": "prone", "name": "MYTHRASF.Status.Prone", "img": "icons/svg/falling.svg"},
    {"id": "stunned", "name": "MYTHRASF.Status.Stunned", "img": "icons/svg/daze.svg"},
    {"id": "seriousWound", "name": "MYTHRASF.Status.SeriousWound", "img": "icons/svg/blood.svg"},
]  # fmt: skip
ALDRIC, BERIN = "actorHm3Aldric01", "actorHm3Berin001"
VESSA = "actorMythVessa01"


def fixture(filename: str, **changes: Any) -> dict[str, Any]:
    data = json.loads((FIXTURES / filename).read_text(encoding="utf-8"))
    data.pop("_source")
    data.update(changes)
    return data


def scene(system: dict[str, str], attacker: str, *actors: dict[str, Any], **extra: Any) -> Any:
    tokens = [{"id": f"token{a['_id'][5:]}", "name": a["name"], "actor": a["_id"]} for a in actors]
    by_actor = {t["actor"]: t["id"] for t in tokens}
    defender = next((a["_id"] for a in actors if a["_id"] != attacker), attacker)
    return {
        "system": system,
        "actors": list(actors),
        "tokens": tokens,
        "controlled": [by_actor[attacker]],
        "targets": [by_actor[defender]],
        **extra,
    }


def hm3_scene() -> Any:
    aldric = fixture("hm3_actor.json")
    berin = fixture("hm3_actor.json", _id=BERIN, name="Berin of Olokand")
    return scene(HM3, ALDRIC, aldric, berin)


def read_from_system(page: Page, ruleset: str) -> None:
    """What the editor's "Read from <system>" then Save does: each actor's stat block read by
    the world's preset, stored on the server (the actor keeps its combatant's id)."""
    saved = page.call(
        """async (ruleset) => {
            const api = game.modules.get("arbiter").api;
            const verdicts = [];
            for (const token of canvas.tokens.placeables) {
                const block = api.statBlocks.fromSystem(token.actor, ruleset);
                verdicts.push((await api.statBlocks.save(token.actor, ruleset, block))?.ok ?? null);
            }
            return verdicts;
        }""",
        ruleset,
    )
    assert saved and all(saved), saved


def actor(page: Page, actor_id: str, item_type: str) -> dict[str, Any]:
    """The actor's items of a type (name and system data) and its status effects."""
    return page.call(
        """([id, type]) => {
            const a = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            return {
                items: Array.from(a.items).filter((i) => i.type === type)
                    .map((i) => ({ name: i.name, system: i.system })),
                statuses: [...a.statuses].sort(),
                vitals: a.getFlag("arbiter", "vitals") ?? null,
            };
        }""",
        [actor_id, item_type],
    )


def api_request(page: Page, ruleset: str, type_: str, body: Any, **options: Any) -> Any:
    return page.call(
        """async ([ruleset, type, body, options]) =>
            game.modules.get("arbiter").api.request(ruleset, type, body, options)""",
        [ruleset, type_, body, options],
    )


def hit_of(page: Page, location: str) -> int:
    """Vessa's current hit points at a hit-location item (by its Mythras name)."""
    items = actor(page, VESSA, "hitLocation")["items"]
    return next(i["system"]["currentHitPoints"] for i in items if i["name"] == location)


def board(page: Page, name: str) -> None:
    """A screenshot of the tokens with their status effects (test artifacts)."""
    page.call("() => harness.drawTokens()")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator("#board").screenshot(path=str(ARTIFACTS / f"{name}.png"))


def undo_card(page: Page, message: str) -> None:
    page.card(message).locator("[data-arbiter-undo]").click()


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_hmk_blow_becomes_a_harnmaster_injury_item_and_undo_deletes_it(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm = open_page(site, server, scene=hm3_scene())
    gm.wait_status("open")
    read_from_system(gm, "hmk")
    before = actor(gm, BERIN, "injury")
    assert before == {"items": [], "statuses": [], "vitals": None}
    # Aldric's sword (62) against Berin's Dodge 33: 20 hits; d10 7 → 6 + STR 6 + skill 6 = 18,
    # less mail 6: 12 IP (36 → 24). The injury item's level: 12 IP / 3 = 4.
    script_next_dice(gm, [20, 7])
    gm.run_macro(macros[("hmk", "attack")])
    gm.page.locator("dialog.application").locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(server))
    outcome = json.loads(row["outcome"])
    assert outcome["result"]["injury"]["suffered"] == 12
    wait_until(lambda: actor(gm, BERIN, "injury")["items"])
    after = actor(gm, BERIN, "injury")
    # Only the fields HM3's injury model declares (notes, healRate, injuryLevel): `severity`
    # is derived by the system from the level.
    notes = f"Arbiter {outcome['id']}: 12 IP (long-sword)"
    assert after["items"] == [
        {"name": "Injury (12 IP)", "system": {"injuryLevel": 4, "healRate": 0, "notes": notes}}
    ]
    assert after["vitals"]["hmk"]["value"] == 24 and after["statuses"] == []
    assert actor(gm, ALDRIC, "injury")["items"] == []
    message = gm.call("() => game.messages.contents.at(-1).id")
    undo_card(gm, message)
    wait_until(lambda: not actor(gm, BERIN, "injury")["items"])
    assert actor(gm, BERIN, "injury") == {"items": [], "statuses": [], "vitals": {}}
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_bleeding_hmk_combatant_shows_it_every_round_until_cured(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    gm = open_page(site, server, scene=hm3_scene())
    gm.wait_status("open")
    read_from_system(gm, "hmk")
    blocks = gm.call(
        """() => Promise.all(canvas.tokens.placeables.map((t) =>
            game.modules.get("arbiter").api.statBlocks.get(t.actor, "hmk")))"""
    )
    encounter = {"encounter": "hm3-bridge"}
    api_request(gm, "hmk", "start", {"combatants": blocks}, **encounter)
    # Roll 4 under 62/10: a critical; d10 7 (18, +100%: 10 more) less mail 6 = 22 IP; critical
    # row 66, Light Bleeder: 2 IP a round until healed.
    attack = {"attacker": ALDRIC, "defender": BERIN}
    struck = api_request(gm, "hmk", "attack", attack, dice=[4, 7, 66], **encounter)
    berin = actor(gm, BERIN, "injury")
    assert berin["statuses"] == ["bleeding"]
    assert berin["items"][0]["name"] == "Light Bleeder"
    assert berin["items"][0]["system"]["injuryLevel"] == 7  # 22 IP / 3
    assert berin["vitals"]["hmk"]["value"] == 14
    # The strike's card says so too, beside Berin's IP.
    row = gm.card(struck["message"]).locator(f'[data-combatant="{BERIN}"]')
    assert row.locator("[data-lasting]").all_inner_texts() == ["bleeding"]
    board(gm, f"v{generation}-hm3-bleeding")
    gm.card(struck["message"]).screenshot(
        path=str(ARTIFACTS / f"v{generation}-hm3-bleeder-card.png")
    )
    for ip in (12, 10):
        api_request(gm, "hmk", "round", {}, **encounter)
        berin = actor(gm, BERIN, "injury")
        assert (berin["statuses"], berin["vitals"]["hmk"]["value"]) == (["bleeding"], ip)
        assert len(berin["items"]) == 1  # bleeding is no new injury item
    names = gm.call(
        "() => CONFIG.statusEffects.map((s) => s.id + ':' + game.i18n.localize(s.name))"
    )
    assert "bleeding:EFFECT.StatusBleeding" in names  # core's own status, as the harness has it
    api_request(gm, "hmk", "aid", {"combatant": BERIN, "cure": True}, **encounter)
    berin = actor(gm, BERIN, "injury")
    assert (berin["statuses"], berin["vitals"]["hmk"]["value"]) == ([], 10)
    # Undo on the strike's card: Berin as before it (no injury item, no bleeding).
    undo_card(gm, struck["message"])
    wait_until(lambda: not actor(gm, BERIN, "injury")["items"])
    assert actor(gm, BERIN, "injury")["statuses"] == []
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_combat_styles_blow_lowers_a_mythras_hit_location_and_undo_restores_it(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    vessa = fixture("mythras_actor.json")
    world = scene(MYTHRAS, VESSA, vessa, systemStatuses=MYTHRAS_STATUSES)
    world["controlled"], world["targets"] = [], []
    gm = open_page(site, server, scene=world)
    gm.wait_status("open")
    block = gm.call(
        "(id) => game.modules.get('arbiter').api.statBlocks.fromSystem("
        "canvas.tokens.placeables.find((t) => t.actor.id === id).actor, 'combat-styles')",
        VESSA,
    )
    giant = {
        "id": "giant",
        "name": "Giant",
        "characteristics": {"str": 11, "con": 12, "siz": 11, "dex": 10, "int": 11, "pow": 9},
        "skills": {"combat_style": 90, "evade": 30, "endurance": 35, "willpower": 30},
        "weapons": ["great_club"],
    }
    exchange = {
        "attacker": "giant",
        "defender": VESSA,
        "weapon": "great_club",
        "defence": "none",
        "effects": [{"id": "choose_location", "location": "right_arm"}],
        "combatants": [giant, block],
    }
    # Attack 10; the great club's 2d6 (3, 3), one die of the blow's turns (2) and Vessa's
    # Endurance 50 (failed): 6 damage to her right arm of 4 HP, -2: a Serious wound.
    answer = api_request(
        gm, "combat-styles", "exchange", exchange, dice=[10, 3, 3, 2, 50], encounter="free-arm"
    )
    wound = json.loads(log_rows(server)[-1]["outcome"])["result"]["blow"]["wound"]
    assert (wound["location"], wound["hit_points"], wound["wound"]) == ("right_arm", -2, "serious")
    locations = {
        i["name"]: i["system"]["currentHitPoints"] for i in actor(gm, VESSA, "hitLocation")["items"]
    }
    assert locations == {
        "Pierna derecha": 5, "Pierna izquierda": 5, "Abdomen": 6, "Pecho": 7,
        "Brazo derecho": -2, "Brazo izquierdo": 4, "Cabeza": 5,
    }  # fmt: skip
    assert actor(gm, VESSA, "hitLocation")["statuses"] == ["seriousWound"]
    board(gm, f"v{generation}-mythras-serious-wound")
    # A later blow elsewhere (2d6: 1, 1 to her left leg, 5 → 3, Minor) leaves the arm's wound
    # and its status as they were.
    leg = {**exchange, "effects": [{"id": "choose_location", "location": "left_leg"}]}
    grazed = api_request(
        gm, "combat-styles", "exchange", leg, dice=[10, 1, 1], encounter="free-leg"
    )
    now = actor(gm, VESSA, "hitLocation")
    hit_points = {i["name"]: i["system"]["currentHitPoints"] for i in now["items"]}
    assert (hit_points["Pierna izquierda"], hit_points["Brazo derecho"]) == (3, -2)
    assert now["statuses"] == ["seriousWound"]
    undo_card(gm, grazed["message"])
    wait_until(lambda: hit_of(gm, "Pierna izquierda") == 5)
    assert actor(gm, VESSA, "hitLocation")["statuses"] == ["seriousWound"]
    undo_card(gm, answer["message"])
    wait_until(lambda: not actor(gm, VESSA, "hitLocation")["statuses"])
    restored = {
        i["name"]: i["system"]["currentHitPoints"] for i in actor(gm, VESSA, "hitLocation")["items"]
    }
    assert restored["Brazo derecho"] == 4
    assert restored == {
        i["name"]: i["system"]["maxHitPoints"] for i in vessa["items"] if i["type"] == "hitLocation"
    }
    assert gm.problems == []


def test_the_item_stand_ins_keep_only_declared_fields_and_refuse_unknown_types(
    site: str, server: Server, open_page: OpenPage
) -> None:
    gm = open_page(site, server, scene=hm3_scene())
    answer = gm.call(
        """async (id) => {
            const a = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            const [made] = await a.createEmbeddedDocuments("Item", [{ name: "Cut", type: "injury",
                system: { injuryLevel: 2, hitPoints: 9 } }]);
            let refused = null;
            try { await a.createEmbeddedDocuments("Item", [{ name: "Cut", type: "wound" }]); }
            catch (err) { refused = err.message; }
            await a.updateEmbeddedDocuments("Item", [{ _id: made.id, "system.healRate": 3, "system.bogus": 1 }]);
            return { system: a.items.get(made.id).system, refused };
        }""",
        BERIN,
    )
    # As Foundry's cleanData: what HM3's injury model does not declare is dropped.
    assert answer["system"] == {"injuryLevel": 2, "healRate": 3}
    assert "not a valid type" in answer["refused"]


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_hmk_death_timer_shows_until_the_combatant_is_stabilized(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    gm = open_page(site, server, scene=hm3_scene())
    gm.wait_status("open")
    read_from_system(gm, "hmk")
    blocks = gm.call(
        """() => Promise.all(canvas.tokens.placeables.map((t) =>
            game.modules.get("arbiter").api.statBlocks.get(t.actor, "hmk")))"""
    )
    encounter = {"encounter": "hm3-ditch"}
    api_request(gm, "hmk", "start", {"combatants": blocks}, **encounter)
    attack = {"attacker": ALDRIC, "defender": BERIN}
    api_request(gm, "hmk", "attack", attack, dice=[4, 7, 66], **encounter)  # 36 → 14, bleeding
    api_request(gm, "hmk", "round", {}, **encounter)  # bleeds 2: 12
    # A second Light Bleeder: 12 - 22 = -10, unconscious with a death timer of 15 rounds.
    api_request(gm, "hmk", "attack", attack, dice=[4, 7, 66], **encounter)
    berin = actor(gm, BERIN, "injury")
    assert berin["statuses"] == ["arbiter-dying", "bleeding", "unconscious"]
    assert (berin["vitals"]["hmk"]["value"], len(berin["items"])) == (-10, 2)
    names = gm.call("() => CONFIG.statusEffects.map((s) => s.id + ':' + s.name + ':' + s.img)")
    assert "arbiter-dying:Dying (death timer):icons/svg/hazard.svg" in names
    # Medical assistance stops the timer: still unconscious and bleeding (no cure).
    api_request(gm, "hmk", "aid", {"combatant": BERIN, "stabilize": True}, **encounter)
    assert actor(gm, BERIN, "injury")["statuses"] == ["bleeding", "unconscious"]
    assert gm.problems == []
