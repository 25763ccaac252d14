// Outcomes into a game system's own fields, where the world's mapping (a preset or the GM's)
// names them in its `outcomes` part, through the Actor's embedded-document API:
//  - `locations` {type, key: {path, map}, value}: the hit-location items whose mapped name is a
//    location the result names get the hit points the result states at `value` (Mythras:
//    `hitLocation` items' `system.currentHitPoints`);
//  - `injuries` {type, ipPerLevel}: each blow the result says injured the combatant becomes an
//    item of that type (HârnMaster 3: an `injury` item, whose `system.injuryLevel` the system
//    sums into its injury levels and penalties when it prepares the actor). Its level is the
//    IP the result states divided by the mapping's `ipPerLevel`, the inverse of the preset's
//    `ip = endurance × 3` reading: a unit the mapping declares, not a rule of the game.
// Nothing here computes a rule; every number is one the server's public result states. What
// is written is returned as an undo record, and `undoSystemFields` puts every value back (and
// deletes the items it created).

import { valueAt } from "./presets.mjs";

function itemsOf(actor) {
  return actor.items ? Array.from(actor.items) : [];
}

function mapped(value, spec) {
  if (typeof value !== "string" || !spec.map) return value;
  if (value in spec.map) return spec.map[value];
  const key = Object.keys(spec.map).find((k) => k.toLowerCase() === value.toLowerCase());
  return key ? spec.map[key] : value;
}

/** The item of `rule.type` whose key (read through `rule.key`) is `wanted`, if any. */
function itemFor(actor, rule, wanted) {
  return itemsOf(actor).find((item) => item.type === rule.type && mapped(valueAt(item, rule.key.path), rule.key) === wanted) ?? null;
}

/**
 * Write what `vitals` (this outcome's, tabletop.vitalsOf) says of one actor into the system's
 * fields `outcomes` names. Returns the undo record: `{created: [item ids], updated: [{id,
 * values: {path: previous value}}]}`.
 */
export async function writeSystemFields({ actor, outcome, vitals, outcomes, i18n }) {
  const undo = { created: [], updated: [] };
  if (!outcomes || typeof actor.createEmbeddedDocuments !== "function") return undo;
  const rule = outcomes.locations;
  if (rule && vitals.locations) {
    const updates = [];
    for (const [location, hitPoints] of Object.entries(vitals.locations)) {
      const item = itemFor(actor, rule, location);
      if (!item || hitPoints === undefined || valueAt(item, rule.value) === hitPoints) continue;
      undo.updated.push({ id: item.id, values: { [rule.value]: valueAt(item, rule.value) } });
      updates.push({ _id: item.id, [rule.value]: hitPoints });
    }
    if (updates.length) await actor.updateEmbeddedDocuments("Item", updates);
  }
  const injuries = outcomes.injuries;
  if (injuries && vitals.injuries?.length) {
    const data = vitals.injuries.map((injury) => ({
      name: injury.name ?? i18n("ARBITER.Injury.Name", { ip: injury.suffered }),
      type: injuries.type,
      system: {
        injuryLevel: Math.round(injury.suffered / (injuries.ipPerLevel || 1)),
        healRate: 0,
        notes: i18n("ARBITER.Injury.Notes", { outcome: outcome.id, ip: injury.suffered, weapon: injury.weapon ?? "—" }),
      },
    }));
    const created = await actor.createEmbeddedDocuments("Item", data);
    undo.created.push(...(created ?? []).map((item) => item.id));
  }
  return undo;
}

/** Put back what `writeSystemFields` changed: previous values, created items deleted. */
export async function undoSystemFields(actor, undo) {
  if (!undo) return;
  const present = (id) => actor.items?.get?.(id);
  const created = (undo.created ?? []).filter(present);
  if (created.length) await actor.deleteEmbeddedDocuments("Item", created);
  const updates = (undo.updated ?? []).filter((u) => present(u.id)).map((u) => ({ _id: u.id, ...u.values }));
  if (updates.length) await actor.updateEmbeddedDocuments("Item", updates);
}
