"""The stat blocks the world's game system gives, kept on the server by the active GM's client
by itself (system-blocks.mjs), in V12, V13 and V14, against a real ``arbiter serve``: a player
attacks a HârnMaster 3 NPC outside any combat, which nobody saved in the editor, and the server
decides it with the NPC's own HM3 numbers; the GM changes the NPC's sheet and the next attack
uses the new value; a block the GM saved in the editor is never overwritten by a sheet change.
Dice are scripted (a miss: nobody is hurt), so every number is exact."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support.browser import PLAYER, OpenPage, Page, log_rows
from tests.e2e.support.dialogs import script_dice_queue
from tests.e2e.support.process import Server, wait_until

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HM3 = {"id": "hm3", "title": "HârnMaster 3"}
ALDRIC = "actorHm3Aldric01"
BRANN = "actorHm3Brann001"
API = "game.modules.get('arbiter').api"


def hm3_actor(actor_id: str, name: str) -> dict[str, Any]:
    """Aldric of Kaldor's HârnMaster 3 data (tests/e2e/fixtures/hm3_actor.json) as ``name``."""
    data = json.loads((FIXTURES / "hm3_actor.json").read_text(encoding="utf-8"))
    data.pop("_source")
    return {**data, "_id": actor_id, "name": name}


def table(
    generation: int, server: Server, site: str, open_page: OpenPage, brann_linked: bool = True
) -> tuple[Page, Page]:
    """Aria (a player) holds Aldric; Brann is the GM's NPC; both tokens on the scene, no combat,
    no block saved by anybody. Aria's token is selected and Brann's targeted (unlinked unless
    ``brann_linked``: its actor is then the token's own). (GM, Aria)."""
    aldric = {**hm3_actor(ALDRIC, "Aldric of Kaldor"), "ownership": {PLAYER: 3}}
    tokens = [{"id": "tokenHm3Aldric01", "name": "Aldric of Kaldor", "actor": ALDRIC},
              {"id": "tokenHm3Brann001", "name": "Brann of Kaldor", "actor": BRANN,
               "actorLink": brann_linked}]  # fmt: skip
    scene = {"system": HM3, "actors": [aldric, hm3_actor(BRANN, "Brann of Kaldor")],
             "tokens": tokens, "controlled": [], "targets": []}  # fmt: skip
    # V12 has no user queries: Aria needs her own player token there.
    token = server.player_token("Aria", [ALDRIC]) if generation == 12 else None
    aria = open_page(site, server, user=PLAYER, token=token, scene={
        **scene, "controlled": ["tokenHm3Aldric01"], "targets": ["tokenHm3Brann001"]})  # fmt: skip
    gm = open_page(site, server, scene=scene)
    gm.wait_status("open")
    if generation >= 13:
        gm.call(f"async () => {API}.players.bind('Aria', ['{ALDRIC}'])")
    else:
        aria.wait_status("open")
    settle(gm)
    # Aria's page hears of the participants the GM's client noted on the actors through
    # Foundry's server, in its own time: until it has, her dialogs cannot name a stored block.
    wait_until(lambda: aria.call(NOTED))
    return gm, aria


NOTED = "() => canvas.tokens.placeables.every((t) => t.actor.flags.arbiter?.participant?.hmk)"
"""Every token's actor on the page notes its hmk participant (the GM's client writes it)."""


def settle(gm: Page) -> None:
    """Wait until the GM's client has stored what it stores by itself."""
    gm.call(f"() => {API}.statBlocks.settled()")


def stored(gm: Page, participant: str) -> dict[str, Any] | None:
    """The hmk block the server keeps for ``participant``, as the GM's connection reads it."""
    answer: dict[str, Any] | None = gm.call(
        """async (participant) => {
            const connection = game.modules.get("arbiter").api.connection;
            try {
                const id = `test-${foundry.utils.randomID(8)}`;
                return (await connection.control({v: 1, type: "get_stat_block", id, ruleset: "hmk", participant})).stat_block;
            } catch (err) { return null; }
        }""",
        participant,
    )
    return answer


def attack(
    gm: Page, aria: Page, server: Server, macros: dict[tuple[str, str], str], generation: int
) -> dict[str, Any]:
    """Aria attacks Brann from her dialog (no JSON typed); d100 90, a miss. The logged row of
    the request the server decided."""
    script_dice_queue(gm if generation >= 13 else aria, [[90]])
    logged = len(log_rows(server))
    aria.run_macro(macros[("hmk", "attack")])
    dialog = aria.page.locator("dialog.application")
    dialog.locator('button[data-action="send"]').click()
    aria.call("async () => window.macro")
    wait_until(lambda: len(log_rows(server)) == logged + 1)
    row = log_rows(server)[-1]
    assert row["type"] == "attack" and row["user"].startswith("Aria")
    return row


