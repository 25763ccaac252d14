"""token, log, reveal and replay --from-log against a world the server really wrote with the
bundled rules (a combat-styles check, a table draw, an encounter started and its initiative)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arbiter.bridge.cli import main
from arbiter.compiler.model.loader import RULES_ROOT
from tests.bridge.support import bundled_config, bundled_request, receive, running, send

FIGHTER = {
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear"],
}
START = {"combatants": [{"id": "a", **FIGHTER}, {"id": "b", **FIGHTER}]}


def play(tmp_path: Path) -> tuple[Path, str, str]:
    """A finished session of four requests and at least four dice (a check, a draw, an encounter
    started and its initiative rolled, ties again); returns data dir, session, secret."""
    config = bundled_config(tmp_path)
    with running(config) as srv:
        ws, welcome = srv.hello(user="gm-anna")
        for message in (
            bundled_request("c1", "check", {"skill": 60}),
            bundled_request("d1", "draw", {"table": "humanoid"}),
            bundled_request("t1", "start_encounter", START, encounter="e"),
            bundled_request("t2", "initiative", {}, encounter="e"),
        ):
            send(ws, message)
            reply = receive(ws)
            assert reply["type"] == "outcome", reply
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
    assert "gm-anna" in lines[0] and "combat-styles/check" in lines[0] and "c1" in lines[0]
    assert main(["log", "--data", str(data), "--json", "--after", "3"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["request_id"] == "t2" and row["session"] == session
    # Initiative found the encounter the row before started: its state carried between them.
    result = row["outcome"]["result"]
    assert (result["kind"], sorted(result["order"]), result["round"]) == (
        "initiative",
        ["a", "b"],
        1,
    )
    assert main(["log", "--data", str(data), "--verify"]) == 0
    assert "4 rows, hash chain intact" in capsys.readouterr().out


def test_reveal_publishes_the_seed_of_an_ended_session_and_every_die_checks_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, session, _ = play(tmp_path)
    assert main(["reveal", session, "--data", str(data)]) == 0
    revealed = json.loads(capsys.readouterr().out)
    assert revealed["verified"] is True
    # Initiative ties are rolled again, so the session rolled at least four dice: as many as
    # its four rows logged, every one checked.
    with sqlite3.connect(f"file:{data / 'arbiter.sqlite3'}?mode=ro", uri=True) as db:
        logged = sum(len(json.loads(dice)) for (dice,) in db.execute("SELECT dice FROM rolls"))
    assert revealed["rolls"] == 4 and revealed["dice"] == logged >= 4
    import hashlib

    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == revealed["commitment"]


def test_reveal_refuses_a_session_that_is_still_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        code = main(["reveal", welcome["session"], "--data", str(tmp_path / "data")])
        ws.close()
    assert code == 1
    assert "still open" in capsys.readouterr().err


def test_replay_from_log_re_derives_every_outcome_and_names_a_tampered_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _, _ = play(tmp_path)
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


def house(tmp_path: Path, name: str, file: str, text: str) -> Path:
    """A house-rule folder ``name`` holding one combat-styles rule file."""
    folder = tmp_path / name
    (folder / "combat-styles").mkdir(parents=True)
    (folder / "combat-styles" / file).write_text(text, encoding="utf-8")
    return folder


def test_replay_from_log_under_edited_rules_tells_same_outcomes_from_different_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _, _ = play(tmp_path)
    # A new weapon changes the rules (and their hash) but none of the four outcomes.
    katar = house(
        tmp_path, "katar", "weapons.toml",
        '[[weapons]]\nid = "katar"\nname = "Katar"\nhands = 1\ndamage = "1d4+2"\n'
        'size = "small"\nreach = "touch"\neffects = ["impale"]\n',
    )  # fmt: skip
    assert main(["replay", "--from-log", str(data), "--rules", str(katar)]) == 3
    out = capsys.readouterr().out
    assert "row 1 (c1): identical under the current rules but for rules_hash" in out
    assert "row 4 (t2): identical under the current rules but for rules_hash" in out
    assert "outcome differs" not in out
    assert out.endswith(
        "4 rows re-derived: 0 identical, 4 identical but for rules_hash, 0 mismatched "
        "(4 logged under other rules)\n"
    )
    # Renaming the hit-location table changes what the draw reports: that row differs.
    bundled = (RULES_ROOT / "combat-styles" / "hit_location_tables.toml").read_text("utf-8")
    renamed = house(
        tmp_path, "renamed", "hit_location_tables.toml",
        bundled.replace('name = "Humanoid Hit Locations"', 'name = "Where It Lands"'),
    )  # fmt: skip
    assert main(["replay", "--from-log", str(data), "--rules", str(renamed)]) == 1
    out = capsys.readouterr().out
    assert (
        "row 2 (d1): outcome differs in result (first at result.name: logged "
        '"Humanoid Hit Locations", re-derived "Where It Lands") (logged under other rules: '
        "hash differs)"
    ) in out
    assert "row 1 (c1): identical under the current rules but for rules_hash" in out
    assert out.endswith(
        "4 rows re-derived: 0 identical, 3 identical but for rules_hash, 1 mismatched "
        "(4 logged under other rules)\n"
    )
    # Under the rules it was written with, the same log is identical: exit 0.
    assert main(["replay", "--from-log", str(data)]) == 0
    assert "4 rows re-derived: 4 identical, 0 mismatched\n" in capsys.readouterr().out
