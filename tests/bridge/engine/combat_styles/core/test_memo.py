"""One bounded memo (``core/memo.py``) behind every cache of the engine's pure functions."""

from __future__ import annotations

import re
from pathlib import Path

from arbiter.bridge.engine.combat_styles.core.memo import LIMIT, Memo, memo_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter

ENGINE = Path(__file__).resolve().parents[5] / "bridge" / "engine" / "combat_styles"


def test_a_memo_keeps_answers_up_to_its_limit_then_starts_afresh() -> None:
    memo: Memo[int, str] = Memo()
    assert memo.get(1) is None
    for n in range(LIMIT):
        assert memo.put(n, str(n)) == str(n)
    assert (len(memo), memo.get(0), memo.get(LIMIT - 1)) == (LIMIT, "0", str(LIMIT - 1))
    memo.put(LIMIT, "new")
    assert (len(memo), memo.get(0), memo.get(LIMIT)) == (1, None, "new")


def test_a_memo_is_found_by_name_and_made_once() -> None:
    memos: dict[str, object] = {}
    first = memo_of(memos, "derived")
    assert memo_of(memos, "derived") is first and memo_of(memos, "other") is not first


def test_the_engines_caches_are_memos_after_an_exchange(table: Table, view: RulesView) -> None:
    duel(table, fighter("a"), fighter("b"))
    body = {"attacker": "a", "defender": "b", "parry_weapon": "heater"}
    table("exchange", body, [30, 80])  # a wins an effect: the choice waits (eligibility)
    table("exchange", {**body, "effects": []}, [30, 20, 4, 12])  # parried: a parry's block
    for name in ("derived", "magic_points", "damage_expr", "eligibility", "parry_block"):
        assert isinstance(view.memo[name], Memo), name
    assert isinstance(view.checks.targets, Memo)


def test_no_module_bounds_a_cache_of_its_own() -> None:
    hand_made = [
        str(path.relative_to(ENGINE))
        for path in ENGINE.rglob("*.py")
        if path.name != "memo.py"
        and re.search(r"len\([^)]*\)\s*[>=]+\s*(4096|_\w*KEPT)", path.read_text(encoding="utf-8"))
    ]
    assert hand_made == []
