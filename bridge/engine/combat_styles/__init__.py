"""The combat-styles engine: d100 checks, exchanges with special effects, rounds, exact odds.

Pure: no I/O, no clock, no randomness but the injected :class:`~bridge.engine.dice.Dice`.
Request types and their bodies are listed in :data:`REQUESTS`; see
``docs/requests-combat-styles.md``.
"""

from bridge.engine.combat_styles.engine import ENGINE, REQUESTS, CombatStylesEngine

__all__ = ["ENGINE", "REQUESTS", "CombatStylesEngine"]
