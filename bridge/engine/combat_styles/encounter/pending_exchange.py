"""The pending exchange: an exchange between its rolls and its finish, as a typed record.

``exchange/exchange.py`` (and a leaping attack, ``moves/leaping.py``) builds one from its rolls;
``exchange/finishing.py`` and the effect handlers (``effects/``) read it through
:attr:`~arbiter.bridge.engine.combat_styles.encounter.blows.Finisher.pending`. An exchange that
waits for its winner's choice is stored in the encounter as :meth:`PendingExchange.to_json`
under ``state["pending"][token]`` (the server keeps the state as JSON, and replays depend on its
exact bytes, key order included); ``choose_effects`` reads it back with
:meth:`PendingExchange.of`.

The rolls, the differential and the situation stay the JSON objects the outcome shows
(``attack``, ``defence_roll``, ``differential``, ``situation``): they are copied into the
result as they are, never taken apart.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.contract import JSON


class PendingExchange:
    """One exchange between its rolls and its finish.

    A plain class with its constructor written out: mypyc compiles it to a native class (a
    frozen dataclass would set each field through ``object.__setattr__``, several times slower
    on the path of every exchange). Built once; only the chooser's fields are set afterwards
    (:meth:`offer`), before anyone reads it."""

    token: str
    attacker: str
    defender: str
    weapon: str
    """The attacker's arm (a leaping attack: unarmed)."""
    defence: str
    """parry, evade, none or counterattack (a leap: the skill resisted with, or none)."""
    parry_weapon: str | None
    attack: JSON
    """The attack roll as the outcome shows it (roll, target, level, skill, grade …)."""
    defence_roll: JSON | None
    defence_level: str
    differential: JSON
    """``winner`` (attacker, defender or None), ``effects`` won, ``bonus_effects``."""
    band: str | None
    size_steps: int
    dm_steps: int
    damage_modifier: str | None
    outreached: bool
    damage_factor: list[int]
    """[numerator, denominator]."""
    surprised: bool
    first_on_surprised: bool
    hit_intended: bool
    bystander: str | None
    mitigate: list[str]
    situation: JSON
    """The request's situation, dumped (``cover``, ``mounted``, ``defender_braced`` …)."""
    warded: dict[str, str]
    """Location → warding arm, of the defender's Ward Location when the exchange was rolled."""
    winner: str | None
    """``attacker`` or ``defender``: the side that won special effects (None: nobody); the
    :attr:`differential`'s, taken once (an attribute: in the interpreted engine a property
    read is a Python call)."""
    no_damage: bool
    """A manoeuvre that deals no blow (a leaping attack: :attr:`move` is set)."""
    notes: list[str]
    grapple: bool
    inside_reach: int
    move: str | None
    """A manoeuvre parked like an exchange (``leaping_attack``), or None."""
    move_result: JSON | None
    """What that manoeuvre adds to the finished outcome (the leap)."""
    chooser: str | None
    """The winner, once his effects are offered (:meth:`offer`)."""
    eligible: list[JSON] | None
    ineligible: dict[str, str] | None

    def __init__(
        self,
        token: str,
        attacker: str,
        defender: str,
        weapon: str,
        defence: str,
        parry_weapon: str | None,
        attack: JSON,
        defence_roll: JSON | None,
        defence_level: str,
        differential: JSON,
        band: str | None,
        size_steps: int,
        dm_steps: int,
        damage_modifier: str | None,
        outreached: bool,
        damage_factor: list[int],
        surprised: bool,
        first_on_surprised: bool,
        hit_intended: bool,
        bystander: str | None,
        mitigate: list[str],
        situation: JSON,
        warded: dict[str, str],
        notes: list[str],
        grapple: bool,
        inside_reach: int,
        move: str | None = None,
        move_result: JSON | None = None,
    ) -> None:
        self.token = token
        self.attacker = attacker
        self.defender = defender
        self.weapon = weapon
        self.defence = defence
        self.parry_weapon = parry_weapon
        self.attack = attack
        self.defence_roll = defence_roll
        self.defence_level = defence_level
        self.differential = differential
        self.band = band
        self.size_steps = size_steps
        self.dm_steps = dm_steps
        self.damage_modifier = damage_modifier
        self.outreached = outreached
        self.damage_factor = damage_factor
        self.surprised = surprised
        self.first_on_surprised = first_on_surprised
        self.hit_intended = hit_intended
        self.bystander = bystander
        self.mitigate = mitigate
        self.situation = situation
        self.warded = warded
        self.notes = notes
        self.grapple = grapple
        self.inside_reach = inside_reach
        self.move = move
        self.move_result = move_result
        self.winner = differential["winner"]
        self.no_damage = move is not None
        self.chooser = None
        self.eligible = None
        self.ineligible = None

    def offer(self, chooser: str, eligible: list[JSON], ineligible: dict[str, str]) -> None:
        """Record who won special effects, and which he may and may not choose."""
        self.chooser = chooser
        self.eligible = eligible
        self.ineligible = ineligible

    def involved(self) -> tuple[str, ...]:
        """Every combatant whose record finishing the exchange may change."""
        if self.bystander:
            return (self.attacker, self.defender, self.bystander)
        return (self.attacker, self.defender)

    def to_json(self) -> JSON:
        """The record the encounter stores while the exchange waits, key for key as it always
        has been (an exchange and a leap each in their own key order: a leap stores ``move``
        and ``no_damage`` after the token, and ``mitigate`` last but for ``move_result``)."""
        if self.move is None:
            # An exchange: one dict display, so compiled the dict is made at its size at once
            # (key by key it would grow three times on the path of every parked exchange).
            out: JSON = {
                "token": self.token,
                "attacker": self.attacker,
                "defender": self.defender,
                "weapon": self.weapon,
                "defence": self.defence,
                "parry_weapon": self.parry_weapon,
                "attack": self.attack,
                "defence_roll": self.defence_roll,
                "defence_level": self.defence_level,
                "differential": self.differential,
                "band": self.band,
                "size_steps": self.size_steps,
                "dm_steps": self.dm_steps,
                "damage_modifier": self.damage_modifier,
                "outreached": self.outreached,
                "damage_factor": self.damage_factor,
                "surprised": self.surprised,
                "first_on_surprised": self.first_on_surprised,
                "hit_intended": self.hit_intended,
                "bystander": self.bystander,
                "mitigate": self.mitigate,
                "situation": self.situation,
                "warded": self.warded,
                "notes": self.notes,
                "grapple": self.grapple,
                "inside_reach": self.inside_reach,
            }
        else:
            out = {
                "token": self.token,
                "move": self.move,
                "no_damage": True,
                "attacker": self.attacker,
                "defender": self.defender,
                "weapon": self.weapon,
                "defence": self.defence,
                "parry_weapon": self.parry_weapon,
                "attack": self.attack,
                "defence_roll": self.defence_roll,
                "defence_level": self.defence_level,
                "differential": self.differential,
                "band": self.band,
                "size_steps": self.size_steps,
                "dm_steps": self.dm_steps,
                "damage_modifier": self.damage_modifier,
                "outreached": self.outreached,
                "damage_factor": self.damage_factor,
                "surprised": self.surprised,
                "first_on_surprised": self.first_on_surprised,
                "hit_intended": self.hit_intended,
                "bystander": self.bystander,
                "situation": self.situation,
                "warded": self.warded,
                "notes": self.notes,
                "grapple": self.grapple,
                "inside_reach": self.inside_reach,
                "mitigate": self.mitigate,
                "move_result": self.move_result,
            }
        _chooser_json(out, self.chooser, self.eligible, self.ineligible)
        return out

    @staticmethod
    def of(record: JSON) -> PendingExchange:
        """The typed record of a stored pending exchange (the inverse of :meth:`to_json`).
        The fields an older engine did not always store read as it read them (absent: false,
        zero, none)."""
        # record.get, not a bound ``get``: compiled, each is then a direct dict read, not a call.
        move: str | None = record.get("move")
        pending = PendingExchange(
            record["token"],
            record["attacker"],
            record["defender"],
            record["weapon"],
            record["defence"],
            record["parry_weapon"],
            record["attack"],
            record["defence_roll"],
            record["defence_level"],
            record["differential"],
            record["band"],
            record["size_steps"],
            record["dm_steps"],
            record.get("damage_modifier"),
            bool(record.get("outreached")),
            record["damage_factor"],
            record["surprised"],
            record["first_on_surprised"],
            record["hit_intended"],
            record["bystander"],
            record.get("mitigate") or [],
            record["situation"],
            record["warded"],
            record["notes"],
            bool(record.get("grapple")),
            record.get("inside_reach", 0),
            move,
            record.get("move_result"),
        )
        chooser: Any = record.get("chooser")
        if chooser is not None:
            pending.offer(chooser, record["eligible"], record["ineligible"])
        return pending


