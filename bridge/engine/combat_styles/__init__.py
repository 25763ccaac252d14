"""The combat-styles engine: d100 checks, exchanges with special effects, rounds, exact odds.

Pure: no I/O, no clock, no randomness but the injected :class:`~bridge.engine.dice.Dice`.
Request types and their bodies are listed in :data:`REQUESTS`; see
``docs/requests-combat-styles.md``.

Modules, one job each:

* ``rules`` / ``view`` — the rule data as the engine reads it (built once per model);
* ``checks``, ``differential``, ``odds`` — d100 checks, special effects won, exact odds;
* ``requests``, ``combatants`` — request bodies, stat blocks and state records;
* ``situations`` — grades, caps, range bands, conditions that grade rolls, fatigue;
  ``familiarity`` — unfamiliar weapons for attack and parry, and their STR+DEX floor;
* ``exchange`` (``weapons_used``: the arms it strikes and parries with, reach) →
  ``eligibility`` → ``finishing`` (``blows``, ``wounds``, ``damage``) — the exchange from
  attack roll to wound and knockback; ``brace`` — the Brace action's lasting SIZ bonus;
* ``special_effects`` (the dispatcher), ``effect_rolls``, ``wounding_effects``,
  ``weapon_effects``, ``bash``, ``manoeuvres`` — each special effect's consequence;
* ``rounds`` (the entry point), ``initiative``, ``turns``, ``combat_actions``, ``guards``,
  ``holds`` — the round state machine, Ward Location, Struggle and pulling impaled weapons free;
  ``death_timers`` — a Major Wound's "dies unless treated" running out as rounds pass;
* ``bodily``, ``hands``, ``encumbrance``, ``fatigue_checks`` — the optional stat-block fields
  (Magic Points, spirit-combat skill, ENC, starting fatigue, hands), which hand holds what,
  the grade steps of a load, and the Endurance checks against fatigue as rounds close;
* ``spirit`` — spirit combat and Spirit Damage to Magic Points;
* ``engine`` — the ``ENGINE`` object and the request dispatcher.
"""

from bridge.engine.combat_styles.engine import ENGINE, REQUESTS, CombatStylesEngine

__all__ = ["ENGINE", "REQUESTS", "CombatStylesEngine"]
