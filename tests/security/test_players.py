"""A player token is the only key to a player's connection, and a revoked one opens nothing.

Hostile clients: a player whose token the GM revoked (or rotated) stays connected and keeps
asking, then comes back with the old token; a client guesses a token; a client sends the hello
of a player with the world secret's role but a made-up token.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from arbiter.bridge.cli import main
from tests.bridge.support import hello_message
from tests.security.support import Client, bundled_server, karmic


def test_a_revoked_player_is_closed_with_4003_and_his_token_opens_no_connection_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with bundled_server(tmp_path) as srv:
        token = srv.player("devon-player", "devon")
        assert token is not None
        devon = Client(srv, token, events=["outcome"])
        assert devon.welcome["you"]["player"] == "devon-player"
        # The GM revokes him from a shell while the server runs (another process would do
        # the same: the CLI writes the store, the server notices).
        assert (
            main(
                ["token", "--data", str(tmp_path / "data"), "--player", "devon-player", "--revoke"]
            )
            == 0
        )
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                # Whatever he sends meanwhile acts for nobody; then the socket closes.
                devon.ws.send(json.dumps(karmic("late", "view", {"viewer": "devon"})))
                assert json.loads(devon.ws.recv(5))["type"] == "error"
        back = srv.connect()
        back.send(json.dumps(hello_message(token, role="gm")))
        refused = back.recv(5)
        with pytest.raises(ConnectionClosed) as shut:
            back.recv(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
    assert '"unauthorized"' in refused
    assert shut.value.rcvd is not None and shut.value.rcvd.code == 4001
    assert "revoked" in capsys.readouterr().err


def test_a_rotated_token_closes_the_old_connection_and_only_the_new_token_opens_one(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        old = srv.player("devon-player", "devon")
        assert old is not None
        devon = Client(srv, old, events=[])
        new = srv.player("devon-player", "devon", rotate=True)
        assert new is not None and new != old
        with pytest.raises(ConnectionClosed) as closed:
            devon.ws.recv(5)
        again = Client(srv, new, events=[])
        stale = srv.connect()
        stale.send(json.dumps(hello_message(old, role="player")))
        answer = stale.recv(5)
        again.close()
        stale.close()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
    assert again.welcome["you"] == {
        "player": "devon-player",
        "gm": False,
        "participants": ["devon"],
    }
    assert '"unauthorized"' in answer


def test_a_player_record_s_new_participants_reach_its_live_connection(tmp_path: Path) -> None:
    with bundled_server(tmp_path) as srv:
        token = srv.player("devon-player", "devon")
        assert token is not None
        devon = Client(srv, token, events=[])
        gm = Client(srv, srv.server.secret, events=[])
        # The GM takes devon away from him (bind keeps his token).
        assert (
            gm.ask(
                {"v": 1, "type": "bind", "id": "b", "player": "devon-player", "participants": ["x"]}
            )["type"]
            == "pong"
        )
        refused = devon.ask(karmic("v-1", "view", {"viewer": "devon"}))
        welcome = Client(srv, srv.server.secret, events=[]).welcome
        gm.close()
        devon.close()
    assert refused["code"] == "forbidden"
    assert welcome["players"] == {"devon-player": ["x"]}
    assert welcome["you"] == {"player": None, "gm": True, "participants": []}
