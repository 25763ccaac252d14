"""A request sent again and again with the same text is decided with the blocks as they are now.

The server resolves a request naming the GM's stored blocks once per text and keeps the result
(bridge/stat_block_plugs.py) while the blocks it used stay the same. Hostile and honest clients,
over real websockets against a real server of the bundled rules, send the very same request text
(a new id each time) before and after each change that must reach the next decision: the GM
edits the orc, deletes it, stores it again; the GM takes the orc from the player who held it
(whose own numbers for the orc then count no more); a rules reload refuses the orc's block. The
roll log keeps the request the decision used: after each change it must hold the block as the
change left it, from the very next request on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from arbiter.bridge.rules import RuleSource
from arbiter.bridge.stat_block_shield import SHIELDED
from tests.bridge.support import running, tiny_config
from tests.security.support import (
    Client,
    bundled_server,
    remove_hmk_weapon,
    rows,
    served_rules_copy,
    strings,
)
from tests.security.test_fudged_blocks import FUDGED, logged_request, must_be_stored
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE, SECRETS, ask, attack, put

EDITED = {**ORC, "defensive_tactics": 61, "armor": "leather", "skills": {"war-hammer": 40}}
"""The orc after the GM's edit: other numbers, other armour, his dagger gone."""
TIMES = 4
"""Sends of the same text before a change: the reader keeps the body the second time it comes
and gives it from the third on, when the server keeps its resolution, taken from the fourth."""


def kept_resolutions(srv: Any) -> int:
    """How many resolved requests the server keeps (to know the repeats were taken from them)."""

    async def count() -> int:
        return len(srv.server.vault.resolver.plugs._entries)

    found: int = srv.call(count())
    return found


def repeat(client: Client, message: Any, prefix: str, times: int = TIMES) -> list[dict[str, Any]]:
    """Send ``message`` (a function of the id) ``times`` times, ids ``prefix-0``…; the answers."""
    return [ask(client, message(f"{prefix}-{n}")) for n in range(times)]


def both_by_reference(rid: str) -> dict[str, Any]:
    """An attack of Ana on the orc naming both stored blocks (what the GM's client sends)."""
    sent = attack(rid, REFERENCE)
    sent["request"]["body"]["attacker"] = {"id": "ana", "stored": True}
    return sent


def test_the_gm_s_edit_and_delete_of_the_orc_reach_the_very_next_repeated_request(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ANA, "p-0")["ok"] is True
        assert put(gm, ORC)["ok"] is True
        # The same three texts, again and again: the player's by reference, the player's with
        # his own (fudged) numbers for the orc written in, the GM's by reference (what the
        # GM's client sends).
        texts = {
            "ref": (pat, lambda rid: attack(rid, REFERENCE)),
            "fudged": (pat, lambda rid: attack(rid, FUDGED)),
            "gm": (gm, both_by_reference),
        }
        before = {name: repeat(c, m, f"{name}-a") for name, (c, m) in texts.items()}
        assert kept_resolutions(srv) >= len(texts)
        assert put(gm, EDITED, "p-1")["ok"] is True
        edited = {name: repeat(c, m, f"{name}-b", 2) for name, (c, m) in texts.items()}
        deleted = ask(gm, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                           "participant": "orc"})  # fmt: skip
        logged = rows(srv)
        gone = {name: ask(c, m(f"{name}-c")) for name, (c, m) in texts.items()}
        after_delete = rows(srv)
        assert put(gm, ORC, "p-2")["ok"] is True
        again = {name: repeat(c, m, f"{name}-d", 2) for name, (c, m) in texts.items()}
        used = {
            (name, stage, n): logged_request(srv, f"{name}-{stage}-{n}")["body"]["defender"]
            for name in texts
            for stage, times in (("a", TIMES), ("b", 2), ("d", 2))
            for n in range(times)
        }
        pat.drain()
    for answers in (*before.values(), *edited.values(), *again.values()):
        assert [a["type"] for a in answers] == ["outcome"] * len(answers)
    for (name, stage, n), defender in used.items():
        # Each decision used the orc as the GM had him when it came, from the first request
        # after each change on; never a player's numbers.
        assert defender == (EDITED if stage == "b" else ORC), (name, stage, n)
    assert deleted["type"] == "pong"
    # Deleted: refused before any die, nothing logged, as if never stored.
    assert gone["ref"] == must_be_stored("ref-c", "orc")
    assert gone["fudged"] == must_be_stored("fudged-c", "orc")
    assert gone["gm"]["code"] == "invalid_request"
    assert "body.defender: no hmk stat block of 'orc' is stored" in gone["gm"]["message"]
    assert after_delete == logged
    assert not SECRETS & strings(pat.received)


