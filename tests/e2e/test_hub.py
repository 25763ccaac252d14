"""The hub plays Foundry's server between the pages (``support/hub.py``): a browser that loads
gets the world's actors as the server holds them then (``Game.getWorldData``: ``game.data``'s
actors), every change another browser made before included, and hears of each later change
once; not the world as the test began."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support.browser import BRAM, PLAYER, OpenPage
from tests.e2e.support.process import Server, wait_until

ORM = "actorOrm00000001"
WORLD: dict[str, Any] = {
    "system": {"id": "worldbuilding", "title": "Simple Worldbuilding"},
    # No stat block of an earlier version in its flags: the GM's client writes nothing of its own.
    "actors": [
        {
            "_id": ORM,
            "name": "Orm",
            "type": "npc",
            "system": {"health": {"value": 28, "min": 0, "max": 28}},
            "flags": {"arbiter": {"probe": {"kept": 1, "gone": 2}}},
        }
    ],
    "tokens": [{"id": "tokenOrm00000001", "name": "Orm", "actor": ORM}],
}
CHANGE = """async (id) => {
    const orm = game.actors.get(id);
    await orm.setFlag("arbiter", "probe", { added: 3 });
    await orm.unsetFlag("arbiter", "probe.gone");
    await orm.update({ "system.health.value": 5 });
}"""
HELD = """(id) => { const a = game.actors.get(id);
    return { flags: a.flags, health: a.system.health.value, token: canvas.tokens.placeables[0].actor.flags }; }"""
AS_CHANGED = {
    "flags": {"arbiter": {"probe": {"kept": 1, "added": 3}}},
    "health": 5,
    "token": {"arbiter": {"probe": {"kept": 1, "added": 3}}},
}
HEARD = """() => { window.heard = [];
    Hooks.on("updateActor", (actor, changed, options, userId) => window.heard.push(changed)); }"""


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_page_opened_after_an_actor_changed_holds_it_as_changed_and_hears_only_later_changes(
    site: str, server: Server, open_page: OpenPage
) -> None:
    gm = open_page(site, server, scene=WORLD)
    aria = open_page(site, server, user=PLAYER, scene=WORLD)
    gm.call(CHANGE, ORM)
    assert gm.call(HELD, ORM) == AS_CHANGED
    # Aria's page, open all along, hears the changes: Foundry's server has taken them.
    wait_until(lambda: aria.call(HELD, ORM) == AS_CHANGED)

    bram = open_page(site, server, user=BRAM, scene=WORLD)
    assert bram.call(HELD, ORM) == AS_CHANGED
    # A later change reaches his page; none of the earlier ones comes again before it.
    bram.call(HEARD)
    gm.call("async (id) => game.actors.get(id).setFlag('arbiter', 'later', true)", ORM)
    heard = wait_until(lambda: bram.call("() => window.heard"))
    assert heard == [{"_id": ORM, "flags": {"arbiter": {"later": True}}}]
    assert gm.problems == aria.problems == bram.problems == []
