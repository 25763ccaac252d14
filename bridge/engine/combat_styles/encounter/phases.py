"""The phases of an encounter, and the one table of the moves between them.

How it works
------------

An encounter is always in one of three phases, kept in its state as ``phase``
(:attr:`~arbiter.bridge.engine.combat_styles.core.encounter_state.EncounterState.phase`):

``setup``
    ``start_encounter`` recorded the combatants; nobody has rolled initiative, so nobody has
    action points and nobody's turn has come. Reactions (a parry, an evade) may be taken and
    cost nothing; anything that needs a turn is refused.
``turns``
    ``initiative`` was rolled: the encounter tracks rounds, cycles, whose turn it is and
    everyone's action points (``rounds/turns.py``). A proactive action is paid on its taker's
    own turn; a reaction costs a point, at any time, while he has one.
``free``
    An encounter without the round order: the one an ``exchange`` with stat blocks makes for
    itself, or one a GM plays without turns. Anything may be done at any time and costs
    nothing; no round ever begins.

Requests move an encounter between phases only through :data:`TRANSITIONS`. Each *event* (what
a request asks of the round) maps the phases it is legal in to the phase it leads to; in any
other phase it is refused with the event's message in :data:`REFUSALS`, before anything
changes and before any die. The whole machine, in one table:

==============  ===========  ===========  ==========================================
event           in setup     in turns     in free
==============  ===========  ===========  ==========================================
initiative      → turns      refused      refused
new_round       → turns      → turns      refused
next_turn       refused      → turns      refused
next_cycle      refused      → turns      refused
next_round      refused      → turns      refused
interrupt       refused      → turns      refused
on_turn         refused      → turns      refused
proactive       refused      → turns      → free
reaction        → setup      → turns      → free
==============  ===========  ===========  ==========================================

``new_round`` is the round opening (the first one, from initiative; then each one after the
last cycle); ``on_turn`` is anything that needs its taker's turn (a delay); ``proactive`` and
``reaction`` are paid actions (paid only in ``turns``). ``free`` is a sink: nothing leads out
of it, and ``setup`` is left only by initiative. :func:`require` is the only reader of the
table; :func:`tracks_turns` answers the question every cost asks ("are points counted?").
"""

from __future__ import annotations

from typing import Final

from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.contract import EngineError

SETUP: Final = "setup"
TURNS: Final = "turns"
FREE: Final = "free"
PHASES: Final = (SETUP, TURNS, FREE)

INITIATIVE: Final = "initiative"
NEW_ROUND: Final = "new_round"
NEXT_TURN: Final = "next_turn"
NEXT_CYCLE: Final = "next_cycle"
NEXT_ROUND: Final = "next_round"
INTERRUPT: Final = "interrupt"
ON_TURN: Final = "on_turn"
PROACTIVE: Final = "proactive"
REACTION: Final = "reaction"

TRANSITIONS: Final[dict[str, dict[str, str]]] = {
    INITIATIVE: {SETUP: TURNS},
    NEW_ROUND: {SETUP: TURNS, TURNS: TURNS},
    NEXT_TURN: {TURNS: TURNS},
    NEXT_CYCLE: {TURNS: TURNS},
    NEXT_ROUND: {TURNS: TURNS},
    INTERRUPT: {TURNS: TURNS},
    ON_TURN: {TURNS: TURNS},
    PROACTIVE: {TURNS: TURNS, FREE: FREE},
    REACTION: {SETUP: SETUP, TURNS: TURNS, FREE: FREE},
}
"""Event → {phase it is legal in → the phase it leads to}."""

REFUSALS: Final[dict[str, str]] = {
    INITIATIVE: "initiative is rolled once, at the start of the encounter",
    NEW_ROUND: "no round begins outside the round order",
    NEXT_TURN: "there are no turns before initiative is rolled",
    NEXT_CYCLE: "there are no cycles before initiative is rolled",
    NEXT_ROUND: "there are no rounds before initiative is rolled",
    INTERRUPT: "interrupts happen during turns",
    ON_TURN: "{name} cannot {what} before initiative is rolled",
    PROACTIVE: "roll initiative before anyone acts",
    REACTION: "",
}
"""Event → the refusal when it is sent in a phase it is not legal in (``{name}`` and
``{what}``: the combatant and what he tried)."""


def phase_of(state: EncounterState) -> str | None:
    """The encounter's phase (None for a state that records none)."""
    return state.phase


def tracks_turns(state: EncounterState) -> bool:
    """Whether turns and action points are counted: the ``turns`` phase."""
    # The phase read from the state's dict, not through its property: this runs several times
    # a request, and in the interpreted engine a property read is a Python call.
    phase: str | None = state.data.get("phase")
    return phase == TURNS


def require(state: EncounterState, event: str, name: str = "", what: str = "") -> str:
    """The phase ``event`` leads to from the encounter's phase; raises EngineError with the
    event's refusal when it is not legal there. Changes nothing."""
    # A state that records no phase plays as ``free`` (as one without turns always has).
    phase: str | None = state.data.get("phase")  # see tracks_turns: a dict read, not a call
    after = TRANSITIONS[event].get(phase or FREE)
    if after is None:
        raise EngineError(REFUSALS[event].format(name=name, what=what))
    return after
