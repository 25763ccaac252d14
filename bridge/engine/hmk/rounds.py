"""The encounter between strikes: starting it, the first-action declarations, reloading,
readying and standing (each one action), medical aid, and the turn of the round (bleeding,
death timers, knock-outs, lost rounds, fresh actions)."""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.hmk.attack import check_stat_block
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.injury import settle, suffer
from arbiter.bridge.engine.hmk.requests import (
    AidBody,
    CombatantBody,
    DeclareBody,
    NextRoundBody,
    ReadyBody,
    StartBody,
)
from arbiter.bridge.engine.hmk.state import (
    ACTIVE,
    DEAD,
    UNCONSCIOUS,
    Combatant,
    Encounter,
    load,
)


def start(ix: Index, body: StartBody) -> Resolution:
    """A new encounter in round 1 (replaces any state the encounter had)."""
    ids = [c.id for c in body.combatants]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise EngineError(f"combatant ids must be unique: {', '.join(duplicates)}")
    for stats in body.combatants:
        check_stat_block(ix, stats)
    encounter = Encounter(
        round=1, combatants={s.id: Combatant.from_stats(s) for s in body.combatants}
    )
    result: JSON = {
        "kind": "start",
        "round": 1,
        "combatants": {c.id: c.summary() for c in encounter.combatants.values()},
    }
    return Resolution(result=result, state=encounter.to_json())


def next_round(ix: Index, body: NextRoundBody, state: JSON | None) -> Resolution:
    """Advance to the next round and apply everything that ticks per round, in this order for
    each combatant: bleeding; the death timer of one already unconscious (not stabilized);
    knock-out and lost-round countdowns; fresh actions less any owed."""
    encounter = _need(state)
    encounter.round += 1
    combat = ix.rules.combat
    events: list[JSON] = []
    for c in encounter.combatants.values():
        if c.status == DEAD:
            c.actions_left = 0
            continue
        was_unconscious = c.status == UNCONSCIOUS
        loss = sum(b["per_round"] for b in c.bleeding)
        if loss:
            events.append({"kind": "bleeding", "target": c.id, "amount": loss})
            events.extend(suffer(c, loss, combat))
        if was_unconscious and c.status == UNCONSCIOUS and not c.stabilized:
            assert c.death_in is not None  # set when the combatant fell unconscious
            c.death_in -= 1
            if c.death_in <= 0:
                c.status, c.death_in = DEAD, None
                events.append(
                    {"kind": "dead", "target": c.id, "reason": "no medical assistance in time"}
                )
            else:
                events.append({"kind": "death_timer", "target": c.id, "death_in": c.death_in})
        # A knock-out and a stun both count rounds from now, side by side.
        c.out_this_round = False
        if c.knocked_out > 0:
            c.knocked_out -= 1
            c.out_this_round = True
            events.append({"kind": "knocked_out", "target": c.id, "rounds_left": c.knocked_out})
        if c.lost_rounds > 0:
            c.lost_rounds -= 1
            c.out_this_round = True
            events.append({"kind": "lost_round", "target": c.id, "rounds_left": c.lost_rounds})
        c.actions_used = 0
        c.defending = False
        c.movement = "walking"
        c.opened = False
        c.free_strikes_taken = []
        c.bonus_strikes = 0
        if c.can_act:
            paid = min(c.actions_owed, c.actions)
            c.actions_left = c.actions - paid
            c.actions_owed -= paid
        else:
            c.actions_left = 0
    encounter.order = []
    result: JSON = {
        "kind": "round",
        "round": encounter.round,
        "events": events,
        "combatants": {c.id: c.summary() for c in encounter.combatants.values()},
    }
    return Resolution(result=result, state=encounter.to_json())


def declare(ix: Index, body: DeclareBody, state: JSON | None) -> Resolution:
    """First-action declarations: defence (no strikes this round) and movement speed."""
    encounter = _need(state)
    c = encounter.get(body.combatant, "combatant")
    move = ix.movement_of(body.movement)
    if not c.can_act:
        raise EngineError(f"{c.why_not()} and cannot declare anything")
    if c.actions_used > 0:
        raise EngineError(f"{c.name} already acted this round: declarations come first")
    if c.walk_only_days > 0 and move.penalty != 0:
        raise EngineError(f"{c.name} twisted an ankle and can only walk")
    if c.prone and move.id != "walking":
        raise EngineError(f"{c.name} is down and must stand before moving")
    c.defending = body.defending
    c.movement = move.id
    result: JSON = {
        "kind": "declare",
        "round": encounter.round,
        "combatant": c.id,
        "defending": c.defending,
        "movement": c.movement,
    }
    return Resolution(result=result, state=encounter.to_json())


