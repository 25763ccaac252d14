"""The fast path holds a stat block's numbers to the served data's bounds as the slow path does:
written into its validator (checked in Rust), it accepts exactly the numbers the slow path
accepts, and leaves every other to the slow path, which names the field and the bound."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge import reading_validators
from arbiter.bridge.deciding import strict_body
from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock
from arbiter.bridge.engine.rule_context import native_bounds, validation_context
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError, decode, parse_client
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.compiler.model.common import Bound
from tests.bridge.engine.rule_edits import edited

ROOT = Path(__file__).resolve().parents[2]


@cache
def bundled() -> RulesSnapshot:
    return snapshot(RuleSource().load())


def example(ruleset: str, type: str) -> dict[str, Any]:
    """The first ``type`` request of ``ruleset``'s example (``docs/examples``) carrying its
    combatants' stat blocks, as sent."""
    entries = json.loads((ROOT / f"docs/examples/{ruleset}.json").read_text())["requests"]
    found = next(e for e in entries if e["type"] == type and "combatants" in e["body"])
    return {k: found[k] for k in ("id", "ruleset", "type", "body") if k in found}


def with_number(request: dict[str, Any], path: str, value: int) -> str:
    """The frame of ``request`` with ``value`` at ``path`` in its first combatant."""
    body = json.loads(json.dumps(request["body"]))
    node = body["combatants"][0]
    *parents, last = path.split(".")
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return json.dumps({"v": 1, "type": "request", "request": {**request, "body": body}})


def slow_body(rules: RulesSnapshot, frame: str) -> Any:
    """The body as the slow path validates it (or its ProtocolError)."""
    message = parse_client(decode(frame))
    assert isinstance(message, RequestMessage)
    model = rules.served[message.request.ruleset].engine.requests[message.request.type]
    return strict_body(model, message.request, rules.context).body


# (ruleset, request type, number's path in the first combatant, the bound it is held to)
BOUNDED = [
    ("combat-styles", "start_encounter", "characteristics.str", "characteristics"),
    ("combat-styles", "start_encounter", "characteristics.siz", "siz"),
    ("combat-styles", "start_encounter", "characteristics.cha", "characteristics"),
    ("combat-styles", "start_encounter", "skills.evade", "skills"),
    ("combat-styles", "start_encounter", "natural_armor.chest", "natural_armor"),
    ("combat-styles", "start_encounter", "hit_points.head", "hit_points"),
    ("combat-styles", "start_encounter", "action_points", "action_points"),
    ("combat-styles", "start_encounter", "initiative_bonus", "initiative_bonus"),
    ("combat-styles", "start_encounter", "healing_rate", "healing_rate"),
    ("combat-styles", "start_encounter", "luck_points", "luck_points"),
    ("combat-styles", "start_encounter", "fatigue_initiative", "fatigue_initiative"),
    ("combat-styles", "start_encounter", "movement", "movement"),
    ("combat-styles", "start_encounter", "magic_points", "magic_points"),
    ("combat-styles", "start_encounter", "spirit_combat", "spirit_combat"),
    ("combat-styles", "start_encounter", "enc", "enc"),
    ("hmk", "start", "attributes.STR", "attributes"),
    ("hmk", "start", "attributes.AWA", "attributes"),
    ("hmk", "start", "ip", "ip"),
    ("hmk", "start", "defensive_tactics", "defensive_tactics"),
    ("hmk", "start", "specialization", "specialization"),
    ("hmk", "start", "skills.long-sword", "skills"),
    ("hmk", "start", "actions", "actions"),
    ("karmic", "start_duel", "finesse", "finesse"),
    ("karmic", "start_duel", "force", "force"),
    ("karmic", "start_duel", "vitality", "vitality"),
    ("karmic", "start_duel", "size", "size"),
    ("karmic", "start_duel", "skills.sword", "skills"),
]


@pytest.mark.parametrize(("ruleset", "type", "path", "limit"), BOUNDED)
def test_a_number_at_either_end_of_its_bound_reads_to_the_slow_path_s_body(
    ruleset: str, type: str, path: str, limit: str
) -> None:
    rules = bundled()
    bound = getattr(rules.models[ruleset].stat_block_limits, limit)
    for value in (bound.min, bound.max):
        frame = with_number(example(ruleset, type), path, value)
        read = rules.reader.read(frame)
        assert isinstance(read, Sent), (path, value)
        assert read.message.request.body == slow_body(rules, frame)


