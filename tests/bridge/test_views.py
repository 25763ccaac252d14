"""One place makes each viewer's view of an outcome, and serialising it once gives exactly the
text serialising each view would."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bridge.records import canonical
from arbiter.bridge.views import GM, NOBODY, OutcomeText, Viewer, project

PARTICIPANTS = ["ann", "bo", "cy", "é\u00e9", "zoë"]

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
die = st.fixed_dictionaries(
    {"expr": st.text(), "faces": st.integers(1, 100), "result": st.integers(1, 100)},
    optional={"hidden": st.just(True)},
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
        "dice": st.lists(die, max_size=5),
        "state": st.none() | st.dictionaries(st.text(), values, max_size=4),
        "private": st.dictionaries(st.sampled_from(PARTICIPANTS), values, max_size=4),
    }
)
viewers = st.builds(
    Viewer,
    gm=st.booleans(),
    participants=st.frozensets(st.sampled_from([*PARTICIPANTS, "nobody"]), max_size=4),
    player=st.none() | st.sampled_from(["alice", "bob"]),
)


@settings(max_examples=150, deadline=None)
@given(envelopes, viewers, viewers)
def test_every_text_of_an_outcome_equals_the_canonical_json_of_that_view(
    outcome: dict[str, Any], one: Viewer, other: Viewer
) -> None:
    text = OutcomeText(outcome)
    assert text.logged == canonical(outcome)
    assert text.dice == canonical(outcome["dice"])
    for viewer in (one, other, one, NOBODY, GM):
        assert text.shown(viewer) == canonical(project(outcome, viewer))


@settings(max_examples=100, deadline=None)
@given(envelopes, viewers)
def test_no_view_holds_state_a_hidden_die_or_another_player_s_private_entry(
    outcome: dict[str, Any], viewer: Viewer
) -> None:
    view = json.loads(OutcomeText(outcome).shown(viewer))
    hidden = sum(1 for d in outcome["dice"] if d.get("hidden"))
    assert view["state"] is None
    assert not any(d.get("hidden") for d in view["dice"])
    assert view.get("hidden_dice", 0) == hidden
    assert len(view["dice"]) == len(outcome["dice"]) - hidden
    if not viewer.gm:
        assert set(view["private"]) <= viewer.participants
    else:
        assert view["private"] == json.loads(canonical(outcome["private"]))


def test_a_player_sees_his_own_hand_and_nobody_else_s_and_never_the_state() -> None:
    outcome = {
        "id": "k-1",
        "result": {"kind": "deal"},
        "dice": [],
        "state": {"deck": [3, 1, 2]},
        "private": {"ann": {"hand": ["A"]}, "bo": {"hand": ["K"]}},
    }
    text = OutcomeText(outcome)
    assert json.loads(text.shown(Viewer(False, frozenset({"ann"}), "alice"))) == {
        "id": "k-1",
        "result": {"kind": "deal"},
        "dice": [],
        "state": None,
        "private": {"ann": {"hand": ["A"]}},
    }
    assert json.loads(text.shown(NOBODY))["private"] == {}
    assert json.loads(text.shown(GM))["private"] == outcome["private"]
    assert json.loads(text.shown(GM))["state"] is None
    assert json.loads(text.logged) == outcome


def test_hidden_dice_are_withheld_from_everybody_the_gm_included_and_counted() -> None:
    shown = {"expr": "1d6", "faces": 6, "result": 4}
    outcome = {
        "id": "k-2",
        "result": {"kind": "start_duel"},
        "dice": [
            {"expr": "shuffle", "faces": 3, "result": 2, "hidden": True},
            shown,
            {"expr": "shuffle", "faces": 2, "result": 1, "hidden": True},
        ],
        "state": None,
        "private": {},
    }
    text = OutcomeText(outcome)
    for viewer in (GM, NOBODY, Viewer(False, frozenset({"ann"}), "alice")):
        view = json.loads(text.shown(viewer))
        assert view["dice"] == [shown] and view["hidden_dice"] == 2


def test_an_outcome_without_state_private_entries_or_hidden_dice_is_sent_as_it_is_logged() -> None:
    outcome = {"id": "c-1", "result": {"kind": "check"}, "dice": [], "state": None, "private": {}}
    text = OutcomeText(outcome)
    assert text.shown(Viewer(False, frozenset({"ann"}), "alice")) is text.logged
    assert text.shown(GM) is text.logged
    assert "hidden_dice" not in json.loads(text.logged)


def test_a_die_label_that_reads_like_the_hidden_mark_hides_nothing() -> None:
    die = {"expr": '"hidden":true', "faces": 6, "result": 4}
    outcome = {"id": "c-2", "result": {}, "dice": [die], "state": None, "private": {}}
    assert OutcomeText(outcome).shown(NOBODY) == canonical(outcome)


def test_every_view_in_bytes_is_its_text_and_one_object_per_shared_view() -> None:
    outcome = {
        "id": "s-1",
        "result": {"kind": "secret"},
        "dice": [{"expr": "shuffle", "faces": 3, "result": 2, "hidden": True}],
        "state": {"deck": [1, 2, 3]},
        "private": {"ann": {"card": 4}, "bo": {"card": 7}},
    }
    text = OutcomeText(outcome)
    ann = Viewer(False, frozenset({"ann"}), "alice")
    for viewer in (GM, NOBODY, ann, Viewer(False, frozenset({"zed"}), "zed")):
        assert text.shown_bytes(viewer) == text.shown(viewer).encode()
    assert text.logged_bytes == text.logged.encode() and text.dice_bytes == text.dice.encode()
    assert text.shown_bytes(GM) is text.shown_bytes(GM)
    assert text.shown_bytes(NOBODY) is text.shown_bytes(Viewer(False, frozenset(), "x"))
    assert not text.same_for_all


@settings(max_examples=100, deadline=None)
@given(envelopes, viewers)
def test_the_texts_of_an_outcome_read_back_from_its_row_are_those_it_was_logged_with(
    outcome: dict[str, Any], viewer: Viewer
) -> None:
    new = OutcomeText(outcome)
    read = OutcomeText.logged_as(json.loads(new.logged), new.dice, new.logged)
    assert (read.logged_bytes, read.dice_bytes, read.same_for_all) == (
        new.logged_bytes,
        new.dice_bytes,
        new.same_for_all,
    )
    for someone in (viewer, NOBODY, GM):
        assert read.shown_bytes(someone) == new.shown_bytes(someone)


def test_players_owning_the_same_entries_of_an_outcome_share_one_text_and_no_other_entry() -> None:
    outcome = {
        "id": "s-2",
        "result": {"kind": "secret"},
        "dice": [{"expr": "shuffle", "faces": 3, "result": 2, "hidden": True}],
        "state": {"deck": [1, 2, 3]},
        "private": {"ann": {"card": 4}, "bo": {"card": 7}},
    }
    text = OutcomeText(outcome)
    alice = Viewer(False, frozenset({"ann"}), "alice")
    # Another player holding ann and a participant this outcome says nothing of: the same text.
    carol = Viewer(False, frozenset({"ann", "cy"}), "carol")
    both = Viewer(False, frozenset({"ann", "bo"}), "dan")
    assert text.shown_bytes(alice) is text.shown_bytes(carol)
    assert json.loads(text.shown_bytes(carol))["private"] == {"ann": {"card": 4}}
    assert json.loads(text.shown_bytes(both))["private"] == {"ann": {"card": 4}, "bo": {"card": 7}}
    bob = Viewer(False, frozenset({"bo"}), "bob")
    assert json.loads(text.shown_bytes(bob))["private"] == {"bo": {"card": 7}}
    for viewer in (alice, carol, both, bob):
        assert text.shown_bytes(viewer) == canonical(project(outcome, viewer)).encode()
