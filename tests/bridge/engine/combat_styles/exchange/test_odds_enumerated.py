"""The exact odds of an exchange agree, fraction for fraction, with an enumeration of all 10,000
pairs of d100 rolls written here from the rule text, sharing no code with the engine (not its
``level_of``, ``target`` or ``differential``).

The rules, as the seed (``003_…``) and the rule data's descriptions state them:

* a difficulty grade multiplies the skill, rounding up: Very Easy ×2, Easy ×3/2, Hard ×2/3,
  Formidable ×1/2, Herculean ×1/10 (``grades.toml``);
* in an opposed roll, "a skill over 100 lowers every participant's skill by the excess of the
  highest one" (``checks.toml``; seed: "Retroactive Parrying With a Skill over 100%");
* "a critical is a roll at or under a tenth of the modified skill (rounded up); 99 and 00
  fumble (only 00 once the skill is over 100); 01-05 always succeed and 96-00 always fail";
* "the success level of the results are compared as per a Differential Roll. Any difference
  grants the combatant with the superior roll one or more Special Effects" — one per level;
  "if a combatant fails when his opponent fumbles, then he misses the opportunity";
* a defender who does not parry "is treated as having automatically rolled a failure", and a
  surprised one gives "a bonus one for surprising him" to an attack that succeeds.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bridge.engine.combat_styles.helpers import Table

MULTIPLIER = {
    "very_easy": Fraction(2),
    "easy": Fraction(3, 2),
    "standard": Fraction(1),
    "hard": Fraction(2, 3),
    "formidable": Fraction(1, 2),
    "herculean": Fraction(1, 10),
}
SEVERITY = ["very_easy", "easy", "standard", "hard", "formidable", "herculean"]
RANK = {"fumble": 0, "failure": 1, "success": 2, "critical": 3}


def round_up(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def modified(skill: int, grades: list[str], excess: int) -> int:
    """The skill after the contest's excess over 100 and the most severe grade (grades do not
    stack)."""
    grade = max(grades, key=SEVERITY.index) if grades else "standard"
    return round_up(max(0, skill - excess) * MULTIPLIER[grade])


def level(roll: int, skill: int) -> str:
    """The success level of ``roll`` (1..100; 100 is "00") against the modified ``skill``."""
    if roll == 100 or (roll == 99 and skill <= 100):
        return "fumble"
    if roll >= 96:
        return "failure"
    if skill > 0 and roll <= round_up(Fraction(skill, 10)):
        return "critical"
    if roll <= 5 or roll <= skill:
        return "success"
    return "failure"


def effects(attack: str, defence: str, surprise: bool) -> tuple[str | None, int]:
    """(who wins, how many special effects) for a pair of levels."""
    if RANK[attack] <= 1 and RANK[defence] <= 1:
        return (None, 0)  # two failures, or a failure against a fumble: nothing
    bonus = 1 if surprise and RANK[attack] >= 2 else 0
    diff = RANK[attack] - RANK[defence]
    if diff > 0 or (bonus and diff == 0):
        return ("attacker", diff + bonus)
    if diff < 0:
        return ("defender", -diff)
    return (None, 0)


def enumerate_pairs(
    attack: dict, defence: dict | None, surprise: bool
) -> tuple[Counter[tuple[str, str]], Counter[tuple[str | None, int]], int]:
    """Counts of every (attack level, defence level) and every (winner, effects) over all
    roll pairs, and the number of pairs."""
    skills = [attack["skill"]] + ([defence["skill"]] if defence else [])
    excess = max(0, max(skills) - 100)
    a_skill = modified(attack["skill"], attack.get("grades", []), excess)
    a_levels = [level(r, a_skill) for r in range(1, 101)]
    if defence is None:
        d_levels = ["failure"]
    else:
        d_skill = modified(defence["skill"], defence.get("grades", []), excess)
        d_levels = [level(r, d_skill) for r in range(1, 101)]
    pairs: Counter[tuple[str, str]] = Counter()
    won: Counter[tuple[str | None, int]] = Counter()
    for a in a_levels:
        for d in d_levels:
            pairs[(a, d)] += 1
            won[effects(a, d, surprise)] += 1
    return pairs, won, len(a_levels) * len(d_levels)


def check_against_engine(table: Table, attack: dict, defence: dict | None, surprise: bool) -> None:
    body: dict = {"attack": attack, "surprise": surprise}
    if defence is not None:
        body["defence"] = defence
    out = table("odds", body)
    pairs, won, total = enumerate_pairs(attack, defence, surprise)
    engine_pairs = {(p["attack"], p["defence"]): Fraction(p["exact"]) for p in out["pairs"]}
    assert engine_pairs == {key: Fraction(n, total) for key, n in pairs.items()}
    engine_won = {(None, 0): Fraction(out["no_effects"]["exact"])}
    for side, by_count in out["effects"].items():
        for k, p in by_count.items():
            engine_won[(side, int(k))] = Fraction(p["exact"])
    expected = {key: Fraction(n, total) for key, n in won.items()}
    expected.setdefault((None, 0), Fraction(0))
    assert engine_won == expected
    hits = sum(n for (a, _), n in pairs.items() if RANK[a] >= 2)
    assert Fraction(out["attack_succeeds"]["exact"]) == Fraction(hits, total)


def test_a_60_attack_against_a_50_parry_matches_the_enumeration(table: Table) -> None:
    check_against_engine(table, {"skill": 60}, {"skill": 50}, False)


def test_skills_over_100_lose_the_excess_of_the_highest_before_their_grades(
    table: Table,
) -> None:
    # 130 and 85 become 100 and 55; the Hard 55 becomes 37 (two thirds, rounded up)
    check_against_engine(table, {"skill": 130}, {"skill": 85, "grades": ["hard"]}, False)
    assert modified(85, ["hard"], 30) == 37


def test_a_surprised_defender_fails_and_a_hit_earns_a_bonus_effect(table: Table) -> None:
    check_against_engine(table, {"skill": 45, "grades": ["easy"]}, None, True)


def test_the_enumeration_itself_counts_the_rule_texts_ranges() -> None:
    # skill 60: critical 01-06, success 07-60, failure 61-98, fumble 99-00
    levels = Counter(level(r, 60) for r in range(1, 101))
    assert levels == Counter({"critical": 6, "success": 54, "failure": 38, "fumble": 2})
    # skill 3: 01 critical, 02-05 succeed anyway; skill 120: only 00 fumbles
    assert [level(r, 3) for r in (1, 2, 5, 6)] == ["critical", "success", "success", "failure"]
    assert (level(99, 120), level(100, 120)) == ("failure", "fumble")


GRADES = st.lists(st.sampled_from(SEVERITY), max_size=2)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    a=st.integers(0, 180),
    d=st.integers(0, 180),
    ga=GRADES,
    gd=GRADES,
    undefended=st.booleans(),
    surprise=st.booleans(),
)
def test_any_skills_and_grades_match_the_enumeration(
    table: Table, a: int, d: int, ga: list[str], gd: list[str], undefended: bool, surprise: bool
) -> None:
    defence = None if undefended else {"skill": d, "grades": gd}
    check_against_engine(table, {"skill": a, "grades": ga}, defence, surprise)
