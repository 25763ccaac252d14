"""An outcome serialised once gives exactly the texts serialising each view would."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.outcomes import OutcomeText, visible
from bridge.records import canonical

PARTICIPANTS = ["ann", "bo", "cy", "é\u00e9", "zoë"]

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
envelopes = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1),
        "ruleset": st.sampled_from(["combat-styles", "hmk", "karmic"]),
        "type": st.text(min_size=1),
        "encounter": st.none() | st.text(),
        "rules_version": st.just("1.0.0"),
        "rules_hash": st.just("h" * 64),
        "result": st.dictionaries(st.text(), values, max_size=5),
        "dice": st.lists(
            st.fixed_dictionaries(
                {"expr": st.text(), "faces": st.integers(1, 100), "result": st.integers(1, 100)}
            ),
            max_size=5,
        ),
        "state": st.none() | st.dictionaries(st.text(), values, max_size=4),
        "private": st.dictionaries(st.sampled_from(PARTICIPANTS), values, max_size=4),
    }
)
declared = st.frozensets(st.sampled_from([*PARTICIPANTS, "nobody"]), max_size=4)


@settings(max_examples=300, deadline=None)
@given(envelopes, declared, declared)
def test_every_text_of_an_outcome_equals_the_canonical_json_of_that_view(
    outcome: dict[str, Any], one: frozenset[str], other: frozenset[str]
) -> None:
    text = OutcomeText(outcome)
    assert text.logged == canonical(outcome)
    assert text.dice == canonical(outcome["dice"])
    for participants in (one, other, one, frozenset()):
        assert text.shown(participants) == canonical(visible(outcome, participants))


def test_a_client_sees_its_own_hand_and_nobody_else_s_and_never_the_state() -> None:
    outcome = {
        "id": "k-1",
        "result": {"kind": "deal"},
        "dice": [],
        "state": {"deck": [3, 1, 2]},
        "private": {"ann": {"hand": ["A"]}, "bo": {"hand": ["K"]}},
    }
    text = OutcomeText(outcome)
    assert json.loads(text.shown(frozenset({"ann"}))) == {
        "id": "k-1",
        "result": {"kind": "deal"},
        "dice": [],
        "state": None,
        "private": {"ann": {"hand": ["A"]}},
    }
    assert json.loads(text.shown(frozenset()))["private"] == {}
    assert json.loads(text.logged) == outcome


def test_an_outcome_without_state_or_private_entries_is_sent_as_it_is_logged() -> None:
    outcome = {"id": "c-1", "result": {"kind": "check"}, "dice": [], "state": None, "private": {}}
    text = OutcomeText(outcome)
    assert text.shown(frozenset({"ann"})) is text.logged
