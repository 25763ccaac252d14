"""Document ids: 16 alphanumeric characters, derived from stable names, unique."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.compiler.foundry.ids import document_id, is_valid_id

names = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12),
    min_size=1,
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(names)
def test_every_id_is_sixteen_alphanumeric_characters(parts: list[str]) -> None:
    assert is_valid_id(document_id(*parts))


def test_the_same_names_give_the_same_id_in_every_build() -> None:
    # Pinned values: a change here would move every document a GM has linked to.
    assert document_id("RollTable", "hmk", "critical") == "5bxI01EqgVFoAjv8"
    assert document_id("TableResult", "hmk", "critical", "1-4") == "hGnJaL6xRkXBeQuc"


def test_names_are_separated_not_concatenated() -> None:
    assert document_id("a-b", "c") != document_id("a", "b-c")
    assert document_id("ab") != document_id("a", "b")


def test_ids_of_ten_thousand_rows_are_all_different() -> None:
    ids = {
        document_id("TableResult", ruleset, table, f"{n}-{n}")
        for ruleset in ("combat-styles", "hmk", "karmic", "tiny")
        for table in ("critical", "fumble", "location", "injury", "x")
        for n in range(500)
    }
    assert len(ids) == 4 * 5 * 500


def test_an_empty_name_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        document_id("RollTable", "", "critical")
    with pytest.raises(ValueError, match="non-empty"):
        document_id()


def test_the_validity_check_rejects_malformed_ids() -> None:
    assert not is_valid_id("short")
    assert not is_valid_id("0123456789abcdef0")
    assert not is_valid_id("0123456789abcde-")
    assert is_valid_id("0123456789abcdeF")
