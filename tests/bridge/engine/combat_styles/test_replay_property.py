"""Any outcome, replayed with its recorded dice, is reproduced exactly (and random exchanges with
random eligible choices never break the engine) — and is the outcome the rule text gives: each
roll's success level, the differential's special effects, and a blow's damage, parry and armour
are checked against a small model written from the text's tables (``reference/styles-tables.md``
§3, §4, §6, the weapon, shield and armour tables), never from the engine or its rule data."""

from __future__ import annotations

import json
from math import ceil
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import KeyedSource, ScriptedSource
from arbiter.bridge.engine.envelope import Request, resolve
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import fighter


# Success levels (§3): fumble 99/00 (only 00 over 100), 96-00 fail, critical ≤ ceil(skill/10),
# 01-05 succeed.
def text_level(roll: int, target: int) -> str:
    if roll == 100 or (roll == 99 and target <= 100):
        return "fumble"
    if roll >= 96:
        return "failure"
    if target > 0 and roll <= ceil(target / 10):
        return "critical"
    return "success" if roll <= 5 or roll <= target else "failure"


LEVELS = ["critical", "success", "failure", "fumble"]
DIFFERENTIAL = [[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 0], [-3, -2, 0, 0]]
"""§4, from the attacker's view: +n he wins n effects, −n the defender does."""
WEAPONS = {  # damage (lowest, highest) and size, from the weapon and shield tables
    "dagger": (2, 5, "S"),
    "broadsword": (1, 8, "M"),
    "mace": (1, 8, "M"),
    "great_axe": (4, 14, "H"),
    "battleaxe_1h": (2, 7, "M"),
    "net": (1, 4, "S"),
    "unarmed": (1, 3, "S"),
    "heater": (1, 4, "L"),
}
SIZES = "SMLHE"
HEATER_SIZE = "L"
ARMOUR_AP = {"mail": 6, "padded": 2}


def check_exchange_against_the_text(
    result: dict[str, Any], skills: tuple[int, int], defence: str, armor: dict[str, str]
) -> None:
    """The levels, the differential and (when no effect was chosen) the blow of an exchange
    between two plain humans (damage modifier +0) whose defender parries with a heater."""
    attack = result["attack"]
    defending = defence in ("parry", "evade")
    defender_skill = skills[1] if defence == "parry" else skills[1] // 2
    # Skills over 100: the highest's excess comes off every participant (§3).
    penalty = max(0, max([skills[0], defender_skill] if defending else [skills[0]]) - 100)
    assert attack["target"] == max(0, skills[0] - penalty)
    assert attack["level"] == text_level(attack["roll"], attack["target"])
    rolled = result["defence_roll"]
    if defending:
        assert rolled["target"] == max(0, defender_skill - penalty)
        assert rolled["level"] == text_level(rolled["roll"], rolled["target"])
    defender_level = rolled["level"] if defending else "failure"  # no defence: a failure
    won = DIFFERENTIAL[LEVELS.index(attack["level"])][LEVELS.index(defender_level)]
    diff = result["differential"]
    assert diff["effects"] == abs(won)
    assert diff["winner"] == ("attacker" if won > 0 else "defender" if won < 0 else None)
    if result.get("status") != "complete" or result["effects"] or defence == "evade":
        return
    blow = result["blow"]
    if attack["level"] not in ("success", "critical"):
        assert blow is None  # "Damage happens only if the attacker got a Success or Critical"
        return
    low, high, size = WEAPONS[result["weapon"]]
    assert low <= blow["damage"] <= high
    parried = defence == "parry" and rolled["level"] in ("success", "critical")
    through = blow["damage"]
    if parried:  # §6: equal or larger blocks all, one step smaller half, two or more none
        smaller = SIZES.index(size) - SIZES.index(HEATER_SIZE)
        through = 0 if smaller <= 0 else ceil(through / 2) if smaller == 1 else through
    assert blow["after_parry"] == through
    worn = ARMOUR_AP.get(armor.get(blow["location"], ""), 0)
    assert blow["to_hit_points"] == max(0, through - worn)


MELEE = ["dagger", "broadsword", "mace", "great_axe", "battleaxe_1h", "net", "heater", "unarmed"]
OPTION_FREE_SKIP = {"choose_location", "marksman", "force_failure", "prepare_counter"}


def run(model: RulesetBase, req: dict[str, Any], state: JSON | None, source: Any) -> JSON:
    return resolve(Request.model_validate(req), ENGINE, model, "hash", state, source)


def replayed(model: RulesetBase, req: dict[str, Any], state: JSON | None, outcome: JSON) -> JSON:
    return run(model, req, state, ScriptedSource(d["result"] for d in outcome["dice"]))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    skills=st.tuples(st.integers(5, 140), st.integers(5, 140)),
    weapon=st.sampled_from(MELEE),
    defence=st.sampled_from(["parry", "evade", "none"]),
    armor=st.sampled_from([{}, {"chest": "mail", "head": "padded"}]),
    seed=st.binary(min_size=16, max_size=16),
    pick=st.randoms(use_true_random=False),
)
def test_replaying_an_exchange_with_its_recorded_dice_reproduces_it(
    model: RulesetBase,
    skills: tuple[int, int],
    weapon: str,
    defence: str,
    armor: dict[str, str],
    seed: bytes,
    pick: Any,
) -> None:
    a = fighter(
        "a", weapons=[weapon] if weapon != "unarmed" else [], skills={"combat_style": skills[0]}
    )
    b = fighter("b", armor=armor, skills={"combat_style": skills[1], "evade": skills[1] // 2})
    start = {
        "id": "s",
        "ruleset": "combat-styles",
        "type": "start_encounter",
        "body": {"combatants": [a, b]},
    }
    state = run(model, start, None, KeyedSource(seed))["state"]
    state["phase"] = "free"
    body = {"attacker": "a", "defender": "b", "weapon": weapon, "defence": defence}
    if defence == "parry":
        body["parry_weapon"] = "heater"
    req = {"id": "x", "ruleset": "combat-styles", "type": "exchange", "body": body}
    source = KeyedSource(seed, counter=1000)
    pristine = json.loads(json.dumps(state))
    first = run(model, req, state, source)
    assert state == pristine  # the engine never mutates the state it is given
    assert json.loads(json.dumps(first)) == first  # plain JSON, as the server stores it
    assert replayed(model, req, json.loads(json.dumps(state)), first) == first
    result = first["result"]
    check_exchange_against_the_text(result, skills, defence, armor)
    if result["status"] != "awaiting_effects":
        return
    eligible = [e for e in result["eligible"] if e["id"] not in OPTION_FREE_SKIP]
    chosen: list[dict[str, str]] = []
    for _ in range(result["differential"]["effects"]):
        options = [e for e in eligible if e["stackable"] or {"id": e["id"]} not in chosen]
        if options:
            chosen.append({"id": pick.choice(options)["id"]})
    choose = {
        "id": "c",
        "ruleset": "combat-styles",
        "type": "choose_effects",
        "body": {"token": result["token"], "effects": chosen},
    }
    kept = json.loads(json.dumps(first["state"]))
    try:
        second = run(model, choose, first["state"], source)
    except EngineError as err:
        # Only choices the rules forbid may be refused, and then with a reason.
        assert str(err)
        return
    assert first["state"] == kept
    assert json.loads(json.dumps(second)) == second
    assert replayed(model, choose, json.loads(json.dumps(first["state"])), second) == second
    assert second["result"]["status"] == "complete"
    check_exchange_against_the_text(second["result"], skills, defence, armor)
