"""Hot rules: editing a house-rule table while connected changes the next roll; a bad edit does not."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.bridge.support import (
    receive,
    request,
    running,
    send,
    tiny_config,
    tiny_source,
    write_rules,
)

pytestmark = pytest.mark.usefixtures("tiny_engine")

HOUSE_TABLE = """
[[tables]]
id = "fumble"
name = "Fumble"
die = "1d4"
rows = [
  {{ range = [1, 2], text = "{text}" }},
  {{ range = [{second}, 4], text = "Trip" }},
]
"""


def house(folder: Path, text: str, second: int = 3) -> None:
    (folder / "tiny").mkdir(parents=True, exist_ok=True)
    path = folder / "tiny" / "tables.toml"
    path.write_text(HOUSE_TABLE.format(text=text, second=second))
    # Make the change visible even on filesystems with coarse modification times.
    later = time.time() + 2
    import os

    os.utime(path, (later, later))


def draw(ws, rid: str) -> dict:
    send(ws, request(rid, "draw", {"table": "fumble"}) | {"dice": [1]})
    return receive(ws)


def test_a_table_edit_reaches_the_next_roll_and_a_broken_edit_keeps_the_old_rules(
    tmp_path: Path,
) -> None:
    overlay = tmp_path / "house"
    house(overlay, "Drop weapon")
    source = tiny_source(write_rules(tmp_path / "rules"), overlay)
    config = tiny_config(tmp_path, rules=source, reload_interval=0.05, allow_scripted_dice=True)
    with running(config) as srv:
        gm, welcome = srv.hello(role="gm", events=["rules"])
        player, _ = srv.hello(token=srv.player("ann", "ann-pc"), events=["rules"])
        assert draw(gm, "before")["outcome"]["result"]["text"] == "Drop weapon"

        house(overlay, "Drop shield")
        updated = receive(gm)
        assert updated["event"] == "rules_updated"
        assert updated["rulesets"]["tiny"]["hash"] != welcome["rulesets"]["tiny"]["hash"]
        assert receive(player)["event"] == "rules_updated"
        after = draw(gm, "after")["outcome"]
        assert after["result"]["text"] == "Drop shield"
        assert after["rules_hash"] == updated["rulesets"]["tiny"]["hash"]

        house(overlay, "Drop helmet", second=4)  # rows 1-2 and 4-4 leave 3 uncovered
        error = receive(gm)
        assert error["event"] == "rules_error"
        assert any("house/tiny/tables.toml" in p and "fumble" in p for p in error["problems"])
        kept = draw(gm, "kept")["outcome"]
        assert kept["result"]["text"] == "Drop shield"
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
    house(overlay, "Drop weapon")
    source = tiny_source(write_rules(tmp_path / "rules"), overlay)
    config = tiny_config(tmp_path, rules=source, reload_interval=0.05, allow_scripted_dice=True)
    with running(config) as srv:
        gm, welcome = srv.hello(role="gm", events=["rules"])
        path = overlay / "tiny" / "tables.toml"
        # Rows that cover the huge die exactly: only its size is wrong.
        path.write_text(
            '[[tables]]\nid = "fumble"\nname = "Fumble"\ndie = "1000000d1000000"\n'
            'rows = [{ range = [1000000, 1000000000000], text = "Everything" }]\n'
        )
        later = time.time() + 2
        os.utime(path, (later, later))
        error = receive(gm)
        assert error["event"] == "rules_error"
        assert error["problems"] == [
            "house/tiny/tables.toml: entry tables 'fumble': field 'die': '1000000d1000000': "
            "d1000000 is over the engine's limit of 1000 faces"
        ]
        kept = draw(gm, "kept")["outcome"]
        assert kept["result"]["text"] == "Drop weapon"
        assert kept["rules_hash"] == welcome["rulesets"]["tiny"]["hash"]
        gm.close()
