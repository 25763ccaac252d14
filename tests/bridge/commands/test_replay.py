"""``arbiter replay FILE``: a refused entry ends the replay with every outcome before it and an
error record for it on stdout (exit status 1); a reader that stops early (``| head``) gets no
traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "combat-styles.json"


def _fighter(cid: str) -> dict[str, Any]:
    return {
        "id": cid,
        "characteristics": {"str": 11, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": 10},
        "skills": {"combat_style": 60, "evade": 40},
        "weapons": ["broadsword"],
    }


def _entry(rid: str, kind: str, body: dict[str, Any], dice: list[int]) -> dict[str, Any]:
    return {
        "id": rid,
        "ruleset": "combat-styles",
        "type": kind,
        "encounter": "yard",
        "body": body,
        "dice": dice,
    }


REFUSED_SECOND_ATTACK = [
    _entry("r-1", "start_encounter", {"combatants": [_fighter("a"), _fighter("b")]}, []),
    _entry("r-2", "initiative", {}, [9, 2]),
    _entry("r-3", "exchange", {"attacker": "a", "defender": "b", "effects": []}, [90, 95]),
    _entry("r-4", "exchange", {"attacker": "a", "defender": "b", "effects": []}, [50, 50]),
    _entry("r-5", "check", {"skill": 50}, [10]),
]
"""a attacks on his turn; attacking again before b has had his is refused (entry 4); entry 5
is never reached."""


def test_a_refusal_prints_the_outcomes_before_it_and_an_error_record_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(REFUSED_SECOND_ATTACK), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    records = json.loads(captured.out)
    assert [r.get("id") for r in records] == ["r-1", "r-2", "r-3", "r-4"]
    assert records[2]["result"]["attack"]["roll"] == 90
    assert records[3] == {
        "entry": 4,
        "id": "r-4",
        "error": "it is not a's turn to attack (it is b's)",
    }
    assert "arbiter replay: entry #4 (r-4): it is not a's turn to attack" in captured.err


def test_an_entry_that_is_not_a_request_is_an_error_record_after_the_outcomes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([*REFUSED_SECOND_ATTACK[:2], "not a request"]), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    records = json.loads(capsys.readouterr().out)
    assert [r.get("id") for r in records[:2]] == ["r-1", "r-2"]
    assert records[2] == {"entry": 3, "id": None, "error": "not an object"}


def test_a_file_replayed_to_the_end_prints_only_outcomes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fine.json"
    path.write_text(json.dumps(REFUSED_SECOND_ATTACK[:3]), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["r-1", "r-2", "r-3"]


def test_a_reader_that_closed_the_pipe_gets_no_traceback() -> None:
    """``arbiter replay FILE | head``: here the pipe's reading end is closed before the
    command writes, so its very first write meets the closed pipe."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "arbiter.bridge.cli", "replay", str(EXAMPLE)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    errors = done.stderr.decode()
    assert "Traceback" not in errors
    assert "BrokenPipeError" not in errors
    assert done.returncode == 141


def test_replaying_a_postgresql_worlds_log_uses_the_worlds_own_published_rules(
    postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.bridge.test_hosting import hosting, secret_of
    from tests.bridge.test_world_rules import cli, config, draw, gm, house, publish, store_url

    dsn = postgres_database
    secret_of(dsn, "w")
    publish(dsn, "w", house(tmp_path / "house", "Right shin"))
    with hosting(config(tmp_path / "h", dsn)) as host:
        ws, _ = gm(host, "w", dsn)
        assert draw(ws, "d-1")["result"]["text"] == "Right shin"
        ws.close()
    capsys.readouterr()
    store = ["--store", store_url(dsn), "--world", "w"]
    assert cli("replay", "--from-log", *store) == 0
    out, err = capsys.readouterr()
    assert "replaying under world 'w''s own rules" in err
    assert "1 rows re-derived: 1 identical, 0 mismatched" in out
    # Under the bundled rules alone (an empty house folder) the same die names another row.
    (tmp_path / "none").mkdir()
    assert cli("replay", "--from-log", *store, "--rules", str(tmp_path / "none")) == 1
    out = capsys.readouterr().out
    assert '"Right shin"' in out and '"Right Leg"' in out
