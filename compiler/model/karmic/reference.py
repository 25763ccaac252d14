"""The karmic journal tables a GM reads: the deck, the maneuvers, the called-shot tables."""

from __future__ import annotations

from arbiter.compiler.model.common import ReferenceTable
from arbiter.compiler.model.karmic.entries import CalledShot, Card, Maneuver


def deck_table(cards: list[Card]) -> ReferenceTable:
    """The deck: each face with its copies, and the total."""
    rows = tuple(
        (f"{c.value:+d}", "hit" if c.hit else "", str(c.copies))
        for c in sorted(cards, key=lambda c: (c.value, c.hit))
    )
    total = sum(c.copies for c in cards)
    notes = tuple(sorted({c.note for c in cards if c.assumed}))
    return ReferenceTable(
        id="deck",
        name="The deck",
        columns=("value", "hit", "copies"),
        rows=rows,
        description=f"{total} cards.",
        notes=tuple(f"assumed — {n}" for n in notes),
    )


def maneuver_table(maneuvers: list[Maneuver]) -> ReferenceTable:
    """Every maneuver: difficulty, kind, conditions and effect."""
    rows = []
    notes = []
    for m in maneuvers:
        difficulty = {
            "fixed": f"{m.difficulty:+d}",
            "target_finesse": "− target's finesse",
            "target_count": "− number of targets",
            "limb_vitality": "− limb's vitality",
        }[m.difficulty_from]
        conditions = [
            label
            for flag, label in (
                (m.requires_initiative, "needs the initiative"),
                (m.foe_size != "any", f"{m.foe_size} foes only"),
                (m.weapon_kind is not None, f"{m.weapon_kind} weapon"),
                (m.at_range is not None, f"at range {m.at_range}"),
                (m.once_per_round, "once per round"),
                (m.resolve_immediately, "resolved at once"),
                (m.ends_actions, "no other action this round"),
            )
            if flag
        ]
        rows.append((m.name, difficulty, m.kind, "; ".join(conditions), m.text))
        if m.assumed:
            notes.append(f"{m.name}: assumed — {m.note}")
    return ReferenceTable(
        id="maneuvers",
        name="Maneuvers",
        columns=("maneuver", "difficulty", "kind", "conditions", "effect"),
        rows=tuple(rows),
        notes=tuple(notes),
    )


def called_shot_table(called_shots: list[CalledShot], size: str) -> ReferenceTable:
    """The called-shot modifiers against a foe of ``size`` (normal, large, small)."""
    title = {"normal": "Called shots", "large": "Large creature to-hit modifiers"}.get(
        size, "Small creature to-hit modifiers"
    )
    rows = []
    for c in called_shots:
        mod = c.modifier(size)
        rows.append((c.name, "N/A" if mod is None else f"{mod:+d}"))
    return ReferenceTable(
        id=f"called-shots-{size}",
        name=title,
        columns=("hit location", "attack modifier"),
        rows=tuple(rows),
    )
