"""A request that leaves a choice pending needs an encounter to keep it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.rules import RuleSource
from tests.bridge.support import receive, running, send, tiny_config

ROOT = Path(__file__).resolve().parents[2]


def combat_styles_example() -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "docs" / "examples" / "combat-styles.json").read_text("utf-8"))
    entries = data["requests"] if isinstance(data, dict) else data
    return {entry["id"]: entry for entry in entries}


def test_an_exchange_that_could_await_effects_without_an_encounter_is_refused_before_its_dice(
    tmp_path: Path,
) -> None:
    example = combat_styles_example()
    combatants = example["cs-1"]["body"]["combatants"]
    body = {**example["cs-3"]["body"], "combatants": combatants}
    request = {"id": "loose-1", "ruleset": "combat-styles", "type": "exchange", "body": body}
    config = tiny_config(tmp_path, rules=RuleSource(), allow_scripted_dice=True)
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        send(ws, {"v": 1, "type": "request", "request": request, "dice": [30, 80]})
        reply = receive(ws)
        assert reply["type"] == "error", reply
        assert reply["code"] == "encounter_required"
        assert reply["id"] == "loose-1"
        assert "must carry 'effects'" in reply["message"]
        assert srv.server.store.find("loose-1") is None

        # With the choice made in advance it needs no encounter.
        chosen = {**request, "id": "loose-2", "body": {**body, "effects": []}}
        send(ws, {"v": 1, "type": "request", "request": chosen})
        reply = receive(ws)
        assert reply["type"] == "outcome", reply
        assert reply["outcome"]["result"]["status"] == "complete"

        # The same exchange inside an encounter is decided and waits for the winner's choice.
        named = {**request, "id": "named-1", "encounter": "alley"}
        send(ws, {"v": 1, "type": "request", "request": named, "dice": [30, 80]})
        reply = receive(ws)
        assert reply["type"] == "outcome", reply
        assert reply["outcome"]["result"]["status"] == "awaiting_effects"
        assert srv.server.store.find("named-1") is not None
