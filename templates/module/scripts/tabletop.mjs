// Outcomes on the tabletop: after each outcome the active GM's client writes what the server's
// result says happened onto the actors of its combatants, computing no rule. Injury points
// (hmk), hit points per location and wounds (combat-styles), vitality (karmic) go to the actor's
// Arbiter data (`flags.arbiter.vitals[ruleset]`) and, where the world's mapping names them, to
// the system's own fields (the token's bar reads those); the conditions the result names become
// token status effects (core `CONFIG.statusEffects` where one fits, Arbiter's own otherwise) and
// are removed when a later result no longer names them; the dead and the out are marked
// defeated in the combat tracker. Where the mapping's `outcomes` part names the system's own
// fields (hit-location items, injury items, the system's own status effects), those are written
// too (system-fields.mjs). An hmk combatant's lasting conditions (bleeding, penalties, knock-outs
// …) are shown while its summary lists them (`lasting`, docs/requests-hmk.md) and taken off
// when a summary no longer does (a `round`, a cure); a combat-styles combatant's (prone,
// stunned …) while the latest result that changed him lists them (its `lasting`). Every
// application is kept on its card, so the GM can undo it (the previous values restored, items
// it created deleted).

import { valueAt } from "./presets.mjs";
import { undoSystemFields, writeSystemFields } from "./system-fields.mjs";
import { participantOf } from "./vault.mjs";

export const VITALS = "vitals";
export const APPLIED = "applied";

/** Conditions → status effect ids: core ones where one fits, else Arbiter's own (registered). */
const CORE = {
  unconscious: "unconscious", dead: "dead", prone: "prone", stunned: "stun", bleeding: "bleeding", entangled: "restrain", gripped: "restrain",
  // hmk: out of this round, or rounds still to sit out after a stun.
  losing_rounds: "stun", out_this_round: "stun",
};
export const OWN_STATUSES = [
  { id: "arbiter-impaled", name: "ARBITER.Condition.impaled", img: "icons/svg/sword.svg" },
  { id: "arbiter-disarmed", name: "ARBITER.Condition.disarmed", img: "icons/svg/combat.svg" },
  { id: "arbiter-out", name: "ARBITER.Condition.out", img: "icons/svg/skull.svg" },
  { id: "arbiter-wounded", name: "ARBITER.Condition.wounded", img: "icons/svg/blood.svg" },
  { id: "arbiter-penalized", name: "ARBITER.Condition.penalized", img: "icons/svg/downgrade.svg" },
  { id: "arbiter-incapacitated", name: "ARBITER.Condition.incapacitated", img: "icons/svg/paralysis.svg" },
  { id: "arbiter-knocked-out", name: "ARBITER.Condition.knockedOut", img: "icons/svg/sleep.svg" },
  { id: "arbiter-lamed", name: "ARBITER.Condition.lamed", img: "icons/svg/degen.svg" },
  { id: "arbiter-dying", name: "ARBITER.Condition.dying", img: "icons/svg/hazard.svg" },
  { id: "arbiter-lasting", name: "ARBITER.Condition.lasting", img: "icons/svg/aura.svg" },
];
const OWN = {
  impaled: "arbiter-impaled", disarmed: "arbiter-disarmed", out: "arbiter-out", serious: "arbiter-wounded", major: "arbiter-wounded",
  penalized: "arbiter-penalized", incapacitated: "arbiter-incapacitated", knocked_out: "arbiter-knocked-out", walk_only: "arbiter-lamed",
  dying: "arbiter-dying", condition: "arbiter-lasting",
};
const ALL_OURS = new Set([...Object.values(CORE), ...Object.values(OWN)]);

/** Add Arbiter's own status effects (each with a name and an icon) to CONFIG.statusEffects. */
export function registerStatuses(i18n) {
  CONFIG.statusEffects ??= [];
  for (const status of OWN_STATUSES) {
    if (!CONFIG.statusEffects.some((s) => s.id === status.id)) CONFIG.statusEffects.push({ ...status, name: i18n(status.name) });
  }
}

/**
 * The status effect a condition shows as: the system's own where the mapping names one that
 * the world has (`outcomes.statuses`, e.g. Mythras's `seriousWound`), else core's, else ours.
 */
export function statusFor(condition, statuses = null) {
  const own = statuses?.[condition];
  if (own && (CONFIG.statusEffects ?? []).some((s) => s.id === own)) return own;
  return CORE[condition] ?? OWN[condition] ?? null;
}

/** Every status effect Arbiter manages on an actor: core's, ours, and those the mapping names. */
function managed(statuses) {
  const known = new Set((CONFIG.statusEffects ?? []).map((s) => s.id));
  return new Set([...ALL_OURS, ...Object.values(statuses ?? {}).filter((id) => known.has(id))]);
}

