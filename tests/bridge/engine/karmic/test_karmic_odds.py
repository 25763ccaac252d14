"""Exact odds, checked against a brute-force count over every ordering of the unseen cards."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

from karmic_duel import DECK, RULES, attack, fighter, ready

from arbiter.bridge.engine.karmic.odds import success_probability
from arbiter.bridge.engine.karmic.rulebook import rulebook
from tests.bridge.engine.rule_edits import edited

BOOK = rulebook(RULES)
A = fighter("a", "heroes", force=1, skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def brute_force(
    unseen: list[str], attack_value: int, attack_hit: bool, defense_base: int
) -> Fraction:
    """P(success) by walking every ordering of (parry card, hit draws), one card at a time."""
    ok = 0
    count = 0
    for parry, d1, d2 in permutations(unseen, 3):
        count += 1
        a = attack_value
        p = BOOK.cards[parry]
        d = defense_base + p.value

        def succeeds(a: int, d: int) -> bool:
            return a - max(d, 0) >= 1

        draws = iter((d1, d2))
        if attack_hit and not succeeds(a, d):
            a += BOOK.cards[next(draws)].value
        if p.hit and succeeds(a, d):
            d += BOOK.cards[next(draws)].value
        ok += succeeds(a, d)
    return Fraction(ok, count)


def test_the_attackers_odds_count_every_card_he_has_not_seen() -> None:
    duel = ready([A, B], {"a": ["plus-3-hit#1"], "b": ["plus-2#1"]})
    duel.declare("a", attack("plus-3-hit#1", "b"))
    duel.declare("b", {"maneuver": "parry", "card": "plus-2#1", "target": "a"})
    res = duel.send("odds", {"viewer": "a", "attacker": "a", "target": "b"})
    assert res.result == {"kind": "odds", "viewer": "a"}  # the odds are the viewer's alone
    answer = res.private["a"]
    unseen = [c for c in DECK if c != "plus-3-hit#1"]
    expected = brute_force(unseen, 3 + 1, True, 0)
    assert answer["unseen"] == 47
    assert Fraction(answer["probability"]) == expected
    assert answer["opposed"] is True


def test_a_parry_card_the_viewer_holds_is_known_and_gives_certain_odds() -> None:
    duel = ready([A, B], {"a": ["plus-10#1"], "b": ["plus-9#1"]})
    duel.declare("a", attack("plus-10#1", "b"))
    duel.declare("b", {"maneuver": "parry", "card": "plus-9#1", "target": "a"})
    answer = duel.send("odds", {"viewer": "b", "attacker": "a", "target": "b"}).private["b"]
    # b sees his own +9 but not a's card: a needs card + 1 - 9 >= 1, i.e. a card of +9 or
    # more, or a hit card that draws enough.
    unseen = [c for c in DECK if c != "plus-9#1"]
    total = Fraction(0)
    for first in unseen:
        face = BOOK.cards[first]
        a = face.value + 1
        if a - 9 >= 1:
            total += Fraction(1, len(unseen))
        elif face.hit:
            rest = [c for c in unseen if c != first]
            wins = sum(1 for c in rest if a + BOOK.cards[c].value - 9 >= 1)
            total += Fraction(wins, len(unseen) * len(rest))
    assert Fraction(answer["probability"]) == total


def test_an_unopposed_attack_is_certain() -> None:
    duel = ready([A, B], {"a": ["minus-5#1"], "b": ["plus-9#1"]})
    duel.declare("a", attack("minus-5#1", "b"))
    duel.declare("b")
    answer = duel.send("odds", {"viewer": "b", "attacker": "a", "target": "b"}).private["b"]
    assert (answer["probability"], answer["opposed"]) == ("1/1", False)


def test_counting_with_two_unknown_cards_matches_a_hand_count() -> None:
    counts = {(1, False): 1, (-1, False): 1, (2, True): 1}
    # attack base 0 with an unknown card against a parry base 0 with an unknown card:
    # orderings (attack, parry, then hit draws) over {+1, -1, +2h}.
    p = success_probability(counts, 0, None, None, 0, None, None)
    # +1 vs -1: wins. +1 vs +2h: 1-2 < 1 fails. -1 vs +1: fails; -1 vs +2h: fails.
    # +2h vs +1: 2-1 = 1 wins (then no defender hit). +2h vs -1: wins.
    assert p == Fraction(3, 6)


def test_before_the_target_declares_the_odds_are_against_a_parry_with_an_unseen_card() -> None:
    duel = ready([A, B], {"a": ["plus-3#1"], "b": ["plus-2#1"]})
    duel.declare("a", attack("plus-3#1", "b"))
    answer = duel.send("odds", {"viewer": "a", "attacker": "a", "target": "b"}).private["a"]
    assert answer["assumed_parry"] is True
    unseen = [c for c in DECK if c != "plus-3#1"]
    assert Fraction(answer["probability"]) == brute_force(unseen, 3 + 1, False, 0)


def test_a_target_who_cannot_parry_that_attack_is_not_assumed_to_parry() -> None:
    bare = {"id": "b", "name": "B", "side": "villains", "vitality": 10}  # bare hands: no parry
    a = fighter("a", "heroes", force=1, main="dagger", skills={"dagger": 1})
    duel = ready([a, bare], {"a": ["plus-3#1"]}, start_range=0)
    duel.declare("a", attack("plus-3#1", "b"))
    answer = duel.send("odds", {"viewer": "a", "attacker": "a", "target": "b"}).private["a"]
    assert (answer["assumed_parry"], answer["opposed"], answer["probability"]) == (
        False,
        False,
        "1/1",
    )


def test_the_odds_of_a_sealed_feint_are_those_of_the_attack_it_is_declared_as() -> None:
    # A house rule makes a feint harder than an attack: the foe, who sees an attack, must get
    # the odds of an attack, or the odds would tell him it is a feint.
    rules = edited(RULES, "maneuvers.feint.difficulty", -4)
    answers = {}
    for maneuver in ("attack", "feint"):
        duel = ready([A, B], {"a": ["plus-3#1"], "b": ["plus-5#1"]}, rules=rules)
        duel.declare("a", {"maneuver": maneuver, "card": "plus-3#1", "target": "b"})
        seen = duel.send("odds", {"viewer": "b", "attacker": "a", "target": "b"}).private["b"]
        own = duel.send("odds", {"viewer": "a", "attacker": "a", "target": "b"}).private["a"]
        answers[maneuver] = (seen, own["probability"])
    assert answers["feint"][0] == answers["attack"][0]
    assert answers["feint"][0]["maneuver"] == "attack"
    # Its own player counts the feint as it is.
    assert answers["feint"][1] != answers["attack"][1]
