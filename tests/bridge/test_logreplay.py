"""Where a re-derived outcome first differs from the logged one (``replay --from-log``'s word
for a mismatch)."""

from __future__ import annotations

from arbiter.bridge.logreplay import first_difference


def test_equal_outcomes_have_no_difference() -> None:
    outcome = {"result": {"roll": 3, "rows": [1, 2]}, "rules_hash": "ab"}
    assert (
        first_difference(outcome, {"rules_hash": "ab", "result": {"rows": [1, 2], "roll": 3}})
        is None
    )


def test_the_first_difference_is_named_by_its_path_in_sorted_key_order() -> None:
    logged = {"result": {"text": "Right Leg", "roll": 3}, "state": {"hp": [5, 4]}}
    now = {"result": {"text": "Left Leg", "roll": 4}, "state": {"hp": [5, 3]}}
    assert first_difference(logged, now) == "result.roll: logged 3, re-derived 4"
    assert first_difference(logged["state"], now["state"]) == "hp.1: logged 4, re-derived 3"


def test_a_key_or_item_on_one_side_only_is_named() -> None:
    assert first_difference({"a": 1}, {"a": 1, "b": "x"}) == 'b: logged nothing, re-derived "x"'
    assert first_difference({"a": [1, 2]}, {"a": [1]}) == "a: 2 items logged, 1 re-derived"


def test_a_number_is_not_equal_to_a_flag_and_a_long_value_is_cut() -> None:
    assert first_difference({"a": 1}, {"a": True}) == "a: logged 1, re-derived true"
    long = "x" * 200
    assert first_difference({"a": long}, {"a": ""}) == f'a: logged "{"x" * 76}..., re-derived ""'
