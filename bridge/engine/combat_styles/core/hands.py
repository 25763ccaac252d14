"""Hands: which hand holds which weapon, and the moves that depend on it.

A record's ``hands`` maps each hand of the rule data (``combat.hands``) to the weapon it holds
or None. A weapon can strike or parry only while held: it sits in as many hands as it needs
(its ``hands`` in the weapon data; shields and missile weapons by ``combat.hands``), it has not
been disarmed, taken, dropped or left impaled in a foe, and no hand holding it belongs to a
useless, stunned, entangled or grappled arm (a stunned arm may also drop what it holds:
``combat.hands.stunned_arm``).
Natural weapons need no hand. Ready Weapon draws a weapon into free hands (or
sheathes a held one, or picks up a dropped one over ``pick_up_turns`` actions); Drop Weapon
lets go. Records without ``hands`` (state from before hands were tracked) hold everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import JSON, EngineError

GONE = ("disarmed", "taken", "dropped", "impaled_in")
"""Conditions listing weapons that have left their wielder's hands."""
BINDING = ("entangled", "grappled")
"""Holds that bind the limb at their ``location``: its hand holds nothing usable meanwhile."""


def hands_needed(rules: RulesView, arm_id: str) -> int:
    """Hands ``arm_id`` needs, from the rule data (0: a natural weapon)."""
    need = rules.memo.get("hands_needed")
    if need is None:
        model = rules.model
        data = model.combat.hands
        need = {w.id: w.hands for w in model.weapons}
        need.update({s.id: data.shield_hands for s in model.shields})
        need.update(
            {
                r.id: r.hands if r.hands is not None else data.ranged_hands
                for r in model.ranged_weapons
            }
        )
        rules.memo["hands_needed"] = need
    return need.get(arm_id, 0)


def hand_ids(rules: RulesView) -> tuple[str, ...]:
    return tuple(h.id for h in rules.model.combat.hands.hands)


def initial_hands(
    rules: RulesView, weapons: Iterable[str], given: Mapping[str, str | None] | None
) -> dict[str, str | None]:
    """The hands of a new record. Without ``given`` the weapons fill free hands in list order
    (one that does not fit is carried). ``given`` is checked: known hands, listed weapons, and
    each weapon in exactly as many hands as it needs. Raises LookupError naming the problem."""
    names = hand_ids(rules)
    listed = list(weapons)
    out: dict[str, str | None] = dict.fromkeys(names)
    if given is None:
        for wid in listed:
            n = hands_needed(rules, wid)
            free = [h for h in names if out[h] is None]
            if 0 < n <= len(free):
                for h in free[:n]:
                    out[h] = wid
        return out
    for hand, held in given.items():
        if hand not in out:
            raise LookupError(f"unknown hand {hand!r} (known: {', '.join(names)})")
        if held is not None and held not in listed:
            raise LookupError(f"hand {hand!r} holds {held!r}, which is not in the weapons list")
        out[hand] = held
    for wid in set(filter(None, out.values())):
        n = hands_needed(rules, wid)
        count = sum(1 for w in out.values() if w == wid)
        if count != n:
            raise LookupError(f"{wid!r} needs {n} hand(s) but is held in {count}")
    return out


def _gone(c: CombatantRecord, arm_id: str) -> str | None:
    conditions = c.conditions
    if not conditions:
        return None
    for name in GONE:
        if arm_id in conditions.get(name, {}).get("weapons", []):
            return name.replace("_in", "")
    return None


def stunned_locations(c: CombatantRecord) -> set[str]:
    """The locations Stun Location has incapacitated: counted in Turns (``locations``) or
    kept in another unit until removed (Knockout Blow's minutes)."""
    stunned = c.conditions.get("stunned") if c.conditions else None
    if not stunned:
        return set()
    out: set[str] = set()
    for key, value in stunned.items():
        if key != "turns" and isinstance(value, dict):
            out.update(value)
    return out