def reload(ix: Index, body: CombatantBody, state: JSON | None) -> Resolution:
    """One action of reloading the missile weapon in hand (bow 1, crossbow 2 in all)."""
    encounter = _need(state)
    c = encounter.get(body.combatant, "combatant")
    if c.weapon is None:
        raise EngineError(f"{c.name} holds no weapon to reload")
    weapon = ix.weapon(c.weapon)
    if weapon.reload is None:
        raise EngineError(f"a {weapon.name} is not reloaded (thrown weapons are readied)")
    gear = c.gear[weapon.id]
    if gear.loaded:
        raise EngineError(f"{c.name}'s {weapon.name} is already loaded")
    _spend(c, 1)
    needed = ix.reload[weapon.reload].actions
    gear.reload_progress += 1
    if gear.reload_progress >= needed:
        gear.loaded, gear.reload_progress = True, 0
    result: JSON = {
        "kind": "reload",
        "round": encounter.round,
        "combatant": c.id,
        "weapon": weapon.id,
        "loaded": gear.loaded,
        "progress": gear.reload_progress if not gear.loaded else needed,
        "needed": needed,
    }
    return Resolution(result=result, state=encounter.to_json())


def ready(ix: Index, body: ReadyBody, state: JSON | None) -> Resolution:
    """Take a carried, dropped or disarmed weapon in hand (thrown weapons are gone)."""
    encounter = _need(state)
    c = encounter.get(body.combatant, "combatant")
    weapon = ix.weapon(body.weapon)
    gear = c.gear.get(weapon.id)
    if gear is None:
        raise EngineError(f"{c.name} does not carry a {weapon.name}")
    if gear.broken:
        raise EngineError(f"{c.name}'s {weapon.name} is broken")
    if gear.where == "thrown":
        raise EngineError(f"{c.name}'s {weapon.name} was thrown; ready another weapon")
    if gear.where == "hand":
        raise EngineError(f"{c.name} already holds the {weapon.name}")
    actions = ix.rules.thrown_weapons.ready.actions
    _spend(c, actions)
    if c.weapon is not None:
        c.gear[c.weapon].where = "carried"
    picked_up_from = gear.where
    gear.where, gear.distance_feet = "hand", None
    c.weapon = weapon.id
    result: JSON = {
        "kind": "ready",
        "round": encounter.round,
        "combatant": c.id,
        "weapon": weapon.id,
        "from": picked_up_from,
        "actions": actions,
    }
    return Resolution(result=result, state=encounter.to_json())


def stand(ix: Index, body: CombatantBody, state: JSON | None) -> Resolution:
    """Get up after a fall (one action)."""
    encounter = _need(state)
    c = encounter.get(body.combatant, "combatant")
    if not c.prone:
        raise EngineError(f"{c.name} is not down")
    _spend(c, ix.rules.combat.stand_actions)
    c.prone = False
    result: JSON = {
        "kind": "stand",
        "round": encounter.round,
        "combatant": c.id,
        "combatants": {c.id: c.summary()},
    }
    return Resolution(result=result, state=encounter.to_json())


def aid(ix: Index, body: AidBody, state: JSON | None) -> Resolution:
    """Medical assistance: stop the death timer, restore IP, cure until-healed effects."""
    encounter = _need(state)
    c = encounter.get(body.combatant, "combatant")
    if c.status == DEAD:
        raise EngineError(f"{c.name} is dead: only magical or divine means can help")
    events: list[JSON] = []
    if body.stabilize and c.status == UNCONSCIOUS and not c.stabilized:
        c.stabilized, c.death_in = True, None
        events.append({"kind": "stabilized", "target": c.id})
    if body.heal_ip:
        before = c.ip
        c.ip = min(c.max_ip, c.ip + body.heal_ip)
        events.append({"kind": "healed", "target": c.id, "amount": c.ip - before})
        if c.ip > 0 and c.status == UNCONSCIOUS:
            c.status, c.death_in, c.stabilized = ACTIVE, None, False
            events.append({"kind": "conscious", "target": c.id})
    if body.cure:
        c.bleeding, c.penalties, c.conditions = [], [], []
        c.incapacitated = False
        c.walk_only_days = 0
        events.append({"kind": "cured", "target": c.id})
    events.extend(settle(c, ix.rules.combat))
    result: JSON = {
        "kind": "aid",
        "round": encounter.round,
        "combatant": c.id,
        "events": events,
        "combatants": {c.id: c.summary()},
    }
    return Resolution(result=result, state=encounter.to_json())


def _need(state: JSON | None) -> Encounter:
    if state is None:
        raise EngineError("this request needs an encounter: send 'start' first")
    return load(state)


def _spend(c: Combatant, actions: int) -> None:
    if not c.can_act:
        raise EngineError(f"{c.why_not()} and cannot act")
    if c.actions_left < actions:
        raise EngineError(f"{c.name} has no actions left this round")
    c.actions_left -= actions
    c.actions_used += actions
