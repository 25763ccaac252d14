"""A combatant's record as a typed native record: what the encounter stores under
``state["combatants"][id]`` (built by :func:`~arbiter.bridge.engine.combat_styles.encounter.
combatants.record`), with an attribute for every field the engine reads and writes. Every
module of the engine reads and writes combatants through it: the state a request works on holds
these records (:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.taken_in`
reads each stored record once; :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.
released` writes back the ones the request reached, once, as the state leaves the engine).

The server keeps the state as JSON and replays depend on its exact bytes, key order included:
:meth:`CombatantRecord.of` reads a stored record and :meth:`CombatantRecord.to_json` writes it
back key for key, in the order it was read (a stored state comes back in canonical, sorted order;
a new record in :func:`record`'s order), a field set for the first time (:meth:`set_ap` and the
like) after the others, as a dict would have it. A field an older engine did not always store
reads as the engine reads it today (absent: None) and is written only if present.

The nested parts (hit points, armour, weapons, conditions, wounds, hands) stay the JSON objects
the outcome shows: they are changed in place, never taken apart. :meth:`CombatantRecord.copied`
is the copy a writable state makes before a request changes a record (copy-on-write: the stored
state is never changed).
"""

from __future__ import annotations

import marshal
from typing import Any

from arbiter.bridge.engine.contract import JSON

ORDER = (
    "id",
    "name",
    "characteristics",
    "skills",
    "weapons",
    "hit_points_max",
    "hit_points",
    "armor",
    "natural_armor",
    "armor_penalty",
    "damage_modifier",
    "action_points_max",
    "initiative_bonus",
    "healing_rate",
    "luck_points",
    "traits",
    "quadruped",
    "body_plan",
    "fatigue_initiative",
    "movement",
    "conditions",
    "wounds",
    "magic_points",
    "magic_points_max",
    "spirit_combat",
    "spirit",
    "enc",
    "hands",
)
"""The keys of a new record, in the order :func:`record` writes them (``fatigue_levels`` follows
when the stat block names a fatigue level)."""


