"""An NPC's stat block never reaches a player's browser, in V12, V13 and V14.

A world of an earlier version: Kara (Aria's character) and Orm (the GM's NPC) carry their hmk
stat blocks in actor flags, which Foundry sends to every browser. Aria's browser is open when
the GM's connects; the GM's client moves both blocks to the server and removes them from the
actors, and the change reaches Aria's browser as every actor change does. Then the GM resolves
Kara's attack on Orm from the tokens (the server's block of Orm is used), and Aria attacks Orm
herself (V12: her own connection; V13+: relayed by the GM's client): her request names Orm's
block, and the server fills it in. Nothing in Aria's browser holds Orm's block: actors' flags,
settings, chat messages and their flags, module socket messages, user queries, the DOM, every
websocket frame."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbiter.compiler.model.loader import load_all
from tests.e2e.support.browser import GM, PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.process import Server, wait_until

READY = {c.id: c.stat_block for c in load_all()["hmk"].model.combatants}
MARKER = "orm-secret-warband"
"""Orm's party, which only his block says: the test searches Aria's browser for it."""
KARA_BLOCK = {**READY["ana"], "id": "kara", "name": "Kara"}
ORM_BLOCK = {
    **READY["bandit"],
    "id": "orm",
    "name": "Orm",
    "party": MARKER,
}


def actor(actor_id: str, name: str, block: dict[str, Any], owner: str | None) -> dict[str, Any]:
    return {
        "_id": actor_id,
        "name": name,
        "type": "npc",
        "ownership": {owner: 3} if owner else {},
        "system": {"health": {"value": block["ip"], "min": 0, "max": block["ip"]}},
        "flags": {"arbiter": {"statBlocks": {"hmk": block}, "editedStatBlocks": {"hmk": True}}},
    }


SCENE = {
    "system": {"id": "worldbuilding", "title": "Simple Worldbuilding"},
    "actors": [
        actor("actorKara0000001", "Kara", KARA_BLOCK, PLAYER),
        actor("actorOrm00000001", "Orm", ORM_BLOCK, None),
    ],
    "tokens": [
        {"id": "tokenKara0000001", "name": "Kara", "actor": "actorKara0000001"},
        {"id": "tokenOrm00000001", "name": "Orm", "actor": "actorOrm00000001"},
    ],
    "controlled": ["tokenKara0000001"],
    "targets": ["tokenOrm00000001"],
}


def held(page: Page) -> dict[str, str]:
    """Everything a browser holds that Foundry or Arbiter delivered to it."""
    found = page.call(
        """() => ({
            actors: JSON.stringify(canvas.tokens.placeables.map((t) => ({ flags: t.actor.flags, system: t.actor.system }))),
            settings: JSON.stringify(["serverUrl", "token", "heartbeat", "mappings"].map((k) => game.settings.get("arbiter", k))),
            storage: JSON.stringify(Object.entries(localStorage)),
            chat: JSON.stringify(game.messages.contents.map((m) => m.toObject())),
            socket: JSON.stringify(harness.record.socketIn),
            queries: JSON.stringify(harness.record.queriesIn),
            dom: document.documentElement.outerHTML,
        })"""
    )
    found["frames"] = "\n".join(payload for _url, _way, payload in page.frames)
    return found


def requests_sent(page: Page) -> list[dict[str, Any]]:
    """Every ``request`` message the page sent the Arbiter server, as sent."""
    sent = [json.loads(p) for _url, way, p in page.frames if way == "sent" and p.startswith("{")]
    return [m for m in sent if m.get("type") == "request"]


def flags_of(page: Page) -> list[dict[str, Any]]:
    return page.call("() => canvas.tokens.placeables.map((t) => t.actor.flags.arbiter ?? {})")


def attack_from_tokens(page: Page, macro: str) -> tuple[Any, Any]:
    """Run the hmk attack macro, press Send as it opens (no JSON typed); the attacker's and the
    defender's stat blocks as the dialog showed them."""
    page.run_macro(macro)
    dialog = page.page.locator("dialog.application")
    dialog.locator('button[data-action="send"]').wait_for()
    shown = [
        dialog.locator(f'textarea[name="{side}"]').input_value()
        for side in ("attacker", "defender")
    ]
    dialog.locator('button[data-action="send"]').click()
    page.call("async () => window.macro")
    return json.loads(shown[0]), json.loads(shown[1])


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_the_gm_and_a_player_attack_an_npc_whose_stat_block_never_reaches_the_player(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    # V12 has no user queries: Aria needs her own player token there.
    token = server.player_token("Aria", ["kara"]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, token=token, scene=SCENE)
    assert MARKER in held(aria)["actors"]  # the earlier version's flags: every browser has them
    gm = open_page(site, server, user=GM, scene=SCENE)
    gm.wait_status("open")
    if generation >= 13:
        gm.call("async () => game.modules.get('arbiter').api.players.bind('Aria', ['kara'])")
    else:
        aria.wait_status("open")
    # Moved to the server: the actors keep only their combatants' ids, in every browser.
    expected = [{"participant": {"hmk": "kara"}}, {"participant": {"hmk": "orm"}}]
    wait_until(lambda: flags_of(gm) == expected)
    wait_until(lambda: flags_of(aria) == expected)
    assert MARKER not in held(aria)["actors"]

    # The GM resolves Kara's attack on Orm from the tokens: his client reads Orm's block.
    assert attack_from_tokens(gm, macros[("hmk", "attack")]) == (KARA_BLOCK, ORM_BLOCK)
    [first] = wait_until(lambda: log_rows(server))
    body = json.loads(first["request"])["body"]
    assert body["attacker"] == KARA_BLOCK and body["defender"] == ORM_BLOCK
    # His client sent both blocks by reference (the server keeps them as they are, and had
    # validated them once when they were stored); the log holds them written in (above).
    [sent] = requests_sent(gm)
    assert sent["request"]["body"]["attacker"] == {"id": "kara", "stored": True}
    assert sent["request"]["body"]["defender"] == {"id": "orm", "stored": True}

    # Aria attacks Orm: her dialog names Orm's block, the server fills it in (and logs it).
    # Her own character's block she reads over her own connection (V12); relaying through the
    # GM's client (V13+) she holds none and names it too.
    kara, orm = attack_from_tokens(aria, macros[("hmk", "attack")])
    assert orm == {"id": "orm", "stored": True}
    assert kara == (KARA_BLOCK if generation == 12 else {"id": "kara", "stored": True})
    rows = wait_until(lambda: len(log_rows(server)) == 2) and log_rows(server)
    mine = json.loads(rows[1]["request"])
    assert mine["body"]["defender"] == ORM_BLOCK and mine["body"]["attacker"] == KARA_BLOCK
    assert rows[1]["user"].startswith("Aria")
    assert json.loads(rows[1]["outcome"])["result"]["defender"] == "orm"
    wait_until(lambda: aria.call("() => game.messages.size") >= 2)

    for where, text in held(aria).items():
        assert MARKER not in text, where
    assert aria.problems == [] and gm.problems == []
