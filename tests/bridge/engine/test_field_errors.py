"""A validation error's problems at the keys a client writes (bridge/engine/field_errors.py):
pydantic names a default's error by the field's name, a written value's by its alias; the
client sees one path for both, and is told when the number was left out."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from arbiter.bridge.engine.envelope import Request, RequestError, validate_body
from arbiter.bridge.engine.field_errors import field_errors
from arbiter.bridge.engine.registry import get_engine
from arbiter.compiler.model.common import Bound
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.rule_edits import edited


def _even(value: int) -> int:
    if value % 2:
        raise ValueError("not even")
    return value


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    LOW: int = Field(default=0, alias="low", ge=1, validate_default=True)
    ODD: Annotated[int, AfterValidator(_even)] = Field(
        default=1, alias="odd", validate_default=True
    )
    NEED: int = Field(alias="need")


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    inner: Inner
    crowd: list[Inner] = Field(default_factory=list)
    either: str | Inner = "x"
    by_key: dict[str, Inner] = Field(default_factory=dict)


def placed(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as err:
        Outer.model_validate(data)
    return field_errors(Outer, data, err.value)


def test_a_left_out_number_is_named_by_its_key_and_its_refused_default_is_said() -> None:
    assert placed({"inner": {"need": 1, "odd": 2}}) == [
        (
            "inner.low",
            "left out, its default 0 is outside the served bound: "
            "Input should be greater than or equal to 1",
        )
    ]


def test_a_written_number_keeps_pydantic_s_words_at_the_same_key() -> None:
    assert placed({"inner": {"need": 1, "odd": 2, "low": 0}}) == [
        ("inner.low", "Input should be greater than or equal to 1")
    ]
    # Written by its name (populate_by_name), it is still named by the key the schema shows.
    assert placed({"inner": {"need": 1, "odd": 2, "LOW": 0}}) == [
        ("inner.low", "Input should be greater than or equal to 1")
    ]


def test_a_default_refused_by_another_check_is_said_to_be_refused() -> None:
    assert placed({"inner": {"need": 1, "low": 1}}) == [
        ("inner.odd", "left out, its default 1 is refused: Value error, not even")
    ]


def test_a_missing_required_field_keeps_pydantic_s_words() -> None:
    assert placed({"inner": {"low": 1, "odd": 2}}) == [("inner.need", "Field required")]


def test_list_indexes_mapping_keys_and_union_tags_stay_on_the_path_between_the_keys() -> None:
    good = {"need": 1, "low": 1, "odd": 2}
    data = {
        "inner": good,
        "crowd": [good, {"need": 1, "odd": 2}],
        "either": {"need": 1, "odd": 2},
        "by_key": {"low": {"need": 1, "odd": 2}},
    }
    paths = [path for path, _ in placed(data)]
    assert paths == ["crowd.1.low", "either.str", "either.Inner.low", "by_key.low.low"]
    assert all(message.startswith("left out, its default 0") for path, message in placed(data)
               if path.endswith(".low"))  # fmt: skip


def test_an_engine_s_request_error_names_a_left_out_default_as_the_client_writes_it() -> None:
    # The engine's own validation (a replay's) says what the server's does.
    hmk = load_ruleset("hmk").model
    house = edited(hmk, "stat_block_limits.actions", Bound(min=2, max=10))
    attributes = {"STR": 10, "DEX": 10, "AGL": 10, "HEA": 10, "INT": 10, "AWA": 10}
    block = {"id": "orc", "attributes": attributes, "ip": 10}
    body = {"attacker": {**block, "actions": 2}, "defender": block}
    request = Request(id="r-1", ruleset="hmk", type="attack", body=body)
    with pytest.raises(RequestError) as refused:
        validate_body(get_engine("hmk"), request, house)
    assert (
        "body.defender.StatBlock.actions: left out, its default 1 is outside the served bound: "
        "Input should be greater than or equal to 2"
    ) in str(refused.value)
