"""Pending choices, in the one shape every ruleset's result uses (``docs/requests.md``,
"Pending choices"): who answers, with which request, and the options with anything an option
needs (a hit location, the opponent's weapon, the armour bypassed).

A parked exchange (an ``exchange``, a ``leaping_attack``, a ``spirit_combat``, each pair of a
``sweep_attack``) waits for its winner's special effects: one choice, answered by
``choose_effects`` with the exchange's token and the chooser in ``by``; the chosen effects go
in ``effects`` as ``{id, <option>}``. The client renders and answers it without knowing any
combat-styles rule: which effect takes which option is decided here, from the rule data and
the encounter (the victim's hit locations and weapons).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.memo import Memo, memo_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.pending import Parked
from arbiter.bridge.engine.contract import JSON

LOCATION = "location"
WEAPON = "weapon"
BYPASS = "bypass"

OPTION_OF_MECHANIC: dict[str, str] = {
    "entangle": LOCATION,  # the location held (default: where the blow lands)
    "disarm_opponent": WEAPON,
    "take_weapon": WEAPON,
    "pin_weapon": WEAPON,
}
"""Effects whose handler reads an option from the choice (``effects/``), by mechanic; effects
that choose or move the location hit, and those that ignore worn or natural armour, are read
from their parameters instead (:func:`option_of`)."""

_BYPASS_CHOICES: list[JSON] = [{"id": "worn", "name": "worn"}, {"id": "natural", "name": "natural"}]


def option_of(rules: RulesView, effect_id: str) -> str | None:
    """The option ``effect_id`` takes in ``choose_effects`` (``location``, ``weapon``,
    ``bypass``), or None."""
    effect = rules.effects.get(effect_id)
    if effect is None:
        return None  # a spirit effect: no options
    params = effect.params
    if params.chooses_location or params.location_steps is not None:
        return LOCATION
    if params.ignores_armor == "worn_or_natural":
        return BYPASS
    mechanic = effect.mechanic
    return OPTION_OF_MECHANIC.get(mechanic) if mechanic is not None else None


def _locations(
    rules: RulesView, waiting: Parked, victim: CombatantRecord, chooses: bool
) -> list[JSON]:
    warded = waiting.warded if chooses and not rules.choose_location_bypasses_ward else ()
    his = victim.hit_points
    # In his hit-location table's order (the record's key order is not kept by every store).
    return [
        {"id": loc.id, "name": loc.name}
        for loc in rules.body_plan(victim).locations
        if loc.id in his and loc.id not in warded
    ]


def _weapons(rules: RulesView, waiting: Parked, victim: CombatantRecord) -> list[JSON]:
    used = waiting.parry_weapon if waiting.chooser == waiting.attacker else waiting.weapon
    held: list[str] = sorted(w for w in victim.weapons if w != rules.unarmed_id)
    # The weapon he used in the exchange first (the one the effect aims at by default), then
    # the others by id (the record's key order is not kept by every store).
    ordered = sorted(held, key=lambda w: w != used)
    return [{"id": w, "name": rules.arm(w).name} for w in ordered]


def effects_choice(
    rules: RulesView, records: dict[str, CombatantRecord], record: JSON, key: str | None = None
) -> JSON:
    """The choice of special effects a parked exchange (its ``record`` in the state's
    ``pending``; ``records``: the state's combatant records) waits for."""
    # What the choice shows and its options' memo key are read from the record directly;
    # the typed view (:class:`Parked`) is made only when the options are built (a memo miss).
    chooser: str | None = record.get("chooser")
    attacker: str = record["attacker"]
    defender: str = record["defender"]
    differential: JSON = record.get("differential") or {}
    won: int = differential.get("effects", 0)
    bonus: int = differential.get("bonus_effects", 0)
    attacker_chooses = chooser == attacker
    victim = records[defender if attacker_chooses else attacker]
    choice: JSON = {
        "by": chooser,
        "key": key,
        "type": "choose_effects",
        "body": {"token": record["token"], "by": chooser},
        "field": "effects",
        "options": _options(rules, record, victim, attacker_chooses),
        "count": won + bonus,
    }
    if key is not None:
        choice["heading"] = f"{attacker} ⟶ {defender}"
    return choice


def _options(
    rules: RulesView, record: JSON, victim: CombatantRecord, attacker_chooses: bool
) -> list[JSON]:
    """The options of a choice: each eligible effect with the parameter it takes.

    A pure function of the rules and the key below (what :class:`Parked` and the victim's
    record hold that :func:`_build_options` reads), memoised per view: the same pairings
    park again and again, and building every location and weapon list anew would cost a fifth
    of a parked exchange. The list is shared by the outcomes with the same key; like every
    outcome it is only ever serialised, never changed."""
    eligible: list[JSON] = record.get("eligible") or []
    used: str | None = record.get("parry_weapon") if attacker_chooses else record.get("weapon")
    # The victim's body plan and hit points read from his record's dict, not through their
    # properties (interpreted, a Python call each; this runs for every parked exchange); the
    # effect ids taken by ``map`` and ``itemgetter`` (no loop of bytecodes per effect).
    his = victim.data
    key = (
        tuple(map(_ID, eligible)),
        # Parked.spirit: its kind (``kind``, else ``move``, else exchange) a spirit combat.
        (record.get("kind") or record.get("move")) == "spirit_combat",
        his.get("body_plan"),
        tuple(his["hit_points"]),
        tuple(victim.weapons),
        used,
        tuple(record.get("warded") or ()),
    )
    # recalled(), written out: a call fewer on the path of every parked exchange.
    memo: Memo[Any, list[JSON]] | None = rules.memo.get(_MEMO)
    found = memo.found.get(key) if memo is not None else None
    if found is None:
        made = _build_options(rules, Parked.of(record), victim)
        found = memo_of(rules.memo, _MEMO).put(key, made)
    return found


_ID = itemgetter("id")
_MEMO = "choice_options"


def _build_options(rules: RulesView, waiting: Parked, victim: CombatantRecord) -> list[JSON]:
    options: list[JSON] = []
    for effect in waiting.record.get("eligible") or []:
        effect_id: str = effect["id"]
        option: JSON = {"id": effect_id, "label": effect["name"]}
        kind = None if waiting.spirit else option_of(rules, effect_id)
        choices: list[JSON] = []
        if kind == LOCATION:
            chooses = rules.effects[effect_id].params.chooses_location
            choices = _locations(rules, waiting, victim, chooses)
        elif kind == WEAPON:
            choices = _weapons(rules, waiting, victim)
        elif kind == BYPASS:
            choices = [dict(c) for c in _BYPASS_CHOICES]
        if choices:
            option["param"] = {"name": kind, "choices": choices}
        options.append(option)
    return options


def pending_choices(rules: RulesView, kind: str, result: JSON, state: JSON | None) -> list[JSON]:
    """The choices an outcome of request ``kind`` leaves open (its ``result["pending"]``);
    ``state``: the outcome's state (its dict, whose combatants are typed records)."""
    if state is None:
        return []
    # The state's dict read directly, not through a view made for it: this runs for every
    # parked exchange.
    parked: JSON = state.get("pending") or {}
    records: dict[str, CombatantRecord] = state["combatants"]
    if kind == "sweep_attack":
        return [
            effects_choice(rules, records, parked[pair["token"]], f"sweep-{pair['defender']}")
            for pair in result.get("exchanges", [])
            if pair.get("status") == "awaiting_effects" and pair.get("token") in parked
        ]
    if kind == "state":
        return [effects_choice(rules, records, parked[token], token) for token in sorted(parked)]
    token = result.get("token")
    if result.get("status") == "awaiting_effects" and token in parked:
        return [effects_choice(rules, records, parked[token])]
    return []
