"""A player cannot decide a fight with numbers he made up for a participant he does not hold.

Hostile clients, over real websockets against a real server of the bundled rules: a player
attacks the GM's orc writing in the orc's block himself, his own numbers in it (skill 1, no
defence), on his first send, by his own connection and relayed by the GM's; attacks it before
the GM stored any block for it; writes in a fudged gate guard in a combat-styles exchange's
``combatants``. The roll log keeps the request the decision used: it must hold the GM's stored
block, never his. The GM's own connection still writes in what it likes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.stat_block_shield import MUST_BE_STORED
from tests.security.support import Client, bundled_server, rows
from tests.security.test_authority import GUARD, VESSA
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE, ask, attack, put

FUDGED = {
    **ORC,
    "ip": 1,
    "defensive_tactics": 1,
    "skills": {"war-hammer": 1, "dagger": 1},
    "attributes": {"STR": 1, "DEX": 1, "AGL": 1, "HEA": 1, "INT": 1, "AWA": 1},
}
"""The orc as a hostile player would have him: a valid block, every number at its worst."""


def logged_request(srv: Any, rid: str) -> dict[str, Any]:
    """The request the roll log keeps for ``rid``: what the decision used."""

    async def read() -> str:
        row = srv.server.store.find(rid)
        assert row is not None, f"{rid} was not decided"
        return row.entry.request

    request: dict[str, Any] = json.loads(srv.call(read()))
    return request


def must_be_stored(rid: str, participant: str, path: str = "body.defender") -> dict[str, Any]:
    """The refusal of a player's request naming ``participant``, whom nobody stored."""
    message = MUST_BE_STORED.format(type="attack", path=path, ruleset="hmk",
                                    participant=participant)  # fmt: skip
    # `unstored` names, machine-readably, the participant the message names: nothing more.
    return {"v": 1, "type": "error", "id": rid, "code": "invalid_request", "message": message,
            "retry_after": None, "unstored": participant}  # fmt: skip


def test_a_player_writing_in_a_fudged_orc_is_decided_with_the_block_the_gm_stored(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        own = ask(pat, attack("f-1", FUDGED))
        relayed = ask(gm, {**attack("f-2", FUDGED), "player": "pat"})
        again = ask(pat, attack("f-1", FUDGED))
        by_reference = ask(pat, attack("f-3", REFERENCE))
        used = [logged_request(srv, rid)["body"] for rid in ("f-1", "f-2", "f-3")]
    assert own["type"] == relayed["type"] == by_reference["type"] == "outcome"
    # His numbers were never read: every decision used the orc the GM stored; his own
    # character's block is as he wrote it.
    assert [body["defender"] for body in used] == [ORC, ORC, ORC]
    assert [body["attacker"] for body in used] == [ANA, ANA, ANA]
    # His resend is the same request: the stored outcome, nothing decided again.
    assert again["replayed"] is True and again["outcome"] == own["outcome"]


def test_a_player_naming_an_npc_nobody_stored_is_refused_before_any_die_then_decided_once_stored(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        own = ask(pat, attack("n-1", FUDGED))
        relayed = ask(gm, {**attack("n-2", FUDGED), "player": "pat"})
        by_reference = ask(pat, attack("n-3", REFERENCE))
        logged_before = rows(srv)
        # The GM stores the orc (his client does it for an NPC on the scene): the very same
        # request, the same id, is then decided, with the GM's block.
        assert put(gm, ORC)["ok"] is True
        retried = ask(pat, attack("n-1", FUDGED))
        used = logged_request(srv, "n-1")["body"]["defender"]
    assert own == must_be_stored("n-1", "orc")
    assert relayed == must_be_stored("n-2", "orc")
    assert by_reference == must_be_stored("n-3", "orc")
    assert logged_before == 0
    assert retried["type"] == "outcome" and retried["replayed"] is False
    assert used == ORC


def test_a_player_writing_in_a_fudged_guard_in_an_exchange_gets_the_gm_s_guard(
    tmp_path: Path,
) -> None:
    def exchange(rid: str, guard: dict[str, Any]) -> dict[str, Any]:
        body = {"attacker": "vessa", "defender": "guard", "effects": [],
                "combatants": [guard, VESSA]}  # fmt: skip
        request = {"id": rid, "ruleset": "combat-styles", "type": "exchange", "body": body}
        return {"v": 1, "type": "request", "request": request}

    weak = {**GUARD, "skills": {"combat_style": 1, "evade": 1, "endurance": 1, "willpower": 1}}
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("vessa-player", "vessa")
        assert token is not None
        vessa = Client(srv, token, events=[])
        unstored = vessa.ask(exchange("x-0", weak))
        gm.store("combat-styles", GUARD)
        decided = vessa.ask(exchange("x-1", weak))
        combatants = logged_request(srv, "x-1")["body"]["combatants"]
    assert unstored["code"] == "invalid_request"
    assert unstored["message"].startswith(
        "invalid 'exchange' request: body.combatants.0: the stat block of 'guard' must be the GM's"
    )
    assert decided["type"] == "outcome", decided
    assert combatants == [GUARD, VESSA]


def test_the_gm_s_own_connection_still_writes_in_any_block(tmp_path: Path) -> None:
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        answer = ask(gm, attack("g-1", FUDGED))
        used = logged_request(srv, "g-1")["body"]["defender"]
    assert answer["type"] == "outcome"
    assert used == FUDGED
