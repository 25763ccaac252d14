"""Spirit-combat special effects: who may take them, what they require, the numbers they use.

The winner of a spirit-combat exchange chooses these (not the weapon exchange's
``special_effects``): the engine offers those whose :class:`SpiritRequirements` hold and applies
each by its ``mechanic``, reading the numbers from :class:`SpiritEffectParams`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from arbiter.compiler.model.combat_styles.effects import Taker
from arbiter.compiler.model.common import Entry, Id, RuleModel

Nature = Literal["mortal", "spirit"]
"""What a combatant is: a ``spirit`` (a stat block with ``spirit = true``) or a ``mortal``."""

SpiritMechanic = Literal[
    "spirit_lance",
    "bleed_essence",
    "psychic_stun",
    "restrain",
    "end_engagement",
]
"""The consequence the engine gives a spirit effect, named after the effect that has it:

* ``spirit_lance`` — the Spirit Damage is rolled ``params.damage_rolls`` times, the best kept;
* ``bleed_essence`` — the loser loses ``params.magic_points_per_cycle`` Magic Points at the
  start of every Cycle until the engagement ends (or, ``params.lasts = "encounter"``, for good);
* ``psychic_stun`` — the loser loses his next ``params.lost_turns`` Turn(s): the rounds machine
  refuses his proactive actions and delays until he has let them pass;
* ``restrain`` — the loser gains ``params.condition`` as long as ``params.lasts`` (an effect whose
  ``requires.taker_free_of`` names it is then refused to him);
* ``end_engagement`` — the spirit combat between the two ends (lasting spirit effects between
  them lapse); with ``params.bars`` the loser may not engage the winner again that long.
"""


class SpiritRequirements(RuleModel):
    """What must be true for the winner to choose the effect. Absent fields require nothing."""

    own_roll: Literal["critical"] | None = None
    """The taker's own roll must be this level."""
    opponent_roll: Literal["fumble"] | None = None
    """The opponent's roll must be this level."""
    taker_nature: Nature | None = None
    """Only a mortal (or only a spirit) may take it."""
    opponent_nature: Nature | None = None
    """It works only against a mortal (or only against a spirit)."""
    taker_free_of: tuple[Id, ...] = ()
    """Conditions (left by other spirit effects) that forbid the taker to choose it."""


class SpiritEffectParams(RuleModel):
    """The numbers a spirit effect's consequence needs. Only the fields its mechanic uses."""

    damage_rolls: int | None = Field(default=None, ge=2, le=10)
    """Spirit Lance: roll the Spirit Damage this many times and keep the best."""
    magic_points_per_cycle: int | None = Field(default=None, ge=1, le=100)
    """Bleed Essence: Magic Points the victim loses at the start of every Cycle."""
    lost_turns: int | None = Field(default=None, ge=1, le=10)
    """Psychic Stun: the victim's Turns lost, from his next one."""
    condition: Id | None = None
    """Restrain: the condition left on the victim while the engagement lasts."""
    bars: Literal["round", "encounter"] | None = None
    """End Engagement: how long the loser may not engage the winner again (None: he may)."""
    lasts: Literal["engagement", "encounter"] = "engagement"
    """Bleed Essence, Restrain: the condition ends when the two stop fighting (Withdraw, Turn
    Back, Drive Off, a defeat) or lasts the whole encounter."""


class SpiritEffect(Entry):
    """A special effect of spirit combat."""

    name: str
    taker: Taker
    """``attacker`` (O in the text), ``defender`` (D) or ``either`` (O/D)."""
    stackable: bool = False
    """May be picked more than once in one exchange."""
    narrative: bool = False
    """No mechanical rule: the engine records the choice (a mark on the loser), the GM judges."""
    mechanic: SpiritMechanic | None = None
    """The consequence the engine applies (see :data:`SpiritMechanic`); required unless
    ``narrative``."""
    requires: SpiritRequirements = SpiritRequirements()
    params: SpiritEffectParams = SpiritEffectParams()
    description: str
    """What it does, in our own words."""
