"""One decision per request id: refusals before dice stay unlogged, refusals after dice are logged.

Test engines serve here, not the bundled ones: the refusals after dice need a request that
rolls exactly as many dice as it is told and then ends as told (refused, crashed, pending), and
a dice budget met on demand; no bundled request does either. Combat-styles bodies are checked
where their own rule is the subject (pending exchanges without an encounter).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from arbiter.bridge.commands.log import summary
from arbiter.bridge.deciding import Context, decide
from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody, SpiritCombatBody
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice, KeyedSource, ScriptedDiceError, ScriptedSource
from arbiter.bridge.engine.envelope import Request, resolve_with
from arbiter.bridge.fairness import verify_session
from arbiter.bridge.logreplay import replay_log
from arbiter.bridge.protocol import CLIENT_MESSAGE, RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.records import Roll, canonical, kept
from arbiter.bridge.refusals import (
    RefusedBeforeDice,
    pending_without_encounter,
    refusal_in,
    settle,
)
from arbiter.bridge.rules import RulesSnapshot, snapshot
from arbiter.bridge.store import Store
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.support import (
    ENGINE,
    Forbidden,
    Greedy,
    request,
    tiny_get_engine,
    tiny_source,
    write_rules,
)

SEED = b"k" * 32


def tiny_rules(tmp_path: Path) -> RulesSnapshot:
    return snapshot(tiny_source(write_rules(tmp_path / "rules")).load(), tiny_get_engine)


def message(
    rid: str, type: str, body: dict[str, Any], dice: list[int] | None = None, **extra: Any
) -> RequestMessage:
    sent = request(rid, type, body, **extra)
    parsed = CLIENT_MESSAGE.validate_python(sent if dice is None else {**sent, "dice": dice})
    assert isinstance(parsed, RequestMessage)
    return parsed


def context(max_dice: int = 10, scripted: bool = False) -> Context:
    return Context(
        "s", "tester", KeyedSource(SEED), allow_scripted_dice=scripted, max_dice=max_dice
    )


def test_a_request_refused_after_dice_is_logged_once_with_its_dice_and_resent_gets_the_same_error(
    tmp_path: Path,
) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context(max_dice=10)
    first = decide(message("g1", "greedy", {"dice": 11}), rules, store, ctx, 1.0)
    store.commit()
    counter = ctx.keyed.counter
    again = decide(message("g1", "greedy", {"dice": 11}), rules, store, ctx, 2.0)

    [row] = store.rolls()
    logged = json.loads(row.entry.outcome)
    assert first.refusal == again.refusal == ("dice_error", logged["result"]["message"])
    assert logged["result"] == {
        "kind": "refused",
        "code": "dice_error",
        "message": "the request needs more than 10 dice, over the budget",
    }
    assert [d["faces"] for d in logged["dice"]] == [6] * 10
    assert row.entry.dice == json.dumps(logged["dice"], separators=(",", ":"), sort_keys=True)
    assert logged["state"] is None and logged["private"] == {}
    assert row.entry.counter == 0 and not row.entry.scripted
    assert not first.replayed and again.replayed and again.row.seq == row.seq
    # The resend rolled nothing: the keyed dice did not move.
    assert ctx.keyed.counter == counter
    assert store.verify_chain() == []
    assert "refused dice_error" in summary(row)


def test_a_refusal_after_dice_leaves_the_encounter_state_as_it_was(tmp_path: Path) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context(max_dice=3)
    decide(message("t1", "tally", {"add": 4}, encounter="e"), rules, store, ctx, 1.0)
    decide(message("g1", "greedy", {"dice": 4}, encounter="e"), rules, store, ctx, 2.0)
    store.commit()
    encounter = store.encounter("e")
    assert encounter is not None and encounter.state == {"total": 4} and encounter.seq == 1
    assert store.count() == 2


def test_a_refusal_before_any_die_is_not_logged_and_the_id_may_be_sent_again(
    tmp_path: Path,
) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context()
    for _ in range(2):
        with pytest.raises(ProtocolError) as refused:
            decide(message("f1", "draw", {"table": "nope"}), rules, store, ctx, 1.0)
        assert refused.value.code == "rules_forbid"
    assert store.count() == 0 and ctx.keyed.counter == 0
    # The id is still free: a request that can be decided takes it.
    decided = decide(message("f1", "check", {"skill": 50}), rules, store, ctx, 2.0)
    assert decided.refusal is None and store.count() == 1


def test_scripted_dice_that_do_not_fit_are_refused_without_a_log_row(tmp_path: Path) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context(scripted=True)
    cases = [
        ({"dice": 3}, [1, 2], "ran out"),
        ({"dice": 1}, [1, 2], "not used"),
        ({"dice": 1}, [9], "d6"),
    ]
    for n, (body, dice, words) in enumerate(cases):
        with pytest.raises(ProtocolError) as refused:
            decide(message(f"s{n}", "greedy", body, dice=dice), rules, store, ctx, 1.0)
        assert refused.value.code == "dice_error" and words in refused.value.message
    assert store.count() == 0


def test_replay_from_the_log_re_derives_a_refusal_from_the_same_dice(tmp_path: Path) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context(max_dice=5)
    decide(message("c1", "check", {"skill": 50}), rules, store, ctx, 1.0)
    decide(message("g1", "greedy", {"dice": 6}), rules, store, ctx, 2.0)
    store.commit()
    rulesets = {rid: served.ruleset for rid, served in rules.served.items()}
    rows = list(store.rolls())
    report = replay_log(rows, rulesets, tiny_get_engine)
    assert report.ok and report.matched == 2, report.mismatches

    # A refusal the dice do not give is caught: the same row claiming another message.
    row = rows[1]
    outcome = json.loads(row.entry.outcome)
    outcome["result"]["message"] = "refused for another reason"
    forged = Roll(row.seq, row.entry._replace(outcome=json.dumps(outcome)), row.prev_hash, "")
    report = replay_log([forged], rulesets, tiny_get_engine)
    assert report.mismatches == [
        "row 2 (g1): outcome differs in result (first at result.message: logged "
        '"refused for another reason", re-derived "the request needs more than 5 dice, over '
        'the budget")'
    ]


def test_the_revealed_seed_verifies_the_dice_of_a_refused_row(tmp_path: Path) -> None:
    rules, store, ctx = tiny_rules(tmp_path), Store(tmp_path / "log.db"), context(max_dice=7)
    decide(message("g1", "greedy", {"dice": 8}), rules, store, ctx, 1.0)
    decide(message("c1", "check", {"skill": 50}), rules, store, ctx, 2.0)
    store.commit()
    check = verify_session(SEED, KeyedSource.commitment(SEED), store.rolls())
    assert check.ok and check.rolls == 2 and check.dice == 8


class RollsThen(BaseModel):
    """Rolls ``dice`` d6, then ends as ``then`` says."""

    dice: int
    then: str


class AfterDiceEngine:
    """An engine whose requests end after their dice: refused, crashed, pending or unusable."""

    ruleset_id = "tiny"
    requests: dict[str, type[BaseModel]] = {"rolls_then": RollsThen}  # noqa: RUF012

    def resolve(
        self, rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        assert isinstance(body, RollsThen)
        rolled = [dice.die(6) for _ in range(body.dice)]
        if body.then == "forbid":
            raise EngineError("the dice showed a forbidden move")
        if body.then == "crash":
            raise KeyError("an engine bug's internals")
        if body.then == "pend":
            return Resolution({"kind": "x", "status": "awaiting_choice"}, state={"p": 1})
        if body.then == "unusable":
            return Resolution({"kind": "x", "rolled": set(rolled)})  # a set is no JSON
        return Resolution({"kind": "x", "rolled": rolled})


def settled(tmp_path: Path, then: str, dice: int = 2, **extra: Any) -> JSON:
    served = tiny_rules(tmp_path).served["tiny"]
    req = Request(
        id="r", ruleset="tiny", type="rolls_then", body={"dice": dice, "then": then}, **extra
    )
    model, content = served.ruleset.model, served.ruleset.content_hash
    return settle(req, AfterDiceEngine(), model, content, None, Dice(ScriptedSource([3] * dice)))


@pytest.mark.parametrize(
    ("then", "code", "message"),
    [
        ("forbid", "rules_forbid", "the dice showed a forbidden move"),
        ("crash", "internal", "the tiny engine failed on this request"),
        ("pend", "encounter_required", "ends 'awaiting_choice'"),
    ],
)
def test_settle_turns_a_refusal_after_dice_into_the_refused_outcome(
    tmp_path: Path, then: str, code: str, message: str
) -> None:
    outcome = settled(tmp_path, then)
    refusal = refusal_in(outcome)
    assert refusal is not None and refusal.code == code and message in refusal.message
    assert outcome["dice"] == [{"expr": "1d6", "faces": 6, "result": 3}] * 2
    assert outcome["state"] is None and outcome["private"] == {} and outcome["id"] == "r"


@pytest.mark.parametrize("encounter", [None, "e"])
def test_settle_keeps_state_only_for_an_encounter_and_writes_the_envelope_as_kept_does(
    tmp_path: Path, encounter: str | None
) -> None:
    served = tiny_rules(tmp_path).served["tiny"]
    req = Request(id="t", ruleset="tiny", type="tally", body={"add": 4}, encounter=encounter)
    model, content = served.ruleset.model, served.ruleset.content_hash
    decided = settle(req, ENGINE, model, content, None, Dice(ScriptedSource([])))
    engine = resolve_with(req, ENGINE, model, content, None, Dice(ScriptedSource([])))
    assert engine["state"] == {"total": 4}
    expected = kept(engine, encounter)
    assert decided == expected and list(decided) == list(expected)
    assert canonical(decided) == canonical(expected)
    assert decided["state"] == (None if encounter is None else {"total": 4})


def test_settle_raises_a_refusal_before_any_die_and_judges_scripted_dice_apart(
    tmp_path: Path,
) -> None:
    with pytest.raises(RefusedBeforeDice) as before:
        settled(tmp_path, "forbid", dice=0)
    assert before.value.refusal == ("rules_forbid", "the dice showed a forbidden move")
    served = tiny_rules(tmp_path).served["tiny"]
    req = Request(id="r", ruleset="tiny", type="rolls_then", body={"dice": 2, "then": "ok"})
    with pytest.raises(ScriptedDiceError):
        settle(req, AfterDiceEngine(), served.ruleset.model, "h", None, Dice(ScriptedSource([3])))
    # A pending choice inside an encounter is an outcome like any other.
    assert refusal_in(settled(tmp_path, "pend", encounter="e")) is None


def test_a_request_that_may_await_a_choice_needs_an_encounter_or_its_choice_in_advance() -> None:
    for model in (ExchangeBody, SpiritCombatBody):
        body = {"attacker": "a", "defender": "d"}
        bare = Request(id="x", ruleset="combat-styles", type="exchange", body=body)
        assert "must carry 'effects'" in (
            pending_without_encounter(model, bare, model.model_validate(body)) or ""
        )
        chosen = model.model_validate({**body, "effects": []})
        assert pending_without_encounter(model, bare, chosen) is None
        named = bare.model_copy(update={"encounter": "e"})
        assert pending_without_encounter(model, named, model.model_validate(body)) is None
    assert pending_without_encounter(Greedy, bare, Greedy(dice=1)) is None
    assert pending_without_encounter(Forbidden, bare, Forbidden()) is None


def test_a_row_that_is_no_refusal_reads_as_none() -> None:
    assert refusal_in({"result": {"kind": "check", "roll": 5}}) is None


def after_dice_rules(tmp_path: Path) -> RulesSnapshot:
    """The tiny rules, served by :class:`AfterDiceEngine`."""
    return snapshot(
        tiny_source(write_rules(tmp_path / "rules")).load(), lambda _: AfterDiceEngine()
    )


def test_an_outcome_that_is_no_json_after_dice_is_logged_as_an_internal_refusal_naming_the_engine(
    tmp_path: Path,
) -> None:
    rules, store, ctx = after_dice_rules(tmp_path), Store(tmp_path / "log.db"), context()
    body = {"dice": 2, "then": "unusable"}
    decided = decide(message("u1", "rolls_then", body), rules, store, ctx, 1.0)
    store.commit()
    assert decided.refusal == ("internal", "the tiny engine produced an unusable outcome")
    [row] = store.rolls()
    logged = json.loads(row.entry.outcome)
    assert logged["result"]["message"] == "the tiny engine produced an unusable outcome"
    assert [d["faces"] for d in logged["dice"]] == [6, 6]
    # Without dice nothing is worth logging: the request is refused with the same words.
    with pytest.raises(ProtocolError) as refused:
        decide(message("u2", "rolls_then", {**body, "dice": 0}), rules, store, ctx, 2.0)
    assert (refused.value.code, str(refused.value)) == (
        "internal",
        "the tiny engine produced an unusable outcome",
    )
    assert len(list(store.rolls())) == 1
