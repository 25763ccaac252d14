"""A fighter ``check`` accepts is one ``start_duel`` (the karmic request that carries fighters)
accepts, and a fighter it refuses for a stat-block reason is one ``check`` refuses at the same
fields. Fighters are generated from the rule data (every weapon and armour id), valid and with
one field broken, and judged as the server does (tests/bridge/stat_block_agreement.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from arbiter.compiler.model.karmic import KarmicRules
from tests.bridge.stat_block_agreement import JSON, Verdict, agree, check, served, verdict

RULES = served()
KARMIC = RULES.models["karmic"]
assert isinstance(KARMIC, KarmicRules)
WEAPONS = [w.id for w in KARMIC.weapons]
ARMOR = [a.id for a in KARMIC.armor]
SKILLS = [*WEAPONS, KARMIC.draws.initiative_skill, KARMIC.draws.showdown_skill]
KNOWN_WEAPONS = ", ".join(WEAPONS)
KNOWN_ARMOR = ", ".join(ARMOR)
FOE: JSON = {"id": "foe", "name": "Foe", "side": "villains", "vitality": 10, "main": "sword"}


def valid_fighter(rnd: random.Random) -> JSON:
    """A fighter of ids from the rule data and numbers in range; optional fields left out at
    random. A skill the engine never reads (``whittling``) is a valid skill too."""
    fighter: JSON = {
        "id": "b",
        "name": rnd.choice(["Bo", "Cy the Bold"]),
        "side": "heroes",
        "finesse": rnd.randint(-20, 20),
        "force": rnd.randint(-20, 20),
        "armor": rnd.choice(ARMOR),
        "vitality": rnd.randint(1, 10**9),
        "size": rnd.randint(1, 1000),
        "skills": {s: rnd.randint(0, 20) for s in rnd.sample([*SKILLS, "whittling"], 3)},
        "main": rnd.choice([None, *WEAPONS]),
        "off": rnd.choice([None, *WEAPONS]),
    }
    for optional in ("finesse", "force", "armor", "size", "skills", "main", "off"):
        if rnd.random() < 0.2:
            del fighter[optional]
    return fighter


def _set(field: str, value: Any) -> Callable[[JSON, random.Random], None]:
    def put(fighter: JSON, rnd: random.Random) -> None:
        fighter[field] = value

    return put


def _bad_skill(fighter: JSON, rnd: random.Random) -> None:
    fighter.setdefault("skills", {})[rnd.choice(SKILLS)] = rnd.choice([-1, 21, "3"])


BREAKS: dict[str, Callable[[JSON, random.Random], None]] = {
    "unknown armour": _set("armor", "tin"),
    "unknown main weapon": _set("main", "laser"),
    "unknown off-hand weapon": _set("off", "buckler-x"),
    "main weapon not an id": _set("main", "long sword"),
    "skill out of range": _bad_skill,
    "skill not an id": _set("skills", {"fast draw": 2}),
    "finesse out of range": _set("finesse", 21),
    "no vitality": _set("vitality", 0),
    "no name": _set("name", ""),
    "side not an id": _set("side", "the heroes"),
    "an unknown field": _set("luck", 3),
}


def judge(fighter: JSON) -> tuple[set[tuple[str, str]], list[Verdict]]:
    body = {"combatants": [fighter, FOE]}
    verdicts = [verdict(RULES, "karmic", "start_duel", body, ("combatants", 0))]
    return agree(RULES, "karmic", fighter, verdicts), verdicts


def test_every_fighter_check_accepts_starts_a_duel() -> None:
    rnd = random.Random(2)
    for _ in range(150):
        fighter = valid_fighter(rnd)
        problems, verdicts = judge(fighter)
        assert problems == set(), fighter
        assert [v.refusal for v in verdicts] == [None], fighter


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_a_fighter_with_one_field_broken_is_refused_alike_by_check_and_start_duel(
    broken: str,
) -> None:
    rnd = random.Random(broken)
    for _ in range(12):
        fighter = valid_fighter(rnd)
        BREAKS[broken](fighter, rnd)
        problems, verdicts = judge(fighter)
        assert problems, (broken, fighter)
        assert all(v.for_block for v in verdicts), (broken, fighter)


def test_unknown_armour_and_weapons_are_named_by_check_and_refused_before_the_shuffle() -> None:
    fighter = {**FOE, "id": "bo", "side": "heroes", "armor": "tin", "off": "buckler-x"}
    armour = f"unknown armor 'tin' (known: {KNOWN_ARMOR})"
    weapon = f"unknown weapon 'buckler-x' (known: {KNOWN_WEAPONS})"
    assert check(RULES, "karmic", fighter) == {("armor", armour), ("off", weapon)}
    (start,) = judge(fighter)[1]
    assert start.refusal == (
        "invalid_request: invalid 'start_duel' request: "
        f"body.combatants.0.armor: {armour}; body.combatants.0.off: {weapon}"
    )
