"""Where request bodies hold stat blocks, and a player's view of a body (every block of
somebody else's in it a reference)."""

from __future__ import annotations

from arbiter.bridge.stat_block_positions import BLOCK, ITEM, block_shape, foreign, masked
from arbiter.bridge.stat_block_references import matches
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE

HOLDS = frozenset({"ana"})


def test_the_places_of_stat_blocks_come_from_the_body_models() -> None:
    assert block_shape("hmk", "attack") == {
        "attacker": BLOCK,
        "defender": BLOCK,
        "bystander": BLOCK,
    }
    assert block_shape("combat-styles", "exchange") == {"combatants": {ITEM: BLOCK}}
    assert block_shape("karmic", "start_duel") == {"combatants": {ITEM: BLOCK}}
    # An effect choice and an initiative modifier carry an id but are no stat block.
    assert block_shape("combat-styles", "choose_effects") == {}
    assert block_shape("hmk", "initiative") == {}
    assert block_shape("hmk", "no-such-type") == {} == block_shape("tiny", "check")


def test_a_player_s_view_makes_every_block_of_somebody_else_s_a_reference() -> None:
    shape = block_shape("hmk", "attack")
    body = {"attacker": ANA, "defender": ORC, "bystander": "elf", "modifier": {"id": "x"}}
    assert list(foreign(body, HOLDS, shape)) == [("body.defender", "orc")]
    assert masked(body, HOLDS, shape) == {**body, "defender": REFERENCE}
    # A reference stays itself; a block the viewer holds, and an id, stay as written.
    assert masked({"defender": REFERENCE}, HOLDS, shape) == {"defender": REFERENCE}
    assert list(foreign({"attacker": {"id": "ana", "stored": True}}, HOLDS, shape)) == []
    exchange = {"combatants": [ANA, {"id": "elf", "x": 1}]}
    assert masked(exchange, HOLDS, block_shape("combat-styles", "exchange")) == {
        "combatants": [ANA, {"id": "elf", "stored": True}]
    }


def test_guessed_right_or_wrong_the_orc_s_block_compares_as_the_orc() -> None:
    shape = block_shape("hmk", "attack")
    logged = {"attacker": ANA, "defender": ORC}
    for guess in (ORC, {**ORC, "ip": 1}, {"id": "orc"}, REFERENCE):
        assert matches(masked({"attacker": ANA, "defender": guess}, HOLDS, shape), logged)
    assert not matches(masked({"attacker": ANA, "defender": {"id": "elf"}}, HOLDS, shape), logged)
    assert not matches(masked({"attacker": ANA, "defender": "orc"}, HOLDS, shape), logged)
