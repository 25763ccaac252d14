"""A ``check`` naming a combatant is graded by his conditions, as every roll he makes is: the
text's Impale "inflicts a difficulty grade on the victim's future skill attempts", an enmeshed
head, chest or abdomen "makes all skill rolls one grade harder", and Blind Opponent leaves the
Blindness situational modifier."""

from __future__ import annotations

from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def test_an_impaled_fighter_s_skill_check_is_graded_by_the_impale_table(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "impale"}]}
    table("exchange", body, [30, 90, 3, 6, 10])  # a broadsword left in b's chest
    assert table.who("b")["conditions"]["impaled"]["grades"] == ["formidable"]
    out = table("check", {"skill": 30, "combatant": "b", "skill_name": "athletics"}, [20])
    assert (out["grade"], out["target"], out["level"]) == ("formidable", 15, "failure")
    assert out["notes"] == ["b: impaled"]


def test_an_entangled_chest_makes_every_skill_roll_one_grade_harder(table: Table) -> None:
    duel(table, fighter("a", weapons=["net"]), fighter("b"))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "entangle"}]}
    table("exchange", body, [30, 90, 3, 10])
    assert table.who("b")["conditions"]["entangled"]["location"] == "chest"
    out = table("check", {"skill": 40, "combatant": "b", "skill_name": "willpower"}, [30])
    assert (out["grade"], out["target"], out["level"]) == ("hard", 27, "failure")
    assert out["notes"] == ["b: entangled by the chest"]


def test_a_blinded_fighter_s_check_suffers_the_blindness_modifier(table: Table) -> None:
    duel(table, fighter("a", weapons=["broadsword"]), fighter("b"))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "blind_opponent"}]}
    table("exchange", body, [80, 3, 50, 2])
    out = table("check", {"skill": 40, "combatant": "a", "skill_name": "athletics"}, [5])
    assert (out["grade"], out["target"], out["level"]) == ("herculean", 4, "success")
    assert out["notes"] == ["a: blinded"]


def test_a_blinded_and_impaled_fighter_s_notes_name_the_impale_then_the_blindness(
    table: Table,
) -> None:
    # Blinded is a situation the data ties to the condition (close_blinded's while_condition):
    # its note follows the engine's own holds and impale, as prone's does.
    duel(table, fighter("a", weapons=["broadsword"]), fighter("b", weapons=["broadsword"]))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "blind_opponent"}]}
    table("exchange", body, [80, 3, 50, 2])
    body = {"attacker": "b", "defender": "a", "effects": [{"id": "impale"}]}
    table("exchange", body, [30, 90, 3, 6, 10])
    assert set(table.who("a")["conditions"]) >= {"blinded", "impaled"}
    out = table("check", {"skill": 40, "combatant": "a", "skill_name": "athletics"}, [5])
    assert (out["grade"], out["target"], out["level"]) == ("herculean", 4, "success")
    assert out["notes"] == ["a: impaled, blinded"]


def test_a_check_without_a_combatant_is_graded_only_as_asked(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "impale"}]}
    table("exchange", body, [30, 90, 3, 6, 10])
    out = table("check", {"skill": 30}, [20])
    assert (out["grade"], out["target"], out["level"]) == ("standard", 30, "success")