def chance(row: dict[str, Any]) -> tuple[int, int, int, int]:
    """The attack's odds as the server computed them: (skill, defensive tactics, how much of
    them applied, effective)."""
    odds = json.loads(row["outcome"])["result"]["chance"]
    return odds["skill"], odds["defensive_tactics"], odds["dt_applied"], odds["effective"]


def set_dodge(gm: Page, actor_id: str, level: int) -> None:
    """The GM edits the NPC's HM3 sheet: its Dodge skill item's effective mastery level."""
    gm.call(
        """async ([id, level]) => {
            const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            const dodge = Array.from(actor.items).find((i) => i.type === "skill" && i.name === "Dodge");
            await actor.updateEmbeddedDocuments("Item", [{_id: dodge.id, "system.effectiveMasteryLevel": level}]);
        }""",
        [actor_id, level],
    )


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_player_attacks_an_npc_only_its_system_describes_outside_combat_and_a_sheet_change_follows(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm, aria = table(generation, server, site, open_page)
    # The GM's client stored what the hm3 → hmk preset reads, for each actor on the scene, once;
    # each actor notes its participant and that the block is its system's; no stat value.
    flags = "() => canvas.tokens.placeables.map((t) => t.actor.flags.arbiter ?? {})"
    expected = [{"participant": {"hmk": ALDRIC}, "derived": {"hmk": True}},
                {"participant": {"hmk": BRANN}, "derived": {"hmk": True}}]  # fmt: skip
    wait_until(lambda: aria.call(flags) == expected)
    brann = stored(gm, BRANN)
    assert brann is not None and brann["defensive_tactics"] == 33
    assert brann["skills"] == {"long-sword": 62, "dagger": 45}

    # Aria attacks Brann: decided with Brann's HM3 numbers (Dodge 33), Aldric's sword 62.
    row = attack(gm, aria, server, macros, generation)
    # Not defending: a quarter of his Defensive Tactics (8) comes off Aldric's 62.
    assert chance(row) == (62, 33, 8, 54)
    assert json.loads(row["outcome"])["result"]["outcome"] == "miss"

    # The GM raises Brann's Dodge on his sheet (an embedded skill item): the next attack
    # is decided with the new value, stored by the GM's client alone.
    set_dodge(gm, BRANN, 40)
    settle(gm)
    assert stored(gm, BRANN)["defensive_tactics"] == 40
    assert chance(attack(gm, aria, server, macros, generation)) == (62, 40, 10, 52)

    # And a change of the actor's own data (its strength): the block follows it too.
    gm.call(
        "(id) => canvas.tokens.placeables.find((t) => t.actor.id === id).actor"
        ".update({'system.abilities.strength.base': 15}).then(() => null)",
        BRANN,
    )
    settle(gm)
    assert stored(gm, BRANN)["attributes"]["STR"] == 75
    assert aria.problems == [] and gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_an_unlinked_npc_token_s_block_is_read_from_and_noted_on_the_token_s_own_actor(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    # As in Foundry, Brann's token is unlinked: its actor is its own (synthetic, the token's
    # ActorDelta). The GM's client reads the block from it and notes the participant on it,
    # in every browser, never on the world's Brann; the token's sheet change is followed.
    gm, aria = table(generation, server, site, open_page, brann_linked=False)
    token_flags = """(id) => {
        const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
        return [actor.isToken, actor.flags.arbiter ?? {}];
    }"""
    noted = [True, {"participant": {"hmk": BRANN}, "derived": {"hmk": True}}]
    wait_until(lambda: aria.call(token_flags, BRANN) == noted)
    assert gm.call(token_flags, BRANN) == noted
    for page in (gm, aria):
        assert page.call("(id) => game.actors.get(id).flags.arbiter ?? {}", BRANN) == {}
    assert chance(attack(gm, aria, server, macros, generation)) == (62, 33, 8, 54)
    set_dodge(gm, BRANN, 40)  # the token's Brann: his sheet is the token's
    settle(gm)
    assert stored(gm, BRANN)["defensive_tactics"] == 40
    assert chance(attack(gm, aria, server, macros, generation)) == (62, 40, 10, 52)
    assert aria.problems == [] and gm.problems == []


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "unlinked"])
@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_block_the_gm_saved_in_the_editor_is_not_overwritten_by_a_sheet_change(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
    linked: bool,
) -> None:
    # Unlinked, the editor the GM opens by Brann's id is his token's (the actor the sheet
    # change and the tracker use), not the world's.
    gm, aria = table(generation, server, site, open_page, brann_linked=linked)
    # The GM saves Brann's block in the editor with his own Dodge (50), not the sheet's.
    gm.call(f"() => {{ window.edited = {API}.statBlocks.edit('{BRANN}', 'hmk'); }}")
    editor = gm.page.locator("dialog.application:has(.arbiter-editor)")
    editor.locator('[name="defensive_tactics"]').fill("50")
    editor.locator('button[data-action="save"]').click()
    wait_until(lambda: (stored(gm, BRANN) or {}).get("defensive_tactics") == 50)
    assert gm.call(f"() => {API}.statBlocks.derived('{BRANN}', 'hmk')") is False
    saved = updated(gm, BRANN)

    # The sheet's Dodge changes: the GM's saved block stands, and decides Aria's attack.
    set_dodge(gm, BRANN, 20)
    settle(gm)
    assert stored(gm, BRANN)["defensive_tactics"] == 50
    assert updated(gm, BRANN) == saved
    assert chance(attack(gm, aria, server, macros, generation)) == (62, 50, 12, 50)
    assert aria.problems == [] and gm.problems == []


