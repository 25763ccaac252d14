"""The gap replay shows a player nothing his live events did not: a hostile client asks for
the whole log (hello ``since: 0``) on a karmic duel, declaring the soldier among his
participants and the GM's role, and keeps every frame (docs/protocol.md, "Missed outcome
events: the gap replay"). On a server without the replay (main before it), ``since`` is an
unknown hello field: the hello is refused and no frame of the log comes back.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.support import (
    DECK,
    DEVON,
    SOLDIER,
    Client,
    bundled_server,
    encounter_state,
    karmic,
    strings,
)

START = {"combatants": [DEVON, SOLDIER]}


def test_a_player_replaying_the_whole_log_gets_his_live_view_and_no_other_hand_or_hidden_die(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        devon_token = srv.player("devon-player", "devon")
        soldier_token = srv.player("soldier-player", "soldier")
        assert devon_token is not None and soldier_token is not None
        gm = Client(srv, srv.server.secret, events=[])
        live = Client(srv, devon_token, events=["outcome"])
        soldier = Client(srv, soldier_token, events=[])
        gm.ask(karmic("k-01", "start_duel", START))
        gm.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
        dealt = gm.ask(karmic("k-03", "draw_hands", {}))
        state = encounter_state(srv)
        order = ["devon", "soldier"]
        if state["pairs"]["devon|soldier"]["initiative"] == "soldier":
            order.reverse()
        clients = {"devon": live, "soldier": soldier}
        for cid in order:
            clients[cid].ask(karmic(f"pass-{cid}", "declare", {"combatant": cid, "maneuvers": []}))
        live.drain()
        hostile = Client(
            srv,
            devon_token,
            role="gm",
            participants=["devon", "soldier"],
            events=["outcome"],
            since=0,
        )
        hostile.drain()
        for client in (gm, live, soldier, hostile):
            client.close()
    assert set(dealt["outcome"]["private"]) == {"devon", "soldier"}  # the GM sees every hand
    shown = [m for m in live.received if m.get("event") == "outcome"]
    replayed = [m for m in hostile.received if m.get("event") == "outcome"]
    # Devon's own declare was his reply, not an event: the replay has it (his old connection's
    # outcome, in his view), and every other row exactly as his live events showed it.
    own = next(m for m in replayed if m["outcome"]["id"] == "pass-devon")
    assert [m for m in replayed if m is not own] == [{**m, "replayed": True} for m in shown]
    assert set(own["outcome"]["private"]) <= {"devon"}
    assert [m["seq"] for m in replayed] == sorted(m["seq"] for m in replayed)
    assert all(m["replayed"] is True for m in replayed)
    # No hand but his, no deck order, no shuffle die: counted, never sent.
    soldier_cards = set(state["combatants"]["soldier"]["hand"]) | set(state["deck"]["draw"])
    assert not strings(hostile.received) & soldier_cards
    assert all(set(m["outcome"]["private"]) <= {"devon"} for m in replayed)
    assert all(m["outcome"]["state"] is None for m in replayed)
    assert not any(d.get("hidden") for m in replayed for d in m["outcome"]["dice"])
    start = next(m for m in replayed if m["outcome"]["type"] == "start_duel")
    assert start["outcome"]["hidden_dice"] == len(DECK) - 1
    assert "soldier" not in json.dumps([m["outcome"]["private"] for m in replayed])
