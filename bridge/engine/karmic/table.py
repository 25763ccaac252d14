"""The duel's state (a JSON-able dict) and the bookkeeping every request shares.

State layout (the server stores it whole; it holds secrets, so it is never shown to players —
views are built by :mod:`arbiter.bridge.engine.karmic.views`)::

    deck:        {"draw": [card ids, next draw first], "discard": [[card id, seen by], ...]}
                 seen by "*" when the card was shown to all, else the one combatant who saw it
    combatants:  {id: {name, side, finesse, force, armor, vitality, size, skills, main, off,
                       out, hand: [card ids], changed_weapon_round, effects: [...]}}
    pairs:       {"a|b": {range, initiative, hesitated: [ids], ended}}  (one per pair of foes)
    round:       {number, over, registers: [...], limits: {id: n},
                  used: {id: {total, main, off, ended, once, parried_with, no_parry_slot}},
                  charge: {charger, target} | None} | None
    over:        true once the duel has ended
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.karmic.rulebook import Rulebook
from arbiter.compiler.model.karmic import Maneuver, Weapon

FORMAT = 1


def thaw(state: JSON) -> JSON:
    """A working copy of ``state`` that the engine may change without touching the original.

    Copies every container the engine changes in place and shares the rest (skills, effect
    entries, discard entries, targets, the lists of a round's use), which the engine only ever
    replaces. A test replays a
    long randomized game checking that no request changes the state it was given.
    """
    deck = state["deck"]
    rnd = state["round"]
    out = dict(state)
    out["deck"] = {**deck, "draw": list(deck["draw"]), "discard": list(deck["discard"])}
    out["combatants"] = {
        cid: {**c, "hand": list(c["hand"]), "effects": list(c["effects"])}
        for cid, c in state["combatants"].items()
    }
    out["pairs"] = {k: {**p, "hesitated": list(p["hesitated"])} for k, p in state["pairs"].items()}
    if rnd is not None:
        out["round"] = {
            **rnd,
            "registers": [
                {
                    **reg,
                    "declarations": {
                        cid: [dict(d) for d in decls] for cid, decls in reg["declarations"].items()
                    },
                }
                for reg in rnd["registers"]
            ],
            "used": {cid: dict(u) for cid, u in rnd["used"].items()},
            "limits": dict(rnd["limits"]),
        }
    return out


def pair_key(a: str, b: str) -> str:
    """The key of the pair of foes ``a`` and ``b`` (order does not matter)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


class Table:
    """A mutable working copy of the state plus the rules, with the shared bookkeeping."""

    def __init__(self, book: Rulebook, state: JSON, dice: Dice) -> None:
        self.book = book
        self.state = state
        self.dice = dice
        self._modifiers: dict[str, int] = {}
        self.combatants: dict[str, JSON] = state["combatants"]

    # -- combatants ---------------------------------------------------------------------
    def combatant(self, cid: str) -> JSON:
        found = self.combatants.get(cid)
        if found is None:
            known = ", ".join(self.combatants)
            raise EngineError(f"no combatant {cid!r} in this duel (known: {known})")
        return found

    def foes(self, cid: str) -> list[str]:
        """Every combatant on another side, in duel order."""
        side = self.combatants[cid]["side"]
        return [o for o, c in self.combatants.items() if c["side"] != side]

    def live_foes(self, cid: str) -> list[str]:
        """Foes still in the fight whose pair with ``cid`` has not ended."""
        return [
            o
            for o in self.foes(cid)
            if not self.combatants[o]["out"] and not self.pair(cid, o)["ended"]
        ]

    def require_foes(self, a: str, b: str) -> JSON:
        """The pair of ``a`` and ``b``; an error if they are on the same side."""
        self.combatant(a)
        self.combatant(b)
        key = pair_key(a, b)
        pair = self.state["pairs"].get(key)
        if pair is None:
            raise EngineError(f"{a} and {b} are on the same side")
        return pair

    def pair(self, a: str, b: str) -> JSON:
        return self.state["pairs"][pair_key(a, b)]

    def skill(self, cid: str, skill: str) -> int:
        """A skill's cards; a skill the fighter lacks gives the default (one card)."""
        return int(self.combatants[cid]["skills"].get(skill, self.book.rules.draws.default_skill))

    def weapon(self, cid: str, slot: str) -> Weapon | None:
        wid = self.combatants[cid][slot]
        return None if wid is None else self.book.weapons[wid]

    def modifiers(self, cid: str) -> int:
        """The combat modifiers: finesse + force + armor modifier (as the rule data lists them)."""
        known = self._modifiers.get(cid)
        if known is not None:
            return known  # no request changes a fighter's characteristics or armor
        c = self.combatants[cid]
        total = sum(int(c.get(name, 0)) for name in self.book.combatant_modifiers)
        if self.book.armor_counts:
            total += self.book.armor[c["armor"]].modifier
        self._modifiers[cid] = total
        return total

    def foe_size(self, attacker: str, target: str) -> str:
        """``large``, ``small`` or ``normal``: the target's size relative to the attacker."""
        rules = self.book.rules.foe_sizes
        a = self.combatants[attacker]["size"]
        t = self.combatants[target]["size"]
        if t >= rules.large_factor * a:
            return "large"
        if t * rules.small_factor < a:
            return "small"
        return "normal"

    def effects(self, cid: str, effect: str) -> list[JSON]:
        return [e for e in self.combatants[cid]["effects"] if e["effect"] == effect]

    def has_effect(self, cid: str, effect: str, by: str) -> bool:
        return any(e["by"] == by for e in self.effects(cid, effect))

    def lasting(self, effect: str) -> JSON:
        """When ``effect``, beginning now, wears off: ``{"until_round": n}`` for an effect the
        rule data gives a number of rounds (``lasting_effects.toml``), else nothing (it lasts
        until a maneuver undoes it). Before the first round the round number counts as 0."""
        rounds = self.book.lasting[effect]
        if rounds is None:
            return {}
        rnd = self.state["round"]
        return {"until_round": (rnd["number"] if rnd is not None else 0) + rounds}

    def remove_effects(self, cid: str, effect: str, by: str | None = None) -> None:
        c = self.combatants[cid]
        c["effects"] = [
            e for e in c["effects"] if not (e["effect"] == effect and by in (None, e["by"]))
        ]

    # -- initiative ---------------------------------------------------------------------
    def holder(self, a: str, b: str) -> str | None:
        return self.pair(a, b)["initiative"]

    def give_initiative(self, holder: str, foe: str) -> list[JSON]:
        """``holder`` takes the initiative over ``foe``; returns every change it causes.

        A fighter holds the initiative over one foe at a time: taking it over a second foe
        yields it to the first, who in turn yields any other he held (the chain is finite).
        """
        changes: list[JSON] = []
        work = [(holder, foe)]
        flips = 0
        while work and flips <= 2 * len(self.state["pairs"]):
            h, f = work.pop()
            pair = self.pair(h, f)
            if pair["initiative"] != h:
                pair["initiative"] = h
                changes.append({"holder": h, "over": f})
                flips += 1
            for other in self.foes(h):
                if other != f and self.pair(h, other)["initiative"] == h:
                    self.pair(h, other)["initiative"] = other
                    changes.append({"holder": other, "over": h, "yielded_by": h})
                    flips += 1
                    work.append((other, h))
        return changes

    # -- cards --------------------------------------------------------------------------
    def draw(self, label: str) -> str:
        """The next card of the draw pile; an empty pile is refilled by shuffling the discard."""
        deck = self.state["deck"]
        if not deck["draw"]:
            if not deck["discard"]:
                raise EngineError("no cards left: every card is in someone's hand")
            deck["draw"] = self.dice.shuffle(
                [card for card, _ in deck["discard"]], "reshuffle", hidden=True
            )
            deck["discard"] = []
            deck["reshuffles"] += 1
        return deck["draw"].pop(0)

    def discard(self, card: str, seen_by: str) -> None:
        self.state["deck"]["discard"].append([card, seen_by])

    def face(self, card: str) -> JSON:
        """A card for its holder: its id (to play it by) and its face."""
        f = self.book.cards[card]
        return {"card": card, "value": f.value, "hit": f.hit}

    def shown(self, card: str) -> JSON:
        """A card as shown to everyone: its face only, never its id."""
        f = self.book.cards[card]
        return {"value": f.value, "hit": f.hit}

    # -- the round ----------------------------------------------------------------------
    @property
    def round(self) -> JSON:
        rnd = self.state["round"]
        if rnd is None:
            raise EngineError("no round has started: draw hands first")
        return rnd

    def register(self, number: int) -> JSON:
        """Register ``number`` of the current round (created when first declared)."""
        registers = self.round["registers"]
        while len(registers) < number:
            registers.append(
                {
                    "number": len(registers) + 1,
                    "declarations": {},
                    "revealed": False,
                    "resolved": False,
                }
            )
        return registers[number - 1]

    def used(self, cid: str) -> JSON:
        return self.round["used"].setdefault(cid, {"total": 0, "main": 0, "off": 0, "ended": False})

    def maneuver_limit(self, cid: str) -> int:
        """Maneuvers allowed this round: the weapon's maximum (bare hands' without one); with
        an off-hand weapon or shield the higher of the two maximums plus the extra the rule
        data gives (``hands.toml``); one each after a charge."""
        limit = self.round["limits"].get(cid)
        if limit is not None:
            return int(limit)
        main = self.weapon(cid, "main") or self.book.bare_hands
        off = self.weapon(cid, "off")
        top = main.max_maneuvers
        if off is not None:
            top = max(top, off.max_maneuvers) + self.book.rules.hands.off_hand_extra_maneuvers
        return top

    def committed(self, cid: str) -> int:
        """Cards of ``cid`` already sealed in this round's registers."""
        return sum(len(r["declarations"].get(cid, ())) for r in self.round["registers"])

    def able(self, cid: str) -> bool:
        """Whether ``cid`` could still declare a maneuver this round."""
        c = self.combatants[cid]
        if c["out"] or not c["hand"]:
            return False
        used = self.round["used"].get(cid)
        if used is not None and (used["ended"] or used["total"] >= self.maneuver_limit(cid)):
            return False
        side = c["side"]
        pairs = self.state["pairs"]
        return any(
            other["side"] != side and not other["out"] and not pairs[pair_key(cid, oid)]["ended"]
            for oid, other in self.combatants.items()
        )

    def done_with(self, cid: str, number: int) -> bool:
        """Whether ``cid`` has declared (or passed, or cannot act) in register ``number``."""
        registers = self.round["registers"]
        if number <= len(registers) and cid in registers[number - 1]["declarations"]:
            return True
        return not self.able(cid)

    def check_over(self) -> bool:
        """End the duel when at most one side is left or every pair has ended."""
        sides = {c["side"] for c in self.combatants.values() if not c["out"]}
        live_pairs = [
            k
            for k, p in self.state["pairs"].items()
            if not p["ended"] and not any(self.combatants[x]["out"] for x in k.split("|"))
        ]
        if len(sides) < 2 or not live_pairs:
            self.state["over"] = True
        return bool(self.state["over"])

    def require_running(self) -> None:
        if self.state["over"]:
            raise EngineError("the duel is over")

    # -- reach --------------------------------------------------------------------------
    def reach_problem(
        self, attacker: str, target: str, m: Maneuver, slot: str | None
    ) -> str | None:
        """Why ``attacker`` cannot reach ``target`` with ``m`` now; None when he can."""
        if not m.needs_weapon:
            return None
        weapon = self.weapon(attacker, slot or "main")
        if weapon is None:
            return f"{attacker} holds no weapon in his {slot} hand"
        pair = self.pair(attacker, target)
        distance = max(pair["range"], self.book.close)
        if m.at_range is not None and distance != m.at_range:
            return f"{m.name} is made at range {m.at_range}, the range is {distance}"
        if self.has_effect(target, "clung", attacker):
            return None  # a clinger attacks with any weapon he wishes
        for hold in self.effects(attacker, "clung"):
            if hold["by"] != target:
                continue
            if hold["after_flank"]:
                return f"{target} clings to {attacker} after flanking him: no attack reaches"
            if weapon.range > self.book.close:
                return f"{target} clings to {attacker}: only range 0 attacks reach"
        if weapon.range != distance:
            return f"{weapon.name} attacks at range {weapon.range}, the range is {distance}"
        return None

    def parry_problem(
        self, defender: str, attacker: str, slot: str | None, attacker_reach: int | None
    ) -> str | None:
        """Why ``defender`` cannot parry ``attacker`` with ``slot``; None if he can.

        A weapon parries at its own range, or any attack made with a weapon of greater reach.
        """
        weapon = self.weapon(defender, slot or "main")
        if weapon is None or not weapon.can_parry:
            return f"{defender} has nothing to parry with in his {slot or 'main'} hand"
        distance = max(self.pair(defender, attacker)["range"], self.book.close)
        if weapon.range == distance or (
            attacker_reach is not None and attacker_reach > weapon.range
        ):
            return None
        return f"{weapon.name} parries at range {weapon.range} or longer reach, range is {distance}"


def new_state(combatants: dict[str, JSON], pairs: dict[str, JSON], draw: list[str]) -> JSON:
    return {
        "format": FORMAT,
        "deck": {"draw": draw, "discard": [], "reshuffles": 0},
        "combatants": combatants,
        "pairs": pairs,
        "round": None,
        "over": False,
    }
