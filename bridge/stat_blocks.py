"""Each ruleset's stat-block model: its JSON Schema (shipped to the client) and checks.

The stat block is the one thing a GM types about a combatant; the engines validate it with
pydantic when a request names it. This module gives the same models two more uses:

* ``schemas()`` / ``python -m arbiter.bridge.stat_blocks docs/schemas``: one JSON Schema per ruleset,
  ``docs/schemas/stat-blocks/<ruleset>.schema.json``. The module build copies ``docs/schemas``
  into the module as it is (``compiler.foundry.build.SCHEMAS_ROOT``), so the client's stat-block
  editor generates its form from exactly the model the server validates with, and the compiler
  still never imports the server (the dependency runs bridge → compiler only). Bounds the
  rule data holds (combat-styles' ``stat_block_limits``) are written in from the bundled rules;
  the server checks a block against the rules it serves.
* ``problems(ruleset, data)``: what is wrong with a stat block, field by field, in the words the
  server uses when it refuses a request (the ``check`` message of ``bridge.checking``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import (
    StatBlock as CombatStylesStatBlock,
)
from arbiter.bridge.engine.combat_styles.core.block_checks import SKILLS as CS_SKILLS
from arbiter.bridge.engine.field_errors import field_errors
from arbiter.bridge.engine.hmk.requests import StatBlock as HmkStatBlock
from arbiter.bridge.engine.karmic.requests import CombatantSpec as KarmicStatBlock
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import load_ruleset

STAT_BLOCKS: Mapping[str, type[BaseModel]] = {
    "combat-styles": CombatStylesStatBlock,
    "hmk": HmkStatBlock,
    "karmic": KarmicStatBlock,
}
"""Ruleset id → the model its requests validate a combatant's stat block with."""

_WIELDED = ["weapons", "shields", "ranged_weapons"]
_CS_SKILLS = list(CS_SKILLS)  # the names the engine reads, the door's check too
PICKS: Mapping[str, Mapping[str, Mapping[str, Any]]] = {
    "hmk": {
        "skills": {"x-arbiter-keys": ["weapons"]},
        "weapon": {"x-arbiter-values": ["weapons"]},
        "weapons": {"x-arbiter-values": ["weapons"]},
        "armor": {"x-arbiter-values": ["armor"]},
    },
    "combat-styles": {
        "skills": {"x-arbiter-keys": [], "x-arbiter-names": _CS_SKILLS},
        "weapons": {"x-arbiter-values": _WIELDED},
        "armor": {"x-arbiter-keys": ["hit_locations"], "x-arbiter-values": ["armor"]},
        "natural_armor": {"x-arbiter-keys": ["hit_locations"]},
        "hit_points": {"x-arbiter-keys": ["hit_locations"]},
        "traits": {"x-arbiter-values": ["style_traits"]},
        "fatigue": {"x-arbiter-values": ["fatigue_levels"]},
        "hands": {"x-arbiter-keys": ["combat.hands"], "x-arbiter-values": _WIELDED},
    },
    "karmic": {
        "skills": {"x-arbiter-keys": ["weapons"], "x-arbiter-names": ["combat_training"]},
        "armor": {"x-arbiter-values": ["armor"]},
        "main": {"x-arbiter-values": ["weapons"]},
        "off": {"x-arbiter-values": ["weapons"]},
    },
}
"""Where the editor picks a field's ids (``x-arbiter-values``) or a mapping's keys
(``x-arbiter-keys``) from: dotted paths into the ruleset's ``data`` in ``data/rules.json``,
each a list of entries with an ``id`` (and a ``name``). ``x-arbiter-names``: fixed names the
engine reads (skills it knows). The server validates what is picked (an id the rule data lacks
is refused at the field that names it, :func:`problems`)."""

FOLDER = "stat-blocks"
"""Where the schemas go under ``docs/schemas`` (and so under the module's ``schemas/``)."""


