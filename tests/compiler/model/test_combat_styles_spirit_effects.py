"""Spirit-combat special effects as rule data: the reference's thirteen, validated, journaled."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.combat_styles import CombatStylesRules
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset

RULESET = "combat-styles"
RULES = load_ruleset(RULESET).model
assert isinstance(RULES, CombatStylesRules)


def edited(tmp_path: Path, old: str, new: str) -> Path:
    """The bundled rules with one exact edit in ``spirit_effects.toml``."""
    root = tmp_path / "rules"
    shutil.copytree(RULES_ROOT / RULESET, root / RULESET)
    path = root / RULESET / "spirit_effects.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in spirit_effects.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def problems(root: Path) -> list[str]:
    with pytest.raises(RuleError) as info:
        load_ruleset(RULESET, root=root)
    return [str(p) for p in info.value.problems]


def test_the_references_thirteen_effects_are_there_with_who_may_take_them() -> None:
    takers = {e.id: (e.taker, e.requires.own_roll) for e in RULES.spirit_effects}
    assert takers == {
        "bleed_essence": ("either", "critical"),
        "compel_bargain": ("attacker", None),
        "drive_off": ("attacker", None),
        "leech_strength": ("attacker", "critical"),
        "obscure": ("defender", "critical"),
        "possess": ("attacker", None),
        "psychic_stun": ("either", None),
        "restrain": ("either", None),
        "spirit_lance": ("attacker", None),
        "sunder_binding": ("either", None),
        "suppress_ability": ("either", None),
        "turn_back": ("defender", None),
        "withdraw": ("defender", None),
    }
    mortal_only = {e.id for e in RULES.spirit_effects if e.requires.taker_nature == "mortal"}
    assert mortal_only == {"drive_off", "restrain", "suppress_ability"}
    assert RULES.spirit_effect("possess").requires.taker_nature == "spirit"
    assert RULES.spirit_effect("sunder_binding").requires.opponent_roll == "fumble"


def test_every_spirit_effect_is_our_reading_and_says_why() -> None:
    for effect in RULES.spirit_effects:
        assert effect.assumed and effect.note, effect.id


def test_an_effect_the_engine_applies_without_a_mechanic_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, 'mechanic = "spirit_lance"\n', "")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/spirit_effects.toml: entry spirit_effects 'spirit_lance': field 'mechanic': "
    )
    assert "narrative = true" in msg


def test_spirit_lance_without_its_number_of_rolls_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "params = { damage_rolls = 2 }\n", "")
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/spirit_effects.toml: entry spirit_effects 'spirit_lance': "
        "field 'params.damage_rolls': a spirit effect with mechanic 'spirit_lance' needs "
        "params.damage_rolls"
    )


def test_a_single_damage_roll_for_spirit_lance_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "damage_rolls = 2", "damage_rolls = 1")
    (msg,) = problems(root)
    assert "entry spirit_effects 'spirit_lance'" in msg and "damage_rolls" in msg
    assert "greater than or equal to 2" in msg


def test_an_unknown_mechanic_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, 'mechanic = "psychic_stun"', 'mechanic = "mind_blast"')
    (msg,) = problems(root)
    assert "entry spirit_effects 'psychic_stun'" in msg and "field 'mechanic'" in msg


def test_an_unknown_nature_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, 'taker_nature = "spirit"', 'taker_nature = "ghost"')
    (msg,) = problems(root)
    assert "entry spirit_effects 'possess'" in msg and "taker_nature" in msg


def test_a_condition_no_effect_leaves_is_refused_in_taker_free_of(tmp_path: Path) -> None:
    root = edited(tmp_path, 'taker_free_of = ["restrained"]', 'taker_free_of = ["bound"]')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/spirit_effects.toml: entry spirit_effects 'withdraw' > requires > "
        "taker_free_of #1: "
    )
    assert "no spirit effect leaves the condition 'bound'" in msg


def test_an_assumed_effect_without_a_note_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        'note = "Reference: O, roll the Spirit Damage twice and take the best."',
        'note = ""',
    )
    (msg,) = problems(root)
    assert "entry spirit_effects 'spirit_lance'" in msg


def test_the_gms_journal_lists_the_spirit_effects_and_what_arbiter_does() -> None:
    table = next(t for t in RULES.reference_tables() if t.id == "spirit_effects")
    assert table.columns[-1] == "Arbiter"
    rows = {row[0]: row for row in table.rows}
    assert len(rows) == 13
    assert rows["Spirit Lance"][-1] == "applied"
    assert rows["Turn Back"][-1] == "applied as end engagement"
    assert rows["Compel Bargain"][-1] == "GM's call (recorded)"
    assert rows["Drive Off"][2] == "mortals only; against a spirit"
    assert rows["Bleed Essence"][2] == "critical only"
