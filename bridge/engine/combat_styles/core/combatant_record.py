"""A combatant's record as a typed native record: what the encounter stores under
``state["combatants"][id]`` (built by :func:`~arbiter.bridge.engine.combat_styles.encounter.
combatants.record`), with an attribute for every field the engine reads and writes. Every
module of the engine reads and writes combatants through it: the state a request works on holds
these records (:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.taken_in`
wraps each stored record; :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.
released` writes them back as the state leaves the engine).

A record is a typed view of the stored JSON record, not a second copy of it: each attribute
reads (and, for the few the engine assigns, writes) its key of :attr:`CombatantRecord.data`
(``conditions``, the mapping read most, is that very mapping, taken once as the view is made).
So :meth:`CombatantRecord.to_json` is the record itself, key for key and in its own order
(replays depend on the exact bytes): a field stored for the first time (:meth:`set_ap` and the
like) goes after the others, as a dict puts it, and a key the engine does not know stays where
it was. Unpacking every field into slots on the way in and packing them on the way out was
measured first (compiled): about 3.7 µs a record (read 1.4, copy 0.6, write back 1.7) against
0.7 µs for the dict copy-on-write it replaced, which made a full exchange a quarter slower; the
view costs one small object per record, and an attribute read is one dict read, as before.

A field an older engine did not always store reads as the engine reads it today (absent: None)
and is written only once set. The nested parts (hit points, armour, weapons, conditions,
wounds, hands) are the JSON objects the outcome shows: changed in place, never taken apart.
A record read from a stored state is read-only: :meth:`CombatantRecord.make_own` copies it
into the view itself the first time a writable state reaches it for writing (copy-on-write: the
stored state is never changed; the view, made for this request alone, is the request's own), and
:meth:`CombatantRecord.copied` is a second view of a copy.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.json_copy import json_copy
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
    """One combatant of the encounter: a typed view of his stored record :attr:`data`.

    A plain class with its constructor written out: mypyc compiles it to a native class (see
    :class:`~arbiter.bridge.engine.combat_styles.encounter.pending_exchange.PendingExchange`),
    whose properties are direct calls.
    """

    data: JSON
    """The stored record itself, read-only, until :meth:`make_own` puts the request's own copy
    in its place (:attr:`own`)."""

    conditions: JSON
    """Condition name → its data (``turns`` left, who holds whom …): the record's own mapping,
    read once when the view is made and again when :meth:`make_own` copies it (the engine
    changes it in place and never puts another in its place), because the engine reads it a dozen times
    a request and in the interpreted engine a property read is a Python call."""

    origin: JSON | None
    """The record this one was copied from (:meth:`make_own`, :meth:`copied`), through any chain
    of copies: the stored record a request's copy began as; None for a record not copied."""

    written: bool
    """Whether a setter (or ``set_…``/``add_mark``) has written a field of :attr:`data` since
    :attr:`origin` (carried through copies): the only writes to :attr:`data` itself."""

    own: bool
    """Whether :attr:`data` is the request's own (a copy made by :meth:`make_own` or
    :meth:`copied`, or a record built for the request and handed over by
    :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.owning`): only then may it
    be written. A view of a stored record is not, until made so."""

    id: str
    skills: dict[str, int]
    weapons: dict[str, JSON]
    """Arm id → ``hp`` and ``broken`` (the unarmed arm last)."""
    characteristics: dict[str, int]
    damage_modifier: str
    traits: list[str]
    enc: int | None
    """The load he carries; None when the stat block names none."""
    hands: JSON | None
    """Hand → the arm it holds (None: empty); absent (None) when hands are not tracked.
    Written only through :meth:`set_hands` (a new mapping each time, never changed in place)."""
    fatigue_levels: int | None
    """Levels lost from the first (Fresh); absent (None) until a block names a level or one is
    lost. Written only through :meth:`set_fatigue_levels`."""

    def __init__(self, data: JSON, source: CombatantRecord | None = None) -> None:
        """The view of ``data``; ``source``: the record of ``data`` this view is made to copy
        (:meth:`copied`), whose fields that the copy shares are taken from it, not looked up.

        The fields read on every exchange (:attr:`conditions`, :attr:`id`, :attr:`skills`,
        :attr:`weapons`, :attr:`characteristics`, :attr:`damage_modifier`, :attr:`traits`,
        :attr:`enc`) are taken once here, as :attr:`conditions` is: the engine never puts
        another object in their place (no setter writes them), and in the interpreted engine
        a property read is a Python call."""
        self.data = data
        self.conditions = data["conditions"]
        self.weapons = data["weapons"]
        self.own = False
        if source is None:
            self.origin = None
            self.written = False
            self.id = data["id"]
            self.skills = data["skills"]
            self.characteristics = data["characteristics"]
            self.damage_modifier = data["damage_modifier"]
            self.traits = data["traits"]
            self.enc = data.get("enc")
            self.hands = data.get("hands")
            self.fatigue_levels = data.get("fatigue_levels")
        else:
            self.origin = source.origin if source.origin is not None else source.data
            self.written = source.written
            self.id = source.id
            self.skills = source.skills
            self.characteristics = source.characteristics
            self.damage_modifier = source.damage_modifier
            self.traits = source.traits
            self.enc = source.enc
            self.hands = source.hands
            self.fatigue_levels = source.fatigue_levels

    @staticmethod
    def of(record: JSON) -> CombatantRecord:
        """The typed view of a stored record (the inverse of :meth:`to_json`)."""
        return CombatantRecord(record)

    def to_json(self) -> JSON:
        """The record as the encounter stores it: exactly the keys present, in their order."""
        return self.data

    def copied(self) -> CombatantRecord:
        """A new view of a copy of :attr:`data` (see :meth:`make_own`): this view is left as
        it is, and what is written to either does not reach the other."""
        rec = CombatantRecord(self.data, self)
        rec.make_own()
        return rec

    def make_own(self) -> None:
        """Make :attr:`data` this view's own: a copy whose changeable parts (hit points, armour,
        weapons, conditions, wounds, marks) are its own; characteristics, skills and the like
        are shared. The view itself is kept (copy-on-write in place): the engine makes one view
        per record and request (:func:`~arbiter.bridge.engine.combat_styles.encounter.
        combatants.taken_in`), and a second object per record reached for writing was a
        quarter of the views an exchange made (interpreted, ~1.7k instructions each)."""
        # ``.copy()`` rather than ``dict(…)``: the same copy, but interpreted a method call
        # costs about a third less than calling the type (compiled, both are one C call; the
        # parts typed so that mypyc calls the dict's own copy, not a generic method).
        old = self.data
        rec = old.copy()
        hit_points: dict[str, int] = old["hit_points"]
        rec["hit_points"] = hit_points.copy()
        armor: dict[str, int] = old["armor"]
        rec["armor"] = armor.copy()
        weapons: dict[str, JSON] = self.weapons
        rec["weapons"] = weapons = weapons.copy()
        for wid, held in weapons.items():  # a loop, not a comprehension: no frame of its own
            weapons[wid] = held.copy()
        rec["conditions"] = conditions = json_copy(self.conditions) if self.conditions else {}
        wounds: JSON = old["wounds"]
        rec["wounds"] = wounds.copy()
        if "marks" in old:
            marks: list[str] = old["marks"]
            rec["marks"] = marks.copy()
        if self.origin is None:
            self.origin = old
        self.data = rec
        self.conditions = conditions
        self.weapons = weapons
        self.own = True

    def unchanged_from(self, stored: JSON) -> bool:
        """Whether :attr:`data` equals ``stored`` (a stored record), exactly as ``==`` says,
        comparing only what can differ when this record is a copy of ``stored``
        (:attr:`origin`) with no field written since: the parts :meth:`copied` made new
        (changed in place by the engine). Every other field of a copy is the very object
        ``stored`` holds, since only the setters write :attr:`data` (and a part shared with
        ``stored`` changed in place would be changed in both). Anything else is compared
        whole."""
        data = self.data
        if data is stored:
            return True
        if self.origin is not stored or self.written:
            return data == stored
        # The conditions and weapons are the view's own attributes (the very objects of
        # ``data``, never replaced): read without a dict lookup each.
        return (
            data["hit_points"] == stored["hit_points"]
            and self.conditions == stored["conditions"]
            and data["wounds"] == stored["wounds"]
            and self.weapons == stored["weapons"]
            and data["armor"] == stored["armor"]
            and data.get("marks") == stored.get("marks")
        )

    @property
    def name(self) -> str:
        value: str = self.data["name"]
        return value

    @property
    def hit_points_max(self) -> dict[str, int]:
        value: dict[str, int] = self.data["hit_points_max"]
        return value

    @property
    def hit_points(self) -> dict[str, int]:
        value: dict[str, int] = self.data["hit_points"]
        return value

    @property
    def armor(self) -> dict[str, int]:
        value: dict[str, int] = self.data["armor"]
        return value

    @property
    def natural_armor(self) -> dict[str, int]:
        value: dict[str, int] = self.data["natural_armor"]
        return value

    @property
    def armor_penalty(self) -> int:
        value: int = self.data["armor_penalty"]
        return value

    @property
    def action_points_max(self) -> int:
        value: int = self.data["action_points_max"]
        return value

    @property
    def initiative_bonus(self) -> int:
        value: int = self.data["initiative_bonus"]
        return value

    @property
    def healing_rate(self) -> int:
        value: int = self.data["healing_rate"]
        return value

    @property
    def luck_points(self) -> int:
        value: int = self.data["luck_points"]
        return value

    @luck_points.setter
    def luck_points(self, value: int) -> None:
        self.written = True
        self.data["luck_points"] = value

    @property
    def quadruped(self) -> bool | None:
        value: bool | None = self.data.get("quadruped")
        return value

    @property
    def body_plan(self) -> str | None:
        value: str | None = self.data.get("body_plan")
        return value

    @property
    def fatigue_initiative(self) -> int:
        value: int = self.data["fatigue_initiative"]
        return value

    @property
    def movement(self) -> int | None:
        value: int | None = self.data["movement"]
        return value

    @property
    def wounds(self) -> JSON:
        value: JSON = self.data["wounds"]
        return value

    @property
    def magic_points(self) -> int | None:
        value: int | None = self.data.get("magic_points")
        return value

    @magic_points.setter
    def magic_points(self, value: int | None) -> None:
        self.written = True
        self.data["magic_points"] = value

    @property
    def magic_points_max(self) -> int | None:
        value: int | None = self.data.get("magic_points_max")
        return value

    @property
    def spirit_combat(self) -> int | None:
        value: int | None = self.data.get("spirit_combat")
        return value

    @property
    def spirit(self) -> bool | None:
        value: bool | None = self.data.get("spirit")
        return value

    def set_hands(self, value: JSON | None) -> None:
        """Store what his hands hold (a new mapping)."""
        self.written = True
        self.hands = value
        self.data["hands"] = value

    @property
    def ap(self) -> int | None:
        """Action points left this round; absent until initiative opens round 1."""
        value: int | None = self.data.get("ap")
        return value

    @property
    def attacked_round(self) -> int | None:
        value: int | None = self.data.get("attacked_round")
        return value

    @property
    def marks(self) -> list[str] | None:
        value: list[str] | None = self.data.get("marks")
        return value

    def set_fatigue_levels(self, levels: int) -> None:
        """Store the fatigue levels lost (a new key goes last)."""
        self.written = True
        self.fatigue_levels = levels
        self.data["fatigue_levels"] = levels

    def set_ap(self, points: int) -> None:
        """Store the action points left (a new key goes last)."""
        self.written = True
        self.data["ap"] = points

    def ap_left(self) -> int:
        """The action points left; KeyError("ap") before initiative opened round 1."""
        points: int = self.data["ap"]
        return points

    def set_attacked_round(self, round_number: int) -> None:
        """Store the round he was last attacked in (a new key goes last)."""
        self.written = True
        self.data["attacked_round"] = round_number

    def set_marks(self, marks: list[str]) -> None:
        """Store his marks (a new key goes last)."""
        self.written = True
        self.data["marks"] = marks

    def add_mark(self, mark: str) -> None:
        """Add a mark (the key stored first with an empty list, as ``setdefault`` would)."""
        self.written = True
        marks: list[str] = self.data.setdefault("marks", [])
        marks.append(mark)
