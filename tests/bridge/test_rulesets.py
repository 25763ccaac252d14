"""A roll per bundled ruleset over a real socket, served with the real rules and engines.

Every request of ``docs/examples/<ruleset>.json`` goes to the server in order (entries that carry
recorded dice send them as scripted dice, which the test server allows; the others are rolled by
the session's keyed dice). Every outcome must then re-derive identically from its recorded dice
(``arbiter replay --from-log``) and ``arbiter replay`` of the example file fed those dice must
give the same outcomes. A player who holds no participant sees each outcome's public part only:
no private data (a karmic hand) and no encounter state (which holds every hand and the deck
order); nobody, the GM included, receives a die that decides hidden state (a deck shuffle).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.dice import SecureSource
from arbiter.bridge.logreplay import replay_log
from arbiter.bridge.records import kept
from arbiter.bridge.replaying import replay_entries
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.views import GM, NOBODY, project
from arbiter.compiler.model.loader import available_rulesets, load_all
from tests.bridge.support import receive, running, send, tiny_config

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = available_rulesets()


def example(ruleset: str) -> list[dict[str, Any]]:
    data = json.loads((ROOT / "docs" / "examples" / f"{ruleset}.json").read_text("utf-8"))
    return data["requests"] if isinstance(data, dict) else data


@pytest.mark.parametrize("ruleset", BUNDLED)
def test_every_example_request_of_a_bundled_ruleset_is_served_and_replays_exactly(
    tmp_path: Path, ruleset: str
) -> None:
    entries = example(ruleset)
    config = tiny_config(tmp_path, rules=RuleSource(), allow_scripted_dice=True)
    with running(config) as srv:
        ws, welcome = srv.hello(events=[])
        # A player who owns no participant watches every outcome go by.
        observer, _ = srv.hello(token=srv.player("observer"), events=["outcome"])
        assert ruleset in welcome["rulesets"], f"{ruleset} has rules but is not served"
        views, seen_views = [], []
        for entry in entries:
            request = {k: v for k, v in entry.items() if k not in ("dice", "state")}
            message: dict[str, Any] = {"v": 1, "type": "request", "request": request}
            if entry.get("dice") is not None:
                message["dice"] = entry["dice"]
            send(ws, message)
            reply = receive(ws)
            assert reply["type"] == "outcome", (entry["id"], reply)
            views.append(reply["outcome"])
            seen = receive(observer)
            seen_views.append(seen["outcome"])
            assert seen["event"] == "outcome" and seen["seq"] == reply["seq"]
            # Hidden information (hands, deck order) never reaches a client that does not own it.
            assert seen["outcome"]["private"] == {}
            for view in (reply["outcome"], seen["outcome"]):
                assert view["state"] is None
                assert not any(d.get("hidden") for d in view["dice"])
                assert view["result"] == seen["outcome"]["result"]
        ws.close()
        observer.close()
        store = srv.server.store
        rows = list(store.rolls())
        report = replay_log(rows, load_all())
    assert report.rows == len(entries) and report.ok, report.mismatches
    outcomes = [json.loads(row.entry.outcome) for row in rows]
    assert [project(o, GM) for o in outcomes] == views
    assert [project(o, NOBODY) for o in outcomes] == seen_views

    # `arbiter replay` of each entry, fed the dice the server recorded and the encounter state
    # the server held before it, gives the same outcome.
    states: dict[str, Any] = {}
    for entry, outcome in zip(entries, outcomes, strict=True):
        alone = entry | {"dice": outcome["dice"]}
        if entry.get("encounter") is not None:
            alone["state"] = json.loads(json.dumps(states.get(entry["encounter"])))
            if outcome["state"] is not None:
                states[entry["encounter"]] = outcome["state"]
        [replayed] = replay_entries([alone], load_all(), SecureSource())
        # The log keeps no state for a request that names no encounter.
        replayed = kept(replayed, entry.get("encounter"))
        assert json.loads(json.dumps(replayed)) == outcome, entry["id"]


def test_a_combat_styles_exchange_sent_without_an_encounter_is_logged_without_state(
    tmp_path: Path,
) -> None:
    exchange = next(e for e in example("combat-styles") if e["type"] == "exchange")
    start = next(e for e in example("combat-styles") if e["type"] == "start_encounter")
    # Without an encounter the winner's choice comes with the request (here: none), since an
    # exchange left waiting for it would have nowhere to wait.
    body = exchange["body"] | {"combatants": start["body"]["combatants"], "effects": []}
    config = tiny_config(tmp_path, rules=RuleSource())
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        decided = 0
        for n in range(20):
            request = {"id": f"free-{n}", "ruleset": "combat-styles", "type": "exchange"}
            send(ws, {"v": 1, "type": "request", "request": request | {"body": body}})
            reply = receive(ws)
            assert reply["type"] == "outcome" and reply["outcome"]["state"] is None, reply
            assert reply["outcome"]["result"]["status"] == "complete", reply
            decided += 1
        ws.close()
        rows = list(srv.server.store.rolls())
        report = replay_log(rows, load_all())
    logged = [json.loads(row.entry.outcome) for row in rows]
    # The engine built a state from the stat blocks, but no encounter holds it, so nothing
    # could ever read it back: the log keeps none.
    assert [o["result"]["kind"] for o in logged] == ["exchange"] * decided
    assert all(o["state"] is None and o["encounter"] is None for o in logged)
    assert report.rows == decided and report.ok, report.mismatches


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"skill": "70"}, "body.skill"),
        ({"skill": 70.5}, "body.skill"),
        ({"skill": 70, "grades": "hard"}, "body.grades"),
        ({"skill": 70, "label": 7}, "body.label"),
    ],
)
def test_a_request_body_is_validated_strictly_and_the_field_at_fault_is_named(
    tmp_path: Path, body: dict[str, Any], field: str
) -> None:
    config = tiny_config(tmp_path, rules=RuleSource())
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        check = {"id": "strict", "ruleset": "combat-styles", "type": "check"}
        send(ws, {"v": 1, "type": "request", "request": check | {"body": body}})
        refused = receive(ws)
        send(ws, {"v": 1, "type": "request", "request": check | {"body": {"skill": 70}}})
        decided = receive(ws)
        ws.close()
        rows = [row.entry.request_id for row in srv.server.store.rolls()]
    assert refused["type"] == "error" and refused["code"] == "invalid_request", refused
    assert refused["id"] == "strict" and field in refused["message"], refused
    # Nothing was logged for the refused body, so the id is still free for a good one.
    assert decided["type"] == "outcome" and decided["outcome"]["result"]["kind"] == "check"
    assert rows == ["strict"]


def test_a_lone_surrogate_in_a_body_is_refused_naming_its_field(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, rules=RuleSource())
    frame = (
        '{"v":1,"type":"request","request":{"id":"s","ruleset":"combat-styles",'
        '"type":"check","body":{"skill":70,"label":"\\ud800"}}}'
    )
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        send(ws, frame)
        refused = receive(ws)
        ws.close()
    assert refused["code"] == "invalid_request" and "body.label" in refused["message"], refused
