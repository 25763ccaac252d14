"""Dice sources, expressions and records."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.bridge.engine.dice import (
    BudgetedSource,
    Dice,
    DiceError,
    KeyedSource,
    ScriptedSource,
    SecureSource,
    parse,
)

SEED = bytes(range(32))


def test_expressions_print_back_canonically() -> None:
    assert str(parse("2d6+1d4")) == "2d6+1d4"
    assert str(parse(" 1d10 + 10 ")) == "1d10+10"
    assert str(parse("-1d4")) == "-1d4"
    assert str(parse("d100")) == "1d100"
    assert parse("1d10+10").bounds() == (11, 20)
    assert parse("-1d4").bounds() == (-4, -1)


@pytest.mark.parametrize("bad", ["", "2d", "d", "1d6+", "1d6 2", "abc", "1d0", "0d6", "1d6*2"])
def test_malformed_expressions_are_refused(bad: str) -> None:
    with pytest.raises(DiceError):
        parse(bad)


def test_expressions_over_budget_are_refused() -> None:
    with pytest.raises(DiceError, match="budget of 200"):
        parse("201d6")
    with pytest.raises(DiceError, match="budget of 1000 faces"):
        parse("1d1001")


def test_a_roll_records_every_die_with_its_expression() -> None:
    dice = Dice(ScriptedSource([3, 5, 2]))
    result = dice.roll("2d6+1d4+1")
    assert result.total == 11
    assert [(d.expr, d.faces, d.result) for d in result.dice] == [
        ("2d6+1d4+1", 6, 3),
        ("2d6+1d4+1", 6, 5),
        ("2d6+1d4+1", 4, 2),
    ]


def test_a_negative_dice_term_subtracts() -> None:
    assert Dice(ScriptedSource([6, 3])).roll("1d8-1d4").total == 3


def test_scripted_dice_refuse_impossible_results_and_running_dry() -> None:
    with pytest.raises(DiceError, match="d6"):
        Dice(ScriptedSource([7])).die(6)
    with pytest.raises(DiceError, match="ran out"):
        Dice(ScriptedSource([])).die(6)


def test_keyed_dice_are_hmac_of_the_counter() -> None:
    source = KeyedSource(SEED)
    first = source.randint(100)
    block = hmac.new(SEED, (0).to_bytes(8, "big"), hashlib.sha256).digest()
    assert first == int.from_bytes(block[:8], "big") % 100 + 1
    assert KeyedSource(SEED).randint(100) == first


@pytest.mark.parametrize("length", [16, 32, 63, 64, 65, 200])
def test_every_keyed_block_is_the_standard_hmac_whatever_the_seed_length(length: int) -> None:
    # Seeds longer than SHA-256's 64-byte block are hashed first (RFC 2104): both sides of
    # that boundary must agree with the standard library's HMAC.
    seed = bytes((7 * i + length) % 256 for i in range(length))
    source = KeyedSource(seed)
    for n in (0, 1, 255, 256, 2**32 + 5, 2**64 - 1):
        expected = hmac.new(seed, n.to_bytes(8, "big"), hashlib.sha256).digest()
        assert source.block(n) == expected


def test_keyed_dice_reject_and_redraw_exactly_as_the_specification_says() -> None:
    # The published rule, recomputed with the standard library: a die takes the first 8 bytes
    # of the next block that falls below the limit, and the counter counts every block drawn.
    seed = bytes(range(32))
    source = KeyedSource(seed)
    for faces in (1, 2, 3, 6, 7, 100, 999_999, 1_000_000):
        expected_counter = source.counter
        limit = 2**64 - 2**64 % faces
        while True:
            block = hmac.new(seed, expected_counter.to_bytes(8, "big"), hashlib.sha256).digest()
            expected_counter += 1
            x = int.from_bytes(block[:8], "big")
            if x < limit:
                break
        assert source.randint(faces) == x % faces + 1
        assert source.counter == expected_counter


def test_keyed_dice_keep_the_specification_when_the_same_faces_come_again() -> None:
    # The rejection limit of each number of faces is remembered after its first die.
    seed = bytes(range(32))
    source, counter = KeyedSource(seed), 0
    for faces in (100, 6, 100, 7, 100, 6, 7, 1000, 1000):
        while True:
            block = hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest()
            counter += 1
            x = int.from_bytes(block[:8], "big")
            if x < 2**64 - 2**64 % faces:
                break
        assert source.randint(faces) == x % faces + 1
        assert source.counter == counter


def test_a_remembered_number_of_faces_does_not_let_a_bad_one_through() -> None:
    source = KeyedSource(SEED)
    source.randint(6)
    for bad in (0, -6, 1001 * 1000):
        with pytest.raises(DiceError):
            source.randint(bad)
    for not_int in (6.0, "6"):
        with pytest.raises(TypeError):
            source.randint(not_int)  # type: ignore[arg-type]


def test_a_total_rolls_and_records_exactly_what_a_roll_does() -> None:
    for text in ("1d8+1d4+2", "2d6-1d4", "1d100", "-1d2", "3"):
        expr = parse(text)
        by_roll, by_total = Dice(KeyedSource(SEED)), Dice(KeyedSource(SEED))
        rolled = by_roll.roll(expr)
        assert by_total.total(expr) == rolled.total
        assert by_total.records == by_roll.records == list(rolled.dice)


def test_keyed_dice_are_roughly_uniform() -> None:
    source = KeyedSource(SEED)
    counts = Counter(source.randint(6) for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # 5 standard deviations of a binomial(60000, 1/6) is about 456.
    assert all(abs(c - 10_000) < 456 for c in counts.values()), counts


def test_secure_dice_stay_in_range() -> None:
    source = SecureSource()
    assert all(1 <= source.randint(20) <= 20 for _ in range(1000))


@given(st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=60))
def test_a_shuffle_is_a_permutation_and_replays_from_its_records(items: list[int]) -> None:
    dice = Dice(KeyedSource(SEED))
    shuffled = dice.shuffle(items)
    assert sorted(shuffled) == sorted(items)
    again = Dice(ScriptedSource([d.result for d in dice.records])).shuffle(items)
    assert again == shuffled


def test_a_hidden_shuffle_marks_its_dice_and_only_those_carry_the_hidden_key() -> None:
    dice = Dice(KeyedSource(b"\x01" * 32))
    dice.d100()
    shuffled = dice.shuffle(list(range(5)), "shuffle", hidden=True)
    dice.shuffle([1, 2], "open")
    records = [d.to_json() for d in dice.records]
    assert sorted(shuffled) == [0, 1, 2, 3, 4]
    assert [r.get("hidden") for r in records] == [None, True, True, True, True, None]
    assert "hidden" not in records[0] and "hidden" not in records[-1]


def test_a_budgeted_source_rolls_its_budget_then_refuses_the_next_die_without_drawing_it() -> None:
    inner = ScriptedSource([3, 5, 2])
    budgeted = BudgetedSource(inner, 2)
    assert [budgeted.randint(6), budgeted.randint(6)] == [3, 5]
    with pytest.raises(DiceError, match=r"^the request needs more than 2 dice, over the budget$"):
        budgeted.randint(6)
    assert (budgeted.used, inner.remaining) == (2, 1)
