"""The stat-block validation benchmark (``benchmarks/stat_block_validation.py``) measures a body
that is valid and an exchange that finishes: a refusal would time the wrong thing."""

from __future__ import annotations

import json

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.rules import RuleSource, snapshot
from benchmarks.stat_block_validation import BODY, measure


def test_the_benchmarked_exchange_is_valid_under_the_served_rules_and_finishes() -> None:
    rules = snapshot(RuleSource().load())
    served = rules.served["combat-styles"]
    model = served.engine.requests["exchange"]
    body = model.model_validate_json(json.dumps(BODY), strict=True, context=rules.context)
    dice = Dice(KeyedSource(b"stat-block-validation" * 2))
    out = ENGINE.resolve(served.ruleset.model, "exchange", body, None, dice)
    assert out.result["status"] == "complete"


def test_the_benchmark_reports_two_positive_figures() -> None:
    valid, whole = measure(repeats=1, number=8)
    assert valid > 0 and whole > 0
