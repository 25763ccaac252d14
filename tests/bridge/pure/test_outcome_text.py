"""The outcome's texts are the canonical JSON of its dice and of the whole envelope, whatever they
hold: a die's text that reads like the JSON around it, lists inside the dice, keys around
``dice``, and what orjson cannot write (the canonical fallbacks)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbiter.bridge.records import canonical
from arbiter.bridge.views import NOBODY, OutcomeText


def envelope(dice: Any, **extra: Any) -> dict[str, Any]:
    return {
        "id": "c-1",
        "ruleset": "tiny",
        "type": "check",
        "encounter": None,
        "rules_version": "1.0.0",
        "rules_hash": "h" * 64,
        "result": {"kind": "check", "rolls": [3, [4]]},
        "dice": dice,
        "state": None,
        "private": {},
        **extra,
    }


def die(expr: str, **extra: Any) -> dict[str, Any]:
    return {"expr": expr, "faces": 6, "result": 4, **extra}


OUTCOMES = {
    "no dice": envelope([]),
    "plain dice": envelope([die("1d100 attack"), die("1d6", hidden=True)]),
    "a die's text holding the text after the dice": envelope([die('],"encounter":'), die("1d6")]),
    "a die's text ending in a bracket": envelope([die("a]"), die("b],"), die("[")]),
    "a die's text with quotes and backslashes": envelope([die('\\"],"encounter":\\'), die("x")]),
    "a die holding a list before a member named encounter": envelope(
        [{"a": [1], "encounter": 2}, die("1d6")]
    ),
    "a die holding a list at its end": envelope([{"a": [1, [2]]}, die("1d6")]),
    "dice as a list of lists": envelope([[1, 2], [3]]),
    "a key after the dice and before encounter": envelope([die("1d6")], dice_total=[4]),
    "a key before the dice": envelope([die("1d6")], ante=[1]),
    "no encounter key": {"id": "c-2", "result": {}, "dice": [die("1d4")], "state": None},
    "no dice key": {"id": "c-3", "result": {"x": [1]}, "state": None, "private": {}},
    "dice that are not a list": envelope({"expr": "1d6"}),
    "an integer orjson cannot write in the result": envelope(
        [die("1d6")], result={"big": 2**70, "list": [1]}
    ),
    "an integer orjson cannot write in a die": envelope([die("1d6", big=2**70)]),
    "text beyond ASCII": envelope([die("1d6 é 𝄞 [feu]")], result={"é": "naïve"}),
}


@pytest.mark.parametrize("outcome", OUTCOMES.values(), ids=OUTCOMES.keys())
def test_the_texts_of_an_outcome_are_the_canonical_json_of_its_dice_and_of_itself(
    outcome: dict[str, Any],
) -> None:
    text = OutcomeText(outcome)
    assert text.dice == canonical(outcome.get("dice", []))
    assert text.logged == canonical(outcome)
    assert (text.dice_bytes, text.logged_bytes) == (text.dice.encode(), text.logged.encode())


@pytest.mark.parametrize("where", ["dice", "result"])
def test_an_outcome_holding_text_that_is_not_unicode_is_refused_as_not_json(where: str) -> None:
    outcome = envelope([die("1d6")])
    if where == "dice":
        outcome["dice"] = [die("\ud800")]
    else:
        outcome["result"] = {"label": "\ud800"}
    with pytest.raises(ValueError):
        OutcomeText(outcome)


@pytest.mark.parametrize(
    ("dice", "hidden"),
    [
        ([], False),
        ([die("1d100 attack"), die("1d20")], False),
        ([die("shuffle the hand"), die('"hidden":true')], False),
        ([die("1d6", hidden=False)], False),
        ([die("1d6", hidden=True)], True),
        ([die("shuffle"), die("1d6", hidden=True)], True),
    ],
)
def test_an_outcome_is_the_same_for_every_viewer_exactly_when_no_die_is_hidden(
    dice: list[dict[str, Any]], hidden: bool
) -> None:
    text = OutcomeText(envelope(dice))
    assert text.same_for_all is not hidden
    if not hidden:
        assert text.shown_bytes(NOBODY) is text.logged_bytes
    else:
        assert "hidden_dice" in json.loads(text.shown_bytes(NOBODY))
