"""The whole hmk ruleset: its files, the references between them, and its journal tables."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from arbiter.compiler.model.common import Path, Problem, ReferenceTable, RulesetBase
from arbiter.compiler.model.hmk.combat import Combat, Initiative, MovementPenalty, StrikePenalty
from arbiter.compiler.model.hmk.effects import AttributeRoll, Effect
from arbiter.compiler.model.hmk.gear import Armor, ReloadRule, ThrownWeapons, Weapon
from arbiter.compiler.model.hmk.limits import StatBlockLimits
from arbiter.compiler.model.hmk.tables import CriticalRow, CriticalTable, FumbleRow, FumbleTable

RANGE_IDS = ("short", "medium", "long", "maximum")
"""The range bands the engine looks up by id."""
STILL = "walking"
"""The movement the engine assumes when none is declared."""

CRITICAL_ONLY = frozenset({"bonus_strike", "ignore_armor"})
"""Effects that only make sense on the critical table (they need a struck victim)."""
FUMBLE_ONLY = frozenset({"strike_bystander", "wound_self", "opened_to_strike"})
"""Effects that only make sense on a fumble table (they need a fumbler)."""


class HmkRules(RulesetBase):
    """Hurting, Maiming, and Killing: d100 strikes against Defensive Tactics."""

    ruleset_id: ClassVar[str] = "hmk"
    combatant_gear: ClassVar[dict[str, tuple[str, ...]]] = {
        "weapon": ("weapons",),
        "weapons": ("weapons",),
        "armor": ("armor",),
    }

    combat: Combat
    initiative: Initiative
    range_penalties: list[StrikePenalty]
    movement_penalties: list[MovementPenalty]
    critical_hits: CriticalTable
    melee_fumbles: FumbleTable
    missile_fumbles: FumbleTable
    thrown_weapons: ThrownWeapons
    reload_actions: list[ReloadRule]
    weapons: list[Weapon]
    armor: list[Armor]
    stat_block_limits: StatBlockLimits

    def cross_check(self) -> Iterator[Problem]:
        yield from super().cross_check()
        reloads = {r.id for r in self.reload_actions}
        for i, weapon in enumerate(self.weapons):
            if weapon.reload is not None and weapon.reload not in reloads:
                yield Problem(
                    path=("weapons", i, "reload"),
                    message=f"unknown reload rule {weapon.reload!r} (known: {_known(reloads)})",
                )
        yield from _required_ids("range_penalties", self.range_penalties, RANGE_IDS)
        yield from _required_ids("movement_penalties", self.movement_penalties, (STILL,))
        consecutive = [
            i for i, m in enumerate(self.initiative.modifiers) if m.kind == "consecutive"
        ]
        for i in consecutive[1:]:
            yield Problem(
                path=("initiative", "modifiers", i, "kind"),
                message="only one 'consecutive' modifier may exist",
            )
        yield from _effects_allowed("critical_hits", self.critical_hits, FUMBLE_ONLY, "critical")
        for key in ("melee_fumbles", "missile_fumbles"):
            yield from _effects_allowed(key, getattr(self, key), CRITICAL_ONLY, "fumble")

    def weapon(self, weapon_id: str) -> Weapon | None:
        return next((w for w in self.weapons if w.id == weapon_id), None)

    def reference_tables(self) -> list[ReferenceTable]:
        """Journal pages: the three d100 tables as printed, penalties, gear, initiative."""
        return [
            self._combat_reference(),
            self._critical_reference(),
            _fumble_reference(self.melee_fumbles),
            _fumble_reference(self.missile_fumbles),
            ReferenceTable(
                id="initiative_modifiers",
                name="Initiative Modifiers",
                columns=("Circumstance", "Modifier"),
                rows=tuple((m.circumstance, m.modifier) for m in self.initiative.modifiers),
                description=f"Each party rolls {self.initiative.die} + modifiers; highest acts first.",
                notes=_notes([*self.initiative.modifiers, self.initiative.ties], "ties"),
            ),
            _penalty_reference(
                "range_penalties", "Range Penalties to Strike", "Range", self.range_penalties
            ),
            _penalty_reference(
                "movement_penalties",
                "Movement Penalties to Strike",
                "Speed",
                self.movement_penalties,
            ),
            ReferenceTable(
                id="thrown_weapons",
                name="Thrown Weapons",
                columns=("Range", "Up to (feet)"),
                rows=tuple(
                    (b.range.title(), f"STR / {b.strength_divisor}")
                    for b in self.thrown_weapons.bands
                ),
                description=self.thrown_weapons.text,
                notes=_notes([self.thrown_weapons.ready], "readying"),
            ),
            ReferenceTable(
                id="reload_actions",
                name="Reloading",
                columns=("Weapon", "Actions"),
                rows=tuple((r.name, str(r.actions)) for r in self.reload_actions),
                notes=(*(r.text for r in self.reload_actions), *_notes(self.reload_actions)),
            ),
            self._weapon_reference(),
            ReferenceTable(
                id="armor",
                name="Armor",
                columns=("Armor", "PV"),
                rows=tuple((a.name, str(a.pv)) for a in self.armor),
                description="Armor absorbs injury equal to its Protection Value (PV) from every blow.",
                notes=_notes(self.armor),
            ),
        ]

    def _combat_reference(self) -> ReferenceTable:
        c = self.combat
        rows = (
            ("Strike", f"d{c.strike_die} at or under the effective chance"),
            (
                "Effective chance",
                f"skill − DT/{c.undefended_dt_divisor} (− full DT + specializations when the"
                f" target defends) − range − movement; never below {c.minimum_chance}%",
            ),
            ("Critical hit", f"natural roll under 1/{c.critical_divisor} of the weapon skill"),
            ("Fumble", f"roll of {c.fumble_from}–{c.strike_die}, whatever the skill"),
            (
                "Injury",
                f"weapon's d10 column + STR/{c.strength_divisor} + skill/{c.skill_divisor}"
                " − armor PV (nothing at or below 0)",
            ),
            ("0 IP", f"unconscious; dead after HEA/{c.death_rounds_divisor} rounds without aid"),
            ("Terminal Injury", f"IP below −(HEA/{c.terminal_injury_divisor}): dead at once"),
            ("Attribute roll", f"d{c.attribute_roll.die} at or under the attribute"),
        )
        return ReferenceTable(
            id="combat",
            name="Strike and Injury",
            columns=("Rule", "How"),
            rows=rows,
            description="Fractions round down.",
            notes=(
                f"attribute roll: assumed — {c.attribute_roll.note}",
                f"walk only: assumed — {c.walk_only.note}",
            ),
        )

    def _critical_reference(self) -> ReferenceTable:
        table = self.critical_hits
        rows = []
        for row in table.rows:
            penalty = f"{row.penalty.amount} {row.penalty.attribute}" if row.penalty else ""
            rows.append((_span(row.range), row.name, penalty, row.effects_text))
        return ReferenceTable(
            id=table.id,
            name=table.name,
            columns=("Die Roll", "Description", "Penalty", "Effects"),
            rows=tuple(rows),
            description=table.description,
            notes=_notes(_effects_of(table)),
        )

    def _weapon_reference(self) -> ReferenceTable:
        rows = []
        for w in self.weapons:
            extra = w.reload or ("thrown" if w.throwable else "")
            ranges = "/".join(str(r) for r in w.ranges) if w.ranges else ""
            rows.append((w.name, w.kind, *(str(v) for v in w.injury), ranges, extra))
        return ReferenceTable(
            id="weapons",
            name="Weapons",
            columns=(
                "Weapon",
                "Kind",
                *(str(n) for n in range(1, 11)),
                "Ranges (ft)",
                "Reload/throw",
            ),
            rows=tuple(rows),
            description="Injury by 1d10 roll, before STR/10 + skill/10 and armor PV.",
            notes=_notes(self.weapons),
        )


def _fumble_reference(table: FumbleTable) -> ReferenceTable:
    return ReferenceTable(
        id=table.id,
        name=table.name,
        columns=("Die Roll", "Effect"),
        rows=tuple((_span(r.range), r.text) for r in table.rows),
        description=table.description,
        notes=_notes(_effects_of(table)),
    )


def _penalty_reference(
    ident: str, name: str, heading: str, rows: Sequence[StrikePenalty]
) -> ReferenceTable:
    return ReferenceTable(
        id=ident,
        name=name,
        columns=(heading, "Penalty"),
        rows=tuple((r.name, f"{r.penalty}%") for r in rows),
        notes=_notes(rows),
    )


def _span(rng: tuple[int, int]) -> str:
    lo, hi = rng
    return f"{lo:02d}" if lo == hi else f"{lo:02d}–{hi:02d}"


def _effects_of(table: CriticalTable | FumbleTable) -> list[Effect]:
    found: list[Effect] = []
    for row in table.rows:
        stack: list[Any] = list(row.effects)
        while stack:
            effect = stack.pop(0)
            found.append(effect)
            if isinstance(effect, AttributeRoll):
                stack.extend(effect.on_failure)
    return found


def _notes(items: Sequence[Any], label: str = "") -> tuple[str, ...]:
    out = []
    for item in items:
        if getattr(item, "assumed", False):
            name = getattr(item, "name", None) or getattr(item, "id", None) or label
            if isinstance(item, Effect):
                name = getattr(item, "kind", label)
            out.append(f"{name}: assumed — {item.note}")
    return tuple(dict.fromkeys(out))


def _known(ids: set[str]) -> str:
    return ", ".join(sorted(ids)) or "none"


def _required_ids(key: str, items: Sequence[Any], required: Sequence[str]) -> Iterator[Problem]:
    present = {i.id for i in items}
    for ident in required:
        if ident not in present:
            yield Problem(path=(key,), message=f"the engine needs an entry with id {ident!r}")


def _effects_allowed(
    key: str, table: CriticalTable | FumbleTable, banned: frozenset[str], what: str
) -> Iterator[Problem]:
    rows: Sequence[CriticalRow | FumbleRow] = table.rows
    for i, row in enumerate(rows):
        yield from _walk_effects(row.effects, (key, "rows", i, "effects"), banned, what)


def _walk_effects(
    effects: Sequence[Any], path: Path, banned: frozenset[str], what: str
) -> Iterator[Problem]:
    for j, effect in enumerate(effects):
        if effect.kind in banned:
            yield Problem(
                path=(*path, j, "kind"),
                message=f"effect {effect.kind!r} cannot appear on a {what} table",
            )
        if isinstance(effect, AttributeRoll):
            yield from _walk_effects(effect.on_failure, (*path, j, "on_failure"), banned, what)
