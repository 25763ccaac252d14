"""A parked exchange, as the encounter keeps it while its winner chooses special effects: the
read-only view the pending-choice description reads. Finishing reads the typed records of
``encounter/pending_exchange.py`` instead (``PendingExchange``, ``PendingSpiritCombat``).

The encounter stores each one as JSON under ``state.pending[token]`` (the server keeps the
state as JSON, and replays depend on its exact bytes). :class:`Parked` is the typed record of
what every reader outside the exchange's own finishing needs — who fought, who chooses, what he
won and may choose — read once from that JSON by :meth:`Parked.of`. Describing a choice
(``exchange/choices.py``) reads the few fields it shows and its options' memo key straight from
the record (it runs on every parked exchange), and makes a :class:`Parked` only to build the
options the memo does not hold yet.

Three kinds are parked: an ``exchange`` (token ``x…``), a ``leaping_attack`` (an exchange-shaped
record with ``move`` set) and a ``spirit_combat`` (token ``s…``, spirit effects).
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.contract import JSON, EngineError


class Parked:
    """The typed view of one parked exchange (its stored JSON is ``record``). Read-only by
    convention: answering the choice changes the stored record's copy, never this view.

    A plain class with its constructor written out: mypyc compiles it to a native class (a
    frozen dataclass would set each field through ``object.__setattr__``, several times
    slower on the path of every parked exchange)."""

    token: str
    kind: str
    """``exchange``, ``leaping_attack`` or ``spirit_combat``."""
    attacker: str
    defender: str
    chooser: str | None
    """The winner, who chooses (None when nobody won anything)."""
    effects: int
    """How many effects he chooses: those the differential won, and any bonus (surprise)."""
    eligible: tuple[str, ...]
    """The id of each effect he may choose, in the order offered (their names: ``record``)."""
    weapon: str | None
    """The attacker's weapon (an exchange; the leaper's unarmed attack)."""
    parry_weapon: str | None
    warded: tuple[str, ...]
    """Hit locations the defender wards."""
    bystander: str | None
    record: JSON

    def __init__(
        self,
        token: str,
        kind: str,
        attacker: str,
        defender: str,
        chooser: str | None,
        effects: int,
        eligible: tuple[str, ...],
        weapon: str | None,
        parry_weapon: str | None,
        warded: tuple[str, ...],
        bystander: str | None,
        record: JSON,
    ) -> None:
        self.token = token
        self.kind = kind
        self.attacker = attacker
        self.defender = defender
        self.chooser = chooser
        self.effects = effects
        self.eligible = eligible
        self.weapon = weapon
        self.parry_weapon = parry_weapon
        self.warded = warded
        self.bystander = bystander
        self.record = record

    @staticmethod
    def of(record: JSON) -> Parked:
        """The typed view of a stored parked exchange."""
        differential: JSON = record.get("differential") or {}
        eligible: list[JSON] = record.get("eligible") or []
        ids: list[str] = []
        for e in eligible:  # a loop, not a comprehension: no frame of its own
            # Each offer a dict (JSON), so compiled its id is a dict read, not a generic one.
            ids.append(e["id"])
        kind: str = record.get("kind") or record.get("move") or "exchange"
        won: int = differential.get("effects", 0)
        bonus: int = differential.get("bonus_effects", 0)
        return Parked(
            record["token"],
            kind,
            record["attacker"],
            record["defender"],
            record.get("chooser"),
            won + bonus,
            tuple(ids),
            record.get("weapon"),
            record.get("parry_weapon"),
            tuple(record.get("warded") or ()),
            record.get("bystander"),
            record,
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


def parked(state: EncounterState | None, token: str) -> Parked:
    """The exchange parked as ``token``; EngineError when none waits under it."""
    return Parked.of(parked_record(state, token))


def parked_record(state: EncounterState | None, token: str) -> JSON:
    """The stored JSON of the exchange parked as ``token``; EngineError when none waits
    under it."""
    waiting: JSON = (state.pending_or_none if state is not None else None) or {}
    record: JSON | None = waiting.get(token)
    if record is None:
        raise EngineError(f"no exchange {token!r} is waiting for a choice of effects")
    return record


def is_spirit(record: JSON) -> bool:
    """Whether a parked record is a spirit combat's (spirit effects) rather than an
    exchange-shaped one (:class:`~arbiter.bridge.engine.combat_styles.encounter.
    pending_exchange.PendingExchange`)."""
    return record.get("kind") == "spirit_combat"