def schema(ruleset: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``ruleset``'s stat block, in validation mode (the
    JSON a request carries: aliases such as combat-styles' ``str``/``con`` keys)."""
    model = STAT_BLOCKS[ruleset]
    generated = model.model_json_schema(by_alias=True, mode="validation")
    properties = generated["properties"]
    for field, hints in PICKS.get(ruleset, {}).items():
        properties[field] = {**properties[field], **hints}
    defs = generated.get("$defs", {})
    for field, (low, high) in bundled_limits(ruleset).items():
        _bounded(_place(properties, defs, ruleset, field), low, high, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"arbiter:stat-block:{ruleset}",
        **generated,
        "title": f"Arbiter {ruleset} stat block",
    }


NESTED_LIMITS: Mapping[str, Mapping[str, str]] = {"combat-styles": {"siz": "characteristics"}}
"""Bounds of a field inside a nested model, by ruleset: the bound's name → the property whose
model holds the field of that name (combat-styles' ``siz`` overrides ``characteristics``' bound
for SIZ alone; the table lists it after ``characteristics``)."""


def _place(
    properties: dict[str, Any], defs: dict[str, Any], ruleset: str, field: str
) -> dict[str, Any]:
    """The schema node the bound ``field`` of ``ruleset``'s ``stat_block_limits`` holds: the
    property of that name, or the field of a nested model (:data:`NESTED_LIMITS`)."""
    outer = NESTED_LIMITS.get(ruleset, {}).get(field)
    if outer is None:
        node: dict[str, Any] = properties[field]
        return node
    model = defs[properties[outer]["$ref"].rsplit("/", 1)[-1]]
    inner: dict[str, Any] = model["properties"][field]
    return inner


@cache
def bundled_limits(ruleset: str) -> dict[str, tuple[int, int | None]]:
    """The bundled rule data's bounds of ``ruleset``'s stat-block numbers (its
    ``stat_block_limits``), by field: (min, max). Empty for a ruleset without them."""
    limits = getattr(load_ruleset(ruleset).model, "stat_block_limits", None)
    if not isinstance(limits, BaseModel):
        return {}
    return {field: (bound.min, bound.max) for field, bound in limits}


def _bounded(node: dict[str, Any], low: int, high: int | None, defs: dict[str, Any]) -> None:
    """Write ``minimum``/``maximum`` into the integer schema of a property: the property's own,
    its values' (a mapping, keys with a pattern too), its non-null branch (an optional) or each field of the model it
    refers to (hmk ``attributes``, in ``defs``). Keys stay sorted, as pydantic writes a bound
    given on the field."""
    if "$ref" in node:
        for field in defs[node["$ref"].rsplit("/", 1)[-1]]["properties"].values():
            _bounded(field, low, high, defs)
        return
    if node.get("type") == "object":
        # A mapping's values: any key's, or (keys with a pattern) the pattern's.
        values = node.get("additionalProperties") or node["patternProperties"]
        if "type" not in values:
            for value in values.values():
                _bounded(value, low, high, defs)
            return
        node = values
    elif "anyOf" in node:
        _bounded(next(n for n in node["anyOf"] if n.get("type") != "null"), low, high, defs)
        return
    node.update(minimum=low)
    if high is not None:  # without a max, no maximum
        node.update(maximum=high)
    ordered = sorted(node.items())
    node.clear()
    node.update(ordered)


def schemas() -> dict[str, dict[str, Any]]:
    """Every ruleset's stat-block schema, by path relative to ``docs/schemas``."""
    return {f"{FOLDER}/{rid}.schema.json": schema(rid) for rid in sorted(STAT_BLOCKS)}


def schema_text(value: dict[str, Any]) -> str:
    """A schema as written to disk: indented, one trailing newline; keys in the model's order
    (the editor lays its form out in that order)."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every stat-block schema under ``folder`` (``docs/schemas``); returns the files."""
    written = []
    for rel, value in schemas().items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(schema_text(value), encoding="utf-8")
        written.append(path)
    return written


def problems(
    ruleset: str, data: object, rules: Mapping[str, RulesetBase] | None = None
) -> list[tuple[str, str]]:
    """What is wrong with ``data`` as a ``ruleset`` stat block: (field path, message) pairs,
    the path dotted from the stat block's root in the keys a client writes (``attributes.STR``,
    ``skills.sword``, ``characteristics.cha`` written or left out:
    :func:`~arbiter.bridge.engine.field_errors.field_errors`); empty when the server would accept it. KeyError for a ruleset without a stat block.

    ``rules``: the served rule models by ruleset id (``RulesSnapshot.models``); under them an
    id the rule data lacks (an unknown weapon in hmk ``skills``) is a problem at its field, as
    it is for every request that carries the block. Without them only the shape is checked."""
    model = STAT_BLOCKS[ruleset]
    context = None if rules is None else validation_context(rules)
    try:
        # As a request's body is validated (bridge.deciding.strict_body): strict, from JSON
        # text, so "5" is not 5 here either, and under the same rules.
        text = to_json(data, inf_nan_mode="constants")
        model.model_validate_json(text, strict=True, context=context)
    except PydanticSerializationError:
        return [("", "the stat block is not JSON (text that is not Unicode)")]
    except ValidationError as err:
        return field_errors(model, data, err)
    return []


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/schemas")
    for path in write_schemas(target):
        print(path)