def _disabled_locations(c: CombatantRecord) -> dict[str, str]:
    """Location → why a limb there cannot use what its hand holds: a useless arm (Serious
    Wound), a stunned one (Stun Location), an entangled arm ("cannot use whatever it is
    holding") or a grappled limb ("rendered inoperable"); the first reason found wins."""
    conditions = c.conditions
    out: dict[str, str] = {}
    if not conditions:
        return out
    useless = conditions.get("limb_useless")
    for loc in useless.get("locations", []) if useless else []:
        out.setdefault(loc, "useless")
    for loc in stunned_locations(c):
        out.setdefault(loc, "stunned")
    for name in BINDING:
        bound = conditions.get(name)
        if bound is not None and bound.get("location") is not None:
            out.setdefault(bound["location"], name)
    return out


def snared_leg(rules: RulesView, c: CombatantRecord) -> str | None:
    """The leg an entangling weapon has snared ("prevents the target from moving"), or None."""
    entangled = c.conditions.get("entangled") if c.conditions else None
    loc = entangled.get("location") if entangled else None
    return str(loc) if loc is not None and rules.location(loc).leg else None


def _disabled_hands(rules: RulesView, c: CombatantRecord) -> dict[str, str]:
    """Hand → why it holds nothing usable (see :func:`_disabled_locations`)."""
    locations = _disabled_locations(c)
    if not locations:
        return {}
    return {
        h.id: locations[h.location]
        for h in rules.model.combat.hands.hands
        if h.location in locations
    }


def why_not_held(rules: RulesView, c: CombatantRecord, arm_id: str) -> str | None:
    """None when ``c`` holds ``arm_id`` ready for use; otherwise the reason he does not."""
    hands = c.hands
    if hands is None or hands_needed(rules, arm_id) == 0:
        return None
    if not c.conditions:
        # The usual case, on every exchange: nothing gone, no useless arm.
        return None if arm_id in hands.values() else "it is not in his hands (ready it first)"
    gone = _gone(c, arm_id)
    if gone:
        return f"it was {gone}"
    holding = [h for h, w in hands.items() if w == arm_id]
    if not holding:
        return "it is not in his hands (ready it first)"
    disabled = _disabled_hands(rules, c)
    for hand in holding:
        if hand in disabled:
            return f"the arm holding it is {disabled[hand]}"
    return None


def holds(rules: RulesView, c: CombatantRecord, arm_id: str) -> bool:
    return why_not_held(rules, c, arm_id) is None


def require_held(rules: RulesView, c: CombatantRecord, arm_id: str, purpose: str) -> None:
    """EngineError unless ``c`` holds ``arm_id`` (see :func:`why_not_held`)."""
    why = why_not_held(rules, c, arm_id)
    if why is not None:
        raise EngineError(f"{c.name} cannot {purpose} with {arm_id!r}: {why}")


def free_hands(rules: RulesView, c: CombatantRecord) -> list[str]:
    """Hands holding nothing usable (empty, or their weapon is gone), on working arms (not
    useless, stunned, entangled or grappled)."""
    hands = c.hands or {}
    useless = _disabled_hands(rules, c)
    return [
        h for h, w in hands.items() if h not in useless and (w is None or _gone(c, w) is not None)
    ]


def require_free_hand(rules: RulesView, c: CombatantRecord, purpose: str) -> None:
    """EngineError when ``c`` (whose hands are tracked) has no free hand for ``purpose``."""
    if c.hands is None or not rules.model.combat.hands.grapple_needs_free_hand:
        return
    if not free_hands(rules, c):
        raise EngineError(f"{c.name} has no free hand to {purpose}")


def grab(rules: RulesView, c: CombatantRecord, arm_id: str) -> str | None:
    """Put ``arm_id`` into free hands if enough are free (a taken weapon); the hand or None."""
    if c.hands is None:
        return None
    n = hands_needed(rules, arm_id)
    free = free_hands(rules, c)
    if n == 0 or len(free) < n:
        return None
    c.set_hands({**c.hands, **dict.fromkeys(free[:n], arm_id)})
    return free[0]


def _drop_from_list(c: CombatantRecord, condition: str, arm_id: str) -> None:
    entry = c.conditions.get(condition)
    if entry is None or arm_id not in entry.get("weapons", []):
        return
    left = [w for w in entry["weapons"] if w != arm_id]
    if left:
        entry["weapons"] = left
    else:
        del c.conditions[condition]


