"""Rule data is held to the engine's dice limits: build and hot reload refuse what it cannot roll."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.bridge.engine import dice
from arbiter.compiler.errors import RuleError, RuleProblem
from arbiter.compiler.model.dice_limits import MAX_DICE, MAX_FACES, dice_problem
from arbiter.compiler.model.loader import RULES_ROOT, load_all

BIG = "1000000d1000000"


def test_the_engine_rolls_under_the_limits_the_rule_data_is_checked_against() -> None:
    assert (dice.MAX_DICE, dice.MAX_FACES) == (MAX_DICE, MAX_FACES) == (200, 1000)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (BIG, f"'{BIG}': d1000000 is over the engine's limit of 1000 faces"),
        ("201d6", "'201d6' rolls 201 dice, over the engine's limit of 200"),
        ("100d6+101d4", "'100d6+101d4' rolls 201 dice, over the engine's limit of 200"),
        ("-1d1001", "'-1d1001': d1001 is over the engine's limit of 1000 faces"),
        ("0d6", "'0d6': a dice term needs at least one die of at least one face"),
        (
            "1d6+" + "+".join(["1"] * 100),
            "dice expression longer than 200 characters, the engine's limit",
        ),
    ],
)
def test_dice_beyond_the_engine_are_named_with_what_is_over(text: str, problem: str) -> None:
    assert dice_problem(text) == problem


@pytest.mark.parametrize(
    "text", ["1d4+1", "+2d10", "-1d8", "d100", "200d6", "1d1000", "+0", "12", "Drop weapon", "d"]
)
def test_rollable_dice_and_text_that_is_no_dice_pass(text: str) -> None:
    assert dice_problem(text) is None


term = st.tuples(st.sampled_from(["+", "-"]), st.integers(0, 300), st.integers(0, 1500))


@given(st.lists(term, min_size=1, max_size=4), st.booleans())
def test_the_check_refuses_exactly_what_the_engine_cannot_parse(
    terms: list[tuple[str, int, int]], spaced: bool
) -> None:
    gap = " " if spaced else ""
    text = gap.join(f"{sign}{gap}{count}d{faces}" for sign, count, faces in terms).lstrip("+")
    try:
        dice.parse(text)
        parsed = True
    except dice.DiceError:
        parsed = False
    assert (dice_problem(text) is None) == parsed, text


def overlay_weapon(root: Path, damage: str) -> Path:
    folder = root / "house" / "combat-styles"
    folder.mkdir(parents=True)
    weapon = (RULES_ROOT / "combat-styles" / "weapons.toml").read_text("utf-8")
    first = weapon.index("[[weapons]]")
    entry = weapon[first : weapon.index("[[weapons]]", first + 1)]
    changed = "\n".join(
        f'damage = "{damage}"' if line.startswith("damage = ") else line
        for line in entry.splitlines()
    )
    (folder / "weapons.toml").write_text(changed + "\n", "utf-8")
    return root / "house"


def test_a_rule_file_with_dice_beyond_the_engine_is_refused_naming_file_entry_and_field(
    tmp_path: Path,
) -> None:
    # What the hot reload and `arbiter build` both load: the bundled rules with a house rule.
    with pytest.raises(RuleError) as refused:
        load_all(RULES_ROOT, overlay_weapon(tmp_path, BIG))
    assert refused.value.problems == (
        RuleProblem(
            "house/combat-styles/weapons.toml",
            "weapons 'dagger'",
            "damage",
            f"'{BIG}': d1000000 is over the engine's limit of 1000 faces",
        ),
    )


def test_the_bundled_rules_roll_within_the_limits() -> None:
    assert sorted(load_all()) == ["combat-styles", "hmk", "karmic"]
