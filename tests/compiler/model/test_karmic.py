"""The karmic rule data: what the text says is there exactly; bad house rules are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.karmic import KarmicRules
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset


def rules() -> KarmicRules:
    model = load_ruleset("karmic").model
    assert isinstance(model, KarmicRules)
    return model


def test_the_default_deck_runs_from_minus_five_to_ten_and_holds_the_worked_example() -> None:
    deck = rules().cards
    assert sum(c.copies for c in deck) == 48
    assert {c.value for c in deck} == set(range(-5, 11))
    faces = {(c.value, c.hit) for c in deck}
    example = {(2, False), (-4, False), (3, True), (-2, False), (10, False), (-2, True), (5, False)}
    assert example <= faces
    assert all(c.assumed and c.note for c in deck)


def test_maneuver_difficulties_are_the_texts() -> None:
    by_id = {m.id: m for m in rules().maneuvers}
    assert {k: by_id[k].difficulty for k in ("disarm", "cling", "smash", "swat", "buck")} == {
        "disarm": -5,
        "cling": -4,
        "smash": -2,
        "swat": 0,
        "buck": 0,
    }
    assert by_id["flank"].difficulty_from == "target_finesse"
    assert by_id["swipe"].difficulty_from == "target_count"
    assert by_id["chop"].difficulty_from == "limb_vitality"
    assert by_id["smash"].damage_factor == 3
    assert by_id["smash"].weapon_kind == "impact"
    assert by_id["shield-bash"].at_range == 0
    assert [m for m in by_id if by_id[m].requires_initiative] == [
        "flank",
        "cling",
        "swipe",
        "smash",
    ]


def test_the_called_shot_tables_are_the_texts_for_normal_large_and_small_foes() -> None:
    table = {c.id: (c.normal, c.large, c.small) for c in rules().called_shots}
    assert table == {
        "head": (-5, -5, -8),
        "head-vitals": (-8, -6, None),
        "torso-vitals": (-6, -4, -10),
        "legs": (-3, 0, -6),
        "arms": (-3, -2, -5),
    }


def test_the_reference_tables_show_the_three_called_shot_tables() -> None:
    tables = {t.id: t for t in rules().reference_tables()}
    small = tables["called-shots-small"]
    assert small.name == "Small creature to-hit modifiers"
    assert ("Head vitals", "N/A") in small.rows
    assert tables["deck"].description == "48 cards."
    assert any("Disarming attack" in row[0] and row[1] == "-5" for row in tables["maneuvers"].rows)
    assert rules().roll_tables() == []  # the text rolls none of its tables


def test_the_texts_weapons_keep_their_numbers() -> None:
    weapons = {w.id: w for w in rules().weapons}
    assert (weapons["sword"].range, weapons["sword"].max_maneuvers) == (1, 3)
    assert weapons["spear"].range == 2
    assert weapons["medium-axe"].max_maneuvers == 2
    assert weapons["poinard"].max_maneuvers == 3
    assert weapons["small-shield"].max_damage == 1


def overlay(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "house" / "karmic"
    folder.mkdir(parents=True)
    (folder / name).write_text(text)
    return tmp_path / "house"


def problems(tmp_path: Path, name: str, text: str) -> list[str]:
    with pytest.raises(RuleError) as info:
        load_ruleset("karmic", overlay=overlay(tmp_path, name, text))
    return [str(p) for p in info.value.problems]


def test_a_defense_that_does_not_exist_is_named_with_file_entry_and_field(tmp_path: Path) -> None:
    text = (
        '[[maneuvers]]\nid = "attack"\nname = "Attack"\nkind = "offense"\ndefended_by = ["block"]\n'
    )
    (found,) = problems(tmp_path, "maneuvers.toml", text)
    assert "house/karmic/maneuvers.toml" in found
    assert "maneuvers 'attack'" in found
    assert "defended_by" in found
    assert "unknown maneuver 'block'" in found


def test_a_damage_multiplier_for_an_unknown_location_is_refused(tmp_path: Path) -> None:
    text = '[[damage_multipliers]]\nlocation = "tail"\nmultiplier = 2\n'
    found = problems(tmp_path, "damage.toml", text)
    assert any("unknown hit location 'tail'" in p for p in found)


def test_a_card_value_given_as_text_is_a_type_error(tmp_path: Path) -> None:
    text = '[[cards]]\nid = "plus-3"\nvalue = "3"\nhit = false\n'
    (found,) = problems(tmp_path, "deck.toml", text)
    assert "cards 'plus-3'" in found and "value" in found


def test_a_house_rule_can_add_a_card_to_the_deck(tmp_path: Path) -> None:
    text = '[[cards]]\nid = "plus-11"\nvalue = 11\nhit = true\n'
    model = load_ruleset("karmic", overlay=overlay(tmp_path, "deck.toml", text)).model
    assert isinstance(model, KarmicRules)
    assert sum(c.copies for c in model.cards) == 49


def test_the_texts_plus_one_and_flank_duration_are_data_and_our_readings_are_marked() -> None:
    model = rules()
    assert model.hands.off_hand_extra_maneuvers == 1
    assert model.hands.bare_hands == "unarmed"
    assert model.surprise.maneuver == "attack"
    assert model.odds.assumed_defense == "parry" and model.odds.assumed and model.odds.note
    lasting = {e.id: e for e in model.lasting_effects}
    assert {k: e.rounds for k, e in lasting.items()} == {
        "flanked": 1,  # the text: the rest of the round and the next
        "disarmed": 1,
        "clung": None,  # until a buck
        "entangled": None,  # until a chop
    }
    assert not lasting["flanked"].assumed
    assert lasting["disarmed"].assumed and lasting["disarmed"].note


def test_a_bare_hands_weapon_that_does_not_exist_is_named(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, "hands.toml", '[hands]\nbare_hands = "claws"\n')
    assert found.startswith("house/karmic/hands.toml")
    assert "hands" in found and "bare_hands" in found and "unknown weapon 'claws'" in found


def test_a_surprise_maneuver_that_is_a_defense_is_refused(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, "situations.toml", '[surprise]\nmaneuver = "parry"\n')
    assert "house/karmic/situations.toml" in found and "surprise" in found
    assert "maneuver" in found and "'parry' is a defense, not an offense" in found


def test_a_surprise_maneuver_made_without_a_weapon_is_refused(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, "situations.toml", '[surprise]\nmaneuver = "flank"\n')
    assert "'flank' cannot be a surprise attack" in found


def test_an_assumed_defense_that_is_an_offense_or_unknown_is_named(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, "odds.toml", '[odds]\nassumed_defense = "attack"\n')
    assert "house/karmic/odds.toml" in found and "assumed_defense" in found
    assert "'attack' is an offense, not a defense" in found
    (found,) = problems(tmp_path / "2", "odds.toml", '[odds]\nassumed_defense = "block"\n')
    assert "unknown maneuver 'block'" in found


def test_a_lasting_effect_the_engine_does_not_know_is_named(tmp_path: Path) -> None:
    text = '[[lasting_effects]]\nid = "stunned"\nname = "Stunned"\nrounds = 1\n'
    (found,) = problems(tmp_path, "lasting_effects.toml", text)
    assert "lasting_effects 'stunned'" in found and "id" in found


def test_a_negative_or_textual_duration_is_named(tmp_path: Path) -> None:
    text = '[[lasting_effects]]\nid = "flanked"\nname = "Flanked"\nrounds = -1\n'
    (found,) = problems(tmp_path, "lasting_effects.toml", text)
    assert "lasting_effects 'flanked'" in found and "rounds" in found
    text = '[hands]\noff_hand_extra_maneuvers = "1"\n'
    (found,) = problems(tmp_path / "2", "hands.toml", text)
    assert "hands" in found and "off_hand_extra_maneuvers" in found


def test_an_assumed_value_without_a_note_is_refused(tmp_path: Path) -> None:
    text = '[[lasting_effects]]\nid = "flanked"\nname = "Flanked"\nrounds = 2\nassumed = true\n'
    (found,) = problems(tmp_path, "lasting_effects.toml", text)
    assert "lasting_effects 'flanked'" in found and "note" in found


def test_a_stat_block_bound_under_what_the_engine_can_use_names_file_entry_and_field(
    tmp_path: Path,
) -> None:
    text = (RULES_ROOT / "karmic" / "stat_block_limits.toml").read_text(encoding="utf-8")
    text = text.replace("vitality = { min = 1,", "vitality = { min = 0,", 1)
    (msg,) = problems(tmp_path, "stat_block_limits.toml", text)
    assert msg.startswith(
        "house/karmic/stat_block_limits.toml: entry stat_block_limits: field 'vitality': "
    )
    assert "min 0 is under 1, the least the engine can use" in msg
