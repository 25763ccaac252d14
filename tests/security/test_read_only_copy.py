"""An auditor checks a read-only copy of a world's data directory.

Found: ``arbiter log --verify`` and ``arbiter reveal`` failed on a read-only copy, because the
store always wrote its pragmas and schema when opened. Commands that only read now open it
read-only (``arbiter.bridge.readonly``) and write nothing.

The commands run in a process of their own. Root ignores permission bits, so when the tests run
as root that process gives up the capabilities that let it (``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``): it is then held to the modes as any user is.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arbiter.bridge import datadir
from tests.bridge.support import Running, bundled_config, bundled_request, receive, running, send

ROOT = Path(__file__).resolve().parents[2]
PR_CAPBSET_DROP = 24
OVERRIDES = (1, 2, 3)
"""CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER."""


def held_to_modes() -> None:
    """In the child before exec: lose, if root, what lets root ignore file modes."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in OVERRIDES:
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
    """``arbiter ARGS`` as a user the file modes apply to."""
    return subprocess.run(
        [sys.executable, "-m", "arbiter.bridge.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=held_to_modes,
        check=False,
    )


def play(srv: Running) -> str:
    """Four logged rolls in one session; returns the session id."""
    ws, welcome = srv.hello(user="gm-anna")
    for n in range(4):
        send(ws, bundled_request(f"c{n}", "check", {"skill": 40 + n}))
        assert receive(ws)["type"] == "outcome"
    ws.close()
    return str(welcome["session"])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@contextmanager
def read_only(folder: Path, folder_too: bool) -> Iterator[Path]:
    """Files 0444 (and the folder 0555 when ``folder_too``) for the block; writable after."""
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555 if folder_too else 0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        for path in folder.iterdir():
            path.chmod(0o644)


def finished_world(tmp_path: Path) -> tuple[Path, str]:
    """A copy of a world whose server stopped: the store file alone holds the log."""
    with running(bundled_config(tmp_path)) as srv:
        session = play(srv)
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "data", copy)
    assert not (copy / (datadir.STORE_FILE + "-wal")).exists()
    return copy, session


@pytest.mark.parametrize("folder_too", [False, True], ids=["read-only files", "read-only folder"])
def test_log_reveal_and_replay_read_a_read_only_copy_and_write_nothing(
    tmp_path: Path, folder_too: bool
) -> None:
    copy, session = finished_world(tmp_path)
    with read_only(copy, folder_too):
        before = snapshot(copy) if folder_too else None
        verified = arbiter("log", "--verify", "--data", str(copy))
        listed = arbiter("log", "--json", "--data", str(copy))
        revealed = arbiter("reveal", session, "--data", str(copy))
        replayed = arbiter("replay", "--from-log", str(copy))
        after = snapshot(copy) if folder_too else None
    assert verified.returncode == 0, verified.stderr
    assert "4 rows, hash chain intact" in verified.stdout
    assert [json.loads(line)["request_id"] for line in listed.stdout.splitlines()] == [
        "c0",
        "c1",
        "c2",
        "c3",
    ]
    assert revealed.returncode == 0, revealed.stderr
    assert json.loads(revealed.stdout)["verified"] is True
    # The world was written with the bundled rules: replay re-derives every row from the copy.
    assert "4 rows re-derived: 4 identical, 0 mismatched" in replayed.stdout, replayed.stderr
    assert before == after


def test_a_read_only_copy_of_a_live_world_with_its_wal_and_shm_is_read_whole(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        play(srv)
        # Copied while the server runs: the newest rows may be in the -wal file only.
        copy = tmp_path / "copy"
        shutil.copytree(tmp_path / "data", copy)
    assert (copy / (datadir.STORE_FILE + "-wal")).stat().st_size > 0
    assert (copy / (datadir.STORE_FILE + "-shm")).exists()
    with read_only(copy, folder_too=True):
        before = snapshot(copy)
        verified = arbiter("log", "--verify", "--data", str(copy))
        after = snapshot(copy)
    assert verified.returncode == 0, verified.stderr
    assert "4 rows, hash chain intact" in verified.stdout
    assert before == after


def test_a_read_only_copy_missing_the_shm_of_its_wal_is_refused_saying_what_to_copy(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        play(srv)
        copy = tmp_path / "copy"
        shutil.copytree(tmp_path / "data", copy)
    (copy / (datadir.STORE_FILE + "-shm")).unlink()
    with read_only(copy, folder_too=True):
        verified = arbiter("log", "--verify", "--data", str(copy))
    assert verified.returncode == 2
    assert "arbiter.sqlite3-wal holds rows not yet in the database file" in verified.stderr
    assert "Copy arbiter.sqlite3-shm along with the store, or make the folder writable" in (
        verified.stderr
    )
    assert "Traceback" not in verified.stderr
