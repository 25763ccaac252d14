"""``arbiter token --player``: issue, update, rotate, revoke and list player tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge import players
from arbiter.bridge.cli import main
from arbiter.bridge.store import Store


def token(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["token", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_player_token_is_printed_once_and_opens_that_player_s_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    code, out, err = token(capsys, "--data", data, "--player", "ann", "--participant", "devon")
    issued = out.strip()
    assert code == 0 and len(issued) == 43 and "ann holds devon" in err
    code, out, err = token(capsys, "--data", data, "--player", "ann", "--participant", "mule")
    assert code == 0 and out == "" and "unchanged" in err
    code, out, _ = token(capsys, "--data", data, "--player", "ann", "--rotate", "--quiet")
    rotated = out.strip()
    assert code == 0 and rotated != issued
    store = Store(tmp_path / "data" / "arbiter.sqlite3")
    try:
        assert players.by_token(store, issued) is None
        found = players.by_token(store, rotated)
        assert found is not None and found.participants == ("mule",)
    finally:
        store.close()


def test_revoked_players_are_listed_without_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    _, out, _ = token(capsys, "--data", data, "--player", "ann", "--participant", "devon")
    token(capsys, "--data", data, "--player", "bob", "--participant", "soldier")
    assert token(capsys, "--data", data, "--player", "ann", "--revoke")[0] == 0
    code, listing, _ = token(capsys, "--data", data, "--players")
    lines = listing.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith("ann\tdevon\t") and "revoked" in lines[0]
    assert lines[1].startswith("bob\tsoldier\t") and "active" in lines[1]
    assert out.strip() not in listing


def test_player_options_without_a_player_or_a_new_player_without_participants_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    code, _, err = token(capsys, "--data", data, "--revoke")
    assert code == 2 and "need --player" in err
    code, _, err = token(capsys, "--data", data, "--player", "cy")
    assert code == 2 and "name the participants" in err
    code, _, err = token(capsys, "--data", data, "--player", "cy", "--revoke")
    assert code == 2 and "no player 'cy'" in err