@pytest.mark.parametrize(("ruleset", "type", "path", "limit"), BOUNDED)
def test_a_number_past_its_bound_is_left_to_the_slow_path_which_names_field_and_bound(
    ruleset: str, type: str, path: str, limit: str
) -> None:
    rules = bundled()
    bound = getattr(rules.models[ruleset].stat_block_limits, limit)
    for value, words in (
        (bound.min - 1, f"greater than or equal to {bound.min}"),
        (bound.max + 1, f"less than or equal to {bound.max}"),
    ):
        frame = with_number(example(ruleset, type), path, value)
        assert rules.reader.read(frame) is None, (path, value)
        with pytest.raises(ProtocolError) as refused:
            slow_body(rules, frame)
        assert refused.value.code == "invalid_request"
        assert f"body.combatants.0.{path}" in refused.value.message
        assert words in refused.value.message


def test_the_fast_path_holds_numbers_to_the_served_data_s_bounds_not_the_bundled_ones() -> None:
    rules = bundled()
    tight = edited(rules.models["hmk"], "stat_block_limits.actions", Bound(min=1, max=3))
    served = {rid: s.engine for rid, s in rules.served.items()}
    reader = FrameReader(served, validation_context({**rules.models, "hmk": tight}))
    start = example("hmk", "start")
    assert isinstance(reader.read(with_number(start, "actions", 3)), Sent)
    assert reader.read(with_number(start, "actions", 4)) is None
    assert isinstance(rules.reader.read(with_number(start, "actions", 4)), Sent)  # bundled: 10


def test_building_a_reader_leaves_the_stat_block_model_s_own_checks_in_place() -> None:
    rules = bundled()
    FrameReader({rid: s.engine for rid, s in rules.served.items()}, rules.context)
    assert StatBlock.__dict__["__pydantic_complete__"] is True
    block = example("combat-styles", "start_encounter")["body"]["combatants"][0]
    text = json.dumps({**block, "skills": {"evade": 501}})
    with pytest.raises(ValueError, match="less than or equal to 500"):
        StatBlock.model_validate_json(text, strict=True, context=rules.context)


def test_the_fast_path_checks_the_bounds_without_a_call_into_python_per_field() -> None:
    rules = bundled()
    frame = with_number(example("combat-styles", "start_encounter"), "skills.evade", 60)
    # Warm (any first-use caches filled) with another body: the reader takes a body it
    # validated before as validated, and this one must be validated.
    rules.reader.read(with_number(example("combat-styles", "start_encounter"), "skills.evade", 61))
    called: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            called.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        read = rules.reader.read(frame)
    finally:
        sys.setprofile(None)
    assert isinstance(read, Sent)
    assert "rule_context.py:check" not in called  # within_limits' per-field check
    assert "stat_blocks.py:model_post_init" in called  # the ids are still checked, per block


def test_no_bound_is_lost_whichever_nested_model_is_built_from_its_own_validator() -> None:
    # pydantic-core builds a nested model from its class's own validator unless the class is
    # marked incomplete while the reader is built; a build running at the same time, or
    # another pydantic, may leave any one of them complete. Whichever it is, that model's part
    # is slower (its checks in Python) and no bound is lost.
    rules = bundled()
    served = {rid: s.engine for rid, s in rules.served.items()}
    core = reading_validators.client_messages(served).core_schema
    changed: set[type] = set()
    schema = native_bounds(core, rules.context, changed)
    assert changed  # the stat blocks' models among them
    for complete in changed:
        marked = [m for m in changed if m is not complete and m.__dict__["__pydantic_complete__"]]
        try:
            for model in marked:
                model.__pydantic_complete__ = False  # type: ignore[attr-defined]
            validator = reading_validators.SchemaValidator(schema)
        finally:
            for model in marked:
                model.__pydantic_complete__ = True  # type: ignore[attr-defined]
        reader = FrameReader(served, rules.context)
        reader._adapter = validator
        for ruleset, type, path, limit in BOUNDED:
            bound = getattr(rules.models[ruleset].stat_block_limits, limit)
            for value in (bound.min - 1, bound.max + 1):
                frame = with_number(example(ruleset, type), path, value)
                assert reader.read(frame) is None, (complete, path, value)
