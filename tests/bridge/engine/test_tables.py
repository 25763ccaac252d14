"""Every ruleset answers ``draw`` from its rollable tables."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import ScriptedSource, parse
from arbiter.bridge.engine.envelope import Request, RequestError, resolve
from arbiter.bridge.engine.registry import get_engine
from arbiter.compiler.model.loader import load_ruleset


def draw(ruleset_id: str, table: str, results: list[int]) -> dict:
    ruleset = load_ruleset(ruleset_id)
    request = Request(id="d-1", ruleset=ruleset_id, type="draw", body={"table": table})
    engine = get_engine(ruleset_id)
    source = ScriptedSource(results)
    return resolve(request, engine, ruleset.model, ruleset.content_hash, None, source)


def test_every_ruleset_answers_draw_for_every_rollable_table_at_both_ends() -> None:
    drawn = 0
    for ruleset_id in ("combat-styles", "hmk", "karmic"):
        for table in load_ruleset(ruleset_id).model.roll_tables():
            expr = parse(table.die)
            (term,) = expr.terms
            lowest = draw(ruleset_id, table.id, [1] * term.count)["result"]
            highest = draw(ruleset_id, table.id, [term.faces] * term.count)["result"]
            assert (lowest["roll"], lowest["text"]) == (term.count, table.rows[0].text)
            assert (highest["roll"], highest["text"]) == (
                term.count * term.faces,
                table.rows[-1].text,
            )
            drawn += 1
    assert drawn >= 4


def test_a_combat_styles_location_draw_lands_on_the_row_of_the_roll() -> None:
    ruleset = load_ruleset("combat-styles")
    table = next(t for t in ruleset.model.roll_tables() if t.die == "1d20")
    row = table.rows[3]
    outcome = draw("combat-styles", table.id, [row.range[0]])
    result = outcome["result"]
    assert (result["roll"], result["text"], result["range"]) == (
        row.range[0],
        row.text,
        list(row.range),
    )
    assert outcome["dice"] == [{"expr": "1d20", "faces": 20, "result": row.range[0]}]


def test_an_hmk_critical_draw_carries_the_rows_structured_data() -> None:
    ruleset = load_ruleset("hmk")
    table = next(t for t in ruleset.model.roll_tables() if t.die == "1d100" and len(t.rows) == 21)
    row = table.rows[-1]
    result = draw("hmk", table.id, [100])["result"]
    assert result["text"] == row.text
    assert result["row"] == row.model_dump(mode="json", exclude={"range", "text"})


def test_drawing_from_an_unknown_table_names_the_known_ones() -> None:
    with pytest.raises(EngineError, match="no rollable table 'nope' in hmk \\(known: "):
        draw("hmk", "nope", [1])


def test_a_draw_without_a_table_is_a_request_error() -> None:
    ruleset = load_ruleset("hmk")
    request = Request(id="d-2", ruleset="hmk", type="draw", body={})
    with pytest.raises(RequestError, match=r"body\.table"):
        resolve(
            request,
            get_engine("hmk"),
            ruleset.model,
            ruleset.content_hash,
            None,
            ScriptedSource([]),
        )
