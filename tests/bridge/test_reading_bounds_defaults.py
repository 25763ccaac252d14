"""A stat-block number left out takes its default, held to the served bound as a written one is.

A house rule may tighten a bound past a field's default (hmk ``actions`` defaults to 1; a GM may
set ``actions = { min = 2, max = 10 }``). A block leaving that field out is then refused, on the
fast path and the slow path alike, with the error a written value outside the bound gets, at the
field's place: no request is decided with a number the served rules exclude. Every bounded field
of every ruleset's stat block is found by walking the models (a field added later is covered
too), each one tightened past its default in turn (docs/requests.md, "Stat-block bounds").
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import AfterValidator, BaseModel

from arbiter.bridge.deciding import strict_body
from arbiter.bridge.engine.rule_context import _LIMITED, native_bounds, validation_context
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError, decode, parse_client
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.bridge.reading_validators import client_messages
from arbiter.bridge.stat_blocks import STAT_BLOCKS
from arbiter.compiler.model.common import Bound
from tests.bridge.engine.rule_edits import edited
from tests.bridge.test_reading_bounds import bundled, example

STARTS = {"combat-styles": "start_encounter", "hmk": "start", "karmic": "start_duel"}
"""Each ruleset's example request carrying its combatants' stat blocks (docs/examples)."""


def bounded_fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str, Any]]:
    """(path as a client writes it, bound name, default) of every field of ``model`` and its
    nested models held to a served bound (a ``within_limits`` check); the default is
    :data:`REQUIRED` for a field a block must write. An error about a default names the same
    path as one about a written number (combat-styles' ``characteristics.cha``, not pydantic's
    ``characteristics.CHA``: bridge/engine/field_errors.py)."""
    found: list[tuple[str, str, Any]] = []
    for name, field in model.model_fields.items():
        path = prefix + (field.alias or name)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found += bounded_fields(annotation, path + ".")
        limits = [
            _LIMITED[m.func]
            for m in field.metadata
            if isinstance(m, AfterValidator) and m.func in _LIMITED
        ]
        if limits:
            default = (
                REQUIRED if field.is_required() else field.get_default(call_default_factory=True)
            )
            found.append((path, limits[0][2], default))
    return found


REQUIRED = object()
ALL = [(rid, *f) for rid, model in sorted(STAT_BLOCKS.items()) for f in bounded_fields(model)]
DEFAULTED = [f for f in ALL if type(f[3]) is int]
"""(ruleset, path, bound, default) of every bounded number a block may leave out."""


def test_the_walk_finds_every_ruleset_s_bounded_defaults() -> None:
    assert {(r, p) for r, p, _, _ in DEFAULTED} == {
        ("combat-styles", "characteristics.pow"),
        ("combat-styles", "characteristics.cha"),
        ("combat-styles", "fatigue_initiative"),
        ("hmk", "defensive_tactics"),
        ("hmk", "specialization"),
        ("hmk", "actions"),
        ("karmic", "finesse"),
        ("karmic", "force"),
        ("karmic", "size"),
    }
    # Every other bounded field a block may leave out holds no number when left out: null
    # (the engine derives it from the rule data) or an empty mapping.
    for ruleset, path, _, default in ALL:
        assert default is REQUIRED or type(default) is int or default in (None, {}), (
            ruleset,
            path,
        )


def without(request: dict[str, Any], path: str, stored: bool = False) -> str:
    """The frame of ``request`` with ``path`` left out of its first combatant (``stored``: the
    frame holds ``"stored"``, so the reader's referencing validator reads it)."""
    body = json.loads(json.dumps(request["body"]))
    node = body["combatants"][0]
    *parents, last = path.split(".")
    for key in parents:
        node = node[key]
    node.pop(last, None)
    sent = {**request, "body": body, **({"id": "stored"} if stored else {})}
    return json.dumps({"v": 1, "type": "request", "request": sent})


def everywhere(request: dict[str, Any], paths: list[str], value: int, stored: bool) -> str:
    """The frame of ``request`` with ``value`` written at each of ``paths`` in every combatant."""
    body = json.loads(json.dumps(request["body"]))
    for combatant in body["combatants"]:
        for path in paths:
            *parents, last = path.split(".")
            node = combatant
            for key in parents:
                node = node[key]
            node[last] = value
    sent = {**request, "body": body, **({"id": "stored"} if stored else {})}
    return json.dumps({"v": 1, "type": "request", "request": sent})


def bundled_bound(ruleset: str, limit: str) -> Bound:
    bound: Bound = getattr(bundled().models[ruleset].stat_block_limits, limit)
    return bound


def house_reader(ruleset: str, limit: str, bound: Bound) -> tuple[FrameReader, dict[str, Any]]:
    """The frame reader and validation context of the bundled rules with one house bound."""
    rules = bundled()
    house = edited(rules.models[ruleset], f"stat_block_limits.{limit}", bound)
    context = validation_context({**rules.models, ruleset: house})
    return FrameReader({rid: s.engine for rid, s in rules.served.items()}, context), context


def slow(frame: str, context: dict[str, Any]) -> Any:
    """The body as the slow path validates it under ``context`` (or its ProtocolError)."""
    message = parse_client(decode(frame))
    assert isinstance(message, RequestMessage)
    model = bundled().served[message.request.ruleset].engine.requests[message.request.type]
    return strict_body(model, message.request, context).body


def _ids(case: Any) -> str:
    return case if isinstance(case, str) else str(case)


@pytest.mark.parametrize("stored", [False, True], ids=["inline", "referencing"])
@pytest.mark.parametrize(("ruleset", "path", "limit", "default"), DEFAULTED, ids=_ids)
def test_a_number_left_out_is_refused_on_both_paths_when_a_house_min_is_over_its_default(
    ruleset: str, path: str, limit: str, default: int, stored: bool
) -> None:
    # The house bound keeps the bundled max: the example's written numbers stay within it.
    high = bundled_bound(ruleset, limit).max
    reader, context = house_reader(ruleset, limit, Bound(min=default + 1, max=high))
    request = example(ruleset, STARTS[ruleset])
    frame = without(request, path, stored)
    assert reader.read(frame) is None  # the fast path leaves it to the slow path
    with pytest.raises(ProtocolError) as refused:
        slow(frame, context)
    assert refused.value.code == "invalid_request"
    # Named as a written number is, at the key the client writes, saying it was left out.
    words = (
        f"body.combatants.0.{path}: left out, its default {default} is outside the served "
        f"bound: Input should be greater than or equal to {default + 1}"
    )
    assert words in refused.value.message
    # Written at the house bound's min in every combatant (with every other default the bound
    # holds: POW's bound is CHA's), it is taken by both, into the same body.
    shared = [f[1] for f in DEFAULTED if f[0] == ruleset and f[2] == limit]
    written = everywhere(request, shared, default + 1, stored)
    read = reader.read(written)
    assert isinstance(read, Sent)
    assert read.message.request.body.model_dump() == slow(written, context).model_dump()


def _under_floor(ruleset: str, limit: str, default: int) -> bool:
    """Whether a bound's max may be below ``default`` (its floor allows a min under it)."""
    floors = type(bundled().models[ruleset].stat_block_limits).FLOORS  # type: ignore[attr-defined]
    floor = floors.get(limit)
    return (floor is None or floor <= default - 1) and bundled_bound(ruleset, limit).min < default


@pytest.mark.parametrize(
    ("ruleset", "path", "limit", "default"),
    [f for f in DEFAULTED if _under_floor(f[0], f[2], f[3])],
    ids=_ids,
)
def test_a_number_left_out_is_refused_on_both_paths_when_a_house_max_is_under_its_default(
    ruleset: str, path: str, limit: str, default: int
) -> None:
    low = bundled_bound(ruleset, limit).min
    reader, context = house_reader(ruleset, limit, Bound(min=low, max=default - 1))
    frame = without(example(ruleset, STARTS[ruleset]), path)
    assert reader.read(frame) is None
    with pytest.raises(ProtocolError) as refused:
        slow(frame, context)
    words = (
        f"body.combatants.0.{path}: left out, its default {default} is outside the served "
        f"bound: Input should be less than or equal to {default - 1}"
    )
    assert words in refused.value.message


def test_the_bundled_bounds_take_every_default() -> None:
    # The defaults are within the bundled rules' bounds: a block leaving every number out that
    # it may is read by both paths, as before.
    rules = bundled()
    for ruleset, type in STARTS.items():
        request = example(ruleset, type)
        for _, path, _, _ in (f for f in DEFAULTED if f[0] == ruleset):
            request = json.loads(without(request, path))["request"]
        frame = json.dumps({"v": 1, "type": "request", "request": request})
        read = rules.reader.read(frame)
        assert isinstance(read, Sent), ruleset
        assert read.message.request.body == slow(frame, rules.context)


def _validated_defaults(schema: Any) -> list[Any]:
    """The defaults ``schema`` validates (``validate_default``), anywhere in it."""
    if isinstance(schema, list):
        return [d for item in schema for d in _validated_defaults(item)]
    if not isinstance(schema, dict):
        return []
    found = [schema["default"]] if schema.get("validate_default") else []
    return found + [d for value in schema.values() for d in _validated_defaults(value)]


def test_the_fast_path_validates_only_the_defaults_its_served_bounds_exclude() -> None:
    # A default the served bound takes would only be given back on every block (bundled: all
    # of them); one a house bound excludes is validated, so the block goes to the slow path.
    rules = bundled()
    core = client_messages({rid: s.engine for rid, s in rules.served.items()}).core_schema
    assert set(_validated_defaults(core)) == {0, 1}  # the models' own, for the slow path
    assert _validated_defaults(native_bounds(core, rules.context, set())) == []
    _, context = house_reader("hmk", "actions", Bound(min=2, max=10))
    house = _validated_defaults(native_bounds(core, context, set()))
    assert house and set(house) == {1}  # hmk actions' alone, wherever a block goes
