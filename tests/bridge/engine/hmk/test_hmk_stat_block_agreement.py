"""A stat block ``check`` accepts is one every hmk request accepts as a stat block, and a block
a request refuses for a stat-block reason is one ``check`` refuses at the same fields.

Blocks are generated from the rule data (every weapon and armour id), valid and with one field
broken, and sent through ``check`` and through every request that carries a stat block
(``start``, ``attack`` and ``odds`` with the block as attacker, defender or bystander), read and
decided as the server does (tests/bridge/stat_block_agreement.py).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from arbiter.bridge.rules import RulesSnapshot
from arbiter.compiler.model.hmk import HmkRules
from tests.bridge.stat_block_agreement import JSON, Verdict, agree, check, served, verdict

RULES = served()
HMK = RULES.models["hmk"]
assert isinstance(HMK, HmkRules)
WEAPONS = [w.id for w in HMK.weapons]
MISSILE = {w.id for w in HMK.weapons if w.kind == "missile"}
ARMOR = [a.id for a in HMK.armor]
KNOWN_WEAPONS = ", ".join(WEAPONS)
KNOWN_ARMOR = ", ".join(ARMOR)
ATTRIBUTES = ("STR", "DEX", "AGL", "HEA", "INT", "AWA")
REQUEST_REASONS = ("has no weapon in hand", "has no skill with the")
"""Refusals of a valid block's strike that are the request's (which weapon it strikes with),
not the block's: the same block strikes with a weapon it has a skill in."""


def fighter(ident: str, party: str) -> JSON:
    return {
        "id": ident,
        "party": party,
        "attributes": dict.fromkeys(ATTRIBUTES, 50),
        "ip": 500,
        "skills": {"long-sword": 80},
        "weapon": "long-sword",
    }


FOE, FRIEND = fighter("foe", "villains"), fighter("friend", "villains")


def valid_block(rnd: random.Random) -> JSON:
    """A block of ids from the rule data and numbers in range; optional fields left out at
    random."""
    block: JSON = {
        "id": "b",
        "name": rnd.choice(["", "Bo", "Cy the Bold"]),
        "party": "heroes",
        "attributes": {a: rnd.randint(0, 999) for a in ATTRIBUTES},
        "ip": rnd.randint(1, 9999),
        "defensive_tactics": rnd.randint(0, 999),
        "specialization": rnd.randint(0, 999),
        "skills": {w: rnd.randint(0, 999) for w in rnd.sample(WEAPONS, rnd.randint(0, 4))},
        "weapon": rnd.choice([None, *WEAPONS]),
        "weapons": rnd.sample(WEAPONS, rnd.randint(0, 3)),
        "armor": rnd.choice([None, *ARMOR]),
        "shield": rnd.random() < 0.5,
        "hand": rnd.choice(["left", "right"]),
        "actions": rnd.randint(1, 10),
    }
    for optional in ("name", "party", "defensive_tactics", "specialization", "skills",
                     "weapon", "weapons", "armor", "shield", "hand", "actions"):  # fmt: skip
        if rnd.random() < 0.2:
            del block[optional]
    return block


def _set(path: tuple[str, ...], value: Any) -> Callable[[JSON, random.Random], None]:
    def put(block: JSON, rnd: random.Random) -> None:
        where = block
        for key in path[:-1]:
            where = where.setdefault(key, {})
        where[path[-1]] = value

    return put


def _unknown_skill(block: JSON, rnd: random.Random) -> None:
    block.setdefault("skills", {})[f"broadsword-{rnd.randint(0, 9)}"] = 50


def _bad_skill_value(block: JSON, rnd: random.Random) -> None:
    block.setdefault("skills", {})[rnd.choice(WEAPONS)] = rnd.choice([-1, 1000, "5", 5.5])


def _unknown_carried(block: JSON, rnd: random.Random) -> None:
    carried = block.setdefault("weapons", [])
    carried.insert(rnd.randint(0, len(carried)), "sling")


def _drop_attribute(block: JSON, rnd: random.Random) -> None:
    del block["attributes"][rnd.choice(ATTRIBUTES)]


