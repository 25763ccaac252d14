"""The combat-styles journal tables: one per concern, well formed, with the right numbers."""

from __future__ import annotations

from arbiter.compiler.model.combat_styles import CombatStylesRules
from arbiter.compiler.model.common import ReferenceTable
from arbiter.compiler.model.loader import load_ruleset

RULES = load_ruleset("combat-styles").model
assert isinstance(RULES, CombatStylesRules)
TABLES = {t.id: t for t in RULES.reference_tables()}


def column(table: ReferenceTable, name: str) -> list[str]:
    i = table.columns.index(name)
    return [row[i] for row in table.rows]


def test_there_is_one_table_per_concern() -> None:
    expected = {
        "grades",
        "success_levels",
        "differential",
        "special_effects",
        "spirit_effects",
        "size_and_reach",
        "parry_reduction",
        "weapons",
        "shields",
        "ranged_weapons",
        "armor",
        "armor_materials",
        "hit_locations_humanoid",
        "hit_points",
        "wound_levels",
        "damage_modifiers",
        "spirit_damage",
        "situational_close",
        "situational_ranged",
        "skill_caps",
        "impale_effects",
        "distance_penalties",
        "combat_numbers",
        "fatigue_levels",
        "actions",
        "action_points_and_initiative",
        "combat_styles",
        "style_traits",
        "weapon_traits",
    }
    assert set(TABLES) == expected
    assert len(TABLES) == len(RULES.reference_tables())


def test_every_row_has_one_cell_per_column() -> None:
    for table in TABLES.values():
        assert table.rows, table.id
        for row in table.rows:
            assert len(row) == len(table.columns), (table.id, row)
            assert all(isinstance(cell, str) and cell for cell in row), (table.id, row)


def test_the_differential_table_reads_as_the_reference_prints_it() -> None:
    table = TABLES["differential"]
    assert table.columns == (
        "Protagonist \\ Antagonist",
        "Critical Success",
        "Success",
        "Failure",
        "Fumble",
    )
    assert table.rows[0] == (
        "Critical Success",
        "none",
        "protagonist 1",
        "protagonist 2",
        "protagonist 3",
    )
    assert table.rows[3] == ("Fumble", "antagonist 3", "antagonist 2", "none", "none")


def test_full_suits_of_armour_give_the_reference_initiative_penalties() -> None:
    table = TABLES["armor"]
    penalties = column(table, "Initiative penalty, full suit (7 locations)")
    assert penalties == ["3", "2", "3", "5", "6", "7", "9", "10"]


def test_the_grade_table_shows_multipliers_and_the_herculean_assumption() -> None:
    table = TABLES["grades"]
    assert column(table, "Skill") == [
        "no roll: succeeds",
        "skill ×2",
        "skill ×3/2",
        "skill ×1",
        "skill ×2/3",
        "skill ×1/2",
        "skill ×1/10",
        "no attempt possible",
    ]
    assert any(note.startswith("Herculean: assumed") for note in table.notes)


def test_the_hit_location_table_shows_the_d20_ranges_and_hit_points() -> None:
    table = TABLES["hit_locations_humanoid"]
    assert column(table, "1d20") == ["1–3", "4–6", "7–9", "10–12", "13–15", "16–18", "19–20"]
    assert column(table, "Hit points")[3] == "base +2"
    hp = TABLES["hit_points"]
    chest = next(row for row in hp.rows if row[0] == "Chest")
    assert chest[1:] == ("3", "4", "5", "6", "7", "8", "9", "10")
    arm = next(row for row in hp.rows if row[0] == "Right Arm")
    assert arm[1:] == ("1", "1", "2", "3", "4", "5", "6", "7")


def test_every_assumed_entry_is_named_in_some_table_note() -> None:
    notes = " ".join(note for t in TABLES.values() for note in t.notes)
    for effect in (*RULES.special_effects, *RULES.spirit_effects):
        if effect.assumed:
            assert effect.name in notes
    for weapon in (*RULES.weapons, *RULES.ranged_weapons):
        if weapon.assumed:
            assert weapon.name in notes


def test_the_only_rollable_table_is_the_hit_location_table() -> None:
    assert [t.id for t in RULES.roll_tables()] == ["humanoid"]


def test_the_text_s_sample_styles_are_all_present() -> None:
    names = {s.name.split(" (")[0] for s in RULES.combat_styles}
    for name in (
        "Infantry",
        "Slinger",
        "Misian Prisk",
        "Sulkar Berserker",
        "Jirani Ranger",
        "Flummish Knight",
        "Adras Spy",
        "Nozuni Warrior",
        "Aerial Death",
        "Crushing Doom",
    ):
        assert name in names


def test_the_manoeuvre_numbers_are_in_the_gms_journal() -> None:
    rows = dict(TABLES["combat_numbers"].rows)  # type: ignore[arg-type]
    assert "against a quadruped +1 grade, which may use Athletics" in rows["Leaping attack"]
    assert rows["Outmaneuver"].startswith("group opposed Evade, 1 AP from every participant")
    assert rows["Sweep attack"] == "one attack roll for every target, each defends separately"
    assert rows["Aerial combat"].startswith("opposed Fly or Ride at the start of each Round")
    assert rows["Mounted rider"].startswith(
        "combat skills capped by Ride; defends his mount for 1 AP"
    )
