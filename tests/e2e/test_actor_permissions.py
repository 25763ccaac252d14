"""Who may change an actor, in V12, V13 and V14: as Foundry's server, the harness refuses an
update of an actor (its data, its flags, its embedded items) by a user without the OWNER level,
and nothing changes in any browser; the module never asks that of a player's browser: a
player's blow on the GM's NPC is written on the NPC by the GM's client. Dice are scripted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.support.browser import PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_dice_queue
from tests.e2e.support.process import Server, wait_until
from tests.e2e.test_tabletop import ORM, SCENE, orm

KARA = "actorKara0000001"


def refused(page: Page, script: str) -> str:
    """The message ``script`` (an async function of Orm's actor) was rejected with, or ''."""
    message: str = page.call(
        f"""async (id) => {{
            const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            try {{ await ({script})(actor); return ""; }} catch (err) {{ return err.message; }}
        }}""",
        ORM,
    )
    return message


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_player_may_not_change_the_gm_s_npc_and_his_blow_on_it_is_written_by_the_gm_s_client(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    actors: list[dict[str, Any]] = [
        {**SCENE["actors"][0], "ownership": {PLAYER: 3}},
        SCENE["actors"][1],
    ]
    scene = {**SCENE, "actors": actors}
    token = server.player_token("Aria", [KARA]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, token=token, scene=scene)
    gm = open_page(site, server, scene=scene)
    gm.wait_status("open")
    if generation >= 13:
        gm.call(f"async () => game.modules.get('arbiter').api.players.bind('Aria', ['{KARA}'])")
    else:
        aria.wait_status("open")
    wait_until(
        lambda: aria.call(
            "() => canvas.tokens.placeables.every((t) => t.actor.getFlag('arbiter', 'participant'))"
        )
    )
    before = orm(gm)
    lacks = f"User Aria lacks permission to update Actor [{ORM}]"
    assert refused(aria, "(a) => a.update({'system.health.value': 1})") == lacks
    assert refused(aria, "(a) => a.setFlag('arbiter', 'vitals', {hmk: {value: 1}})") == lacks
    assert refused(aria, "(a) => a.unsetFlag('arbiter', 'participant')") == lacks
    assert orm(gm) == orm(aria) == before
    # Aria's own Kara is hers to change.
    assert (
        aria.call(
            f"""async () => {{
            const kara = canvas.tokens.placeables.find((t) => t.actor.id === "{KARA}").actor;
            await kara.setFlag("arbiter", "note", "mine");
            return kara.getFlag("arbiter", "note");
        }}"""
        )
        == "mine"
    )
    # Her attack hits Orm (d100 30, d6 5): the GM's client writes the injury on him.
    script_dice_queue(gm if generation >= 13 else aria, [[30, 5]])
    aria.run_macro(macros[("hmk", "attack")])
    aria.page.locator("dialog.application").locator('button[data-action="send"]').click()
    aria.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(server))
    after_ip = json.loads(row["outcome"])["result"]["combatants"][ORM]["ip"]
    assert after_ip < 28
    wait_until(lambda: orm(aria)["health"]["value"] == after_ip)
    assert orm(gm)["health"]["value"] == after_ip
    assert not [p for p in aria.problems if "lacks permission" in p]
    assert gm.problems == []
