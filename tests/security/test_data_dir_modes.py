"""Another local user must not read the data directory: it holds every live session's seed.

Found: with an existing ``--data`` folder of mode 0755, the SQLite files were 0644, and another
user on the machine read a live session's seed and predicted its next five d100 rolls. Now the
server makes the folder 0700 and every file in it 0600 (the store's ``-wal`` and ``-shm``, the
secret and the lock included), whatever existed before, or refuses to start saying why.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from arbiter.bridge import datadir
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.server import ArbiterServer
from tests.bridge.support import bundled_config, bundled_request, receive, running, send


def modes(folder: Path) -> dict[str, int]:
    """The permission bits of the folder (key ``.``) and of every file in it."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.iterdir():
        found[path.name] = stat.S_IMODE(path.lstat().st_mode)
    return found


def world_left_readable(tmp_path: Path) -> Path:
    """A data directory as an earlier run under umask 022 could leave it: folder 0755, files
    0644, the store's -wal and -shm present (another process holds the store open)."""
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        send(ws, bundled_request("before", "check", {"skill": 30}))
        receive(ws)
        ws.close()
    data = tmp_path / "data"
    data.chmod(0o755)
    for path in data.iterdir():
        path.chmod(0o644)
    return data


def test_an_existing_world_readable_data_directory_is_made_owner_only(tmp_path: Path) -> None:
    data = world_left_readable(tmp_path)
    reader = sqlite3.connect(data / datadir.STORE_FILE)
    reader.execute("PRAGMA journal_mode=WAL")
    reader.execute("SELECT count(*) FROM rolls").fetchone()
    before = modes(data)
    assert before[datadir.STORE_FILE + "-wal"] == 0o644
    assert before[datadir.STORE_FILE + "-shm"] == 0o644
    try:
        with running(bundled_config(tmp_path)) as srv:
            ws, _ = srv.hello()
            send(ws, bundled_request("after", "check", {"skill": 30}))
            receive(ws)
            live = modes(data)
            ws.close()
    finally:
        reader.close()
    assert set(live) == {
        ".",
        datadir.SECRET_FILE,
        datadir.STORE_FILE,
        datadir.STORE_FILE + "-wal",
        datadir.STORE_FILE + "-shm",
        datadir.LOCK_FILE,
    }
    assert live == {name: 0o700 if name == "." else 0o600 for name in live}


def test_a_fresh_data_directory_under_a_lax_umask_is_owner_only_while_serving(
    tmp_path: Path,
) -> None:
    old = os.umask(0o000)
    try:
        with running(bundled_config(tmp_path)) as srv:
            ws, welcome = srv.hello()
            send(ws, bundled_request("r1", "check", {"skill": 30}))
            receive(ws)
            live = modes(tmp_path / "data")
            ws.close()
    finally:
        os.umask(old)
    assert len(welcome["commitment"]) == 64
    assert datadir.STORE_FILE + "-wal" in live
    assert live == {name: 0o700 if name == "." else 0o600 for name in live}


def test_a_seed_the_other_user_could_read_before_is_no_longer_readable_by_others(
    tmp_path: Path,
) -> None:
    data = world_left_readable(tmp_path)
    with running(bundled_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        session = srv.server.store.session(welcome["session"])
        ws.close()
    # What the other user did: read the seed from the store file. Its mode no longer lets them.
    assert session is not None
    assert KeyedSource.commitment(bytes.fromhex(session.seed)) == welcome["commitment"]
    for name, mode in modes(data).items():
        assert mode & 0o077 == 0, f"{name} is readable by others: {mode:04o}"


def test_the_server_refuses_to_start_when_a_file_cannot_be_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = world_left_readable(tmp_path)
    store = data / datadir.STORE_FILE
    real_chmod = os.chmod

    def not_the_owner(path: object, mode: int, **kwargs: object) -> None:
        # What chmod answers a user who does not own the file (root here owns everything).
        if Path(str(path)) == store:
            raise PermissionError(1, "Operation not permitted", str(path))
        real_chmod(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "chmod", not_the_owner)
    with pytest.raises(OSError) as refused:
        # Constructing is where a server opens its data directory: it must not get that far.
        ArbiterServer(bundled_config(tmp_path)).store.close()
    said = str(refused.value)
    assert f"cannot make {store} private (mode 0600, now 0644)" in said
    assert "chown the data directory to this user, or use another --data" in said
    assert stat.S_IMODE(store.stat().st_mode) == 0o644
