"""Requests naming stored stat blocks: read with the blocks' models validated once, and decided,
logged and refused exactly as the same request with the blocks written in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import BaseModel

from arbiter.bridge.deciding import strict_body
from arbiter.bridge.engine.combat_styles.bodies import stat_blocks as cs_blocks
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.protocol_parsing import decode, parse_client
from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.bridge.stat_block_door import is_referencing, referencing
from arbiter.bridge.stat_block_positions import block_shape, foreign, masked
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.store import Store
from arbiter.bridge.views import GM, Viewer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rules() -> RulesSnapshot:
    return snapshot(RuleSource().load())


def examples() -> list[dict[str, Any]]:
    """Every example request of the bundled rulesets whose body holds a stat block, and an hmk
    attack, a combat-styles exchange and spirit combat carrying the example fighters (no
    encounter)."""
    found = []
    for ruleset in ("combat-styles", "hmk", "karmic"):
        data = json.loads((ROOT / "docs" / "examples" / f"{ruleset}.json").read_text())
        for entry in data["requests"]:
            shape = block_shape(ruleset, entry["type"])
            if next(foreign(entry["body"], frozenset(), shape), None) is not None:
                found.append({k: entry[k] for k in ("id", "ruleset", "type", "body")})
    start = next(e for e in found if e["type"] == "start_encounter")
    fighters = start["body"]["combatants"][:2]
    a, b = fighters[0]["id"], fighters[1]["id"]
    exchange = {"attacker": a, "defender": b, "combatants": fighters, "effects": []}
    spirits = [{**f, "id": f"{f['id']}-spirit", "spirit_combat": 60} for f in fighters]
    spirit = {"attacker": f"{a}-spirit", "defender": f"{b}-spirit", "combatants": spirits,
              "effects": []}  # fmt: skip
    hmk = next(e for e in found if e["ruleset"] == "hmk")["body"]["combatants"]
    attack = {"attacker": hmk[0], "defender": hmk[1], "defending": True}
    found.append({"id": "x-0", "ruleset": "hmk", "type": "attack", "body": attack})
    found.append({"id": "x-1", "ruleset": "combat-styles", "type": "exchange", "body": exchange})
    found.append({"id": "x-2", "ruleset": "combat-styles", "type": "spirit_combat", "body": spirit})
    return found


def blocks_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every stat block ``request``'s body writes in."""
    shape = block_shape(request["ruleset"], request["type"])
    out = []
    for path, _ in foreign(request["body"], frozenset(), shape):
        value: Any = request["body"]
        for step in path.split(".")[1:]:
            value = value[int(step)] if isinstance(value, list) else value[step]
        out.append(value)
    return out


