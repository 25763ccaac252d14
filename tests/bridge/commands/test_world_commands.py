"""token, log, reveal and replay --from-log against a world the server really wrote."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bridge.cli import main
from bridge.commands import replay as replay_command
from tests.bridge.support import receive, request, running, send, tiny_config, tiny_source

pytestmark = pytest.mark.usefixtures("tiny_engine")


def play(tmp_path: Path) -> tuple[Path, str, str]:
    """A finished session of three rolls (one in an encounter); returns data dir, session, secret."""
    config = tiny_config(tmp_path)
    with running(config) as srv:
        ws, welcome = srv.hello(user="gm-anna")
        send(ws, request("c1", "check", {"skill": 60}))
        receive(ws)
        send(ws, request("d1", "draw", {"table": "fumble"}))
        receive(ws)
        send(ws, request("t1", "tally", {"add": 2}, encounter="e"))
        receive(ws)
        send(ws, request("t2", "tally", {"add": 3}, encounter="e"))
        receive(ws)
        ws.close()
        secret = srv.server.secret
    return config.data, welcome["session"], secret


def test_token_prints_the_world_secret_the_server_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _, secret = play(tmp_path)
    assert main(["token", "--data", str(data), "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == secret
    assert (data / "world.secret").stat().st_mode & 0o777 == 0o600


def test_log_lists_every_row_and_verifies_the_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, session, _ = play(tmp_path)
    assert main(["log", "--data", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    assert "gm-anna" in lines[0] and "tiny/check" in lines[0] and "c1" in lines[0]
    assert main(["log", "--data", str(data), "--json", "--after", "3"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["request_id"] == "t2" and row["session"] == session
    assert row["outcome"]["result"]["total"] == 5
    assert main(["log", "--data", str(data), "--verify"]) == 0
    assert "4 rows, hash chain intact" in capsys.readouterr().out


def test_reveal_publishes_the_seed_of_an_ended_session_and_every_die_checks_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, session, _ = play(tmp_path)
    assert main(["reveal", session, "--data", str(data)]) == 0
    revealed = json.loads(capsys.readouterr().out)
    assert revealed["verified"] is True
    assert revealed["rolls"] == 4 and revealed["dice"] == 2
    import hashlib

    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == revealed["commitment"]


def test_reveal_refuses_a_session_that_is_still_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running(tiny_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        code = main(["reveal", welcome["session"], "--data", str(tmp_path / "data")])
        ws.close()
    assert code == 1
    assert "still open" in capsys.readouterr().err


def test_replay_from_log_re_derives_every_outcome_and_names_a_tampered_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, _, _ = play(tmp_path)
    monkeypatch.setattr(
        replay_command, "load_all", lambda root, overlay: tiny_source(tmp_path / "rules").load()
    )
    assert main(["replay", "--from-log", str(data)]) == 0
    assert "4 rows re-derived: 4 identical, 0 mismatched" in capsys.readouterr().out
    with sqlite3.connect(data / "arbiter.sqlite3") as db:
        db.execute("DROP TRIGGER rolls_append_only_update")
        outcome = json.loads(db.execute("SELECT outcome FROM rolls WHERE seq = 2").fetchone()[0])
        outcome["result"]["text"] = "Nothing happens"
        db.execute("UPDATE rolls SET outcome = ? WHERE seq = 2", (json.dumps(outcome),))
    assert main(["replay", "--from-log", str(data)]) == 1
    out = capsys.readouterr().out
    assert "row 2 (d1): outcome differs in result" in out
    assert "4 rows re-derived: 3 identical, 1 mismatched" in out
