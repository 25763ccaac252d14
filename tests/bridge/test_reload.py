"""Hot rules on the bundled rules: a house-rule edit of the combat-styles hit-location table
while connected changes the next draw; a bad edit does not."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.loader import RULES_ROOT
from tests.bridge.support import bundled_config, bundled_request, receive, running, send

TABLES = "hit_location_tables.toml"
BUNDLED = (RULES_ROOT / "combat-styles" / TABLES).read_text(encoding="utf-8")
FIRST_ROW = 'text = "Right Leg"'
SECOND_RANGE = "range = [4, 6]"
HOUSE_FILE = f"house/combat-styles/{TABLES}"


def house(folder: Path, text: str) -> Path:
    """Write ``text`` as the house rules' hit-location tables, visibly newer than before."""
    (folder / "combat-styles").mkdir(parents=True, exist_ok=True)
    path = folder / "combat-styles" / TABLES
    path.write_text(text, encoding="utf-8")
    # Make the change visible even on filesystems with coarse modification times.
    later = time.time() + 2
    os.utime(path, (later, later))
    return path


def first_row(name: str) -> str:
    """The bundled tables with the first row of the humanoid table renamed."""
    assert FIRST_ROW in BUNDLED and SECOND_RANGE in BUNDLED
    return BUNDLED.replace(FIRST_ROW, f'text = "{name}"')


def draw(ws, rid: str) -> dict:
    """Draw on the humanoid table with a 1 (its first row)."""
    send(ws, bundled_request(rid, "draw", {"table": "humanoid"}) | {"dice": [1]})
    return receive(ws)


def config(tmp_path: Path, overlay: Path):  # type: ignore[no-untyped-def]
    return bundled_config(
        tmp_path,
        rules=RuleSource(overlay=overlay),
        reload_interval=0.05,
        allow_scripted_dice=True,
    )


def test_a_table_edit_reaches_the_next_roll_and_a_broken_edit_keeps_the_old_rules(
    tmp_path: Path,
) -> None:
    overlay = tmp_path / "house"
    house(overlay, first_row("Right shin"))
    with running(config(tmp_path, overlay)) as srv:
        gm, welcome = srv.hello(role="gm", events=["rules"])
        player, _ = srv.hello(token=srv.player("ann", "ann-pc"), events=["rules"])
        assert draw(gm, "before")["outcome"]["result"]["text"] == "Right shin"

        house(overlay, first_row("Right foot"))
        updated = receive(gm)
        assert updated["event"] == "rules_updated"
        assert (
            updated["rulesets"]["combat-styles"]["hash"]
            != welcome["rulesets"]["combat-styles"]["hash"]
        )
        assert receive(player)["event"] == "rules_updated"
        after = draw(gm, "after")["outcome"]
        assert after["result"]["text"] == "Right foot"
        assert after["rules_hash"] == updated["rulesets"]["combat-styles"]["hash"]

        # Rows 1-3 and 5-6 leave 4 uncovered.
        house(overlay, first_row("Right toe").replace(SECOND_RANGE, "range = [5, 6]"))
        error = receive(gm)
        assert error["event"] == "rules_error"
        assert any(HOUSE_FILE in p and "humanoid" in p for p in error["problems"])
        kept = draw(gm, "kept")["outcome"]
        assert kept["result"]["text"] == "Right foot"
        assert kept["rules_hash"] == after["rules_hash"]
        # Players are not told about the GM's broken file: their next message is their own reply.
        send(player, {"v": 1, "type": "ping", "id": "p"})
        assert receive(player)["type"] == "pong"
        gm.close()
        player.close()


def test_a_rule_edit_with_dice_beyond_the_engine_is_refused_and_the_old_rules_keep_serving(
    tmp_path: Path,
) -> None:
    overlay = tmp_path / "house"
    house(overlay, first_row("Right shin"))
    with running(config(tmp_path, overlay)) as srv:
        gm, welcome = srv.hello(role="gm", events=["rules"])
        house(overlay, first_row("Right shin").replace('die = "1d20"', 'die = "1000000d1000000"'))
        error = receive(gm)
        assert error["event"] == "rules_error"
        assert (
            f"{HOUSE_FILE}: entry hit_location_tables 'humanoid': field 'die': '1000000d1000000': "
            "d1000000 is over the engine's limit of 1000 faces"
        ) in error["problems"]
        assert all(HOUSE_FILE in p for p in error["problems"])
        kept = draw(gm, "kept")["outcome"]
        assert kept["result"]["text"] == "Right shin"
        assert kept["rules_hash"] == welcome["rulesets"]["combat-styles"]["hash"]
        gm.close()
