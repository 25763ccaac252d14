"""A parked exchange, as the encounter keeps it while its winner chooses special effects.

The encounter stores each one as JSON under ``state["pending"][token]`` (the server keeps the
state as JSON, and replays depend on its exact bytes). :class:`Parked` is the typed record of
what every reader outside the exchange's own finishing needs — who fought, who chooses, what he
won and may choose — read once from that JSON by :meth:`Parked.of`, so that answering a choice
(``choose_effects``) and describing it (``exchange/choices.py``) never reach into the dict.

Three kinds are parked: an ``exchange`` (token ``x…``), a ``leaping_attack`` (an exchange-shaped
record with ``move`` set) and a ``spirit_combat`` (token ``s…``, spirit effects).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.engine.contract import JSON, EngineError


@dataclass(frozen=True, slots=True)
class Parked:
    """The typed view of one parked exchange (its stored JSON is ``record``)."""

    token: str
    kind: str
    """``exchange``, ``leaping_attack`` or ``spirit_combat``."""
    attacker: str
    defender: str
    chooser: str | None
    """The winner, who chooses (None when nobody won anything)."""
    effects: int
    """How many effects he chooses: those the differential won, and any bonus (surprise)."""
    eligible: tuple[tuple[str, str], ...]
    """(id, name) of each effect he may choose, in the order offered."""
    weapon: str | None
    """The attacker's weapon (an exchange; the leaper's unarmed attack)."""
    parry_weapon: str | None
    warded: tuple[str, ...]
    """Hit locations the defender wards."""
    bystander: str | None
    record: JSON

    @staticmethod
    def of(record: JSON) -> Parked:
        """The typed view of a stored parked exchange."""
        differential: JSON = record.get("differential") or {}
        eligible: list[Any] = record.get("eligible") or []
        kind: str = record.get("kind") or record.get("move") or "exchange"
        won: int = differential.get("effects", 0)
        bonus: int = differential.get("bonus_effects", 0)
        return Parked(
            token=record["token"],
            kind=kind,
            attacker=record["attacker"],
            defender=record["defender"],
            chooser=record.get("chooser"),
            effects=won + bonus,
            eligible=tuple([(e["id"], e["name"]) for e in eligible]),
            weapon=record.get("weapon"),
            parry_weapon=record.get("parry_weapon"),
            warded=tuple(record.get("warded") or ()),
            bystander=record.get("bystander"),
            record=record,
        )

    @property
    def spirit(self) -> bool:
        """A spirit combat: spirit effects, which take no options."""
        return self.kind == "spirit_combat"

    @property
    def loser(self) -> str:
        """The one the chooser's effects fall on."""
        return self.defender if self.chooser == self.attacker else self.attacker

    def involved(self) -> tuple[str, ...]:
        """Every combatant whose record finishing the exchange may change."""
        if self.bystander:
            return (self.attacker, self.defender, self.bystander)
        return (self.attacker, self.defender)


def parked(state: JSON | None, token: str) -> Parked:
    """The exchange parked as ``token``; EngineError when none waits under it."""
    waiting: JSON = (state or {}).get("pending", {})
    record = waiting.get(token)
    if record is None:
        raise EngineError(f"no exchange {token!r} is waiting for a choice of effects")
    return Parked.of(record)
