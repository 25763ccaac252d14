"""The corpus of keyed combat-styles request sequences (``benchmarks/combat_styles_corpus.py``)
covers every request kind of the engine, and its replay file, replayed as ``arbiter replay``
does, gives back every accepted outcome byte for byte."""

from __future__ import annotations

import json

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.dice import SecureSource
from arbiter.bridge.replaying import replay_entries
from arbiter.compiler.model.loader import RULES_ROOT, load_all
from benchmarks.combat_styles_corpus import corpus


def test_the_corpus_asks_every_request_kind_and_replays_to_the_same_outcomes() -> None:
    lines, accepted = corpus(40, steps=25)
    records = [json.loads(line) for line in lines]
    asked = {r["request"]["type"] for r in records}
    assert asked == set(ENGINE.requests)
    answered = {r["request"]["type"] for r in records if "outcome" in r}
    assert {"exchange", "choose_effects", "spirit_combat", "leaping_attack"} <= answered
    assert any("refused" in r for r in records)  # refusals are part of the corpus too
    replayed = replay_entries(accepted, load_all(RULES_ROOT, None), SecureSource())
    outcomes = [r["outcome"] for r in records if "outcome" in r]
    assert [json.dumps(o) for o in replayed] == [json.dumps(o) for o in outcomes]
