"""What validating a combat-styles exchange carrying two stat blocks costs, under the served rules.

Two figures, in microseconds per request, each the best of several repeats (so that other
processes sharing the machine disturb them less):

* validate — the body read as the server reads it (``strict_body``'s model, strict, from JSON
  text, with the rules in pydantic's validation context: ``bridge/engine/rule_context.py``),
  where each stat block's rule-data ids are checked (``StatBlock.model_post_init``);
* resolve — the same validation followed by the exchange itself (``ENGINE.resolve`` with keyed
  dice, the records built from both blocks).

To compare two trees (a change's cost), run it in each, interleaved, and keep each tree's
minimum: ``for i in 1 2 3 4 5; do for t in A B; do (cd $t && .venv/bin/python
benchmarks/stat_block_validation.py); done; done``.
Run: ``.venv/bin/python benchmarks/stat_block_validation.py [repeats]``.
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.rules import RuleSource, snapshot

FIGHTER = {
    "id": "a",
    "characteristics": {"str": 13, "con": 12, "siz": 14, "dex": 11, "int": 12, "pow": 10},
    "skills": {
        "combat_style": 70,
        "evade": 45,
        "endurance": 50,
        "willpower": 40,
        "brawn": 30,
        "athletics": 35,
        "acrobatics": 25,
        "ride": 20,
        "unarmed": 50,
    },
    "weapons": ["broadsword", "heater"],
    "armor": {"chest": "mail", "abdomen": "mail", "head": "padded"},
    "traits": ["daredevil"],
    "movement": 8,
}
FOE = {**FIGHTER, "id": "b", "weapons": ["dagger", "shortspear"], "traits": []}
BODY = {"combatants": [FIGHTER, FOE], "attacker": "a", "defender": "b", "effects": []}


def measure(repeats: int = 7, number: int = 1000) -> tuple[float, float]:
    """(validate, resolve) in microseconds per request, the best of ``repeats``."""
    rules = snapshot(RuleSource().load())
    served = rules.served["combat-styles"]
    model = served.engine.requests["exchange"]
    text = json.dumps(BODY)

    def validate() -> object:
        return model.model_validate_json(text, strict=True, context=rules.context)

    def resolve() -> object:
        dice = Dice(KeyedSource(b"stat-block-validation" * 2))
        return ENGINE.resolve(served.ruleset.model, "exchange", validate(), None, dice)

    valid = min(timeit.repeat(validate, number=number, repeat=repeats)) / number
    whole = min(timeit.repeat(resolve, number=number // 4, repeat=repeats)) / (number // 4)
    return valid * 1e6, whole * 1e6


if __name__ == "__main__":
    valid, whole = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    print(f"validate {valid:.1f} us   validate+resolve {whole:.1f} us")
