"""A corpus of keyed combat-styles request sequences, to prove a refactoring changes nothing.

Each sequence (numbered from 0) draws its combatants, requests and choices from a seeded
``random.Random`` and rolls keyed dice, so the same number always asks the same questions of an
engine that answers the same way. Every request kind of the engine is drawn: checks, opposed
rolls, odds, exchanges (parked and finished at once, with situations), choices of effects
answered from the outcome's ``pending`` options, spirit combat, the round requests, leaps,
outmanoeuvres, sweeps, aerial passes, mounting and mounted withdrawals. A refusal is part of the
corpus too (its message), and the sequence goes on. Every request is also checked to leave the
state it was given unchanged (the engine's copy-on-write).

Two outputs:

* ``--outcomes FILE``: one JSON line per request — the request, and the outcome envelope
  (``json.dumps`` with the engine's own key order) or the refusal's message. Two trees whose
  engines behave alike write byte-identical files.
* ``--replay FILE``: the accepted requests of every sequence with their recorded dice, one
  encounter per sequence, in the file format ``arbiter replay`` reads.

Run: ``.venv/bin/python benchmarks/combat_styles_corpus.py --count 400 --outcomes out.jsonl
--replay corpus.json`` in each tree, then ``cmp`` the outputs (and of ``arbiter replay``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.engine.envelope import Request, RequestError, resolve
from arbiter.bridge.records import canonical
from arbiter.compiler.model.loader import RULES_ROOT, load_all

MELEE = ["dagger", "broadsword", "mace", "great_axe", "battleaxe_1h", "shortspear", "net"]
MELEE += ["longspear", "rapier", "whip", "club", "trident", "greatsword", "unarmed", "lance"]
RANGED = ["short_bow", "sling", "javelin", "thrown_dagger", "light_crossbow"]
SHIELDS = ["heater", "buckler", "kite_shield", "target_shield"]
ARMOURS = ["padded", "mail", "laminated", "plated_mail", "scaled"]
LOCATIONS = ["right_leg", "left_leg", "abdomen", "chest", "right_arm", "left_arm", "head"]
TRAITS = ["assassination", "batter_aside", "blind_fighting", "cautious_fighter", "daredevil"]
TRAITS += ["defensive_minded", "do_or_die", "excellent_footwork", "formation_fighting"]
TRAITS += ["mancatcher", "mounted_combat", "shield_splitter", "shield_wall", "unarmed_prowess"]
SITUATIONS = ["close_prone", "close_confined", "close_attack_from_behind", "close_blinded"]
ACTIONS = ["attack", "brace", "change_range", "dither", "move", "ready_weapon"]
ACTIONS += ["regain_footing", "struggle", "take_cover", "ward_location", "drop_weapon"]
ACTIONS += ["trip_entangled", "assess_situation", "evade", "parry", "delay"]


def fighter(rng: random.Random, cid: str) -> JSON:
    """A random humanoid stat block."""
    ch = {k: rng.randint(6, 18) for k in ("str", "con", "siz", "dex", "int", "pow", "cha")}
    weapons = rng.sample(MELEE[:-2], rng.randint(1, 2))
    if rng.random() < 0.6:
        weapons.append(rng.choice(SHIELDS))
    if rng.random() < 0.2:
        weapons.append(rng.choice(RANGED))
    armor = {loc: rng.choice(ARMOURS) for loc in rng.sample(LOCATIONS, rng.randint(0, 4))}
    block: JSON = {
        "id": cid,
        "characteristics": ch,
        "skills": {
            "combat_style": rng.randint(20, 130),
            "evade": rng.randint(10, 90),
            "endurance": rng.randint(20, 80),
            "willpower": rng.randint(20, 80),
            "brawn": rng.randint(10, 70),
            "athletics": rng.randint(10, 70),
            "acrobatics": rng.randint(10, 70),
            "ride": rng.randint(10, 80),
            "unarmed": rng.randint(10, 90),
        },
        "weapons": weapons,
        "armor": armor,
        "traits": rng.sample(TRAITS, rng.randint(0, 2)),
    }
    if rng.random() < 0.3:
        block["spirit_combat"] = rng.randint(20, 90)
    if rng.random() < 0.2:
        block["luck_points"] = rng.randint(0, 3)
    block["movement"] = rng.choice([6, 8])
    return block


def horse(rng: random.Random, cid: str) -> JSON:
    """A riding horse: a quadruped that may carry a rider."""
    return {
        "id": cid,
        "characteristics": {"str": 25, "con": 14, "siz": 26, "dex": 10, "int": 4, "pow": 8},
        "skills": {"combat_style": rng.randint(30, 60), "evade": 30, "endurance": 50},
        "weapons": [],
        "quadruped": True,
        "movement": 12,
    }


def situation(rng: random.Random) -> JSON:
    out: JSON = {}
    if rng.random() < 0.3:
        out["attacker_situations"] = rng.sample(SITUATIONS, 1)
    if rng.random() < 0.1:
        out["surprise"] = True
    if rng.random() < 0.1:
        out["charging"] = True
    if rng.random() < 0.1:
        out["crowd"] = rng.choice(["edge", "through"])
    if rng.random() < 0.1:
        out["cover"] = {rng.choice(LOCATIONS): rng.randint(1, 6)}
    if rng.random() < 0.1:
        out["target_stationary"] = True
    if rng.random() < 0.05:
        out["obstacle"] = True
    if rng.random() < 0.05:
        out["defender_braced"] = True
    return out


class Sequence:
    """One encounter's requests, drawn from ``rng``, resolved against ``model``."""

    def __init__(self, n: int, ruleset: Any, out: list[str], accepted: list[JSON]) -> None:
        self.n = n
        self.rng = random.Random(n)
        self.source = KeyedSource(n.to_bytes(4, "big") * 8)
        self.model = ruleset.model
        self.rules_hash: str = ruleset.content_hash
        self.state: JSON | None = None
        self.out = out
        self.accepted = accepted
        self.seq = 0
        self.ids: list[str] = []
        self.weapons: dict[str, list[str]] = {}
        self.choices: list[JSON] = []

    def send(self, kind: str, body: JSON) -> JSON | None:
        self.seq += 1
        req = {
            "id": f"q{self.n}-{self.seq}",
            "ruleset": "combat-styles",
            "type": kind,
            "encounter": f"e{self.n}",
            "body": body,
        }
        before = canonical(self.state) if self.state is not None else None
        try:
            outcome = resolve(
                Request.model_validate(req),
                ENGINE,
                self.model,
                self.rules_hash,
                self.state,
                self.source,
            )
        except (EngineError, RequestError) as err:
            self.out.append(json.dumps({"request": req, "refused": str(err)}, ensure_ascii=False))
            self.untouched(before, req)
            return None
        self.untouched(before, req)
        self.out.append(json.dumps({"request": req, "outcome": outcome}, ensure_ascii=False))
        self.accepted.append({**req, "dice": [d["result"] for d in outcome["dice"]]})
        if outcome["state"] is not None:
            # Threaded as the server and ``arbiter replay`` do: back from canonical JSON.
            self.state = json.loads(canonical(outcome["state"]))
        self.choices = outcome["result"].get("pending", [])
        return outcome

    def untouched(self, before: str | None, req: JSON) -> None:
        """The engine never changes the state it is given (the server keeps it): the copy-on-
        write of every request is checked here, over the whole corpus."""
        if before is not None and canonical(self.state) != before:
            raise AssertionError(f"{req['id']} ({req['type']}) changed the state it was given")

    def pick_effects(self, choice: JSON) -> list[JSON]:
        """Up to ``count`` of the choice's options, each with a value for its parameter."""
        rng = self.rng
        picked: list[JSON] = []
        options = choice["options"]
        for _ in range(choice["count"]):
            if not options or rng.random() < 0.1:
                break
            option = rng.choice(options)
            effect: JSON = {"id": option["id"]}
            param = option.get("param")
            if param is not None:
                effect[param["name"]] = rng.choice(param["choices"])["id"]
            if option["id"] == "force_failure" and picked:
                effect["with_effect"] = picked[0]["id"]
            if option["id"] == "prepare_counter":
                effect["counter"] = rng.choice(["trip_opponent", "bash", "disarm_opponent"])
            picked.append(effect)
        return picked

    def two(self) -> tuple[str, str]:
        """Two combatants; mostly the one whose turn it is first, when turns are kept."""
        a, b = self.rng.sample(self.ids, 2)
        order = (self.state or {}).get("order") or []
        acted = (self.state or {}).get("acted") or []
        due = [c for c in order if c not in acted]
        if due and self.rng.random() < 0.7:
            a = due[0]
            b = self.rng.choice([c for c in self.ids if c != a])
        return a, b

    def conditions(self, cid: str) -> JSON:
        record = (self.state or {}).get("combatants", {}).get(cid) or {}
        found: JSON = record.get("conditions") or {}
        return found

    def held(self, cid: str) -> list[str]:
        """The weapons ``cid`` holds (his hands), else any he owns."""
        hands = ((self.state or {}).get("combatants", {}).get(cid) or {}).get("hands") or {}
        return sorted({w for w in hands.values() if w}) or self.weapons[cid]

    def exchange_body(self, a: str, b: str) -> JSON:
        rng = self.rng
        body: JSON = {
            "attacker": a,
            "defender": b,
            "weapon": rng.choice([*self.held(a), None]),
            "defence": rng.choice(["parry", "parry", "evade", "none", "counterattack"]),
        }
        if body["defence"] == "parry":
            body["parry_weapon"] = rng.choice(self.held(b))
        if rng.random() < 0.5:
            body["situation"] = situation(rng)
        if rng.random() < 0.1:
            body["grapple"] = True
            body["weapon"] = None
        if rng.random() < 0.1:
            body["odds"] = True
        if rng.random() < 0.1:
            body["parry_only_if_hit"] = True
        if rng.random() < 0.1:
            body["attacker_luck"] = rng.choice(["critical", "success"])
        if rng.random() < 0.1:
            body["effects"] = []
        if rng.random() < 0.05 and len(self.ids) > 2:
            body["bystander"] = next(i for i in self.ids if i not in (a, b))
        return body

    def step(self) -> None:
        rng = self.rng
        if self.choices and rng.random() < 0.8:
            choice = rng.choice(self.choices)
            body = dict(choice["body"])
            body["effects"] = self.pick_effects(choice)
            self.send("choose_effects", body)
            return
        riders = [c for c in self.ids if "mounted" in self.conditions(c)]
        if riders and rng.random() < 0.2:  # a rider, now and then, withdraws
            rider = rng.choice(riders)
            steed = self.conditions(rider)["mounted"].get("mount")
            foe = rng.choice([c for c in self.ids if c not in (rider, steed)] or [rider])
            self.send("mounted_withdraw", {"rider": rider, "opponents": [foe]})
            return
        a, b = self.two()
        roll = rng.random()
        if roll < 0.45:
            self.send("exchange", self.exchange_body(a, b))
        elif roll < 0.55:
            action = rng.choice(ACTIONS)
            body: JSON = {"combatant": a, "action": action}
            if action in ("ready_weapon", "drop_weapon", "ward_location"):
                body["weapon"] = rng.choice(self.weapons[a])
            if action == "ward_location":
                body["locations"] = rng.sample(LOCATIONS, rng.randint(1, 2))
            if action in ("trip_entangled", "regain_footing") and rng.random() < 0.5:
                body["target"] = b
            self.send(rng.choice(["act", "act", "spend_ap"]), body)
        elif roll < 0.62:
            kind = rng.choice(["next_turn", "next_cycle", "next_round", "state"])
            self.send(kind, {})
        elif roll < 0.65:
            self.send(rng.choice(["delay", "interrupt"]), {"combatant": a})
        elif roll < 0.70:
            self.send("spirit_combat", {"attacker": a, "defender": b})
        elif roll < 0.74:
            self.send("leaping_attack", {"attacker": a, "defender": b})
        elif roll < 0.78:
            body = {"combatant": a, "opponents": [b]}
            if rng.random() < 0.5:
                body["then"] = rng.choice(["engage", "withdraw"])
                if body["then"] == "engage":
                    body["engage"] = b
            self.send("outmaneuver", body)
        elif roll < 0.82:
            targets = [
                {"defender": d, "defence": rng.choice(["parry", "evade", "none"])}
                for d in self.ids
                if d != a
            ]
            for t in targets:
                if t["defence"] == "parry":
                    t["parry_weapon"] = rng.choice(self.weapons[t["defender"]])
            self.send("sweep_attack", {"attacker": a, "targets": targets})
        elif roll < 0.84:
            self.send("aerial_pass", {"combatant": a, "opponents": [b]})
        elif roll < 0.88:
            steed = "horse" if "horse" in self.ids and a != "horse" and rng.random() < 0.7 else b
            self.send("mount", {"rider": a, "mount": rng.choice([steed, steed, None])})
        elif roll < 0.90:
            self.send("mounted_withdraw", {"rider": a, "opponents": [b]})
        elif roll < 0.94:
            skill = rng.randint(5, 150)
            self.send("check", {"skill": skill, "combatant": a, "skill_name": "athletics"})
        elif roll < 0.97:
            self.send(
                "opposed",
                {
                    "protagonist": {"skill": rng.randint(5, 150)},
                    "antagonist": {"skill": rng.randint(5, 150)},
                },
            )
        else:
            self.send(
                "odds",
                {
                    "attack": {"skill": rng.randint(5, 150)},
                    "defence": {"skill": rng.randint(5, 150)},
                },
            )

    def run(self, steps: int) -> None:
        rng = self.rng
        count = rng.randint(2, 4)
        blocks = [fighter(rng, f"f{i}") for i in range(count)]
        if rng.random() < 0.25:
            blocks.append(horse(rng, "horse"))
        self.ids = [b["id"] for b in blocks]
        self.weapons = {b["id"]: list(b["weapons"]) or ["unarmed"] for b in blocks}
        if rng.random() < 0.4:
            # A free encounter: the first exchange carries the stat blocks.
            a, b = self.two()
            body = self.exchange_body(a, b)
            body["combatants"] = blocks
            body.pop("effects", None)
            if self.send("exchange", body) is None:
                return
        else:
            start: JSON = {"combatants": blocks, "fatigue_checks": rng.random() < 0.3}
            if rng.random() < 0.2:
                start["surprised"] = [rng.choice(self.ids)]
            if self.send("start_encounter", start) is None:
                return
            self.send("initiative", {})
        for _ in range(steps):
            self.step()


def corpus(count: int, steps: int = 30) -> tuple[list[str], list[JSON]]:
    """The outcome lines and the accepted requests (with their dice) of sequences
    ``0 .. count - 1``."""
    ruleset = load_all(RULES_ROOT, None)["combat-styles"]
    lines: list[str] = []
    accepted: list[JSON] = []
    for n in range(count):
        Sequence(n, ruleset, lines, accepted).run(steps)
    return lines, accepted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--outcomes", type=Path, required=True)
    parser.add_argument("--replay", type=Path, default=None)
    args = parser.parse_args()
    lines, accepted = corpus(args.count, args.steps)
    args.outcomes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.replay is not None:
        args.replay.write_text(json.dumps({"requests": accepted}, indent=1), encoding="utf-8")
    refused = sum(1 for line in lines if '"refused"' in line[:400])
    print(f"{len(lines)} requests, {len(accepted)} accepted, {refused} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