/** An hmk summary's conditions: its status, a running death timer, and what lasts. */
function hmkConditions(c) {
  const status = c.status ?? "active";
  const conditions = status === "active" ? [] : [status];
  if (c.death_in !== null && c.death_in !== undefined) conditions.push("dying");
  for (const kind of c.lasting ?? []) conditions.push(String(kind).startsWith("condition:") ? "condition" : kind);
  return conditions;
}

/** Every blow of an hmk result that injured someone: `{target, suffered, name?, weapon?}`. */
function hmkInjuries(result) {
  const blows = [result.injury, ...(result.events ?? []).map((e) => e?.injury)];
  return blows
    .filter((i) => i && i.target && i.suffered > 0)
    .map((i) => ({ target: i.target, suffered: i.suffered, name: i.critical?.name ?? null, weapon: result.weapon ?? null }));
}

/**
 * What an outcome's public result says of each combatant it names: `{id: {value?, max?,
 * status?, locations?, wound?, conditions: [...]}}`. Only what the result states; nothing is
 * derived by a rule. Returns {} for results that change no combatant.
 */
export function vitalsOf(outcome) {
  const result = outcome?.result ?? {};
  const out = {};
  if (outcome.ruleset === "hmk" && result.combatants && !Array.isArray(result.combatants)) {
    for (const [id, c] of Object.entries(result.combatants)) {
      out[id] = { value: c.ip, max: c.max_ip, status: c.status ?? "active", conditions: hmkConditions(c) };
    }
    for (const injury of hmkInjuries(result)) {
      const entry = out[injury.target];
      if (entry) (entry.injuries ??= []).push(injury);
    }
  }
  if (outcome.ruleset === "combat-styles") {
    const blows = [result.blow, ...(result.exchanges ?? []).map((e) => e.blow)].filter((b) => b?.wound && b.target);
    for (const blow of blows) {
      const w = blow.wound;
      const entry = (out[blow.target] ??= { locations: {}, levels: {}, conditions: [] });
      entry.locations[w.location] = w.hit_points;
      entry.levels[w.location] = w.wound;
      entry.wound = { location: w.location, level: w.wound, consequences: w.consequences ?? [] };
      if (OWN[w.wound]) entry.conditions.push(w.wound);
      for (const text of w.consequences ?? []) for (const word of ["unconscious", "prone", "dead", "incapacitated"]) if (String(text).startsWith(word)) entry.conditions.push(word);
    }
    // What lasts: each combatant the result changed, with every condition the state holds after
    // it, so a condition stays until the state ends it (docs/requests-combat-styles.md).
    for (const [id, names] of Object.entries(result.lasting ?? {})) {
      (out[id] ??= { locations: {}, levels: {}, conditions: [] }).conditions.push(...names);
    }
  }
  if (outcome.ruleset === "karmic") {
    const view = result.kind === "view" ? result : result.view;
    for (const [id, c] of Object.entries(view?.combatants ?? {})) {
      const conditions = (c.effects ?? []).map((e) => e.effect ?? e.kind).filter(Boolean);
      if (c.out) conditions.push("out");
      out[id] = { value: c.vitality, status: c.out ? "out" : "active", conditions };
    }
    // A register's (or a surprise's) blows name the target's vitality after them; its effects
    // are not restated there, so its status effects stay as they are (no `conditions`).
    const blows = [...(Array.isArray(result.outcomes) ? result.outcomes : []), result].filter((o) => o?.target && typeof o.vitality === "number");
    for (const blow of blows) out[blow.target] = { value: blow.vitality, status: blow.out ? "out" : "active", ...(blow.out ? { conditions: ["out"] } : {}) };
  }
  return out;
}

/** The actor a combatant id names: the one whose stored stat block has that id (its
 * `participant` flag), else the actor of that id. Returns the lookup, so that one scan of the
 * scene's and the world's actors serves every combatant of an outcome. A token on the scene
 * wins over the world's actor of its id: an unlinked token's actor is its own (synthetic, its
 * ActorDelta), and a blow on it is that token's, never the world actor's (which every other
 * token of it, and the sidebar, show); a linked token's actor is the world's anyway. */
export function actorsByParticipant(module, ruleset) {
  const actors = new Map();
  for (const actor of game.actors ?? []) actors.set(actor.id, actor);
  for (const token of canvas?.tokens?.placeables ?? []) if (token.actor) actors.set(token.actor.id, token.actor);
  const byParticipant = new Map();
  for (const actor of actors.values()) {
    const participant = participantOf(module, actor, ruleset);
    if (participant && !byParticipant.has(participant)) byParticipant.set(participant, actor);
  }
  return (id) => byParticipant.get(id) ?? actors.get(id) ?? null;
}

function combatantsOf(actor) {
  return game.combat?.combatants ? Array.from(game.combat.combatants).filter((c) => c.actorId === actor.id || c.actor?.id === actor.id) : [];
}