def by_reference(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with each stat block of its body a reference to the stored one."""
    shape = block_shape(request["ruleset"], request["type"])
    return {**request, "body": masked(request["body"], frozenset(), shape)}


def frame(request: dict[str, Any]) -> str:
    return json.dumps({"v": 1, "type": "request", "request": request})


def fields_set(value: Any) -> Any:
    """The fields each model in ``value`` was given, nested: what equality does not compare."""
    if isinstance(value, BaseModel):
        return (type(value), sorted(value.model_fields_set),
                {k: fields_set(v) for k, v in value.__dict__.items()})  # fmt: skip
    if isinstance(value, list):
        return [fields_set(v) for v in value]
    if isinstance(value, dict):
        return {k: fields_set(v) for k, v in value.items()}
    return value


def stored_vault(tmp_path: Path, requests: list[dict[str, Any]]) -> Vault:
    vault = Vault(Store(tmp_path / "arbiter.sqlite3"))
    for request in requests:
        for block in blocks_of(request):
            vault.put(request["ruleset"], block, None, 1.0)
    return vault


def test_every_request_type_holding_stat_blocks_has_a_referencing_model(
    rules: RulesSnapshot,
) -> None:
    holding = [
        (rid, t)
        for rid, served in rules.served.items()
        for t in served.engine.requests
        if block_shape(rid, t)
    ]
    assert len(holding) >= 5
    for rid, t in holding:
        assert referencing(rid, rules.served[rid].engine.requests[t]) is not None, (rid, t)


def test_a_request_naming_stored_blocks_is_read_into_the_body_the_blocks_written_in_give(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    requests = examples()
    assert {r["ruleset"] for r in requests} == {"combat-styles", "hmk", "karmic"}
    vault = stored_vault(tmp_path, requests)
    for request in requests:
        read = rules.reader.read(frame(by_reference(request)))
        assert isinstance(read, Sent) and is_referencing(read.message.request.body)
        resolved = vault.resolve(read, GM, None, rules).read
        assert isinstance(resolved, Sent), request["type"]
        served = rules.served[request["ruleset"]]
        whole = Request(**request)
        model = served.engine.requests[request["type"]]
        expected = strict_body(model, whole, rules.context).body
        got = resolved.message.request.body
        assert type(got) is model and got == expected, request["type"]
        assert fields_set(got) == fields_set(expected), request["type"]
        # The log keeps the request with the blocks filled in: the bytes the body written in
        # gives (as the slow path logged it before the blocks' models were kept).
        assert resolved.request == {**request, "encounter": None}
        assert orjson.dumps(resolved.request) == orjson.dumps(
            {**json.loads(frame(request))["request"], "encounter": None}
        )


def test_a_player_s_own_numbers_for_somebody_he_does_not_hold_give_way_to_the_stored_block(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    request = next(r for r in examples() if r["type"] == "exchange")
    vault = stored_vault(tmp_path, [request])
    mine, theirs = request["body"]["combatants"]
    fudged = {**theirs, "skills": {**theirs.get("skills", {}), "combat_style": 1}}
    sent = {**request, "body": {**request["body"], "combatants": [mine, fudged]}}
    pat = Viewer(False, frozenset({mine["id"]}), "pat")
    resolved = vault.resolve(rules.reader.read(frame(sent)), pat, None, rules)
    assert isinstance(resolved.read, Sent) and resolved.shielded and resolved.foreign
    model = rules.served["combat-styles"].engine.requests["exchange"]
    expected = strict_body(model, Request(**request), rules.context).body
    assert resolved.read.message.request.body == expected
    assert resolved.read.request["body"]["combatants"] == [mine, theirs]


def test_a_stored_block_is_validated_once_per_rules_not_once_per_request(
    rules: RulesSnapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = next(r for r in examples() if r["type"] == "exchange")
    vault = stored_vault(tmp_path, [request])
    checked: list[str] = []
    real = cs_blocks.block_problems

    def counted(view: Any, given: dict[str, Any]) -> Any:
        checked.append(given["id"])
        return real(view, given)

    monkeypatch.setattr(cs_blocks, "block_problems", counted)
    sent = frame(by_reference(request))
    for _ in range(3):
        vault.resolve(rules.reader.read(sent), GM, None, rules)
    assert sorted(checked) == sorted(b["id"] for b in blocks_of(request))
    # New rules (a reload): each block is validated again, once.
    again = snapshot(RuleSource().load())
    for _ in range(2):
        vault.resolve(again.reader.read(sent), GM, None, again)
    assert len(checked) == 4


def test_the_engines_leave_the_stored_blocks_they_decide_with_as_they_were(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    requests = examples()
    vault = stored_vault(tmp_path, requests)
    for request in requests:
        read = vault.resolve(rules.reader.read(frame(by_reference(request))), GM, None, rules).read
        assert isinstance(read, Sent)
        served = rules.served[request["ruleset"]]
        kept = [m for m in vault._door.values() if m[1] is not None]
        before = [(m[1].model_dump(), repr(m[1])) for m in kept]  # type: ignore[union-attr]
        dice = Dice(KeyedSource(b"door" * 8))
        model = served.ruleset.model
        for _ in range(2):
            served.engine.resolve(model, request["type"], read.message.request.body, None, dice)
        after = [(m[1].model_dump(), repr(m[1])) for m in kept]  # type: ignore[union-attr]
        assert after == before, request["type"]


def test_a_frame_with_an_escape_or_a_stray_stored_takes_the_whole_path_to_the_same_body(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    # "stored" is counted in the frame to know every reference is where a block goes; an
    # escape could hide one, and a stray "stored" (a name) could be one: both take the whole
    # validation of the filled-in body, which gives the same body and the same log.
    request = next(r for r in examples() if r["type"] == "exchange")
    vault = stored_vault(tmp_path, [request])
    model = rules.served["combat-styles"].engine.requests["exchange"]
    expected = strict_body(model, Request(**request), rules.context).body
    sent = by_reference(request)
    escaped = frame(sent).replace('"stored"', '"st\\u006fred"')
    stray = frame({**sent, "body": {**sent["body"], "situation": {"cap": "stored"}}})
    fast = vault.resolve(rules.reader.read(frame(sent)), GM, None, rules)
    assert isinstance(fast.read, Sent) and fast.unlogged
    assert rules.reader.read(escaped) is None  # the slow path reads it, as the session does
    slow = vault.resolve(parse_client(decode(escaped)), GM, None, rules)
    assert not isinstance(slow.read, Sent) and not slow.unlogged
    assert strict_body(model, slow.read.request, rules.context).body == expected
    assert slow.read.request.body == request["body"]
    odd = vault.resolve(rules.reader.read(stray), GM, None, rules)
    assert not isinstance(odd.read, Sent)
    assert odd.read.request.body["combatants"] == request["body"]["combatants"]
