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
