"""The common actions the module offers as macros and as client API calls.

An action is a call on the client's API (``game.modules.get("arbiter").api``). Every ruleset
gets "draw from one of its tables"; the three bundled rulesets add dialogs for their main
request types (the engines' ``requests``: combat-styles ``exchange``, ``check``, ``opposed``,
``odds``, ``spirit_combat``, ``start_encounter``, the round's steps (``initiative``, ``next_*``,
``state``), any combat action (``act``) with presets for the hand actions, the follow-up trip
and Regain Footing, and the manoeuvres; hmk ``attack`` and ``initiative``; karmic ``declare``
and ``draw_initiative``).
A ruleset this list does not know still gets its tables macro, so house-rule rulesets work.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    """One macro: a label key in ``lang/en.json`` and the API call it makes."""

    id: str
    label_key: str
    function: str
    """Dotted path of the API function, e.g. ``dialogs.open``."""
    arguments: tuple[str, ...]
    icon: str

    def call(self) -> str:
        """The JavaScript call expression on ``api``, arguments JSON-quoted."""
        args = ", ".join(json.dumps(a) for a in self.arguments)
        return f"api.{self.function}({args})"


def _dialog(ruleset: str, request: str, icon: str, name: str | None = None) -> Action:
    """The macro opening the dialog of ``request``; ``name`` (default: the request type) names
    the macro's id and label, so a renamed request type keeps its macro's id."""
    name = name or request
    key = "".join(part.title() for part in f"{ruleset}-{name}".replace("_", "-").split("-"))
    return Action(name, f"ARBITER.Macro.{key}", "dialogs.open", (ruleset, request), icon)


MODULE_ACTIONS: tuple[Action, ...] = (
    Action("status", "ARBITER.Macro.Status", "status", (), "icons/svg/signal.svg"),
)

RULESET_ACTIONS: dict[str, tuple[Action, ...]] = {
    "combat-styles": (
        _dialog("combat-styles", "exchange", "icons/svg/sword.svg"),
        _dialog("combat-styles", "check", "icons/svg/dice-target.svg"),
        _dialog("combat-styles", "opposed", "icons/svg/combat.svg"),
        _dialog("combat-styles", "odds", "icons/svg/book.svg"),
        _dialog("combat-styles", "start_encounter", "icons/svg/combat.svg"),
        # initiative, next_turn, next_cycle, next_round, state: the form sends the chosen type.
        _dialog("combat-styles", "round", "icons/svg/clockwork.svg"),
        _dialog("combat-styles", "spirit_combat", "icons/svg/aura.svg"),
        # `act` with one action each (and any action): the dialog form sends type "act".
        _dialog("combat-styles", "ready_weapon", "icons/svg/upgrade.svg"),
        _dialog("combat-styles", "drop_weapon", "icons/svg/downgrade.svg"),
        _dialog("combat-styles", "trip_entangled", "icons/svg/net.svg"),
        _dialog("combat-styles", "regain_footing", "icons/svg/up.svg"),
        _dialog("combat-styles", "act", "icons/svg/daze.svg"),
        _dialog("combat-styles", "leaping_attack", "icons/svg/falling.svg"),
        _dialog("combat-styles", "outmaneuver", "icons/svg/wingfoot.svg"),
        _dialog("combat-styles", "sweep_attack", "icons/svg/explosion.svg"),
        _dialog("combat-styles", "aerial_pass", "icons/svg/wing.svg"),
        _dialog("combat-styles", "mount", "icons/svg/pawprint.svg"),
        _dialog("combat-styles", "mounted_withdraw", "icons/svg/door-exit.svg"),
    ),
    "hmk": (
        _dialog("hmk", "attack", "icons/svg/sword.svg"),
        _dialog("hmk", "initiative", "icons/svg/clockwork.svg"),
    ),
    "karmic": (
        _dialog("karmic", "declare", "icons/svg/card-hand.svg", name="register"),
        _dialog("karmic", "draw_initiative", "icons/svg/clockwork.svg", name="initiative"),
        _dialog("karmic", "reveal", "icons/svg/eye.svg"),
        _dialog("karmic", "resolve_register", "icons/svg/combat.svg", name="resolve"),
    ),
}


def ruleset_actions(ruleset_id: str) -> tuple[Action, ...]:
    """The actions of one ruleset: its known requests, then drawing from its tables."""
    draw = Action(
        "tables",
        "ARBITER.Macro.DrawTable",
        "tables.choose",
        (ruleset_id,),
        "icons/svg/d20-grey.svg",
    )
    return (*RULESET_ACTIONS.get(ruleset_id, ()), draw)
