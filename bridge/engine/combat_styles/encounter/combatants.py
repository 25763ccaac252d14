"""Combatants: the record kept in encounter state, built from the stat block a request supplies
(:mod:`arbiter.bridge.engine.combat_styles.bodies.stat_blocks`), and the encounter state's
records as the engine works on them.

The server stores each record as JSON; the engine works on typed records
(:class:`~arbiter.bridge.engine.combat_styles.core.combatant_record.CombatantRecord`) in a
typed state (:class:`~arbiter.bridge.engine.combat_styles.core.encounter_state.EncounterState`,
a view of the state dict): a state is :func:`taken_in` once per request (each record read
once, into a view that is the request's own), read through :func:`records_of`, written
through :func:`combatant` once :func:`writable` made the state writable (each record reached
copied into its view the first time: the stored state is never changed), handed back by its
handler as :attr:`EncounterState.data`, and :func:`released` once on the way out (each record
the request reached written back key for key, the others as given).

A stat block names the combatant's skills, weapons and armour by rule-data ids; anything left
out is derived from the characteristics by the rule data (hit points per location, damage
modifier, initiative bonus, healing rate) or defaults from it (action points).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import Characteristics, StatBlock
from arbiter.bridge.engine.combat_styles.core.block_checks import SKILLS, block_problems
from arbiter.bridge.engine.combat_styles.core.bodily import bodily_record
from arbiter.bridge.engine.combat_styles.core.checks import ceil_div
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import GIVEN, EncounterState
from arbiter.bridge.engine.combat_styles.core.json_copy import json_copy, list_copy
from arbiter.bridge.engine.combat_styles.core.memo import memo_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import JSON, EngineError

RECORDS_KEPT = 256
"""Records a view remembers (:func:`record`): the blocks in play at a table are few."""


def record(rules: RulesView, block: StatBlock) -> JSON:
    """The encounter-state record of a combatant (plain JSON); LookupError naming the first
    rule-data id of the block the rules lack.

    The same stat blocks come in every exchange of a fight, and a record is a pure function of
    the rules and the block's fields: it is built (and the block checked, :func:`built`) once
    per view and block value, and each call gets a deep copy of it (the caller's own, as a
    record built afresh is). A block never seen under this view is always checked, however it
    was validated."""
    found = remembered(rules, block)
    return planned_copy(found[0], found[1])


def remembered(rules: RulesView, block: StatBlock) -> Remembered:
    """The record of ``block`` the view remembers (see :func:`record`), shared, with how to
    copy it: never to be changed, only copied (:func:`planned_copy`).

    A block met before *as the same object* is found by its identity first, without its key
    (:func:`block_key` and a look-up by it cost a fifth of an exchange sent with two blocks):
    a validated block is frozen and the engine changes none of its fields, so the same object
    has the same value. The server hands the engine the very same validated blocks again and
    again: a body it validated before, sent again, and the blocks stored by the GM that
    requests name by reference."""
    seen = memo_of(rules.memo, "records_by_block", RECORDS_KEPT)
    known: tuple[StatBlock, Remembered] | None = seen.found.get(id(block))
    if known is not None and known[0] is block:
        return known[1]
    key = block_key(block)
    memo = memo_of(rules.memo, "records", RECORDS_KEPT)
    found: Remembered | None = memo.get(key)
    if found is None:
        made = built(rules, block)
        found = memo.put(key, (made, copy_plan(made)))
    # The block kept with its record: its id is not reused while it is kept here.
    seen.put(id(block), (block, found))
    return found


Plan = list[tuple[str, int, Any]]
"""How to copy a record (:func:`copy_plan`)."""

Remembered = tuple[JSON, Plan]
"""A remembered record and how to copy it."""

FLAT_DICT, FLAT_LIST, NESTED, FLAT_DICTS = 1, 2, 3, 4


def copy_plan(rec: JSON) -> Plan:
    """The record's keys holding a container, each with how to copy it and the container
    itself (``rec`` is a remembered record, never changed: its parts are taken from the plan,
    not looked up again on every copy): a mapping or list of plain values (copied in one C
    call), a mapping of such mappings (the weapons: each copied in one call), or one holding
    anything else (:func:`json_copy`)."""
    plan: Plan = []
    for key, value in rec.items():
        if isinstance(value, dict):
            if _flat(value):
                plan.append((key, FLAT_DICT, value))
            elif all(isinstance(v, dict) and _flat(v) for v in value.values()):
                plan.append((key, FLAT_DICTS, value))
            else:
                plan.append((key, NESTED, value))
        elif isinstance(value, list):
            flat = not any(isinstance(v, (dict, list)) for v in value)
            plan.append((key, FLAT_LIST if flat else NESTED, value))
    return plan


def _flat(mapping: JSON) -> bool:
    """Whether ``mapping`` holds no dict or list."""
    return not any(isinstance(v, (dict, list)) for v in mapping.values())


def planned_copy(rec: JSON, plan: Plan) -> JSON:
    """A deep copy of ``rec`` by its :func:`copy_plan`: the same as :func:`json_copy`, in a
    fraction of its time (most of a record's containers hold plain values)."""
    out = rec.copy()
    for key, how, part in plan:
        # Each part typed, so that the compiled code calls the dict's or list's own copy.
        if how == FLAT_DICT:
            mapping: JSON = part
            out[key] = mapping.copy()
        elif how == FLAT_LIST:
            items: list[Any] = part
            out[key] = items.copy()
        elif how == FLAT_DICTS:
            # Each inner mapping copied whole (one C call), not rebuilt key by key.
            inner: dict[str, JSON] = part
            copied: dict[str, JSON] = {}
            for name, each in inner.items():  # a loop, not a comprehension: no own frame
                copied[name] = each.copy()
            out[key] = copied
        else:
            out[key] = json_copy(part) if isinstance(part, dict) else list_copy(part)
    return out


def block_key(block: StatBlock) -> tuple[Any, ...]:
    """A block's fields as one hashable value, equal for two blocks exactly when their fields
    are (in order: a mapping's order shows in the record). Each field has one type, fixed by
    the model, so no two values of a field are equal across types (True and 1)."""
    given: dict[str, Any] = block.__dict__
    return tuple([_frozen(value) for value in given.values()])


def _frozen(value: Any) -> Any:
    """``value`` (a validated field) as a hashable value: mappings and lists as tuples, a
    nested model (the characteristics) as its fields."""
    # isinstance of a builtin type compiles to a flag test; a pydantic model's isinstance
    # goes through ABCMeta, so the characteristics are recognised by their exact type, last.
    if isinstance(value, str) or isinstance(value, int) or value is None:  # noqa: SIM101
        return value
    if isinstance(value, dict):
        mapping: dict[Any, Any] = value
        return tuple([(k, _frozen(v)) for k, v in mapping.items()])
    if isinstance(value, list):
        items: list[Any] = value
        return tuple([_frozen(v) for v in items])
    if type(value) is Characteristics:
        fields: dict[str, int] = value.__dict__
        return tuple(fields.values())
    return value  # another immutable value (a float)


def built(rules: RulesView, block: StatBlock) -> JSON:
    """The encounter-state record of a combatant, built from the block (see :func:`record`)."""
    # The validated fields are read from the instance dict, where pydantic keeps them: an
    # attribute read goes through pydantic's __getattr__ hook, a third of a record's cost.
    given: dict[str, Any] = block.__dict__
    stats = characteristics_of(given["characteristics"])
    key = tuple(stats.values())
    weapons: list[str] = given["weapons"]
    traits: list[str] = given["traits"]
    # Validated at the door under the served rules (``StatBlock.model_post_init``); checked
    # again here for a block validated without them (a test's hand-built body).
    problems = block_problems(rules, given)
    if problems:
        raise LookupError(problems[0][1])
    plan = rules.body_plan_named(given["body_plan"]).id
    given_hp: dict[str, int] | None = given["hit_points"]
    if given_hp is not None:
        # A location the block leaves out takes the rule data's value (docs/requests-combat-
        # styles.md): every location of the plan has hit points, as a blow may land anywhere.
        hp = dict(given_hp)
        for loc, value in derived(rules, hit_points, stats, key, plan).items():
            hp.setdefault(loc, value)
    else:  # the body plan's own locations: known ones
        hp = dict(derived(rules, hit_points, stats, key, plan))
    armor_ap: dict[str, int] = {}
    worn_enc = 0
    armor: dict[str, str] = given["armor"]
    for loc, armor_id in armor.items():
        ap, enc = rules.armors[armor_id]
        armor_ap[loc] = ap
        worn_enc += enc
    given_skills: dict[str, int] = given["skills"]
    skills = {name: int(given_skills.get(name, 0)) for name in SKILLS}
    if "unarmed" not in given_skills:
        skills["unarmed"] = skills["combat_style"]
    natural: dict[str, int] = given["natural_armor"]
    ap_given: int | None = given["action_points"]
    initiative_given: int | None = given["initiative_bonus"]
    healing_given: int | None = given["healing_rate"]
    luck_given: int | None = given["luck_points"]
    return {
        "id": given["id"],
        "name": given["name"] or given["id"],
        "characteristics": dict(stats),
        "skills": skills,
        "weapons": {
            wid: {"hp": rules.arm(wid).hp, "broken": False} for wid in [*weapons, rules.unarmed_id]
        },
        "hit_points_max": hp,
        "hit_points": dict(hp),
        "armor": armor_ap,
        "natural_armor": {loc: int(v) for loc, v in natural.items()},
        "armor_penalty": ceil_div(worn_enc, rules.armor_penalty_divisor),
        "damage_modifier": given["damage_modifier"]
        or damage_modifier(rules, stats["str"] + stats["siz"]),
        "action_points_max": ap_given
        if ap_given is not None
        else derived(rules, action_points, stats, key),
        "initiative_bonus": initiative_given
        if initiative_given is not None
        else derived(rules, initiative_bonus, stats, key),
        "healing_rate": healing_given
        if healing_given is not None
        else derived(rules, healing_rate, stats, key),
        "luck_points": luck_given if luck_given is not None else derived(rules, luck, stats, key),
        "traits": sorted(traits),
        "quadruped": given["quadruped"],
        "body_plan": plan,
        "fatigue_initiative": given["fatigue_initiative"],
        "movement": given["movement"],
        "conditions": {},
        "wounds": {},
        **bodily_record(rules, block, stats),
    }


def characteristics_of(ch: Characteristics) -> dict[str, int]:
    """``ch.model_dump(by_alias=True)``: the seven characteristics by their JSON keys, in
    order (read directly: the pydantic dump is a Python call costing a fifth of a record)."""
    fields: dict[str, int] = ch.__dict__  # where pydantic keeps them (see :func:`record`)
    return {
        "str": fields["STR"],
        "con": fields["CON"],
        "siz": fields["SIZ"],
        "dex": fields["DEX"],
        "int": fields["INT"],
        "pow": fields["POW"],
        "cha": fields["CHA"],
    }


T = TypeVar("T")


def derived(
    rules: RulesView,
    formula: Callable[..., T],
    stats: dict[str, int],
    key: tuple[int, ...],
    *args: Any,
) -> T:
    """``formula(rules, stats, *args)``, memoised per view on the characteristics ``key`` and
    ``args`` (the same stat blocks come again and again; a formula is a pure function of them).
    A dict result is shared: the caller copies it before handing it out."""
    memo = memo_of(rules.memo, "derived")
    found = memo.get((formula, key, args))
    if found is None:
        found = memo.put((formula, key, args), formula(rules, stats, *args))
    return found


def action_points(rules: RulesView, stats: dict[str, int]) -> int:
    """Action points per round by the rule data's method (fixed, or the attribute table)."""
    try:
        return int(rules.model.action_points.points(stats))
    except KeyError as err:
        raise LookupError(str(err).strip("'\"")) from None


def hit_points(rules: RulesView, stats: dict[str, int], plan: str | None = None) -> dict[str, int]:
    """Hit points per location of the body plan (the default one unless named) from the
    characteristics, by the rule data's formula."""
    base = rules.model.hit_points.value(stats)
    locations = rules.body_plan_named(plan).locations
    return {loc.id: max(loc.hp_minimum, base + loc.hp_offset) for loc in locations}


def damage_modifier(rules: RulesView, str_siz: int) -> str:
    for low, high, dm in rules.dm_bands:
        if str_siz >= low and (high is None or str_siz <= high):
            return dm
    return rules.dm_ladder[-1]


def initiative_bonus(rules: RulesView, stats: dict[str, int]) -> int:
    return rules.model.initiative.bonus.value(stats)


def healing_rate(rules: RulesView, stats: dict[str, int]) -> int:
    return int(rules.model.derived.healing_rate.value(stats))


def luck(rules: RulesView, stats: dict[str, int]) -> int:
    """Luck Points by the rule data's ``derived.luck_points`` (POW ÷ 6, rounded up)."""
    return int(rules.model.derived.luck_points.value(stats))


def needs_encounter(state: EncounterState | None, what: str = "this request") -> EncounterState:
    """The encounter state, or an ``EngineError`` saying ``what`` needs one."""
    if state is None:
        raise EngineError(f"{what} needs an encounter: send start_encounter first")
    return state


def taken_in(state: JSON | None) -> EncounterState | None:
    """The state a request works on: a view (:class:`EncounterState`) of a shallow copy of
    the stored ``state`` whose combatant records are typed views of the stored ones
    (:meth:`CombatantRecord.of`, read-only until made the request's own). The copy and its
    views are the request's alone, made once per request: :func:`writable` and
    :func:`combatant` copy what they write into them, in place. The stored state is never
    changed; :func:`released` writes the records back."""
    if state is None:
        return None
    out = state.copy()  # dict(state), a third cheaper interpreted (see CombatantRecord.make_own)
    if "combatants" not in state:
        return EncounterState(out)
    given: dict[str, JSON] = state["combatants"]
    people: dict[str, CombatantRecord] = {}
    for cid, rec in given.items():  # a loop, not a comprehension: no frame of its own
        people[cid] = CombatantRecord(rec)  # CombatantRecord.of, without its own call
    out["combatants"] = people
    return EncounterState(out)


def records_of(state: EncounterState) -> dict[str, CombatantRecord]:
    """The combatant records of ``state`` by id, in the encounter's order, for reading only:
    a record reached here may still view the stored one, so write only to one reached
    through :func:`combatant`. Every read of the records goes through here."""
    # The state's dict read directly, not through its ``records`` property: the engine reads
    # records a dozen times a request, and in the interpreted engine a property is a call.
    records: dict[str, CombatantRecord] = state.data["combatants"]
    return records


def combatant(state: EncounterState, cid: str) -> CombatantRecord:
    """The record of ``cid`` in ``state``; EngineError when there is none. In a writable state
    the record is the request's own: the first time it is reached, its view is given a copy of
    the stored record (:meth:`CombatantRecord.make_own`), so the stored state is never changed
    through it."""
    # The state's dict read directly (see :func:`records_of`): this runs several times a request.
    records: dict[str, CombatantRecord] = state.data["combatants"]
    try:
        rec = records[cid]
    except KeyError:
        known = ", ".join(sorted(records))
        raise EngineError(f"no combatant {cid!r} in this encounter (present: {known})") from None
    # Two attribute reads, not a dict method call, on a path several times a request.
    if state.is_writable and not rec.own:
        rec.make_own()
    return rec


def writable(state: EncounterState) -> EncounterState:
    """``state`` made writable: its records may be changed once reached through
    :func:`combatant` (each is copied the first time, into its own view). A state not yet
    writable (the one :func:`taken_in` made, or a state built during the request) is made so
    in place: it and its views are the request's own, and only the stored state must stay as
    it was, so the parts of it still shared with the stored state (the round bookkeeping and
    the parked exchanges) are copied. A state already writable is copied (its top-level fields
    and round bookkeeping; its records, whatever copies of them it made, are shared).

    The stored state is never mutated (the server keeps it). Only the records reached are
    copied, and of those only the parts requests change (hit points, armour, weapons,
    conditions, wounds, marks); characteristics, skills and the like are shared. What the
    state held before it was made writable is not kept: the engine reads nothing of it after
    (the after-steps take the round the request began in from the stored state).
    """
    # Each part copied by its own ``.copy()``, typed (see CombatantRecord.make_own), and the
    # round bookkeeping's keys written out, not looked up in a loop: this runs on most requests.
    data = state.data
    if state.is_writable:
        out = data.copy()
        records: dict[str, CombatantRecord] = data["combatants"]
        out["combatants"] = records.copy()
        state = EncounterState(out)
    else:
        out = data
        data[GIVEN] = True  # state.mark_writable(), without its call (interpreted: a call)
        state.is_writable = True
    # The round bookkeeping is small and changes on most requests: copy it outright.
    if "acted" in data:
        acted: list[str] = data["acted"]
        out["acted"] = acted.copy()
    if "proactive" in data:
        proactive: list[str] = data["proactive"]
        out["proactive"] = proactive.copy()
    if "delayed" in data:
        delayed: list[str] = data["delayed"]
        out["delayed"] = delayed.copy()
    if "order" in data:
        order: list[str] = data["order"]
        out["order"] = order.copy()
    if "pending" in data:
        pending: JSON = data["pending"]
        out["pending"] = pending.copy()
    if "initiative" in data:
        initiative: dict[str, int] = data["initiative"]
        out["initiative"] = initiative.copy()
    return state


def owning(state: EncounterState) -> EncounterState:
    """``state``, just built from records no one else holds (each :func:`record`'s own deep
    copy, shared with nothing and with no memo), made writable with those records as its
    own: :func:`combatant` hands them out as they are instead of copying them again, and
    :func:`writable` keeps them so. Never for a state whose records came from anywhere else."""
    for rec in records_of(state).values():
        rec.own = True
    state.mark_writable()
    return state


def recopied(state: EncounterState, cid: str) -> CombatantRecord:
    """A fresh copy of ``cid``'s record (a new view, :meth:`CombatantRecord.copied`) put in
    ``state`` in place of the one there, even one already the state's own: a record reached
    before (by a caller still holding it) is detached from the state, and what is written to
    it after is lost.

    Kept only where the engine has always re-copied (a new round, a dithered delay, a lapsed
    follow-up, drained essence), so that outcomes stay byte for byte what they were; see the
    report of the typed-records step for the outcomes this decides."""
    records = records_of(state)
    if cid not in records:
        combatant(state, cid)  # its EngineError naming who is present
    rec = records[cid] = records[cid].copied()
    return rec


def released(state: JSON | None) -> None:
    """Turn a state leaving the engine (a handler's :attr:`EncounterState.data`) into its
    stored form, in place: each record its stored (JSON) one (:meth:`CombatantRecord.to_json`:
    the very record given when the request never reached it for writing, else the state's own
    copy) and the engine's own key gone."""
    if state is None:
        return
    state.pop(GIVEN, None)
    if "combatants" not in state:
        return
    out: dict[str, JSON] = {}
    people: dict[str, CombatantRecord] = state["combatants"]
    for cid, rec in people.items():  # a loop: no frame of its own
        out[cid] = rec.data  # rec.to_json(), without its own call
    state["combatants"] = out


def stored_records(state: JSON) -> dict[str, JSON]:
    """The records of a stored state (one that left the engine, :func:`released`) by id."""
    people: dict[str, JSON] = state["combatants"]
    return people


def has_condition(c: CombatantRecord, name: str) -> bool:
    return name in c.conditions


def add_condition(c: CombatantRecord, name: str, turns: int | None = None, **data: Any) -> None:
    """Set a condition; ``turns`` counts the bearer's turns left (None: until removed)."""
    put_condition(c.conditions, name, turns, data)


def put_condition(
    conditions: JSON, name: str, turns: int | None = None, data: JSON | None = None
) -> None:
    """:func:`add_condition` on a record's ``conditions`` (a typed record's, or a dict's)."""
    entry: dict[str, Any] = {"turns": turns, **data} if data else {"turns": turns}
    old = conditions.get(name)
    if old is not None:
        # A lasting condition stays lasting; two counted ones keep the longer count.
        if old.get("turns") is None or turns is None:
            entry["turns"] = None
        else:
            entry["turns"] = max(turns, old["turns"])
        entry = {**old, **entry}
    conditions[name] = entry