def updated(gm: Page, participant: str) -> float:
    """When the server last stored ``participant``'s hmk block (its list says, per put)."""
    entries = gm.call(f"() => {API}.statBlocks.list('hmk')")
    return next(e["updated"] for e in entries if e["participant"] == participant)


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_many_tokens_dropped_at_once_store_one_block_per_actor_and_an_unread_change_stores_none(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    actors = [hm3_actor(ALDRIC, "Aldric of Kaldor"), hm3_actor(BRANN, "Brann of Kaldor")]
    gm = open_page(site, server, scene={"system": HM3, "actors": actors, "tokens": [],
                                        "controlled": [], "targets": []})  # fmt: skip
    gm.wait_status("open")
    # Every put_stat_block the GM's connection sends, by participant.
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const control = connection.control.bind(connection);
            window.puts = [];
            connection.control = (message) => {
                if (message.type === "put_stat_block") window.puts.push(message.stat_block.id);
                return control(message);
            };
        }"""
    )
    # Seven tokens of two actors, dropped in one go (as a scene's many tokens are drawn).
    gm.call("(ids) => { for (const id of ids) harness.dropActor(id); }", [BRANN] * 4 + [ALDRIC] * 3)
    settle(gm)
    assert sorted(gm.call("() => window.puts")) == [ALDRIC, BRANN]
    assert stored(gm, BRANN) is not None and stored(gm, ALDRIC) is not None
    # A change to what the preset does not read (the actor's biography, a new injury item)
    # stores nothing; one it reads stores that actor's block once.
    gm.call(
        """async (id) => {
            const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            await actor.update({"system.biography": "A mercenary of Kaldor."});
            await actor.createEmbeddedDocuments("Item", [{name: "Cut", type: "injury", system: {injuryLevel: 1}}]);
        }""",
        BRANN,
    )
    settle(gm)
    assert gm.call("() => window.puts.length") == 2
    # Two edits in one go (no timer runs between them): read once, stored once.
    gm.call(
        """async (id) => {
            const actor = canvas.tokens.placeables.find((t) => t.actor.id === id).actor;
            const dodge = Array.from(actor.items).find((i) => i.type === "skill" && i.name === "Dodge");
            await dodge.update({"system.effectiveMasteryLevel": 35});
            await dodge.update({"system.effectiveMasteryLevel": 36});
        }""",
        BRANN,
    )
    settle(gm)
    assert gm.call("() => window.puts.slice(2)") == [BRANN]
    assert stored(gm, BRANN)["defensive_tactics"] == 36
    assert gm.problems == []


def forget_on_server(gm: Page, participant: str) -> None:
    """The server loses ``participant``'s hmk block (a delete the GM's client does not hear
    of: its actor keeps its flags, and the client what it last put)."""
    gm.call(
        """async (participant) => {
            const connection = game.modules.get("arbiter").api.connection;
            const id = `test-${foundry.utils.randomID(8)}`;
            await connection.control({v: 1, type: "delete_stat_block", id, ruleset: "hmk", participant});
        }""",
        participant,
    )
    assert stored(gm, participant) is None


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_block_refused_or_lost_is_put_again_after_a_rules_change_and_after_a_reconnect(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    actors = [hm3_actor(BRANN, "Brann of Kaldor")]
    gm = open_page(site, server, scene={"system": HM3, "actors": actors, "tokens": [],
                                        "controlled": [], "targets": []})  # fmt: skip
    gm.wait_status("open")
    # The server refuses the first put (as it does a block its rules of the moment refuse).
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const control = connection.control.bind(connection);
            window.refuse = 1;
            connection.control = (message) => {
                if (message.type !== "put_stat_block" || window.refuse === 0) return control(message);
                window.refuse -= 1;
                return Promise.resolve({v: 1, type: "checked", id: message.id, ok: false,
                    problems: [{field: "weapons.0", message: "unknown weapon"}]});
            };
        }"""
    )
    gm.call("(id) => { harness.dropActor(id); }", BRANN)
    settle(gm)
    assert stored(gm, BRANN) is None
    # The rules change (the server's rules_updated event, as it sends it after a reload): the
    # refused block is tried again, and taken.
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const detail = {v: 1, type: "event", event: "rules_updated", rulesets: connection.welcome.rulesets};
            connection.dispatchEvent(new CustomEvent("event", {detail}));
        }"""
    )
    settle(gm)
    assert (stored(gm, BRANN) or {}).get("defensive_tactics") == 33
    # What the client last put is no proof a server keeps it: once welcomed again (here by a
    # restarted server that lost it), the scene's blocks are put again where it has none.
    forget_on_server(gm, BRANN)
    gm.allowed.append(re.compile(rf"WebSocket connection to 'ws://127\.0\.0\.1:{server.port}/'"))
    server.restart()
    gm.wait_status("open")
    wait_until(lambda: stored(gm, BRANN) is not None)
    settle(gm)
    assert (stored(gm, BRANN) or {}).get("defensive_tactics") == 33
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_block_of_an_earlier_version_the_server_refused_is_never_replaced_by_the_system_s(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    # Brann's actor still holds the block an earlier version kept in its flags, which the
    # server refuses (a weapon the rules lack): the GM was told, and fixes it in the editor.
    # It is his: the system's block is not stored over it, nor is it unset.
    legacy = {"id": BRANN, "name": "Brann of Kaldor", "weapon": "no-such-weapon"}
    brann = {
        **hm3_actor(BRANN, "Brann of Kaldor"),
        "flags": {"arbiter": {"statBlocks": {"hmk": legacy}}},
    }
    token = {"id": "tokenHm3Brann001", "name": "Brann of Kaldor", "actor": BRANN}
    gm = open_page(site, server, scene={"system": HM3, "actors": [brann], "tokens": [token],
                                        "controlled": [], "targets": []})  # fmt: skip
    gm.wait_status("open")
    wait_until(lambda: gm.call("() => harness.record.notifications.length > 0"))
    settle(gm)
    assert stored(gm, BRANN) is None
    flags = gm.call("(id) => game.actors.get(id).flags.arbiter", BRANN)
    assert flags == {"statBlocks": {"hmk": legacy}}
    # A sheet change reads nothing into it either.
    set_dodge(gm, BRANN, 40)
    settle(gm)
    assert stored(gm, BRANN) is None
    assert gm.call(f"() => {API}.statBlocks.derived('{BRANN}', 'hmk')") is False


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_the_first_put_notes_participant_and_marker_in_one_actor_update(
    site: str, server: Server, open_page: OpenPage, generation: int
) -> None:
    gm, _ = table(generation, server, site, open_page)
    # One change per actor reaches every browser: never a participant without its marker.
    updates = gm.call(
        "() => (harness.record.actorUpdates ?? []).filter((u) => u.actor === 'actorHm3Brann001')"
    )
    assert updates == [
        {"actor": BRANN,
         "data": {"flags.arbiter.derived.hmk": True, "flags.arbiter.participant.hmk": BRANN}}
    ]  # fmt: skip
    assert gm.call("() => harness.record.flags") == []


@pytest.mark.parametrize("generation", [13, 14])
def test_a_relayed_request_refused_for_want_of_a_stored_block_is_stored_and_sent_again_once(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm, aria = table(generation, server, site, open_page)
    forget_on_server(gm, BRANN)
    # Every request the GM's connection sends, by id.
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const request = connection.request.bind(connection);
            window.sent = [];
            connection.request = (envelope, scripted, ...rest) => {
                window.sent.push(envelope.id);
                return request(envelope, scripted ?? [90], ...rest);  // d100 90 each time
            };
        }"""
    )
    # Aria's attack on Brann is refused (no block of his stored: `unstored` names him); the
    # GM's client stores Brann's system block and sends the same request again: decided.
    row = attack(gm, aria, server, macros, generation)
    assert chance(row) == (62, 33, 8, 54)
    assert json.loads(row["outcome"])["result"]["outcome"] == "miss"
    assert gm.call("() => window.sent") == [row["request_id"]] * 2
    assert (stored(gm, BRANN) or {}).get("defensive_tactics") == 33
    assert aria.problems == [] and gm.problems == []


