"""A combat-styles stat block ``check`` accepts is one every request carrying stat blocks
accepts, and a block a request refuses for a stat-block reason is one ``check`` refuses at the
same fields, before any die.

Blocks are generated from the rule data (weapons, armour, locations, traits, fatigue levels,
hands), valid and with one field broken, and sent through ``check`` and through
``start_encounter``, ``exchange`` and ``spirit_combat`` (each with ``combatants``), read and
decided as the server does (tests/bridge/stat_block_agreement.py).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock
from arbiter.bridge.engine.combat_styles.core.block_checks import SKILLS
from arbiter.bridge.engine.combat_styles.core.hands import hand_ids, hands_needed
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.combat_styles.model import CombatStylesRules
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.combat_styles.helpers import Table
from tests.bridge.stat_block_agreement import JSON, Verdict, agree, check, served, verdict

RULES = served()
MODEL = RULES.models["combat-styles"]
assert isinstance(MODEL, CombatStylesRules)
VIEW = view_of(MODEL)
ARMS = [a for a in VIEW.arms if a != VIEW.unarmed_id]
ARMOURS = list(VIEW.armors)
LOCATIONS = [loc.id for loc in VIEW.locations]
TRAITS = sorted(VIEW.style_trait_ids)
FATIGUE = [f.id for f in VIEW.fatigue]
HANDS = list(hand_ids(VIEW))
ONE_HANDED = [a for a in ARMS if hands_needed(VIEW, a) == 1]

KNOWN_ARMS = ", ".join(VIEW.arms)
KNOWN_ARMOURS = ", ".join(ARMOURS)
KNOWN_LOCATIONS = ", ".join(LOCATIONS)
KNOWN_TRAITS = ", ".join(TRAITS)
KNOWN_SKILLS = ", ".join(SKILLS)
KNOWN_FATIGUE = ", ".join(FATIGUE)

CHARACTERISTICS = {"str": 12, "con": 12, "siz": 12, "dex": 12, "int": 12, "pow": 10}
BASE: JSON = {
    "id": "b",
    "characteristics": CHARACTERISTICS,
    "skills": {"combat_style": 60, "evade": 40},
    "weapons": ["dagger"],
}
FOE: JSON = {**BASE, "id": "foe", "spirit_combat": 50}


def valid_block(rnd: random.Random) -> JSON:
    """A block of ids from the rule data and numbers in range; optional fields left out at
    random."""
    weapons = rnd.sample(ARMS, rnd.randint(0, 3))

    def within(field: str) -> int:
        bound = getattr(MODEL.stat_block_limits, field)  # the data's stat_block_limits
        return rnd.randint(bound.min, bound.max)

    block: JSON = {
        "id": "b",
        "name": rnd.choice(["", "Bo", "Cy the Bold"]),
        "characteristics": {
            "str": rnd.randint(0, 200),
            "con": rnd.randint(0, 200),
            "siz": rnd.randint(1, 500),
            "dex": rnd.randint(0, 200),
            "int": rnd.randint(0, 200),
            "pow": rnd.randint(0, 200),
        },
        "skills": {s: within("skills") for s in rnd.sample(SKILLS, rnd.randint(0, 5))},
        "weapons": weapons,
        "armor": {loc: rnd.choice(ARMOURS) for loc in rnd.sample(LOCATIONS, rnd.randint(0, 4))},
        "natural_armor": {loc: within("natural_armor") for loc in rnd.sample(LOCATIONS, 2)},
        "hit_points": {loc: within("hit_points") for loc in rnd.sample(LOCATIONS, 3)},
        "initiative_bonus": within("initiative_bonus"),
        "traits": rnd.sample(TRAITS, rnd.randint(0, 2)),
        "body_plan": VIEW.default_body_plan,
        "fatigue_initiative": within("fatigue_initiative"),
        "fatigue": rnd.choice(FATIGUE[:4]),
        "spirit_combat": rnd.randint(0, 500),
    }
    held = [w for w in weapons if w in ONE_HANDED]
    if held:
        block["hands"] = {HANDS[0]: held[0], HANDS[1]: None}
    for optional in ("name", "skills", "weapons", "armor", "natural_armor", "hit_points",
                     "initiative_bonus", "traits", "body_plan", "fatigue_initiative",
                     "fatigue", "spirit_combat", "hands"):  # fmt: skip
        if rnd.random() < 0.2 and optional in block:
            del block[optional]
    if "hands" in block and "weapons" not in block:
        del block["hands"]
    return block


def _set(field: str, value: Any) -> Callable[[JSON, random.Random], None]:
    def put(block: JSON, rnd: random.Random) -> None:
        block[field] = copy.deepcopy(value)

    return put


def _add(field: str, key: str, value: Any) -> Callable[[JSON, random.Random], None]:
    def put(block: JSON, rnd: random.Random) -> None:
        block.setdefault(field, {})[key] = value

    return put


def _twice(block: JSON, rnd: random.Random) -> None:
    block["weapons"] = [*block.get("weapons", []), "dagger", "dagger"]
    block.pop("hands", None)


BREAKS: dict[str, Callable[[JSON, random.Random], None]] = {
    "unknown weapon": _set("weapons", ["laser"]),
    "unknown style trait": _set("traits", ["jedi"]),
    "unknown armour": _add("armor", "chest", "mithril"),
    "armour at an unknown location": _add("armor", "tail", "padded"),
    "hit points at an unknown location": _add("hit_points", "tail", 5),
    "natural armour at an unknown location": _add("natural_armor", "tail", 3),
    "unknown skill": _add("skills", "jedi_mind", 50),
    "unknown body plan": _set("body_plan", "octopus"),
    "unknown fatigue level": _set("fatigue", "sleepy"),
    "unknown hand": _set("hands", {"tentacle": None}),
    "a hand holding an unlisted weapon": _set("hands", {"right": "sword"}),
    "a two-handed weapon in one hand": _set("hands", {"right": "quarterstaff"}),
    "a weapon listed twice": _twice,
    "negative skill": _add("skills", "evade", -1),
    "skill out of range": _add("skills", "combat_style", 10**9),
    "no hit points at a location": _add("hit_points", "head", 0),
    "hit points out of range": _add("hit_points", "head", 10**9),
    "negative natural armour": _add("natural_armor", "chest", -3),
    "negative initiative bonus": _set("initiative_bonus", -1),
    "initiative bonus out of range": _set("initiative_bonus", 10**9),
    "negative fatigue penalty": _set("fatigue_initiative", -5),
    "fatigue penalty out of range": _set("fatigue_initiative", 10**9),
}


def requests(block: JSON) -> list[tuple[str, JSON, tuple[Any, ...]]]:
    """Every request that carries ``block`` as a stat block: (type, body, where it is).
    The exchanges choose their effects in advance (none), so they finish at once."""
    return [
        ("start_encounter", {"combatants": [block, FOE]}, ("combatants", 0)),
        (
            "exchange",
            {"combatants": [FOE, block], "attacker": "foe", "defender": "b", "effects": []},
            ("combatants", 1),
        ),
        (
            "spirit_combat",
            {"combatants": [FOE, block], "attacker": "foe", "defender": "b", "effects": []},
            ("combatants", 1),
        ),
    ]


def judge(block: JSON) -> tuple[set[tuple[str, str]], list[Verdict]]:
    verdicts = [verdict(RULES, "combat-styles", k, body, at) for k, body, at in requests(block)]
    return agree(RULES, "combat-styles", block, verdicts), verdicts


def test_every_block_check_accepts_is_decided_by_every_request_that_carries_it() -> None:
    rnd = random.Random(3)
    for _ in range(120):
        block = valid_block(rnd)
        problems, verdicts = judge(block)
        assert problems == set(), block
        assert [v.refusal for v in verdicts] == [None, None, None], block


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_a_block_with_one_field_broken_is_refused_alike_by_check_and_every_request(
    broken: str,
) -> None:
    rnd = random.Random(broken)
    for _ in range(8):
        block = valid_block(rnd)
        BREAKS[broken](block, rnd)
        problems, verdicts = judge(block)
        assert problems, (broken, block)
        assert all(v.for_block for v in verdicts), (broken, block)


def one_change(**change: Any) -> JSON:
    return {**copy.deepcopy(BASE), **change}


CASES: list[tuple[JSON, set[tuple[str, str]]]] = [
    (
        one_change(weapons=["laser"]),
        {("weapons.0", f"unknown weapon 'laser' (known: {KNOWN_ARMS})")},
    ),
    (
        one_change(traits=["jedi"]),
        {("traits.0", f"unknown style trait 'jedi' (known: {KNOWN_TRAITS})")},
    ),
    (
        one_change(armor={"chest": "mithril"}),
        {("armor.chest", f"unknown armour 'mithril' (known: {KNOWN_ARMOURS})")},
    ),
    (
        one_change(armor={"tail": "leather"}),
        {
            ("armor.tail", f"unknown hit location 'tail' (known: {KNOWN_LOCATIONS})"),
            ("armor.tail", f"unknown armour 'leather' (known: {KNOWN_ARMOURS})"),
        },
    ),
    (
        one_change(hit_points={"tail": 5}),
        {("hit_points.tail", f"unknown hit location 'tail' (known: {KNOWN_LOCATIONS})")},
    ),
    (
        one_change(skills={"combat_style": 60, "evade": 40, "jedi_mind": 50}),
        {("skills.jedi_mind", f"unknown skill 'jedi_mind' (known: {KNOWN_SKILLS})")},
    ),
    (
        one_change(body_plan="octopus"),
        {("body_plan", "unknown body plan 'octopus' (known: humanoid)")},
    ),
    (
        one_change(fatigue="sleepy"),
        {("fatigue", f"unknown fatigue level 'sleepy' (known: {KNOWN_FATIGUE})")},
    ),
    (
        one_change(hands={"tentacle": "dagger"}),
        {("hands.tentacle", "unknown hand 'tentacle' (known: right, left)")},
    ),
    (
        one_change(hands={"right": "sword"}),
        {("hands.right", "hand 'right' holds 'sword', which is not in the weapons list")},
    ),
    (
        one_change(weapons=["quarterstaff"], hands={"right": "quarterstaff"}),
        {("hands.right", "'quarterstaff' needs 2 hand(s) but is held in 1")},
    ),
    (
        one_change(natural_armor={"tail": 3}),
        {("natural_armor.tail", f"unknown hit location 'tail' (known: {KNOWN_LOCATIONS})")},
    ),
    (
        one_change(weapons=["dagger", "buckler", "dagger"]),
        {("weapons.2", "weapon 'dagger' is listed twice")},
    ),
    (
        one_change(skills={"combat_style": -1}, initiative_bonus=10**9),
        {
            ("skills.combat_style", "Input should be greater than or equal to 0"),
            ("initiative_bonus", "Input should be less than or equal to 200"),
        },
    ),
    (
        one_change(hit_points={"head": 0}, natural_armor={"head": 101}, fatigue_initiative=-1),
        {
            ("hit_points.head", "Input should be greater than or equal to 1"),
            ("natural_armor.head", "Input should be less than or equal to 100"),
            ("fatigue_initiative", "Input should be greater than or equal to 0"),
        },
    ),
]


@pytest.mark.parametrize(("block", "expected"), CASES)
def test_check_names_each_problem_and_every_request_refuses_it_before_any_die(
    block: JSON, expected: set[tuple[str, str]]
) -> None:
    assert check(RULES, "combat-styles", block) == expected
    for v in judge(block)[1]:
        assert v.refusal is not None and v.refusal.startswith("invalid_request: "), v
        assert v.block_problems == expected, v


def test_the_door_refusal_names_the_block_inside_the_request_body() -> None:
    start = judge(one_change(traits=["jedi"]))[1][0]
    assert start.refusal == (
        "invalid_request: invalid 'start_encounter' request: body.combatants.0.traits.0: "
        f"unknown style trait 'jedi' (known: {KNOWN_TRAITS})"
    )


def test_a_partial_hit_points_map_gives_the_other_locations_their_derived_hit_points() -> None:
    # Before: check and start_encounter accepted {"head": 5}, and an exchange against it was
    # refused after four dice with "rules_forbid: left_arm" (the location it had no entry for).
    block = one_change(hit_points={"head": 5})
    assert check(RULES, "combat-styles", block) == set()
    table = Table(load_ruleset("combat-styles").model)
    body = {"combatants": [FOE, block], "attacker": "foe", "defender": "b", "effects": []}
    result = table("exchange", body, [45, 94, 2, 17])
    # CON+SIZ 24: base ceil(24 / 5) = 5; an arm has one less (4); the dagger's 1d4+1 rolls 3.
    assert result["blow"]["wound"] == {
        "location": "left_arm",
        "damage": 3,
        "hit_points": 1,
        "wound": "minor",
        "consequences": [],
    }
    table("start_encounter", {"combatants": [block, FOE]})
    assert table.who("b")["hit_points_max"] == {
        "head": 5,
        "right_leg": 5,
        "left_leg": 5,
        "abdomen": 6,
        "chest": 7,
        "right_arm": 4,
        "left_arm": 4,
    }


def test_a_partial_hit_points_map_is_decided_by_every_request() -> None:
    problems, verdicts = judge(one_change(hit_points={"head": 5}))
    assert problems == set()
    assert [v.refusal for v in verdicts] == [None, None, None]


def test_a_house_action_point_table_that_leaves_a_block_out_is_named_at_the_door() -> None:
    # The bundled rules give everyone 2 Action Points; a house table starting at INT+DEX 5
    # has no band for a block of INT+DEX 3, which the engine would refuse with a bare
    # LookupError: the door says so at ``action_points``, which the block may give instead.
    table = MODEL.action_points.table
    house_points = MODEL.action_points.model_copy(
        update={
            "method": "table",
            "table": (table[0].model_copy(update={"band": table[0].band.model_copy(
                update={"min": 5})}), *table[1:]),
        }
    )  # fmt: skip
    house = MODEL.model_copy(update={"action_points": house_points})
    weak = one_change(characteristics={**CHARACTERISTICS, "dex": 1, "int": 2})
    with pytest.raises(ValidationError) as refused:
        StatBlock.model_validate(weak, context=validation_context({"combat-styles": house}))
    assert [(e["loc"], e["msg"]) for e in refused.value.errors()] == [
        (("action_points",), "no action-point band for 3: give the block's action_points")
    ]
    given = {**weak, "action_points": 2}
    StatBlock.model_validate(given, context=validation_context({"combat-styles": house}))
