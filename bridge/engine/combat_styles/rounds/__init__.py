"""The round state machine: initiative, cycles, turns and action points (one entry point for
the modules that implement it: ``initiative``, ``turns``, ``combat_actions``).

How it works. ``start_encounter`` records the combatants (phase ``setup``). ``initiative`` rolls
1d10 + bonus − armour penalty − fatigue (− the surprise penalty) for everyone, orders them
(ties: higher DEX, then a die), fills everyone's action points and opens round 1, cycle 1
(phase ``turns``). The *current* combatant is the first in order who has action points and has
not yet taken his turn this cycle.

On his turn a combatant takes one proactive action (an ``exchange`` as attacker, or ``act`` with
a proactive action id), ``delay``\\s, or dithers (``next_turn``); each costs one action point
except delaying, whose point is paid by the later interrupt. Reactive actions (parry, evade,
interrupt, ``act`` with a reactive id) may be taken by anyone with action points, at any time.
When everyone has had his turn the cycle ends; a new cycle begins for those with points left;
when nobody has any, the round ends and a new one begins with full action points.

A new round puts fresh copies of every record in the state (``recopied``). So paying for an
action closes nothing (``turns``, "Paid, not closed"): a request that pays and then resolves
the action (an exchange, a leap, a sweep, spirit combat, mounting, ``act``) calls
:func:`settle` itself once it has written what the action leaves on the records it holds. The
action is resolved against the round it was paid in (a defender with no points left cannot
react with the next round's), and nothing it writes lands on a copy the state no longer holds.

Conditions that last N turns count down at the end of their bearer's turn. Every illegal move
raises :class:`~arbiter.bridge.engine.contract.EngineError` naming the reason; nothing is silently allowed.
An encounter in phase ``free`` (an exchange sent without one) tracks no turns or points. The
phases and every legal move between them are one table: :mod:`arbiter.bridge.engine.combat_styles.encounter.phases`.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.rounds.combat_actions import act
from arbiter.bridge.engine.combat_styles.rounds.initiative import roll_initiative, start
from arbiter.bridge.engine.combat_styles.rounds.turns import (
    OUT,
    current,
    delay,
    has_ap,
    interrupt,
    next_cycle,
    next_round,
    next_turn,
    settle,
    snapshot,
    spend_for_attack,
    spend_proactive,
    spend_reaction,
)

__all__ = [
    "OUT",
    "act",
    "current",
    "delay",
    "has_ap",
    "interrupt",
    "next_cycle",
    "next_round",
    "next_turn",
    "roll_initiative",
    "settle",
    "snapshot",
    "spend_for_attack",
    "spend_proactive",
    "spend_reaction",
    "start",
]
