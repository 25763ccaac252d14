"""The bundled hmk rule data says what the text says, and bad house rules are named precisely."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("hmk").model


def problems(tmp_path: Path, name: str, text: str) -> list[str]:
    """Load the bundled rules with one house-rule file; the problems reported."""
    folder = tmp_path / "house" / "hmk"
    folder.mkdir(parents=True)
    (folder / name).write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as info:
        load_ruleset("hmk", overlay=tmp_path / "house")
    return [str(p) for p in info.value.problems]


def test_the_critical_table_has_the_texts_21_rows_with_injury_and_penalties(rules) -> None:
    rows = rules.critical_hits.rows
    assert len(rows) == 21
    assert [r.extra_injury_percent for r in rows] == [25] * 5 + [50] * 5 + [100] * 6 + [150] * 4 + [
        200
    ]
    penalties = [(r.penalty.attribute, r.penalty.amount) if r.penalty else None for r in rows]
    assert penalties[12:] == [
        ("DEX", -5), ("AGL", -5), ("STR", -5), ("DEX", -5),
        ("HEA", -5), ("HEA", -5), ("AWA", -10), ("AWA", -10), ("HEA", -10),
    ]  # fmt: skip
    assert penalties[:12] == [None] * 12
    assert (
        rows[9].effects_text
        == "+50% Injury & KO opponent for 1d10+3 Rounds. -5% to INT and AWA rolls."
    )


def test_the_fumble_tables_have_12_and_10_rows_covering_the_d100(rules) -> None:
    assert len(rules.melee_fumbles.rows) == 12
    assert len(rules.missile_fumbles.rows) == 10
    assert rules.melee_fumbles.rows[11].text.startswith("Opened to strike.")
    assert rules.missile_fumbles.rows[4].range == (36, 65)


def test_penalties_initiative_and_reloading_are_the_texts(rules) -> None:
    assert [(r.id, r.penalty) for r in rules.range_penalties] == [
        ("short", 0), ("medium", -5), ("long", -10), ("maximum", -20),
    ]  # fmt: skip
    assert [(m.id, m.penalty) for m in rules.movement_penalties] == [
        ("walking", 0), ("jogging", -5), ("trotting", -10), ("running", -20),
    ]  # fmt: skip
    assert [(m.id, m.kind) for m in rules.initiative.modifiers] == [
        ("had-initiative", "consecutive"), ("attacking-from-ambush", "automatic_win"),
        ("ambushed", "automatic_loss"), ("heavy-casualties", "chosen"), ("afraid", "fixed"),
    ]  # fmt: skip
    reload = {r.id: r.actions for r in rules.reload_actions}
    assert (reload["bow"], reload["crossbow"]) == (1, 2)
    assert [(b.range, b.strength_divisor) for b in rules.thrown_weapons.bands] == [
        ("long", 4), ("maximum", 2),
    ]  # fmt: skip


def test_every_bundled_weapon_and_armor_is_marked_assumed(rules) -> None:
    kinds = {w.kind for w in rules.weapons}
    assert kinds == {"melee", "missile"}
    assert any(w.throwable for w in rules.weapons)
    assert all(w.assumed and w.note for w in rules.weapons)
    assert all(a.assumed for a in rules.armor if a.pv > 0)


def test_journal_tables_render_the_three_tables_as_printed(rules) -> None:
    tables = {t.id: t for t in rules.reference_tables()}
    critical = tables["critical-hits"]
    assert critical.columns == ("Die Roll", "Description", "Penalty", "Effects")
    assert critical.rows[0] == ("01–06", "Minor Wound", "", "+25% Injury")
    assert critical.rows[-1][:3] == ("98–100", "Vital Hit", "-10 HEA")
    assert tables["melee-fumbles"].rows[0] == (
        "01–05", "Hit nearest friend or innocent for normal injury + 10."
    )  # fmt: skip
    assert len(tables["weapons"].rows) == len(rules.weapons)
    assert any("assumed" in n for n in tables["armor"].notes)
    assert [t.id for t in rules.roll_tables()] == [
        "critical-hits", "melee-fumbles", "missile-fumbles",
    ]  # fmt: skip


def test_a_weapon_naming_an_unknown_reload_rule_is_named(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "weapons.toml")
        .read_text()
        .replace('reload = "bow"', 'reload = "sling"', 1)
    )
    (found,) = problems(tmp_path, "weapons.toml", text)
    assert "weapons.toml" in found
    assert "weapons 'short-bow'" in found
    assert "field 'reload'" in found
    assert "unknown reload rule 'sling'" in found


def test_a_weapon_without_ten_injury_values_is_refused(tmp_path: Path) -> None:
    text = '[[weapons]]\nid = "dagger"\nname = "Dagger"\nkind = "melee"\ninjury = [1, 2, 3]\n'
    (found,) = problems(tmp_path, "weapons.toml", text)
    assert "weapons 'dagger'" in found
    assert "injury needs exactly ten values, one per d10 result; got 3" in found


def test_an_unknown_effect_kind_is_refused_with_its_row(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "melee_fumbles.toml")
        .read_text()
        .replace('kind = "fall"', 'kind = "explode"', 1)
    )
    found = problems(tmp_path, "melee_fumbles.toml", text)
    assert any("melee_fumbles > rows #4" in p and "explode" in p for p in found), found


def test_an_effect_on_the_wrong_table_is_refused(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "melee_fumbles.toml")
        .read_text()
        .replace('{ kind = "fall" }', '{ kind = "bonus_strike", count = 1 }', 1)
    )
    (found,) = problems(tmp_path, "melee_fumbles.toml", text)
    assert "rows #4" in found
    assert "'bonus_strike' cannot appear on a fumble table" in found


def test_a_gap_in_the_critical_table_is_named(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "critical_hits.toml")
        .read_text()
        .replace("range = [7, 12]", "range = [8, 12]", 1)
    )
    (found,) = problems(tmp_path, "critical_hits.toml", text)
    assert "gap: no row covers 7–7 on 1d100" in found


def test_an_initiative_modifier_missing_its_values_is_refused(tmp_path: Path) -> None:
    text = (RULES_ROOT / "hmk" / "initiative.toml").read_text().replace("minimum = -3\n", "", 1)
    (found,) = problems(tmp_path, "initiative.toml", text)
    assert "initiative.toml" in found
    assert "modifiers 'heavy-casualties'" in found
    assert "needs 'minimum'" in found


def test_a_missing_range_band_the_engine_needs_is_named(tmp_path: Path) -> None:
    text = '[[range_penalties]]\nid = "point-blank"\nname = "Point blank"\npenalty = 0\n'
    folder = tmp_path / "root" / "hmk"
    folder.mkdir(parents=True)
    for path in (RULES_ROOT / "hmk").glob("*.toml"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "range_penalties.toml").write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as info:
        load_ruleset("hmk", root=tmp_path / "root")
    found = [str(p) for p in info.value.problems]
    assert (
        "hmk/range_penalties.toml: entry range_penalties: the engine needs an entry with id 'short'"
        in found
    )


def test_an_assumed_effect_without_a_note_is_refused(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "missile_fumbles.toml")
        .read_text()
        .replace(
            '{ kind = "break_weapon", chance = 100 }',
            '{ kind = "break_weapon", chance = 100, assumed = true }',
        )
    )
    found = problems(tmp_path, "missile_fumbles.toml", text)
    assert any("rows #4" in p and "needs a one-line note" in p for p in found), found


def test_a_house_rule_can_change_a_weapons_injury(tmp_path: Path) -> None:
    folder = tmp_path / "house" / "hmk"
    folder.mkdir(parents=True)
    (folder / "weapons.toml").write_text(
        '[[weapons]]\nid = "club"\nname = "Spiked club"\nkind = "melee"\n'
        "injury = [2, 2, 3, 3, 4, 4, 5, 5, 6, 8]\n",
        encoding="utf-8",
    )
    house = load_ruleset("hmk", overlay=tmp_path / "house")
    club = house.model.weapon("club")
    assert club is not None and club.injury[-1] == 8
    assert house.content_hash != load_ruleset("hmk").content_hash


def test_hand_bands_that_leave_a_gap_on_their_die_are_refused(tmp_path: Path) -> None:
    text = (
        (RULES_ROOT / "hmk" / "critical_hits.toml")
        .read_text()
        .replace('{ range = [6, 10], hand = "right" }', '{ range = [7, 10], hand = "right" }')
    )
    (found,) = problems(tmp_path, "critical_hits.toml", text)
    assert "rows #16 > effects #1" in found
    assert "bands must cover 1–10 of 1d10 in order, without gaps" in found


def _limits(old: str, new: str) -> str:
    """The bundled stat_block_limits.toml with one exact edit."""
    text = (RULES_ROOT / "hmk" / "stat_block_limits.toml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_a_stat_block_bound_under_what_the_engine_can_use_names_file_entry_and_field(
    tmp_path: Path,
) -> None:
    text = _limits("ip = { min = 1, max = 9999 }", "ip = { min = 0, max = 9999 }")
    (msg,) = problems(tmp_path, "stat_block_limits.toml", text)
    assert msg.startswith("house/hmk/stat_block_limits.toml: entry stat_block_limits: field 'ip': ")
    assert "min 0 is under 1, the least the engine can use" in msg


def test_a_stat_block_bound_whose_min_is_over_its_max_is_refused(tmp_path: Path) -> None:
    text = _limits("skills = { min = 0, max = 999 }", "skills = { min = 50, max = 5 }")
    (msg,) = problems(tmp_path, "stat_block_limits.toml", text)
    assert msg.startswith(
        "house/hmk/stat_block_limits.toml: entry stat_block_limits: field 'skills': "
    )
    assert "min 50 is over max 5: no value would do" in msg