def test_a_player_s_own_numbers_for_the_orc_stop_counting_the_moment_the_gm_takes_him_away(
    tmp_path: Path,
) -> None:
    # While he holds the orc, the block he writes in for him is his to write; once the GM's
    # bind takes the orc from him, the very same text (his body, read as before) is decided
    # with the orc the GM stored, from the next request on.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana", "orc")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ANA, "p-0")["ok"] is True
        assert put(gm, ORC)["ok"] is True

        def message(rid: str) -> dict[str, Any]:
            # His character by reference (so the server resolves the request), the orc
            # written in with his own numbers.
            sent = attack(rid, FUDGED)
            sent["request"]["body"]["attacker"] = {"id": "ana", "stored": True}
            return sent

        held = repeat(pat, message, "h")
        assert kept_resolutions(srv) >= 1
        bound = ask(gm, {"v": 1, "type": "bind", "id": "b-1", "player": "pat",
                         "participants": ["ana"]})  # fmt: skip
        taken = repeat(pat, message, "t", 2)
        used = [logged_request(srv, f"{p}-{n}")["body"]["defender"]
                for p, times in (("h", TIMES), ("t", 2)) for n in range(times)]  # fmt: skip
    assert bound["type"] == "pong"
    assert [a["type"] for a in held + taken] == ["outcome"] * (TIMES + 2)
    assert used == [FUDGED] * TIMES + [ORC] * 2


def test_a_rules_reload_refusing_the_orc_s_block_reaches_the_very_next_repeated_request(
    tmp_path: Path,
) -> None:
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True

        def gm_message(rid: str) -> dict[str, Any]:
            return attack(rid, REFERENCE)

        before = repeat(pat, lambda rid: attack(rid, REFERENCE), "r") + repeat(gm, gm_message, "g")
        assert kept_resolutions(srv) >= 2
        remove_hmk_weapon(root, "war-hammer")
        assert gm._next(30)["event"] == "rules_updated"
        logged = rows(srv)
        refused = ask(pat, attack("r-x", REFERENCE))
        gm.drain()
        gm_refused = ask(gm, gm_message("g-x"))
        after = rows(srv)
        pat.drain()
    assert [a["type"] for a in before] == ["outcome"] * (2 * TIMES)
    # The orc's war-hammer is gone from the rules: his block is refused as the block written
    # in would be, to the GM naming the field, to the player in the one shielded sentence.
    assert refused == {"v": 1, "type": "error", "id": "r-x", "code": "invalid_request",
                       "message": SHIELDED, "retry_after": None}  # fmt: skip
    assert gm_refused["code"] == "invalid_request"
    assert "body.defender" in gm_refused["message"] and "war-hammer" in gm_refused["message"]
    assert after == logged
    # (His own outcomes may name the war-hammer: a critical that disarms the orc does, at the
    # table as on the card. What he is refused never does.)
    errors = [m for m in pat.received if m["type"] == "error"]
    assert errors and not any("war-hammer" in s for s in strings(errors))


def test_the_logged_request_of_a_repeat_is_the_bytes_of_the_blocks_written_in(
    tmp_path: Path,
) -> None:
    # A kept resolution writes the new id in front of the log text it kept: each row must be
    # byte for byte what the request with the blocks written in is logged as (the slow path
    # logs the envelope's values, blocks filled in, through orjson), whatever the id holds.
    ids = [f"k-{n}" for n in range(TIMES)] + ["k-é", "k</script>", "k-\u2603"]
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ANA, "p-0")["ok"] is True
        assert put(gm, ORC)["ok"] is True
        answers = [ask(gm, both_by_reference(rid)) for rid in ids]
        assert kept_resolutions(srv) >= 1

        async def texts() -> list[str]:
            found = [srv.server.store.find(rid) for rid in ids]
            return [row.entry.request for row in found if row is not None]

        logged = srv.call(texts())
    assert [a["type"] for a in answers] == ["outcome"] * len(ids)
    assert logged == [
        orjson.dumps({"id": rid, "ruleset": "hmk", "type": "attack",
                      "body": {"attacker": ANA, "defender": ORC}, "encounter": None}).decode()
        for rid in ids
    ]  # fmt: skip
