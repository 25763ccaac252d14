"""The encounter state as a typed native view: what the server stores for a combat-styles
encounter (the JSON object a request's ``state`` carries), with a property for every top-level
field the engine reads or writes.

Like :class:`~arbiter.bridge.engine.combat_styles.core.combatant_record.CombatantRecord`, it
is a view of the stored dict, not a copy of it: each property reads (and, for the fields the
engine writes, writes) its key of :attr:`EncounterState.data`. So :attr:`EncounterState.data`
is the state itself, key for key and in its own order (replays depend on the exact bytes): a
field stored for the first time goes after the others, as a dict puts it, and a key the engine
does not know stays where it was.

A state is made by :func:`~arbiter.bridge.engine.combat_styles.rounds.initiative.start` (or a
free exchange's), :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.taken_in`
wraps the stored one once per request, and a handler hands :attr:`EncounterState.data` back in
its :class:`~arbiter.bridge.engine.contract.Resolution`. Its combatant records are read through
:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.records_of` and written through
:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.combatant` once
:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.writable` made it writable.

A field the encounter's kind does not keep (a free exchange's encounter has no round, order or
turn lists) reads as the engine has always read it: the optional ones as None (or their empty
value, where the engine defaulted one), the round bookkeeping raising ``KeyError`` as the dict
did, which the engine only reads in the ``turns`` phase.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.contract import JSON

GIVEN = "_given"
"""Key of a writable state (its value True; see
:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.writable`): kept in the state's
dict so that every view of it knows, and removed before the state leaves the engine."""


class EncounterState:
    """One encounter's state: a typed view of the stored state :attr:`data`.

    A plain class with its constructor written out: mypyc compiles it to a native class (see
    :class:`~arbiter.bridge.engine.combat_styles.core.combatant_record.CombatantRecord`), whose
    properties are direct calls. Each setter takes exactly its getter's type: mypyc (2.4.1)
    compiles a setter typed ``int`` under a getter typed ``int | None`` to one that stores the
    unboxed int where the boxed one belongs (a round read back as an address).
    """

    data: JSON
    """The state itself (while the engine works on it, its ``combatants`` are typed records)."""

    is_writable: bool
    """Whether the state is writable (its dict holds :data:`GIVEN`; kept so by
    :meth:`mark_writable` and :meth:`drop_writable`): read on every reach of a record for
    writing, as an attribute, not a dict look-up."""

    def __init__(self, data: JSON) -> None:
        self.data = data
        self.is_writable = GIVEN in data

    def has(self, key: str) -> bool:
        """Whether the state stores ``key`` (a field this kind of encounter may not keep)."""
        return key in self.data

    @property
    def records(self) -> dict[str, CombatantRecord]:
        """The combatant records by id, in the encounter's order (read them through
        :func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.records_of`)."""
        value: dict[str, CombatantRecord] = self.data["combatants"]
        return value

    @records.setter
    def records(self, value: dict[str, CombatantRecord]) -> None:
        self.data["combatants"] = value

    def mark_writable(self) -> None:
        """Mark the state writable (:data:`GIVEN`)."""
        self.data[GIVEN] = True
        self.is_writable = True

    def drop_writable(self) -> None:
        """Forget the mark (the state leaves the engine)."""
        self.data.pop(GIVEN, None)
        self.is_writable = False

    @property
    def phase(self) -> str | None:
        """``setup``, ``turns`` or ``free`` (:mod:`~arbiter.bridge.engine.combat_styles.
        encounter.phases`); None for a state that records none."""
        value: str | None = self.data.get("phase")
        return value

    @phase.setter
    def phase(self, value: str | None) -> None:
        self.data["phase"] = value

    @property
    def round(self) -> int | None:
        """The Combat Round (0 before initiative); None in an encounter without rounds."""
        value: int | None = self.data.get("round")
        return value

    @round.setter
    def round(self, value: int | None) -> None:
        self.data["round"] = value

    def round_number(self) -> int:
        """The Combat Round of an encounter that keeps rounds; KeyError("round") otherwise."""
        value: int = self.data["round"]
        return value

    @property
    def cycle(self) -> int | None:
        """The Cycle of the round (0 before initiative); None in an encounter without rounds."""
        value: int | None = self.data.get("cycle")
        return value

    @cycle.setter
    def cycle(self, value: int | None) -> None:
        self.data["cycle"] = value

    def cycle_number(self) -> int:
        """The Cycle of an encounter that keeps rounds; KeyError("cycle") otherwise."""
        value: int = self.data["cycle"]
        return value

    @property
    def order(self) -> list[str]:
        """Combatant ids in initiative order (empty before initiative)."""
        value: list[str] = self.data["order"]
        return value

    @order.setter
    def order(self, value: list[str]) -> None:
        self.data["order"] = value

    @property
    def initiative(self) -> dict[str, int]:
        """Combatant id → initiative total, in initiative order."""
        value: dict[str, int] = self.data["initiative"]
        return value

    @initiative.setter
    def initiative(self, value: dict[str, int]) -> None:
        self.data["initiative"] = value

    @property
    def acted(self) -> list[str]:
        """Who has had his turn this Cycle."""
        value: list[str] = self.data["acted"]
        return value

    @acted.setter
    def acted(self, value: list[str]) -> None:
        self.data["acted"] = value

    @property
    def proactive(self) -> list[str]:
        """Who has taken a proactive action this Cycle."""
        value: list[str] = self.data["proactive"]
        return value

    @proactive.setter
    def proactive(self, value: list[str]) -> None:
        self.data["proactive"] = value

    @property
    def delayed(self) -> list[str]:
        """Who holds a delayed action this Cycle."""
        value: list[str] = self.data["delayed"]
        return value

    @delayed.setter
    def delayed(self, value: list[str]) -> None:
        self.data["delayed"] = value

    @property
    def pending(self) -> dict[str, JSON]:
        """Token → the stored pending exchange or spirit combat waiting for its winner's
        choice; KeyError("pending") for a state that keeps none (see :attr:`pending_or_none`)."""
        value: dict[str, JSON] = self.data["pending"]
        return value

    @pending.setter
    def pending(self, value: dict[str, JSON]) -> None:
        self.data["pending"] = value

    @property
    def pending_or_none(self) -> dict[str, JSON] | None:
        """:attr:`pending`, or None when the state keeps none."""
        value: dict[str, JSON] | None = self.data.get("pending")
        return value

    def pending_kept(self) -> dict[str, JSON]:
        """:attr:`pending`, stored empty first when the state kept none (``setdefault``)."""
        value: dict[str, JSON] = self.data.setdefault("pending", {})
        return value

    @property
    def seq(self) -> int:
        """The number of exchanges rolled (tokens are made from it); 0 when never stored."""
        value: int = self.data.get("seq", 0)
        return value

    @seq.setter
    def seq(self, value: int) -> None:
        self.data["seq"] = value

    def next_seq(self) -> int:
        """:attr:`seq` counted up by one and stored: the number of the exchange (or spirit
        combat) being rolled (one call where reading and writing :attr:`seq` are two)."""
        value: int = self.data.get("seq", 0) + 1
        self.data["seq"] = value
        return value

    @property
    def spirit_engagements(self) -> list[list[str]]:
        """The pairs engaged in spirit combat (each sorted); empty when never stored."""
        value: list[list[str]] = self.data.get("spirit_engagements", [])
        return value

    @spirit_engagements.setter
    def spirit_engagements(self, value: list[list[str]]) -> None:
        self.data["spirit_engagements"] = value

    @property
    def essence_lost(self) -> JSON | None:
        """``round``, ``cycle`` and ``lost``: the Magic Points Bleed Essence drained as that
        Cycle began; None when none was."""
        value: JSON | None = self.data.get("essence_lost")
        return value

    @essence_lost.setter
    def essence_lost(self, value: JSON | None) -> None:
        self.data["essence_lost"] = value

    def drop_essence_lost(self) -> None:
        """Forget :attr:`essence_lost`."""
        self.data.pop("essence_lost", None)

    @property
    def fatigue_checks(self) -> bool:
        """Whether Fatigue checks are rolled as rounds close (``start_encounter``'s flag)."""
        return bool(self.data.get("fatigue_checks"))

    @fatigue_checks.setter
    def fatigue_checks(self, value: bool) -> None:
        self.data["fatigue_checks"] = value
