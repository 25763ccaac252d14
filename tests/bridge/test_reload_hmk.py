"""Hot rules with a real ruleset: a house-rule edit of an hmk fumble row reaches the next strike."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.loader import RULES_ROOT
from tests.bridge.support import receive, running, send, tiny_config

ANA = {
    "id": "ana",
    "name": "Ana",
    "party": "heroes",
    "attributes": {"STR": 55, "DEX": 60, "AGL": 50, "HEA": 44, "INT": 50, "AWA": 45},
    "ip": 30,
    "defensive_tactics": 30,
    "skills": {"long-sword": 65},
    "weapon": "long-sword",
}
BO = {
    "id": "bo",
    "name": "Bo",
    "party": "bandits",
    "attributes": {"STR": 50, "DEX": 55, "AGL": 45, "HEA": 40, "INT": 40, "AWA": 50},
    "ip": 28,
    "defensive_tactics": 20,
    "skills": {"dagger": 40},
    "weapon": "dagger",
}
FIRST_ROW = "Hit nearest friend or innocent for normal injury + 10."


def fumble(ws, rid: str) -> dict:
    """An hmk strike that fumbles (97) and rolls 3 on the melee fumble table."""
    body = {"attacker": ANA, "defender": BO}
    message = {"v": 1, "type": "request", "dice": [97, 3]}
    message["request"] = {"id": rid, "ruleset": "hmk", "type": "attack", "body": body}
    send(ws, message)
    reply = receive(ws)
    assert reply["type"] == "outcome", reply
    return reply["outcome"]["result"]["fumble"]


def test_an_edited_hmk_fumble_row_reaches_the_next_strike(tmp_path: Path) -> None:
    bundled = (RULES_ROOT / "hmk" / "melee_fumbles.toml").read_text(encoding="utf-8")
    assert FIRST_ROW in bundled
    overlay = tmp_path / "house"
    (overlay / "hmk").mkdir(parents=True)
    edited = overlay / "hmk" / "melee_fumbles.toml"
    config = tiny_config(
        tmp_path,
        rules=RuleSource(overlay=overlay),
        reload_interval=0.05,
        allow_scripted_dice=True,
    )
    with running(config) as srv:
        gm, _ = srv.hello(role="gm", events=["rules"])
        assert fumble(gm, "before")["text"] == FIRST_ROW

        edited.write_text(bundled.replace(FIRST_ROW, "House rule: the blow lands on a friend."))
        assert receive(gm, timeout=30)["event"] == "rules_updated"
        assert fumble(gm, "after")["text"] == "House rule: the blow lands on a friend."

        edited.write_text(bundled.replace("range = [1, 5]", "range = [1, 4]"))
        later = time.time() + 2
        os.utime(edited, (later, later))
        error = receive(gm, timeout=30)
        assert error["event"] == "rules_error"
        assert any("house/hmk/melee_fumbles.toml" in p for p in error["problems"]), error
        assert fumble(gm, "kept")["text"] == "House rule: the blow lands on a friend."
        gm.close()
