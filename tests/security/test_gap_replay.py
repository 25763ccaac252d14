"""The gap replay shows a player nothing his live events did not: a hostile client asks for
the whole log (hello ``since: 0``) on a karmic duel, declaring the soldier among his
participants and the GM's role, and keeps every frame (docs/protocol.md, "Missed outcome
events: the gap replay"). On a server without the replay (main before it), ``since`` is an
unknown hello field: the hello is refused and no frame of the log comes back.
"""

from __future__ import annotations

import json
from pathlib import Path

from arbiter.bridge.datadir import store_path
from arbiter.bridge.store import Store
from tests.bridge.support import Running, bundled_request, hello_message
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
from tests.security.test_stat_block_vault import raw_answer

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


def older_text(logged: str) -> str:
    """A row's logged outcome as an older server wrote it: canonical JSON by the json module,
    with a float in its result (``2.5e-05``; orjson, today's canonical form, writes ``2.5e-5``)."""
    outcome = json.loads(logged)
    outcome["result"] = {**outcome["result"], "weight": 2.5e-05}
    return json.dumps(outcome, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def outcome_text(frame: str) -> str:
    """The outcome inside an outcome event or reply, as the server wrote it."""
    assert frame.endswith("}") and '"outcome":{' in frame
    return frame[frame.index('"outcome":{') + len('"outcome":') : -1]


def replayed_frames(srv: Running, token: str) -> list[str]:
    """Every outcome event a connection that says hello with ``since: 0`` is sent, as written."""
    ws = srv.connect()
    ws.send(json.dumps(hello_message(token, events=["outcome"], since=0)))
    assert json.loads(ws.recv(5))["type"] == "welcome"
    ws.send(json.dumps({"v": 1, "type": "ping", "id": "end"}))
    frames = []
    while (frame := ws.recv(5)) != '{"v":1,"type":"pong","id":"end"}':
        assert isinstance(frame, str) and '"replayed":true' in frame, frame
        frames.append(frame)
    ws.close()
    return frames


def test_rows_an_older_server_logged_are_replayed_as_logged_and_a_player_still_sees_only_his(
    tmp_path: Path,
) -> None:
    # A log written by an older server: today's rows of a check and a karmic deal, each outcome
    # rewritten as that server's canonical JSON (its floats the json module's way), chained anew.
    with bundled_server(tmp_path / "today") as srv:
        gm = Client(srv, srv.server.secret, events=[])
        gm.ask(bundled_request("c-1"))  # a combat-styles check: nothing to withhold from anybody
        gm.ask(karmic("k-01", "start_duel", START))
        gm.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
        gm.ask(karmic("k-03", "draw_hands", {}))
        gm.close()
    today = Store(store_path(tmp_path / "today" / "data"))
    logged = [roll.entry for roll in today.rolls()]
    today.close()
    older = Store(store_path(tmp_path / "older" / "data"))
    for entry in logged:
        older.append(entry._replace(outcome=older_text(entry.outcome)))
    older.commit()
    texts = [roll.entry.outcome for roll in older.rolls()]
    older.close()
    assert all("2.5e-05" in text for text in texts)

    with bundled_server(tmp_path / "older") as srv:
        devon_token = srv.player("devon-player", "devon")
        assert devon_token is not None
        gm_replay = replayed_frames(srv, srv.server.secret)
        devon_replay = replayed_frames(srv, devon_token)
        gm = Client(srv, srv.server.secret, events=[])
        resent = [raw_answer(gm, {"v": 1, "type": "request", "request": json.loads(e.request)})
                  for e in logged]  # fmt: skip
        gm.close()
        state = encounter_state(srv)
    gm_shown = [outcome_text(f) for f in gm_replay]
    devon_shown = [outcome_text(f) for f in devon_replay]
    # The GM's replay is what a resend of each id answers him, byte for byte; the check, which
    # withholds nothing from anybody, is its logged text itself for the player too.
    assert gm_shown == [outcome_text(f) for f in resent]
    assert gm_shown[0] == devon_shown[0] == texts[0]
    # Every other row withholds something (the encounter's state at least): the player's view of
    # it is still his alone, the older server's float kept as a number.
    assert len(devon_shown) == len(texts) == 4
    soldier_cards = set(state["combatants"]["soldier"]["hand"]) | set(state["deck"]["draw"])
    for text in devon_shown[1:]:
        view = json.loads(text)
        assert view["state"] is None and set(view["private"]) <= {"devon"}
        assert not any(d.get("hidden") for d in view["dice"])
        assert view["result"]["weight"] == 2.5e-05
        assert not strings(view) & soldier_cards
    assert set(json.loads(gm_shown[3])["private"]) == {"devon", "soldier"}
    assert set(json.loads(devon_shown[3])["private"]) == {"devon"}
