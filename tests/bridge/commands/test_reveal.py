"""``arbiter reveal`` keeps a seed secret while its hidden dice still decide a running duel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.bridge.cli import main
from arbiter.bridge.rules import RuleSource
from tests.bridge.support import receive, running, send, tiny_config

DUEL = {
    "combatants": [
        {"id": "devon", "name": "Devon", "side": "heroes", "vitality": 10, "main": "sword"},
        {"id": "soldier", "name": "Soldier", "side": "guards", "vitality": 10, "main": "sword"},
    ]
}


def test_reveal_refuses_the_seed_that_shuffled_a_running_duel_s_deck_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config(tmp_path, rules=RuleSource())
    with running(config) as srv:
        ws, welcome = srv.hello(events=[])
        request = {"id": "k-1", "ruleset": "karmic", "type": "start_duel", "body": DUEL}
        send(ws, {"v": 1, "type": "request", "request": request | {"encounter": "duel-7"}})
        assert receive(ws)["type"] == "outcome"
        ws.close()
    data, session = str(config.data), welcome["session"]
    capsys.readouterr()
    assert main(["reveal", session, "--data", data]) == 1
    refused = capsys.readouterr()
    assert "'duel-7'" in refused.err and "--force" in refused.err and refused.out == ""
    assert main(["reveal", session, "--data", data, "--force"]) == 0
    revealed = json.loads(capsys.readouterr().out)
    # The hidden dice are in the log and check out against the seed like every other die.
    assert revealed["verified"] is True and revealed["dice"] == 47