class CombatantRecord:
    """One combatant of the encounter.

    A plain class with its constructor written out: mypyc compiles it to a native class (see
    :class:`~arbiter.bridge.engine.combat_styles.encounter.pending_exchange.PendingExchange`).
    """

    id: str
    name: str
    characteristics: dict[str, int]
    skills: dict[str, int]
    weapons: dict[str, JSON]
    """Arm id → ``hp`` and ``broken`` (the unarmed arm last)."""
    hit_points_max: dict[str, int]
    hit_points: dict[str, int]
    armor: dict[str, int]
    natural_armor: dict[str, int]
    armor_penalty: int
    damage_modifier: str
    action_points_max: int
    initiative_bonus: int
    healing_rate: int
    luck_points: int
    traits: list[str]
    quadruped: bool | None
    body_plan: str | None
    fatigue_initiative: int
    movement: int | None
    conditions: JSON
    """Condition name → its data (``turns`` left, who holds whom …)."""
    wounds: JSON
    magic_points: int | None
    magic_points_max: int | None
    spirit_combat: int | None
    spirit: bool | None
    enc: int | None
    hands: JSON | None
    fatigue_levels: int | None
    """Levels lost from the first (Fresh); absent until a block names a level or one is lost."""
    ap: int | None
    """Action points left this round; absent until initiative opens round 1."""
    attacked_round: int | None
    marks: list[str] | None
    others: dict[str, Any]
    """Keys the engine does not know (a state from another version), written back as read."""
    order: list[str]
    """The keys present, in the order :meth:`to_json` writes them."""

    def __init__(
        self,
        id: str,
        name: str,
        characteristics: dict[str, int],
        skills: dict[str, int],
        weapons: dict[str, JSON],
        hit_points_max: dict[str, int],
        hit_points: dict[str, int],
        armor: dict[str, int],
        natural_armor: dict[str, int],
        armor_penalty: int,
        damage_modifier: str,
        action_points_max: int,
        initiative_bonus: int,
        healing_rate: int,
        luck_points: int,
        traits: list[str],
        quadruped: bool | None,
        body_plan: str | None,
        fatigue_initiative: int,
        movement: int | None,
        conditions: JSON,
        wounds: JSON,
        magic_points: int | None,
        magic_points_max: int | None,
        spirit_combat: int | None,
        spirit: bool | None,
        enc: int | None,
        hands: JSON | None,
        order: list[str],
    ) -> None:
        self.id = id
        self.name = name
        self.characteristics = characteristics
        self.skills = skills
        self.weapons = weapons
        self.hit_points_max = hit_points_max
        self.hit_points = hit_points
        self.armor = armor
        self.natural_armor = natural_armor
        self.armor_penalty = armor_penalty
        self.damage_modifier = damage_modifier
        self.action_points_max = action_points_max
        self.initiative_bonus = initiative_bonus
        self.healing_rate = healing_rate
        self.luck_points = luck_points
        self.traits = traits
        self.quadruped = quadruped
        self.body_plan = body_plan
        self.fatigue_initiative = fatigue_initiative
        self.movement = movement
        self.conditions = conditions
        self.wounds = wounds
        self.magic_points = magic_points
        self.magic_points_max = magic_points_max
        self.spirit_combat = spirit_combat
        self.spirit = spirit
        self.enc = enc
        self.hands = hands
        self.fatigue_levels = None
        self.ap = None
        self.attacked_round = None
        self.marks = None
        self.others = {}
        self.order = order

    def _added(self, key: str) -> None:
        # A field stored for the first time goes after the others, as a dict would put it.
        if key not in self.order:
            self.order.append(key)

    def set_fatigue_levels(self, levels: int) -> None:
        """Store the fatigue levels lost (a new key goes last)."""
        self.fatigue_levels = levels
        self._added("fatigue_levels")

    def set_ap(self, points: int) -> None:
        """Store the action points left (a new key goes last)."""
        self.ap = points
        self._added("ap")

    def add_mark(self, mark: str) -> None:
        """Add a mark (the key stored first with an empty list, as ``setdefault`` would)."""
        if self.marks is None:
            self.set_marks([])
        marks = self.marks
        assert marks is not None
        marks.append(mark)

    def ap_left(self) -> int:
        """The action points left; KeyError("ap") before initiative opened round 1 (as the
        stored record read ``record["ap"]`` would)."""
        if self.ap is None:
            raise KeyError("ap")
        return self.ap

    def set_attacked_round(self, round_number: int) -> None:
        """Store the round he was last attacked in (a new key goes last)."""
        self.attacked_round = round_number
        self._added("attacked_round")

    def set_marks(self, marks: list[str]) -> None:
        """Store his marks (a new key goes last)."""
        self.marks = marks
        self._added("marks")

    def copied(self) -> CombatantRecord:
        """A copy whose changeable parts (hit points, armour, weapons, conditions, wounds,
        marks, the key order) are its own; characteristics, skills and the like are shared."""
        weapons: dict[str, JSON] = {}
        for wid, held in self.weapons.items():  # a loop, not a comprehension: no frame of its own
            weapons[wid] = dict(held)
        rec = CombatantRecord(
            self.id,
            self.name,
            self.characteristics,
            self.skills,
            weapons,
            self.hit_points_max,
            dict(self.hit_points),
            dict(self.armor),
            self.natural_armor,
            self.armor_penalty,
            self.damage_modifier,
            self.action_points_max,
            self.initiative_bonus,
            self.healing_rate,
            self.luck_points,
            self.traits,
            self.quadruped,
            self.body_plan,
            self.fatigue_initiative,
            self.movement,
            # A deep copy of plain JSON: marshal round-trips exactly these types in C, an order
            # of magnitude faster than a recursive copy (engine-built state only).
            marshal.loads(marshal.dumps(self.conditions)) if self.conditions else {},
            dict(self.wounds),
            self.magic_points,
            self.magic_points_max,
            self.spirit_combat,
            self.spirit,
            self.enc,
            self.hands,
            list(self.order),
        )
        rec.fatigue_levels = self.fatigue_levels
        rec.ap = self.ap
        rec.attacked_round = self.attacked_round
        rec.marks = list(self.marks) if self.marks is not None else None
        if self.others:
            rec.others = dict(self.others)
        return rec

    def to_json(self) -> JSON:
        """The record as the encounter stores it: exactly the keys present, in :attr:`order`."""
        every: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "characteristics": self.characteristics,
            "skills": self.skills,
            "weapons": self.weapons,
            "hit_points_max": self.hit_points_max,
            "hit_points": self.hit_points,
            "armor": self.armor,
            "natural_armor": self.natural_armor,
            "armor_penalty": self.armor_penalty,
            "damage_modifier": self.damage_modifier,
            "action_points_max": self.action_points_max,
            "initiative_bonus": self.initiative_bonus,
            "healing_rate": self.healing_rate,
            "luck_points": self.luck_points,
            "traits": self.traits,
            "quadruped": self.quadruped,
            "body_plan": self.body_plan,
            "fatigue_initiative": self.fatigue_initiative,
            "movement": self.movement,
            "conditions": self.conditions,
            "wounds": self.wounds,
            "magic_points": self.magic_points,
            "magic_points_max": self.magic_points_max,
            "spirit_combat": self.spirit_combat,
            "spirit": self.spirit,
            "enc": self.enc,
            "hands": self.hands,
            "fatigue_levels": self.fatigue_levels,
            "ap": self.ap,
            "attacked_round": self.attacked_round,
            "marks": self.marks,
        }
        if self.others:
            every.update(self.others)
        out: JSON = {}
        for key in self.order:  # a loop, not a comprehension: no frame of its own
            out[key] = every[key]
        return out

    @staticmethod
    def of(record: JSON) -> CombatantRecord:
        """The typed record of a stored one (the inverse of :meth:`to_json`). The fields the
        engine reads only when present (``quadruped``, ``body_plan``, ``spirit``, ``enc``,
        ``hands``, ``magic_points`` …) read None when absent; the others must be there.
        A key the engine does not know is kept as it is (:attr:`others`), never dropped."""
        get = record.get
        rec = CombatantRecord(
            record["id"],
            record["name"],
            record["characteristics"],
            record["skills"],
            record["weapons"],
            record["hit_points_max"],
            record["hit_points"],
            record["armor"],
            record["natural_armor"],
            record["armor_penalty"],
            record["damage_modifier"],
            record["action_points_max"],
            record["initiative_bonus"],
            record["healing_rate"],
            record["luck_points"],
            record["traits"],
            get("quadruped"),
            get("body_plan"),
            record["fatigue_initiative"],
            record["movement"],
            record["conditions"],
            record["wounds"],
            get("magic_points"),
            get("magic_points_max"),
            get("spirit_combat"),
            get("spirit"),
            get("enc"),
            get("hands"),
            list(record),
        )
        rec.fatigue_levels = get("fatigue_levels")
        rec.ap = get("ap")
        rec.attacked_round = get("attacked_round")
        rec.marks = get("marks")
        for key in rec.order:
            if key not in KNOWN:
                rec.others[key] = record[key]
        return rec


KNOWN = frozenset((*ORDER, "fatigue_levels", "ap", "attacked_round", "marks"))
"""Every key a stored record may hold."""