def ready_weapon(rules: RulesView, c: CombatantRecord, arm_id: str) -> JSON:
    """Ready Weapon: sheathe a held weapon, pick up a dropped or disarmed one (over
    ``pick_up_turns`` actions), or draw a carried one into free hands."""
    if arm_id not in c.weapons:
        raise EngineError(f"{c.name} does not carry {arm_id!r}")
    hands = c.hands
    if hands is None:
        raise KeyError("hands")
    gone = _gone(c, arm_id)
    if gone is None and arm_id in hands.values():
        c.set_hands({h: (None if w == arm_id else w) for h, w in hands.items()})
        return {"weapon": arm_id, "outcome": "sheathed", "hands": c.hands}
    if gone in ("taken", "impaled"):
        raise EngineError(f"{c.name}'s {arm_id!r} was {gone}: it is not within reach")
    if c.weapons[arm_id]["broken"]:
        raise EngineError(f"{c.name}'s {arm_id!r} is broken")
    n = hands_needed(rules, arm_id)
    free = free_hands(rules, c)
    if len(free) < n:
        raise EngineError(
            f"{c.name} has {len(free)} free hand(s); {arm_id!r} needs {n}: "
            "drop or sheathe something first"
        )
    if gone is not None:
        turns = rules.model.combat.hands.pick_up_turns
        picking = c.conditions.get("picking_up")
        done = picking["done"] + 1 if picking and picking.get("weapon") == arm_id else 1
        if done < turns:
            c.conditions["picking_up"] = {"turns": None, "weapon": arm_id, "done": done}
            return {"weapon": arm_id, "outcome": f"picking up ({done} of {turns} turns)"}
        c.conditions.pop("picking_up", None)
        _drop_from_list(c, "dropped", arm_id)
        _drop_from_list(c, "disarmed", arm_id)
    # A hand still listing a weapon that is gone is free: overwrite it.
    cleared = {h: (None if h in free else w) for h, w in hands.items()}
    c.set_hands({**cleared, **dict.fromkeys(free[:n], arm_id)})
    outcome = "picked up" if gone is not None else "drawn"
    return {"weapon": arm_id, "outcome": outcome, "hands": c.hands}


def drop_weapon(rules: RulesView, c: CombatantRecord, arm_id: str) -> JSON:
    """Drop Weapon: let go of a held weapon; it lies at the wielder's feet."""
    gone = _gone(c, arm_id)
    hands = c.hands
    if hands is None:
        raise KeyError("hands")
    if gone is not None or arm_id not in hands.values():
        why = f"it was {gone}" if gone else "it is not in his hands"
        raise EngineError(f"{c.name} cannot drop {arm_id!r}: {why}")
    c.set_hands({h: (None if w == arm_id else w) for h, w in hands.items()})
    dropped = c.conditions.setdefault("dropped", {"turns": None, "weapons": []})
    if arm_id not in dropped["weapons"]:
        dropped["weapons"].append(arm_id)
    return {"weapon": arm_id, "outcome": "dropped", "hands": c.hands}


def stun_arm(rules: RulesView, c: CombatantRecord, location: str) -> list[str]:
    """Stun Location has numbed the arm at ``location``: its hand lets go of what it holds
    when ``combat.hands.stunned_arm.drops`` (a strapped shield stays, with ``keeps_shields``);
    returns the weapons dropped."""
    rule = rules.model.combat.hands.stunned_arm
    hands = c.hands
    if not rule.drops or hands is None:
        return []
    numbed = {h.id for h in rules.model.combat.hands.hands if h.location == location}
    shields = {s.id for s in rules.model.shields} if rule.keeps_shields else set()
    dropped: list[str] = []
    for hand in sorted(numbed):
        wid = hands.get(hand)
        if wid is None or wid in shields or wid in dropped or _gone(c, wid) is not None:
            continue
        drop_weapon(rules, c, wid)
        dropped.append(wid)
    return dropped


HAND_ACTIONS = {"ready_weapon": ready_weapon, "drop_weapon": drop_weapon}
"""Combat action ids (rule data ``actions``) that change what the hands hold."""
