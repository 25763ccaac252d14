"""A player never reads, writes or learns an NPC's stat block the GM keeps on the server.

Hostile clients, over real websockets against a real server of the bundled rules: a player
token asks for the orc's stat block by id, guesses other ids, lists, overwrites and deletes,
compares the server's refusals for a block that exists and one that does not (a request tells
him whether one is stored under an id, never what it holds), attacks the orc by reference and
reads everything the server sends him, and makes his request fail in several ways to read the
reasons. The GM's connection stores the orc and reads it back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.rules import RuleSource
from arbiter.bridge.stat_block_vault import (
    MUST_BE_STORED,
    READ_FORBIDDEN,
    SHIELDED,
    WRITE_FORBIDDEN,
)
from tests.bridge.support import running, tiny_config
from tests.security.support import (
    Client,
    bundled_server,
    remove_hmk_weapon,
    served_rules_copy,
    strings,
)

ANA = {
    "id": "ana",
    "name": "Ana",
    "party": "heroes",
    "attributes": {"STR": 55, "DEX": 60, "AGL": 50, "HEA": 44, "INT": 50, "AWA": 45},
    "ip": 30,
    "defensive_tactics": 30,
    "skills": {"long-sword": 65},
    "weapon": "long-sword",
    "armor": "leather",
}
ORC = {
    "id": "orc",
    "name": "Orc",
    "party": "raiders",
    "attributes": {"STR": 71, "DEX": 53, "AGL": 47, "HEA": 67, "INT": 29, "AWA": 41},
    "ip": 37,
    "defensive_tactics": 23,
    "skills": {"war-hammer": 73, "dagger": 59},
    "weapon": "war-hammer",
    "weapons": ["dagger"],
    "armor": "scale-mail",
}
SECRETS = {"dagger"}
"""Words of the orc's block a player's frames must never hold: his gear unused in the fight
below (his second weapon). His armour and the weapon he fights with are not among them: a blow
that shreds armour names it in the public outcome, and a critical that disarms him names his
weapon (about 7 attacks in 1,000), as the card shows the table (both are seen at the table, like
the wound); :func:`orc_blocks` looks for the block itself instead (his skills, his numbers)."""
BLOCK_KEYS = {"attributes", "skills", "defensive_tactics", "weapons", "armor"}


def orc_blocks(value: Any) -> list[dict[str, Any]]:
    """Every object in ``value`` that is the orc's stat block, or any part of one: an object
    naming the orc (``id`` or ``participant``) together with a stat block's keys."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if "orc" in (value.get("id"), value.get("participant")) and BLOCK_KEYS & value.keys():
            found.append(value)
        for item in value.values():
            found += orc_blocks(item)
    elif isinstance(value, list):
        for item in value:
            found += orc_blocks(item)
    return found


