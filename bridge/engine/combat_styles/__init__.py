"""The combat-styles engine: d100 checks, exchanges with special effects, rounds, exact odds.

Pure: no I/O, no clock, no randomness but the injected :class:`~arbiter.bridge.engine.dice.Dice`.
Request types and their bodies are listed in :data:`REQUESTS`; see
``docs/requests-combat-styles.md``.

Sub-packages by phase of play, bottom to top; a module imports only its own sub-package and
those above it in this list (``tests/bridge/engine/combat_styles/test_layers.py`` keeps it so):

* ``core/`` — the rule data as the engine reads it (``view``, ``rules``, built once per model),
  d100 checks (``checks``), special effects won (``differential``), ``damage``, and what a stat
  block implies: ``block_checks`` (every rule-data id a stat block names that the data lacks,
  for the door and the engine alike), ``hands`` (which hand holds what),
  ``combatant_record`` (a combatant's record as a typed native record, a view of the stored
  one written back key for key: what every module reads and writes), ``encounter_state``
  (the encounter state as a typed native view: a property for every top-level field, the
  state handlers hand back as its ``data``), ``memo`` (the one
  bounded memo every cache of a pure function uses), ``json_copy`` (a deep copy of plain JSON),
  ``traits``, ``bodily`` (Magic Points,
  spirit-combat skill, ENC, starting fatigue), ``encumbrance``, ``familiarity`` (unfamiliar
  weapons), ``weapons_used`` (the arms an exchange strikes and parries with, reach);
* ``bodies/`` — request bodies and stat blocks (pydantic, interpreted): ``stat_blocks``,
  ``requests``, ``move_requests``, ``request_types``;
* ``encounter/`` — the encounter's records: ``combatants`` (a combatant's record built from his
  stat block; the state's typed records taken in, read, copied on write and released),
  ``wounds``, ``blows`` (a blow
  landing), ``brace`` (the Brace action's lasting SIZ bonus), ``follow_ups``, ``engagement``,
  ``spirit_engagement``, ``saddle`` (who rides whom), ``pending_exchange`` (the typed records of an exchange and of a
  spirit combat between their rolls and their finish, which finishing and the effects read), ``pending`` (the read-only
  view of a parked exchange or spirit combat that a choice answers), ``phases`` (the
  encounter's phases and the one table of moves between them, with its essay), ``lasting``
  (the public conditions of each combatant a request wrote, a result's ``lasting``);
* ``grades/`` — what grades a roll: ``situations`` (grades, caps, range bands, conditions,
  fatigue), ``contests``, ``burdens``;
* ``rounds/`` — the round state machine; its ``__init__`` is the entry point other layers call
  (``initiative``, ``turns``, ``combat_actions``), with ``guards`` (Ward Location), ``holds``
  (Struggle, pulling impaled weapons free), ``footing``, ``death_timers`` (a Major Wound's "dies
  unless treated" running out) and ``fatigue_checks`` (Endurance checks as rounds close);
* ``riding/`` — ``astride`` (a mount and rider acting together) and ``riders``;
* ``effects/`` — special effects: ``eligibility``, ``special_effects`` (the dispatcher: where
  each effect lives), ``effect_rolls``, ``wounding_effects``, ``weapon_effects``, ``bash``,
  ``manoeuvres``;
* ``exchange/`` — ``exchange`` (attack roll to differential, parking the pending exchange),
  ``finishing`` (chosen effects, blow, wound, knockback), ``odds`` (exact odds), ``choices``
  (the pending choices a result describes, in the shape every ruleset shares);
* ``moves/`` — requests beyond a plain exchange: ``leaping``, ``sweeping``,
  ``outmaneuvering``, ``aerial``, ``mounted``;
* ``spirit/`` — ``spirit`` (spirit combat, Spirit Damage to Magic Points) and
  ``spirit_effects``;
* ``engine`` (here, above every layer) — the ``ENGINE`` object and the request dispatcher.
"""

from arbiter.bridge.engine.combat_styles.engine import ENGINE, REQUESTS, CombatStylesEngine

__all__ = ["ENGINE", "REQUESTS", "CombatStylesEngine"]