/** Vitals that state nothing but an empty list of conditions. */
function isBare(vitals) {
  const { locations, levels, conditions, ...rest } = vitals;
  const empty = (o) => !o || Object.keys(o).length === 0;
  return empty(locations) && empty(levels) && (conditions ?? []).length === 0 && Object.keys(rest).length === 0;
}

/** The system fields the world's mapping writes vitals to ({value, max} data paths), if any. */
function systemPaths(mapping) {
  return mapping?.vitals ?? null;
}

/**
 * Apply one outcome (GM's client). `mapping(ruleset)`: the world's mapping for the ruleset (or
 * null). Returns the undo record: per actor the values it had before.
 */
export async function applyOutcome({ module, outcome, mapping, i18n = (key) => key }) {
  const changes = vitalsOf(outcome);
  const undo = [];
  const actorOf = actorsByParticipant(module, outcome.ruleset);
  for (const [id, vitals] of Object.entries(changes)) {
    const actor = actorOf(id);
    if (!actor) continue;
    const key = `${VITALS}.${outcome.ruleset}`;
    const previous = actor.getFlag(module, key) ?? null;
    const statuses = mapping?.(outcome.ruleset)?.outcomes?.statuses ?? null;
    // A combatant the result changed but names no vitals or condition of (a combat-styles
    // `lasting: {id: []}` after a parry), on an actor Arbiter never marked: nothing to write.
    if (!previous && isBare(vitals) && ![...managed(statuses)].some((s) => actor.statuses?.has(s))) continue;
    const before = { actor: actor.id, vitals: previous ? structuredClone(previous) : null, system: {}, statuses: [], defeated: [], items: null };
    const { injuries, ...kept } = vitals;
    const merged = { ...(previous ?? {}), ...kept, locations: { ...(previous?.locations ?? {}), ...(vitals.locations ?? {}) } };
    // A wound stays at its location until a result states that location again: its status
    // (serious, major) too, whatever other location a later blow strikes.
    if (vitals.levels) merged.levels = { ...(previous?.levels ?? {}), ...vitals.levels };
    await actor.setFlag(module, key, merged);
    const map = mapping?.(outcome.ruleset);
    before.items = await writeSystemFields({ actor, outcome, vitals, outcomes: map?.outcomes, i18n });
    const paths = systemPaths(map);
    if (paths) {
      const update = {};
      for (const key of ["value", "max"]) {
        if (paths[key] && merged[key] !== undefined) {
          before.system[paths[key]] = valueAt(actor, paths[key]);
          update[paths[key]] = merged[key];
        }
      }
      if (Object.keys(update).length) await actor.update(update);
    }
    // Status effects: those the result names on, ours it no longer names off.
    // A result that restates no condition (a karmic register's blow) leaves the statuses alone.
    const conditions = vitals.conditions ? [...vitals.conditions, ...Object.values(merged.levels ?? {})] : null;
    const wanted = new Set((conditions ?? []).map((c) => statusFor(c, statuses)).filter(Boolean));
    for (const status of conditions ? managed(statuses) : []) {
      const active = actor.statuses?.has(status) ?? false;
      if (active === wanted.has(status)) continue;
      before.statuses.push({ id: status, active });
      await actor.toggleStatusEffect(status, { active: wanted.has(status), overlay: status === "dead" });
    }
    const defeated = vitals.status === "dead" || vitals.status === "out";
    for (const combatant of combatantsOf(actor)) {
      if (Boolean(combatant.defeated) === defeated) continue;
      before.defeated.push({ combat: game.combat.id, combatant: combatant.id, defeated: Boolean(combatant.defeated) });
      await combatant.update({ defeated });
    }
    undo.push(before);
  }
  return undo;
}

/** Restore what `undo` records (the previous values), newest last applied first. */
export async function undoApplied(module, ruleset, undo) {
  for (const before of [...undo].reverse()) {
    // The scene's token first, as applyOutcome chose it (an unlinked token's own actor).
    const actor = canvas?.tokens?.placeables?.find((t) => t.actor?.id === before.actor)?.actor ?? game.actors?.get(before.actor);
    if (!actor) continue;
    // Unset first: a flag update merges objects, and keys the outcome added must go too.
    await actor.unsetFlag(module, `${VITALS}.${ruleset}`);
    if (before.vitals !== null) await actor.setFlag(module, `${VITALS}.${ruleset}`, before.vitals);
    if (Object.keys(before.system).length) await actor.update(before.system);
    await undoSystemFields(actor, before.items);
    for (const s of before.statuses) await actor.toggleStatusEffect(s.id, { active: s.active, overlay: s.id === "dead" });
    for (const d of before.defeated) {
      const combatant = game.combat?.id === d.combat ? game.combat.combatants.get(d.combatant) : null;
      if (combatant) await combatant.update({ defeated: d.defeated });
    }
  }
}
