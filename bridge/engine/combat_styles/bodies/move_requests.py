"""Typed bodies of the manoeuvre requests: leaping attacks, outmanoeuvring, sweep attacks,
aerial passes and mounting (validated at the edge by pydantic)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice, LuckPolicy, Situation
from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import Body


class LeapingAttackBody(Body):
    """A leap meant to knock the defender prone: the leaper's skill against the defender's
    (``combat.leaping_attack``)."""

    acting: ClassVar[tuple[str, ...]] = ("attacker",)

    attacker: str
    defender: str
    resist_with: str | None = None
    """The defender's skill (one of ``defender_skills``; a quadruped may also use
    ``quadruped_defender_skill``); default the first of ``defender_skills``. ``none``: he does
    not resist (counts as the no-defence level)."""
    defender_braced: bool = False
    """The defender braced, aware of the coming leap: his SIZ counts larger against the limit."""
    attacker_augment: int = Field(default=0, ge=0, le=500)
    defender_augment: int = Field(default=0, ge=0, le=500)
    effects: list[EffectChoice] | None = Field(default=None, max_length=8)
    """The winner's choice made in advance: when given, the leap finishes at once."""


class OutmaneuverBody(Body):
    """A group opposed roll of ``combat.outmaneuver.skill`` against the foes who try to corner
    ``combatant``."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: str
    opponents: list[str] = Field(min_length=1, max_length=31)
    then: Literal["engage", "withdraw"] | None = None
    """What to do if he beats every opponent: engage ``engage`` alone, or withdraw."""
    engage: str | None = None
    """The single foe engaged safely (``then = "engage"``)."""


class SweepTarget(Body):
    """One defender caught by a sweep attack, and his own reaction."""

    defender: str
    defence: Literal["parry", "evade", "none", "counterattack"] = "parry"
    parry_weapon: str | None = None
    defender_augment: int = Field(default=0, ge=0, le=500)
    defender_luck: LuckPolicy | None = None
    effects: list[EffectChoice] | None = Field(default=None, max_length=8)
    """The winner's choice for this pair, made in advance."""


class SweepAttackBody(Body):
    """One attack applied to every target in its path; each pair is its own exchange."""

    acting: ClassVar[tuple[str, ...]] = ("attacker",)

    attacker: str
    weapon: str | None = None
    targets: list[SweepTarget] = Field(min_length=1, max_length=16)
    situation: Situation = Situation()
    attacker_augment: int = Field(default=0, ge=0, le=500)
    attacker_luck: LuckPolicy | None = None


class AerialBody(Body):
    """The opposed roll that decides who may attack on this round's pass."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: str
    """The lone participant."""
    opponents: list[str] = Field(min_length=1, max_length=31)
    skills: dict[str, str] = Field(default_factory=dict)
    """Combatant id → the skill he jockeys with (one of ``combat.aerial.skills``; default the
    first: Fly; a rider uses Ride)."""


class MountBody(Body):
    """A rider mounts (or dismounts from) a mount that is a combatant of the encounter."""

    acting: ClassVar[tuple[str, ...]] = ("rider",)

    rider: str
    mount: str | None = None
    """The mount's combatant id; None: dismount."""


class MountedWithdrawBody(Body):
    """A rider withdraws freely from the foes engaging him, his mount being faster."""

    acting: ClassVar[tuple[str, ...]] = ("rider",)

    rider: str
    opponents: list[str] = Field(min_length=1, max_length=31)
