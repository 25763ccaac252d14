"""Special effects name the mechanic the engine gives them, and ``combat.effect_conditions``
names the effect governing each condition effects leave; a bad value is refused with file,
entry and field."""

from __future__ import annotations

from pathlib import Path

from arbiter.compiler.model.loader import load_ruleset
from tests.compiler.model.test_combat_styles_errors import edited, problems


def test_every_effect_the_engine_applies_names_its_mechanic() -> None:
    model = load_ruleset("combat-styles").model
    unnamed = {e.id for e in model.special_effects if e.mechanic is None}
    assert unnamed == {"duck_back", "scar_foe", "spoil_spell"}
    assert all(e.narrative for e in model.special_effects if e.id in unnamed)
    assert {e.id: e.mechanic for e in model.special_effects}["sunder"] == "sunder"


def test_an_unknown_mechanic_is_refused_naming_the_effect_and_field(tmp_path: Path) -> None:
    root = edited(tmp_path, "special_effects.toml", 'mechanic = "sunder"', 'mechanic = "shatter"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'sunder': field 'mechanic': "
    )
    assert "'sunder'" in msg  # the accepted values are listed


def test_an_applied_effect_without_a_mechanic_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "special_effects.toml", 'mechanic = "sunder"\n', "")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'sunder': field 'mechanic': "
        "an effect the engine applies names its mechanic"
    )


def test_an_unknown_senseless_location_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "special_effects.toml",
        'senseless_locations = ["head"]',
        'senseless_locations = ["noggin"]',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'stun_location' > params > "
        "senseless_locations #1: unknown hit location 'noggin'"
    )


def test_a_condition_governed_by_an_unknown_effect_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", 'entangled = "entangle"', 'entangled = "snare"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat: field 'effect_conditions.entangled': "
        "unknown special effect 'snare'"
    )


def test_a_condition_governed_by_an_effect_of_another_mechanic_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", 'blinded = "blind_opponent"', 'blinded = "grip"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat: field 'effect_conditions.blinded': "
        "'grip' has mechanic 'grip', but the blinded condition is left by an effect with "
        "mechanic 'blind_opponent'"
    )


def test_a_hold_governed_by_an_effect_without_an_escape_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "special_effects.toml",
        'escape = { skills = ["brawn", "unarmed"], chooser = "holder" }\ndescription = """With an',
        'description = """With an',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat: field 'effect_conditions.gripped': "
        "'grip' has no escape"
    )


def test_an_impaling_effect_without_a_withdraw_skill_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "special_effects.toml", 'withdraw_skill = "brawn"\n', "")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat: field 'effect_conditions.impaled': "
        "'impale' has no params.withdraw_skill"
    )


def test_the_special_effect_journal_says_how_arbiter_treats_each_effect() -> None:
    model = load_ruleset("combat-styles").model
    journal = next(t for t in model.reference_tables() if t.id == "special_effects")
    assert journal.columns[-1] == "Arbiter"
    handling = {row[0]: row[-1] for row in journal.rows}
    assert handling["Sunder"] == "applied"
    assert handling["Scar Foe"] == "GM's call (recorded)"
    assert handling["Circumvent Cover"] == (
        "GM's call (recorded); still applied as circumvent cover"
    )


def test_a_house_copy_is_named_in_the_journal_by_the_effect_it_works_as(tmp_path: Path) -> None:
    overlay = tmp_path / "combat-styles"
    overlay.mkdir()
    (overlay / "special_effects.toml").write_text(
        '[[special_effects]]\nid = "shatter"\nname = "Shatter"\ntaker = "attacker"\n'
        'mechanic = "sunder"\ndescription = "Sunder by another name."\n',
        encoding="utf-8",
    )
    model = load_ruleset("combat-styles", overlay=tmp_path).model
    journal = next(t for t in model.reference_tables() if t.id == "special_effects")
    assert {row[0]: row[-1] for row in journal.rows}["Shatter"] == "applied as sunder"


def test_an_effect_lacking_a_value_its_mechanic_reads_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "special_effects.toml", "params = { fatigue_per_round = 1 }\n", "")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'bleed': field "
        "'params.fatigue_per_round': an effect with mechanic 'bleed' needs params.fatigue_per_round"
    )


def test_a_copy_of_a_resisted_effect_without_resistance_is_refused(tmp_path: Path) -> None:
    overlay = tmp_path / "combat-styles"
    overlay.mkdir()
    (overlay / "special_effects.toml").write_text(
        '[[special_effects]]\nid = "hook"\nname = "Hook"\ntaker = "either"\n'
        'mechanic = "trip_opponent"\ndescription = "Trip Opponent that cannot be resisted."\n',
        encoding="utf-8",
    )
    (msg,) = problems(Path(__file__).parents[3] / "compiler" / "rules", overlay=tmp_path)
    assert "entry special_effects 'hook'" in msg
    assert "an effect with mechanic 'trip_opponent' needs resisted_by" in msg