BREAKS: dict[str, Callable[[JSON, random.Random], None]] = {
    "unknown skill weapon": _unknown_skill,
    "skill out of range": _bad_skill_value,
    "unknown weapon in hand": _set(("weapon",), "lightsaber"),
    "unknown carried weapon": _unknown_carried,
    "unknown armour": _set(("armor",), "mithril"),
    "armour not a string": _set(("armor",), 3),
    "attribute too low": _set(("attributes", "STR"), -1),
    "attribute too high": _set(("attributes", "AWA"), 1000),
    "attribute missing": _drop_attribute,
    "ip zero": _set(("ip",), 0),
    "actions out of range": _set(("actions",), 11),
    "a third hand": _set(("hand",), "middle"),
    "id not an id": _set(("id",), "b c"),
    "an unknown field": _set(("stamina",), 3),
    "too many weapons": _set(("weapons",), ["dagger"] * 51),
}


def requests(block: JSON) -> list[tuple[str, JSON, tuple[Any, ...]]]:
    """Every hmk request that carries ``block``: (type, body, where the block is)."""
    strike: JSON = {"attacker": block, "defender": FOE}
    wielded = block.get("weapon")
    if wielded is None and isinstance(block.get("skills"), dict) and block["skills"]:
        wielded = strike["weapon"] = next(iter(block["skills"]))
    if wielded in MISSILE:
        strike["range"] = "short"
    return [
        ("start", {"combatants": [block, FOE]}, ("combatants", 0)),
        ("attack", strike, ("attacker",)),
        ("odds", strike, ("attacker",)),
        ("attack", {"attacker": FOE, "defender": block}, ("defender",)),
        ("odds", {"attacker": FOE, "defender": block, "defending": True}, ("defender",)),
        ("attack", {"attacker": FOE, "defender": FRIEND, "bystander": block}, ("bystander",)),
    ]


def judge(rules: RulesSnapshot, block: JSON) -> tuple[set[tuple[str, str]], list[Verdict]]:
    verdicts = [verdict(rules, "hmk", kind, body, slot) for kind, body, slot in requests(block)]
    return agree(rules, "hmk", block, verdicts), verdicts


def test_every_block_check_accepts_is_decided_by_every_request_that_carries_it() -> None:
    rnd = random.Random(1)
    decided = 0
    for _ in range(150):
        block = valid_block(rnd)
        problems, verdicts = judge(RULES, block)
        assert problems == set(), block
        for v in verdicts:
            if v.refusal is None:
                decided += 1
            else:
                assert any(reason in v.refusal for reason in REQUEST_REASONS), (block, v)
    assert decided > 600  # most of the 900 requests are decided: the property is not vacuous


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_a_block_with_one_field_broken_is_refused_alike_by_check_and_every_request(
    broken: str,
) -> None:
    rnd = random.Random(broken)
    for _ in range(12):
        block = valid_block(rnd)
        BREAKS[broken](block, rnd)
        problems, verdicts = judge(RULES, block)
        assert problems, (broken, block)
        assert all(v.for_block for v in verdicts), (broken, block)


def test_an_unknown_weapon_in_skills_is_named_by_check_and_refused_before_any_die() -> None:
    block = fighter("bo", "heroes")
    block["skills"] = {"long-sword": 70, "broadsword": 60}
    message = f"unknown weapon 'broadsword' (known: {KNOWN_WEAPONS})"
    assert check(RULES, "hmk", block) == {("skills.broadsword", message)}
    start = verdict(RULES, "hmk", "start", {"combatants": [block, FOE]}, ("combatants", 0))
    assert start.refusal == (
        f"invalid_request: invalid 'start' request: body.combatants.0.skills.broadsword: {message}"
    )
    strike = verdict(RULES, "hmk", "attack", {"attacker": block, "defender": FOE}, ("attacker",))
    assert strike.refusal == (
        "invalid_request: invalid 'attack' request: body.attacker.constrained-str: Input should "
        f"be a valid string; body.attacker.StatBlock.skills.broadsword: {message}"
    )


def test_every_unknown_id_of_a_block_is_named_at_its_own_field() -> None:
    block = copy.deepcopy(FOE)
    block.update(weapon="lightsaber", weapons=["dagger", "sling"], armor="mithril")
    block["skills"]["broadsword"] = 60
    assert check(RULES, "hmk", block) == {
        ("skills.broadsword", f"unknown weapon 'broadsword' (known: {KNOWN_WEAPONS})"),
        ("weapon", f"unknown weapon 'lightsaber' (known: {KNOWN_WEAPONS})"),
        ("weapons.1", f"unknown weapon 'sling' (known: {KNOWN_WEAPONS})"),
        ("armor", f"unknown armor 'mithril' (known: {KNOWN_ARMOR})"),
    }
