"""The hold data the engine reads — ``combat.struggle.holds`` and Slip Free's
``params.frees`` — is refused when bad, with file, entry and field named."""

from __future__ import annotations

from pathlib import Path

from tests.compiler.model.test_combat_styles_errors import edited, problems

ORDER = 'holds = ["grappled", "gripped", "entangled", "pinned"]'
FREES = 'params = { frees = ["entangled", "gripped", "pinned", "grappled"] }'


def test_a_hold_listed_twice_in_the_struggle_order_is_refused(tmp_path: Path) -> None:
    bad = 'holds = ["grappled", "gripped", "entangled", "pinned", "gripped"]'
    (msg,) = problems(edited(tmp_path, "combat.toml", ORDER, bad))
    assert msg.startswith("combat-styles/combat.toml: entry combat: field 'struggle.holds': ")
    assert "listed twice: gripped" in msg


def test_a_hold_left_out_of_the_struggle_order_is_refused(tmp_path: Path) -> None:
    bad = 'holds = ["grappled", "gripped", "entangled"]'
    (msg,) = problems(edited(tmp_path, "combat.toml", ORDER, bad))
    assert msg.startswith("combat-styles/combat.toml: entry combat: field 'struggle.holds': ")
    assert "could never struggle free of pinned" in msg


def test_an_unknown_hold_in_the_struggle_order_is_refused(tmp_path: Path) -> None:
    bad = 'holds = ["grappled", "gripped", "entangled", "pinned", "hugged"]'
    (msg,) = problems(edited(tmp_path, "combat.toml", ORDER, bad))
    assert msg.startswith("combat-styles/combat.toml: entry combat > struggle")
    assert "holds #5" in msg
    assert "'grappled', 'gripped', 'entangled' or 'pinned'" in msg


def test_slip_free_without_its_list_of_holds_is_refused(tmp_path: Path) -> None:
    (msg,) = problems(edited(tmp_path, "special_effects.toml", FREES, "params = {}"))
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'slip_free': "
        "field 'params.frees': "
    )
    assert "an effect with mechanic 'slip_free' needs params.frees" in msg


def test_an_unknown_hold_for_slip_free_is_refused(tmp_path: Path) -> None:
    bad = 'params = { frees = ["entangled", "netted"] }'
    (msg,) = problems(edited(tmp_path, "special_effects.toml", FREES, bad))
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'slip_free' > params > frees #2"
    )