@pytest.mark.parametrize("generation", [13, 14])
def test_a_relayed_request_for_a_block_the_gm_saved_is_refused_and_sent_once(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    gm, aria = table(generation, server, site, open_page)
    # Brann's block is the GM's (saved, not the sheet's), and the server has lost it: the
    # GM's client does not put the sheet's in its place; Aria hears the server's refusal.
    gm.call(
        """async (id) => {
            const api = game.modules.get("arbiter").api;
            const block = await api.statBlocks.get(id, "hmk");
            const verdict = await api.statBlocks.save(id, "hmk", {...block, defensive_tactics: 50});
            if (!verdict.ok) throw new Error(JSON.stringify(verdict));
        }""",
        BRANN,
    )
    assert gm.call(f"() => {API}.statBlocks.derived('{BRANN}', 'hmk')") is False
    forget_on_server(gm, BRANN)
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const request = connection.request.bind(connection);
            window.sent = [];
            connection.request = (envelope, ...rest) => {
                window.sent.push(envelope.id);
                return request(envelope, ...rest);
            };
        }"""
    )
    aria.run_macro(macros[("hmk", "attack")])
    aria.page.locator("dialog.application").locator('button[data-action="send"]').click()
    # The macro lets the refusal through, as an uncaught error on Aria's page.
    refusal = "the stat block of 'actorHm3Brann001' must be the GM's"

    def refused() -> bool:
        aria.call("() => null")  # Playwright hands the page's events over during a call
        return any(refusal in p for p in aria.problems)

    wait_until(refused)
    aria.problems.clear()
    assert len(gm.call("() => window.sent")) == 1
    assert stored(gm, BRANN) is None
    assert gm.call(f"() => {API}.statBlocks.derived('{BRANN}', 'hmk')") is False
    assert log_rows(server) == []


@pytest.mark.parametrize("generation", [13, 14])
def test_a_relayed_request_naming_an_npc_off_the_gm_s_scene_is_refused_and_nothing_is_stored(
    site: str,
    server: Server,
    open_page: OpenPage,
    macros: dict[tuple[str, str], str],
    generation: int,
) -> None:
    # Brann is a world actor with a system block, but his token stands only on the scene Aria
    # views: the GM's client must not bring into play an NPC he has not put on his own scene.
    aldric = {**hm3_actor(ALDRIC, "Aldric of Kaldor"), "ownership": {PLAYER: 3}}
    actors = [aldric, hm3_actor(BRANN, "Brann of Kaldor")]
    aldric_token = {"id": "tokenHm3Aldric01", "name": "Aldric of Kaldor", "actor": ALDRIC}
    brann_token = {"id": "tokenHm3Brann001", "name": "Brann of Kaldor", "actor": BRANN}
    aria = open_page(site, server, user=PLAYER, scene={
        "system": HM3, "actors": actors, "tokens": [aldric_token, brann_token],
        "controlled": ["tokenHm3Aldric01"], "targets": ["tokenHm3Brann001"]})  # fmt: skip
    gm = open_page(site, server, scene={"system": HM3, "actors": actors, "tokens": [aldric_token],
                                        "controlled": [], "targets": []})  # fmt: skip
    gm.wait_status("open")
    gm.call(f"async () => {API}.players.bind('Aria', ['{ALDRIC}'])")
    settle(gm)
    assert gm.call(f"() => game.actors.get('{BRANN}')?.id") == BRANN
    assert stored(gm, BRANN) is None
    gm.call(
        """() => {
            const connection = game.modules.get("arbiter").api.connection;
            const request = connection.request.bind(connection);
            window.sent = [];
            connection.request = (envelope, ...rest) => {
                window.sent.push(envelope.id);
                return request(envelope, ...rest);
            };
        }"""
    )
    aria.run_macro(macros[("hmk", "attack")])
    aria.page.locator("dialog.application").locator('button[data-action="send"]').click()
    refusal = "the stat block of 'actorHm3Brann001' must be the GM's"

    def refused() -> bool:
        aria.call("() => null")  # Playwright hands the page's events over during a call
        return any(refusal in p for p in aria.problems)

    wait_until(refused)
    aria.problems.clear()
    assert len(gm.call("() => window.sent")) == 1
    assert stored(gm, BRANN) is None
    assert log_rows(server) == []
