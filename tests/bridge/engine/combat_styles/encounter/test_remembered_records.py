"""A combatant's record is built once per rules view and block value, then copied: the copy is
exactly the record built from the block, each caller's own to change, and a block is still
checked against the rules the first time a view meets it, however it was validated."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody
from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock
from arbiter.bridge.engine.combat_styles.core.memo import memo_of
from arbiter.bridge.engine.combat_styles.core.rules import build, view_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    RECORDS_KEPT,
    block_key,
    built,
    record,
)
from arbiter.bridge.engine.contract import Resolution
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import RULES_ROOT, load_all
from benchmarks.combat_styles_corpus import Sequence
from tests.bridge.engine.combat_styles.helpers import fighter


def block(model: RulesetBase | None = None, **over: Any) -> StatBlock:
    """A stat block validated as the server validates one (under ``model``'s rules when given,
    else its shape only, as a test's hand-built body is)."""
    context = None if model is None else validation_context({"combat-styles": model})
    return StatBlock.model_validate(fighter("a", **over), context=context)


def fresh_view(model: RulesetBase) -> RulesView:
    """A view of its own (empty memos), not the one every other test shares."""
    return build(model)


def test_the_record_handed_out_is_the_one_built_from_the_block(model: RulesetBase) -> None:
    view = fresh_view(model)
    given = block(model, armor={"head": "padded", "chest": "mail"}, traits=["daredevil"])
    first = record(view, given)
    assert first == built(view, given)
    assert record(view, given) == first
    assert len(memo_of(view.memo, "records", RECORDS_KEPT)) == 1


def test_each_caller_gets_a_record_of_its_own_down_to_the_nested_parts(
    model: RulesetBase,
) -> None:
    view = fresh_view(model)
    given = block(model, armor={"head": "padded"}, traits=["daredevil"])
    first = record(view, given)
    untouched = built(view, given)
    first["hit_points"]["head"] = -9
    first["hit_points_max"]["head"] = 1
    first["characteristics"]["siz"] = 1
    first["skills"]["evade"] = 0
    first["armor"]["head"] = 0
    first["weapons"]["broadsword"]["broken"] = True
    first["traits"].append("unarmed_prowess")
    first["hands"]["right"] = None
    first["conditions"]["prone"] = {"turns": None}
    first["luck_points"] = 0
    assert record(view, given) == untouched


def test_two_blocks_with_the_same_fields_share_one_remembered_record(model: RulesetBase) -> None:
    view = fresh_view(model)
    assert record(view, block(model)) == record(view, block(model))
    assert len(memo_of(view.memo, "records", RECORDS_KEPT)) == 1


def test_a_block_met_again_as_the_same_object_is_found_by_its_identity(
    model: RulesetBase,
) -> None:
    view = fresh_view(model)
    given = block(model, armor={"chest": "mail"})
    first = record(view, given)
    # Forget the records by value: the block's own object still finds its record.
    memo_of(view.memo, "records", RECORDS_KEPT).found.clear()
    again = record(view, given)
    assert again == first == built(view, given)
    assert again is not first
    assert len(memo_of(view.memo, "records", RECORDS_KEPT)) == 0
    kept = memo_of(view.memo, "records_by_block", RECORDS_KEPT).found
    assert [entry[0] for entry in kept.values()] == [given]


def test_a_twin_block_of_its_own_is_found_by_its_value_and_then_by_its_identity(
    model: RulesetBase,
) -> None:
    view = fresh_view(model)
    one, twin = block(model), block(model)
    assert record(view, one) == record(view, twin)
    assert len(memo_of(view.memo, "records", RECORDS_KEPT)) == 1
    kept = memo_of(view.memo, "records_by_block", RECORDS_KEPT).found
    assert {id(entry[0]) for entry in kept.values()} == {id(one), id(twin)}
    assert kept[id(one)][1] is kept[id(twin)][1]


def test_a_mapping_in_another_order_is_another_block_and_keeps_its_own_order(
    model: RulesetBase,
) -> None:
    view = fresh_view(model)
    head_first = block(model, armor={"head": "padded", "chest": "mail"})
    chest_first = block(model, armor={"chest": "mail", "head": "padded"})
    assert block_key(head_first) != block_key(chest_first)
    assert list(record(view, head_first)["armor"]) == ["head", "chest"]
    assert list(record(view, chest_first)["armor"]) == ["chest", "head"]


@pytest.mark.parametrize(
    "over",
    [
        {"name": "Bors"},
        {"characteristics": {"str": 12, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": 10}},
        {"skills": {"evade": 41}},
        {"weapons": ["heater", "broadsword"]},
        {"armor": {"head": "padded"}},
        {"natural_armor": {"head": 1}},
        {"hit_points": {"head": 7}},
        {"damage_modifier": "+1d4"},
        {"action_points": 3},
        {"luck_points": 0},
        {"traits": ["daredevil"]},
        {"quadruped": True},
        {"fatigue": "winded"},
        {"magic_points": 0},
        {"spirit": True},
        {"enc": 0},
        {"hands": {"right": "broadsword", "left": "heater"}},
        {"movement": 0},
    ],
)
def test_any_field_that_differs_makes_another_key(over: dict[str, Any]) -> None:
    assert block_key(block(**over)) != block_key(block())


def test_a_block_naming_an_id_the_rules_lack_is_refused_every_time(model: RulesetBase) -> None:
    view = fresh_view(model)
    record(view, block(model))  # its twin, every id known, is remembered
    unchecked = block(weapons=["broadsword", "laser"])  # validated without the rules
    for _ in range(2):
        with pytest.raises(LookupError, match="unknown weapon 'laser'"):
            record(view, unchecked)
    assert len(memo_of(view.memo, "records", RECORDS_KEPT)) == 1


def test_another_view_builds_its_own_record(model: RulesetBase) -> None:
    one, other = fresh_view(model), fresh_view(model)
    given = block(model)
    record(one, given)
    assert "records" not in other.memo
    assert record(other, given) == record(one, given)
    assert len(memo_of(other.memo, "records", RECORDS_KEPT)) == 1


def test_no_request_of_a_corpus_changes_a_remembered_record() -> None:
    # A second run of the same keyed encounters, meeting the remembered records, decides
    # exactly what the first decided, and leaves every remembered record as it was.
    ruleset = load_all(RULES_ROOT, None)["combat-styles"]
    first: list[str] = []
    for n in range(12):
        Sequence(n, ruleset, first, []).run(25)
    remembered = memo_of(view_of(ruleset.model).memo, "records", RECORDS_KEPT).found
    assert len(remembered) > 20
    kept = copy.deepcopy(remembered)
    second: list[str] = []
    for n in range(12):
        Sequence(n, ruleset, second, []).run(25)
    assert second == first
    assert remembered == kept


def containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value``, itself included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in containers(v))]
    return []


def test_a_handed_out_record_shares_no_dict_or_list_with_the_remembered_one(
    model: RulesetBase,
) -> None:
    view = fresh_view(model)
    given = block(model, hands={"right": "broadsword", "left": "heater"}, traits=["daredevil"])
    handed = record(view, given)
    (kept, _plan), *_ = memo_of(view.memo, "records", RECORDS_KEPT).found.values()
    assert handed == kept
    assert list(handed) == list(kept)
    assert len(containers(kept)) > 10
    assert not {id(c) for c in containers(handed)} & {id(c) for c in containers(kept)}


def test_an_exchange_sent_with_stat_blocks_hands_back_records_no_later_exchange_sees(
    model: RulesetBase,
) -> None:
    # The exchange works on record()'s own copies without copying them again: the records
    # in the state it hands back are the caller's, and writing into any part of them
    # reaches neither the remembered records nor the next exchange sent with the same blocks.
    body = ExchangeBody.model_validate(
        {
            "attacker": "a",
            "defender": "b",
            "parry_weapon": "heater",
            "combatants": [fighter("a"), fighter("b", armor={"chest": "mail"})],
        },
        context=validation_context({"combat-styles": model}),
    )

    def decided() -> Resolution:
        return ENGINE.resolve(model, "exchange", body, None, Dice(KeyedSource(bytes(32))))

    first = decided()
    assert first.state is not None
    remembered = memo_of(view_of(model).memo, "records", RECORDS_KEPT).found
    kept = copy.deepcopy(remembered)
    shared = {id(c) for value in remembered.values() for c in containers(value[0])}
    for rec in first.state["combatants"].values():
        assert not {id(c) for c in containers(rec)} & shared
        rec["skills"]["combat_style"] = 1
        rec["hit_points"]["chest"] = -9
        rec["weapons"]["broadsword"]["broken"] = True
        rec["conditions"]["prone"] = {"turns": None}
    again = decided()
    assert again.result == first.result
    assert remembered == kept