def ask(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and return the answer carrying its id (or its request's)."""
    ident = message.get("id") or message.get("request", {}).get("id")
    client.ws.send(json.dumps(message))
    while True:
        reply = client._next(5)
        answered = reply.get("id") or (reply.get("outcome") or {}).get("id")
        if reply["type"] != "event" and answered == ident:
            return reply


def put(gm: Client, block: dict[str, Any], ident: str = "p-1") -> dict[str, Any]:
    return ask(gm, {"v": 1, "type": "put_stat_block", "id": ident, "ruleset": "hmk",
                    "stat_block": block, "actor": "Actor.orc0000000000"})  # fmt: skip


def get(client: Client, participant: str, ident: str) -> dict[str, Any]:
    message = {"v": 1, "type": "get_stat_block", "id": ident, "ruleset": "hmk"}
    return ask(client, {**message, "participant": participant})


def attack(rid: str, defender: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body = {"attacker": ANA, "defender": defender, **extra}
    request = {"id": rid, "ruleset": "hmk", "type": "attack", "body": body}
    return {"v": 1, "type": "request", "request": request}


REFERENCE = {"id": "orc", "stored": True}


def test_a_player_token_cannot_read_list_overwrite_or_delete_the_gm_s_stat_blocks(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, role="gm", participants=["orc"], events=["outcome"])
        assert put(gm, ORC)["ok"] is True
        assert put(gm, ANA, "p-2")["ok"] is True
        read = get(pat, "orc", "g-1")
        guessed = get(pat, "zed", "g-2")  # no such block
        listed = ask(pat, {"v": 1, "type": "list_stat_blocks", "id": "l-1"})
        everything = ask(pat, {"v": 1, "type": "list_stat_blocks", "id": "l-2", "ruleset": "hmk"})
        overwrite = {**ORC, "ip": 1, "skills": {"war-hammer": 1}}
        written = ask(pat, {"v": 1, "type": "put_stat_block", "id": "w-1", "ruleset": "hmk",
                            "stat_block": overwrite})  # fmt: skip
        deleted = ask(pat, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                            "participant": "orc"})  # fmt: skip
        deleted_none = ask(pat, {"v": 1, "type": "delete_stat_block", "id": "d-2",
                                 "ruleset": "hmk", "participant": "zed"})  # fmt: skip
        own = get(pat, "ana", "g-3")
        still = get(gm, "orc", "g-4")
        pat.drain()
    assert read == {"v": 1, "type": "error", "id": "g-1", "code": "forbidden",
                    "message": READ_FORBIDDEN, "retry_after": None}  # fmt: skip
    # Guessing ids tells nothing: a block that exists and one that does not are refused alike.
    assert {**guessed, "id": "g-1"} == read
    assert [e["participant"] for e in listed["entries"]] == ["ana"]
    assert [e["participant"] for e in everything["entries"]] == ["ana"]
    assert written["code"] == deleted["code"] == "forbidden"
    assert written["message"] == deleted["message"] == WRITE_FORBIDDEN
    assert {**deleted_none, "id": "d-1"} == deleted
    # The player may read the block of the participant he holds: his own character.
    assert own["type"] == "stat_block" and own["stat_block"] == ANA
    # The orc is what the GM stored, not what the player sent.
    assert still["stat_block"] == ORC
    assert not SECRETS & strings(pat.received)
    assert orc_blocks(pat.received) == []


def test_a_player_attacks_the_orc_by_reference_and_never_receives_its_stat_block(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=["outcome"])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=["outcome"])
        assert put(gm, ORC)["ok"] is True
        answer = ask(pat, attack("a-1", REFERENCE))
        again = ask(pat, attack("a-1", REFERENCE))
        gm.drain()
        pat.drain()

        async def logged() -> str:
            row = srv.server.store.find("a-1")
            assert row is not None
            return row.entry.request

        request = json.loads(srv.call(logged()))
    assert answer["type"] == "outcome" and answer["outcome"]["result"]["defender"] == "orc"
    assert again["replayed"] is True and again["outcome"] == answer["outcome"]
    # The log keeps the request with the orc's block in it: replays need nothing else.
    assert request["body"]["defender"] == ORC
    assert not SECRETS & strings(pat.received)
    assert orc_blocks(pat.received) == []
    # The GM heard the same outcome (its event), the same view of it.
    assert any(m.get("event") == "outcome" for m in gm.received)


def test_a_player_cannot_act_for_the_orc_by_naming_its_stored_block(tmp_path: Path) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        message = attack("a-2", ANA)
        message["request"]["body"]["attacker"] = REFERENCE
        refused = ask(pat, message)
    assert refused["code"] == "forbidden"
    assert refused["message"] == "this connection does not act for 'orc'"


def test_every_refusal_of_a_request_using_the_orc_s_block_says_the_same_thing(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        # He holds a second fighter, whose block he may write in.
        token = srv.player("pat", "ana", "dummy")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        answers = [
            ask(pat, attack("r-1", REFERENCE, modifier="5")),
            ask(pat, attack("r-2", REFERENCE, weapon="no-such-weapon")),
            ask(pat, attack("r-3", REFERENCE, range="beyond")),
            ask(pat, attack("r-4", REFERENCE, weapon="war-hammer")),
            # The orc written in, as he guesses it: the GM's block is used, and so refused.
            ask(pat, attack("r-5", {**ORC, "ip": 1}, modifier="5")),
        ]
        # The same mistake without the orc's block: the player hears what is wrong.
        plain = ask(pat, attack("r-6", {**ORC, "id": "dummy"}, modifier="5"))
    for n, answer in enumerate(answers, 1):
        assert answer == {"v": 1, "type": "error", "id": f"r-{n}", "code": "invalid_request",
                          "message": SHIELDED, "retry_after": None}  # fmt: skip
    assert plain["code"] == "invalid_request" and "modifier" in plain["message"]
    assert not SECRETS & strings(pat.received[:-1])


def test_a_stat_block_the_check_message_refuses_is_not_stored(tmp_path: Path) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        refused = put(gm, {**ORC, "ip": "37"})
        missing = get(gm, "orc", "g-1")
    assert refused["type"] == "checked" and refused["ok"] is False
    assert [p["field"] for p in refused["problems"]] == ["ip"]
    assert missing["code"] == "not_found"


def test_a_player_guessing_ids_hears_only_whether_a_block_is_stored_never_what_it_holds(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        # The same bad request (a modifier that is no number), naming a stored block and
        # blocks that are not, by reference and written in: nothing is decided. A request
        # naming an id tells him whether the GM stored a block under it (it would be decided
        # if so); a refusal tells him that too, and nothing more, whatever he wrote.
        stored = [
            ask(pat, attack("g-0", REFERENCE, modifier="5")),
            ask(pat, attack("g-1", {**ORC, "ip": 1}, modifier="5")),
        ]
        unstored = [
            ask(pat, attack(f"g-{n}", block, modifier="5"))
            for n, block in enumerate(
                [
                    {"id": "zed", "stored": True},
                    {**ORC, "id": "zed"},
                    {**ORC, "id": "zed", "ip": 1},
                ],
                2,
            )
        ]
        # His own participant: he may hear that his block is missing.
        own_missing = ask(pat, {**attack("g-self", ORC), "request": {
            "id": "g-self", "ruleset": "hmk", "type": "attack",
            "body": {"attacker": {"id": "ana", "stored": True}, "defender": ANA}}})  # fmt: skip
    assert [{**a, "id": None} for a in stored] == [
        {
            "v": 1,
            "type": "error",
            "id": None,
            "code": "invalid_request",
            "message": SHIELDED,
            "retry_after": None,
        }
    ] * 2
    zed = MUST_BE_STORED.format(type="attack", path="body.defender", ruleset="hmk",
                                participant="zed")  # fmt: skip
    assert [{**a, "id": None} for a in unstored] == [
        {
            "v": 1,
            "type": "error",
            "id": None,
            "code": "invalid_request",
            "message": zed,
            "retry_after": None,
            "unstored": "zed",
        }
    ] * 3
    assert own_missing["code"] == "invalid_request"
    # His own block missing is his to fix: no participant for the GM's client to store.
    assert "unstored" not in own_missing
    assert "body.attacker: no hmk stat block of 'ana' is stored" in own_missing["message"]


def test_a_player_never_hears_which_stored_blocks_a_rules_reload_invalidated(
    tmp_path: Path,
) -> None:
    # The player holds the orc, claims the GM's role and subscribes to the rule events: the
    # notice of the orc's block, and the GM's listing's problems, stay the GM's.
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "orc")
        assert token is not None
        pat = Client(srv, token, role="gm", participants=["orc"], events=["rules", "outcome"])
        assert put(gm, ORC)["ok"] is True
        remove_hmk_weapon(root, "war-hammer")
        assert gm._next(30)["event"] == "rules_updated"
        notice = gm._next(5)
        listed = ask(pat, {"v": 1, "type": "list_stat_blocks", "id": "l-1"})
        pat.drain()
    # The GM was told (so the player could have been).
    assert notice["event"] == "stat_blocks_invalid"
    assert [b["participant"] for b in notice["blocks"]] == ["orc"]
    assert [m.get("event") for m in pat.received[1:] if m["type"] == "event"] == ["rules_updated"]
    assert [(e["participant"], e["problems"]) for e in listed["entries"]] == [("orc", None)]
    assert not any("unknown weapon" in s for s in strings(pat.received))


def test_a_player_connecting_after_the_reload_hears_nothing_of_the_invalid_blocks(
    tmp_path: Path,
) -> None:
    # After a reload that refused the orc's block, a player holding the orc connects claiming
    # the GM's role and every event: the notice a GM connecting then gets is not his.
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "orc")
        assert token is not None
        assert put(gm, ORC)["ok"] is True
        remove_hmk_weapon(root, "war-hammer")
        assert gm._next(30)["event"] == "rules_updated"
        assert gm._next(5)["event"] == "stat_blocks_invalid"
        pat = Client(srv, token, role="gm", participants=["orc"], events=["rules", "outcome"])
        pat.drain()
        late_gm = Client(srv, srv.server.secret, events=["rules"])
        notice = late_gm._next(5)
    # A GM connecting at the same moment is told (so the player could have been).
    assert notice["event"] == "stat_blocks_invalid"
    assert pat.welcome["you"]["gm"] is False
    assert pat.received == [pat.welcome]
    assert not any("unknown weapon" in s for s in strings(pat.received))


def raw_answer(client: Client, message: dict[str, Any]) -> str:
    """Send ``message`` and return the next frame exactly as the server wrote it (the client
    subscribed to no event, so it is the answer)."""
    client.ws.send(json.dumps(message))
    frame = client.ws.recv(5)
    assert isinstance(frame, str)
    return frame


def test_a_player_told_scripted_dice_are_refused_cannot_tell_a_stored_block_from_a_guess(
    tmp_path: Path,
) -> None:
    # The server decides every die; the player sends dice with a request naming the orc, and
    # the same request (the same id: nothing was decided) naming an id nobody stored.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, role="gm", participants=["orc"], events=[])
        assert put(gm, ORC)["ok"] is True
        stored = raw_answer(pat, {**attack("s-1", REFERENCE), "dice": [50]})
        guessed = raw_answer(pat, {**attack("s-1", {"id": "zed", "stored": True}), "dice": [50]})
    assert stored == guessed
    assert json.loads(stored) == {
        "v": 1,
        "type": "error",
        "id": "s-1",
        "code": "scripted_dice_refused",
        "message": "this server decides every die itself; 'dice' is accepted only when it "
        "runs with --allow-scripted-dice (tests)",
        "retry_after": None,
    }


def test_a_player_told_his_ruleset_is_not_served_cannot_tell_a_stored_block_from_a_guess(
    tmp_path: Path,
) -> None:
    # The GM stored the orc under hmk; the server then restarts serving the tiny ruleset
    # alone, the orc's block still stored.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        assert put(gm, ORC)["ok"] is True
        gm.close()
    with running(tiny_config(tmp_path)) as srv:
        assert srv.server.vault.get("hmk", "orc") is not None
        pat = Client(srv, token, role="gm", participants=["orc"], events=[])
        stored = raw_answer(pat, attack("u-1", REFERENCE))
        guessed = raw_answer(pat, attack("u-1", {"id": "zed", "stored": True}))
        served = ", ".join(sorted(srv.server.rules.served)) or "none"
    assert stored == guessed
    assert json.loads(stored) == {
        "v": 1,
        "type": "error",
        "id": "u-1",
        "code": "unknown_ruleset",
        "message": f"unknown ruleset 'hmk' (served: {served})",
        "retry_after": None,
    }


def test_an_id_conflict_and_a_refusal_of_the_orc_s_block_stay_shielded(tmp_path: Path) -> None:
    # An id already logged, resent as another request naming the orc, and naming nobody
    # stored: whether the orc is stored shows in neither. A request the served rules refuse
    # because of what the orc's block holds (a weapon a reload removed) says nothing of it.
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "ana", "dummy")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert ask(pat, attack("c-1", {**ANA, "id": "dummy"}))["type"] == "outcome"
        conflict = raw_answer(pat, attack("c-1", REFERENCE))
        conflict_guess = raw_answer(pat, attack("c-1", {"id": "zed", "stored": True}))
        remove_hmk_weapon(root, "war-hammer")
        assert gm._next(30)["event"] == "rules_updated"
        refused = raw_answer(pat, attack("c-2", REFERENCE))
        refused_written = raw_answer(pat, attack("c-2", {**ORC, "weapon": "dagger"}))
        told_gm = ask(gm, attack("c-3", REFERENCE))
    shielded = {"v": 1, "type": "error", "id": "c-1", "code": "invalid_request",
                "message": SHIELDED, "retry_after": None}  # fmt: skip
    assert conflict == conflict_guess
    assert json.loads(conflict) == shielded
    # His own numbers for the orc, a weapon the rules still know, change nothing: the GM's
    # block is used, and refused.
    assert refused == refused_written
    assert json.loads(refused) == {**shielded, "id": "c-2"}
    # The GM hears the reason the player did not.
    assert told_gm["code"] == "invalid_request" and "unknown weapon" in told_gm["message"]
