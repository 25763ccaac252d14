"""The unusual-foe maneuvers: flank, cling, chop (large foes); swipe, swat, smash, buck."""

from __future__ import annotations

import pytest
from karmic_duel import attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError

A = fighter("a", "heroes", skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def parry(card: str, target: str, **kw: object) -> dict[str, object]:
    return {"maneuver": "parry", "card": card, "target": target, **kw}


GIANT = fighter("giant", "monsters", size=3, finesse=2, main="club", skills={"club": 2})


def test_a_flank_needs_the_initiative_and_a_large_foe() -> None:
    duel = ready([A, GIANT], {"a": ["plus-5#1"]})
    with pytest.raises(EngineError, match="needs the initiative"):
        duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    duel = ready([A, B], {"a": ["plus-5#1"]}, initiative=("a", "b"))
    with pytest.raises(EngineError, match="only against large foes"):
        duel.declare("a", attack("plus-5#1", "b", maneuver="flank"))


def test_a_flank_at_minus_finesse_stops_the_target_attacking_or_dodging_the_flanker() -> None:
    hands = {"a": ["plus-5#1"], "giant": ["plus-1#1", "plus-2#1"]}
    duel = ready([A, GIANT], hands, initiative=("a", "giant"))
    duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    duel.declare("giant", parry("plus-1#1", "a"))  # a parry does not oppose a flank
    hit = duel.play()["outcomes"][0]
    assert (hit["parts"]["difficulty"], hit["total"], hit["success"]) == (-2, 3, True)
    assert hit["defense_void"] == "a Parry does not oppose a Flank"
    with pytest.raises(EngineError, match="giant cannot attack him"):
        duel.declare("giant", attack("plus-2#1", "a"))
    with pytest.raises(EngineError, match="cannot dodge his blows"):
        duel.declare("giant", {"maneuver": "dodge", "card": "plus-2#1", "target": "a"})


def test_a_dodge_prevents_a_flank() -> None:
    hands = {"a": ["plus-5#1"], "giant": ["plus-9#1", "plus-2#1"]}
    duel = ready([A, GIANT], hands, initiative=("a", "giant"))
    duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    duel.declare("giant", {"maneuver": "dodge", "card": "plus-9#1", "target": "a"})
    hit = duel.play()["outcomes"][0]
    assert (hit["net"], hit["success"]) == (-8, False)


def test_a_cling_lets_the_clinger_use_any_weapon_and_limits_the_foe_to_range_zero() -> None:
    a = {**A, "skills": {"sword": 3}}
    hands = {"a": ["plus-8#1", "plus-9#1", "zero#1"], "giant": ["plus-1#1", "plus-2#1"]}
    duel = ready([a, GIANT], hands, initiative=("a", "giant"))
    duel.declare("a", attack("plus-8#1", "giant", maneuver="cling"))
    duel.declare("giant")
    hit = duel.play()["outcomes"][0]
    assert (hit["parts"]["difficulty"], hit["success"]) == (-4, True)
    assert duel.pair("a", "giant")["range"] == -1  # wrestling range
    duel.declare("a", attack("plus-9#1", "giant"))  # a sword at wrestling range
    with pytest.raises(EngineError, match="only range 0 attacks reach"):
        duel.declare("giant", attack("plus-1#1", "a"))
    duel.declare("giant")
    assert duel.play()["outcomes"][0]["success"] is True


def test_a_buck_throws_off_a_clinger_back_to_close_range() -> None:
    a = {**A, "skills": {"sword": 2}}
    hands = {"a": ["plus-8#1", "zero#1"], "giant": ["plus-1#1", "plus-2#1"]}
    duel = ready([a, GIANT], hands, initiative=("a", "giant"))
    duel.declare("a", attack("plus-8#1", "giant", maneuver="cling"))
    duel.declare("giant")
    duel.play()
    duel.declare("a")
    duel.declare("giant", attack("plus-2#1", "a", maneuver="buck"))
    hit = duel.play()["outcomes"][0]
    assert hit["bucked"] == "a"
    assert duel.pair("a", "giant")["range"] == 0
    assert duel.state is not None and duel.state["combatants"]["giant"]["effects"] == []


def test_a_chop_at_minus_the_limbs_vitality_frees_the_entangled() -> None:
    hands = {"a": ["plus-6#1"], "giant": ["minus-1#1", "plus-2#1"]}
    duel = ready([A, GIANT], hands)
    duel.send("entangle", {"combatant": "a", "by": "giant", "limb_vitality": 3})
    duel.declare("a", attack("plus-6#1", "giant", maneuver="chop"))
    duel.declare("giant", parry("minus-1#1", "a"))  # -1 + finesse 2 = 1
    hit = duel.play()["outcomes"][0]
    assert (hit["parts"]["difficulty"], hit["total"], hit["net"]) == (-3, 3, 2)
    assert hit["freed"] == "a"
    assert duel.state is not None and duel.state["combatants"]["a"]["effects"] == []


RATS = [
    fighter("rat1", "rats", main="dagger", vitality=3),
    fighter("rat2", "rats", main="dagger", vitality=3),
]
OGRE = fighter("ogre", "monsters", size=4, force=1, main="club", skills={"club": 2})


def test_a_swipe_attacks_every_small_target_at_minus_their_number() -> None:
    hands = {"ogre": ["plus-6#1", "zero#1"], "rat1": ["plus-10#2"], "rat2": ["minus-1#1"]}
    duel = ready([OGRE, *RATS], hands, initiative=("ogre", "rat1"))
    swipe = {"maneuver": "swipe", "card": "plus-6#1", "targets": ["rat1", "rat2"]}
    duel.declare("ogre", swipe)
    duel.declare("rat1", parry("plus-10#2", "ogre"))
    duel.declare("rat2")
    first, second = [o for o in duel.play()["outcomes"] if o["maneuver"] == "swipe"]
    assert (first["target"], first["total"], first["success"]) == ("rat1", 5, False)
    assert (second["target"], second["success"], second["damage"]) == ("rat2", True, 3)


def test_a_swat_is_resolved_at_once_and_pushes_the_target_back() -> None:
    hands = {"ogre": ["plus-9#1", "zero#1"]}
    duel = ready([OGRE, *RATS], hands)
    result = duel.declare("ogre", attack("plus-9#1", "rat1", maneuver="swat")).result
    swat = result["resolved_at_once"][0]
    assert swat["pushed"] == {"feet": 3, "yards": 1, "range": 2}
    assert "damage" not in swat
    view = duel.send("view", {"viewer": "rat2"}).result
    assert view["registers"][0]["declarations"]["ogre"][0]["card"]["value"] == 9


def test_a_smash_triples_damage_ends_the_attackers_round_and_gives_up_the_initiative() -> None:
    hands = {"ogre": ["plus-5#1", "zero#1"], "rat1": ["minus-1#1"]}
    duel = ready(
        [OGRE, fighter("rat1", "rats", main="dagger", vitality=20)],
        hands,
        initiative=("ogre", "rat1"),
    )
    duel.declare("ogre", attack("plus-5#1", "rat1", maneuver="smash"))
    with pytest.raises(EngineError, match="no more maneuvers"):
        duel.declare("ogre", attack("zero#1", "rat1"), register=2)
    duel.declare("rat1")
    hit = duel.play()
    smash = hit["outcomes"][0]
    assert (smash["total"], smash["damage_total"], smash["maximum"], smash["damage"]) == (
        4,
        12,
        9,
        9,
    )
    assert hit["initiative"] == [{"holder": "rat1", "over": "ogre"}]


def test_a_smash_needs_an_impact_weapon() -> None:
    swordsman = {**OGRE, "main": "sword", "skills": {"sword": 1}}
    duel = ready([swordsman, *RATS], {"ogre": ["plus-5#1"]}, initiative=("ogre", "rat1"))
    with pytest.raises(EngineError, match="needs a impact weapon"):
        duel.declare("ogre", attack("plus-5#1", "rat1", maneuver="smash"))