class PendingSpiritCombat:
    """One exchange of spirit combat between its rolls and its finish (``spirit/spirit.py``):
    what ``finish_spirit_combat`` and the spirit effects read. Stored while it waits as
    :meth:`to_json` (token ``s…``, ``kind`` spirit_combat), read back by :meth:`of`.

    A native class with its constructor written out, like :class:`PendingExchange`."""

    token: str
    attacker: str
    defender: str
    attack: JSON
    """The attacker's spirit-combat roll as the outcome shows it."""
    resistance: JSON
    """The defender's resisting roll (``skill_name`` says which skill he resisted with)."""
    penalty_over_100: int
    differential: JSON
    """``winner`` (attacker, defender or None) and ``effects`` won."""
    notes: list[str]
    chooser: str | None
    eligible: list[JSON] | None
    ineligible: dict[str, str] | None

    def __init__(
        self,
        token: str,
        attacker: str,
        defender: str,
        attack: JSON,
        resistance: JSON,
        penalty_over_100: int,
        differential: JSON,
        notes: list[str],
    ) -> None:
        self.token = token
        self.attacker = attacker
        self.defender = defender
        self.attack = attack
        self.resistance = resistance
        self.penalty_over_100 = penalty_over_100
        self.differential = differential
        self.notes = notes
        self.chooser = None
        self.eligible = None
        self.ineligible = None

    def offer(self, chooser: str, eligible: list[JSON], ineligible: dict[str, str]) -> None:
        """Record who won spirit effects, and which he may and may not choose."""
        self.chooser = chooser
        self.eligible = eligible
        self.ineligible = ineligible

    def to_json(self) -> JSON:
        """The record the encounter stores while the spirit combat waits, key for key as it
        always has been."""
        out: JSON = {
            "kind": "spirit_combat",
            "token": self.token,
            "attacker": self.attacker,
            "defender": self.defender,
            "attack": self.attack,
            "resistance": self.resistance,
            "penalty_over_100": self.penalty_over_100,
            "differential": self.differential,
            "notes": self.notes,
        }
        _chooser_json(out, self.chooser, self.eligible, self.ineligible)
        return out

    @staticmethod
    def of(record: JSON) -> PendingSpiritCombat:
        """The typed record of a stored spirit combat (the inverse of :meth:`to_json`)."""
        pending = PendingSpiritCombat(
            record["token"],
            record["attacker"],
            record["defender"],
            record["attack"],
            record["resistance"],
            record["penalty_over_100"],
            record["differential"],
            record["notes"],
        )
        chooser: Any = record.get("chooser")
        if chooser is not None:
            pending.offer(chooser, record["eligible"], record["ineligible"])
        return pending


def _chooser_json(
    out: JSON, chooser: str | None, eligible: list[JSON] | None, ineligible: dict[str, str] | None
) -> None:
    """Add who chooses effects, and which he may and may not choose, once they are offered."""
    if chooser is not None:
        out["chooser"] = chooser
        out["eligible"] = eligible
        out["ineligible"] = ineligible
