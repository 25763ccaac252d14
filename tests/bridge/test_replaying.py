"""``arbiter replay``'s threading of encounter state agrees with the server's."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from arbiter.bridge.engine.dice import SecureSource
from arbiter.bridge.replaying import replay_entries
from arbiter.compiler.model.loader import load_all
from tests.bridge.support import bundled_config, receive, running, send

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "combat-styles.json"


def _start_and_initiative() -> list[dict[str, Any]]:
    """The example's encounter start and initiative, its combatants listed against id order."""
    entries = json.loads(EXAMPLES.read_text())["requests"]
    start, initiative = (copy.deepcopy(e) for e in entries[:2])
    assert (start["type"], initiative["type"]) == ("start_encounter", "initiative")
    start["body"]["combatants"].reverse()
    ids = [c["id"] for c in start["body"]["combatants"]]
    assert ids != sorted(ids), "the test needs combatants out of id order"
    initiative["dice"] = [6, 4]
    return [start, initiative]


def test_a_replayed_encounter_listing_combatants_out_of_id_order_rolls_initiative_as_the_server_does(
    tmp_path: Path,
) -> None:
    entries = _start_and_initiative()
    replayed = replay_entries(entries, load_all(), SecureSource())

    with running(bundled_config(tmp_path, allow_scripted_dice=True)) as run:
        ws, _ = run.hello()
        served = []
        for entry in entries:
            request = {k: v for k, v in entry.items() if k != "dice"}
            message: dict[str, Any] = {"v": 1, "type": "request", "request": request}
            if "dice" in entry:
                message["dice"] = entry["dice"]
            send(ws, message)
            reply = receive(ws)
            assert reply["type"] == "outcome", reply
            served.append(reply["outcome"])
        ws.close()

    assert [o["result"] for o in replayed] == [o["result"] for o in served]
    assert [o["dice"] for o in replayed] == [o["dice"] for o in served]
