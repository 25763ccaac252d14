// Embedded Item stand-ins (outcomes written into a game system's own fields): an actor's `items`
// as Foundry keeps them (an EmbeddedCollection that iterates its documents, not [id, document]
// pairs), and the Actor's embedded-document API — createEmbeddedDocuments,
// updateEmbeddedDocuments, deleteEmbeddedDocuments — with what Foundry does that matters here:
//  - an item's `type` must be one of the world system's Item types (else a validation error);
//  - `system` data keeps only the fields the type's data model declares (Foundry's cleanData
//    drops any other key of a create or an update, silently), and a declared integer field
//    refuses a non-integer;
//  - a dotted update key (`system.currentHitPoints`) sets that path.
// The declared types and fields are those of the systems' public sources (ITEM_MODELS).

import { Collection } from "./core.mjs";
import { setProperty } from "./utils.mjs";

/**
 * Item types and their `system` fields, per world system id. HârnMaster 3
 * (toastygm/HarnMaster-3-FoundryVTT template.json: Item types, `injury` = base template
 * (notes, description, source, macros) + healRate, injuryLevel, severity); Mythras
 * (bfgcuga/mythras-foundry scripts/data/item-data.js: HitLocationData; the other types
 * registered in scripts/system/registration.js). `null` fields: any key is kept (types whose
 * model the harness does not need).
 */
const ITEM_MODELS = {
  hm3: {
    types: ["skill", "spell", "invocation", "psionic", "weapongear", "containergear", "missilegear", "armorgear", "miscgear", "injury", "armorlocation", "trait"],
    fields: {
      injury: { notes: "string", description: "string", source: "string", macros: "object", healRate: "number", injuryLevel: "number", severity: "string" },
    },
  },
  "mythras-foundry": {
    types: ["skill", "combatStyle", "culture", "profession", "equipment", "passion", "weapon", "armor", "hitLocation", "trait", "combatEffect"],
    fields: {
      hitLocation: {
        rangeStart: "integer", rangeEnd: "integer", category: "string", hpClass: "string", autoCalculate: "boolean",
        maxHitPoints: "number", maxHitPointsFormula: "string", currentHitPoints: "integer", armorPoints: "number",
        armorPointsFormula: "string", armorEncumbranceMultiplier: "number", armorCostPercentage: "number",
        armorFactorsVersion: "number", disabled: "boolean", amputated: "boolean", description: "string",
      },
    },
  },
};

const ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const newId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => ID_CHARS[b % ID_CHARS.length]).join("");

/** Keep only the declared `system` keys of a type (as cleanData), checking declared integers. */
function cleanSystem(model, type, system) {
  const fields = model?.fields?.[type];
  if (!fields) return structuredClone(system ?? {});
  const out = {};
  for (const [key, value] of Object.entries(system ?? {})) {
    if (!(key in fields)) continue;
    if (fields[key] === "integer" && !Number.isInteger(value)) {
      throw new Error(`Item validation errors: system.${key}: must be an integer`);
    }
    out[key] = structuredClone(value);
  }
  return out;
}

/**
 * Give `Actor` the embedded Item API and turn every actor's `items` data into Item documents.
 * `systemId`: the world's game system (whose Item types are checked).
 */
export function adoptItems(env, Actor, actors, systemId) {
  const model = ITEM_MODELS[systemId] ?? null;
  class Item {
    constructor(data, parent) {
      Object.assign(this, structuredClone(data));
      this.system ??= {};
      this.flags ??= {};
      this.parent = parent;
    }
    get id() {
      return this._id;
    }
    /** `Item#update` of an embedded item: the parent's updateEmbeddedDocuments. */
    async update(data, operation) {
      const [updated] = await this.parent.updateEmbeddedDocuments("Item", [{ ...data, _id: this._id }], operation);
      return updated;
    }
  }
  const record = (op, actor, data) => (env.record.items ??= []).push({ op, actor: actor._id, data: structuredClone(data) });
  const itemsOnly = (name) => {
    if (name !== "Item") throw new Error(`harness: only embedded Items are stood in for, not ${name}`);
  };

  Actor.prototype.createEmbeddedDocuments = async function createEmbeddedDocuments(embeddedName, data, operation) {
    itemsOnly(embeddedName);
    this._mayUpdate("create", "Item", data?.[0]?._id ?? "");
    const created = [];
    for (const source of data ?? []) {
      if (typeof source.name !== "string" || !source.name) throw new Error("Item validation errors: name: may not be a blank string");
      if (model && !model.types.includes(source.type)) throw new Error(`Item validation errors: type: "${source.type}" is not a valid type for the Item Document class`);
      const item = new Item({ ...source, _id: source._id ?? newId(), system: cleanSystem(model, source.type, source.system) }, this);
      this.items.set(item.id, item);
      record("create", this, item.system);
      created.push(item);
    }
    // As Foundry's (in this browser only: the harness does not send items to other pages).
    for (const item of created) env.Hooks?.callAll("createItem", item, operation ?? {}, env.currentUserId);
    env.Hooks?.callAll("arbiterHarnessTokens");
    return created;
  };

  Actor.prototype.updateEmbeddedDocuments = async function updateEmbeddedDocuments(embeddedName, updates, operation) {
    itemsOnly(embeddedName);
    for (const change of updates ?? []) this._mayUpdate("update", "Item", change._id);
    const updated = [];
    for (const change of updates ?? []) {
      const item = this.items.get(change._id);
      if (!item) throw new Error(`Item "${change._id}" does not exist in the Actor's items`);
      // Expand dotted keys first, then clean the system part as Foundry does.
      const expanded = {};
      for (const [key, value] of Object.entries(change)) if (key !== "_id") setProperty(expanded, key, structuredClone(value));
      if (expanded.system) Object.assign(item.system, cleanSystem(model, item.type, expanded.system));
      for (const [key, value] of Object.entries(expanded)) if (key !== "system") item[key] = value;
      record("update", this, { _id: item.id, ...expanded });
      updated.push(item);
      env.Hooks?.callAll("updateItem", item, { _id: item.id, ...expanded }, operation ?? {}, env.currentUserId);
    }
    return updated;
  };

  Actor.prototype.deleteEmbeddedDocuments = async function deleteEmbeddedDocuments(embeddedName, ids, operation) {
    itemsOnly(embeddedName);
    for (const id of ids ?? []) this._mayUpdate("delete", "Item", id);
    const deleted = [];
    for (const id of ids ?? []) {
      const item = this.items.get(id);
      if (!item) throw new Error(`Item "${id}" does not exist in the Actor's items`);
      this.items.delete(id);
      record("delete", this, { _id: id });
      deleted.push(item);
      env.Hooks?.callAll("deleteItem", item, operation ?? {}, env.currentUserId);
    }
    return deleted;
  };

  for (const actor of actors.values()) {
    const items = new Collection();
    for (const data of actor.items ?? []) {
      const item = new Item(data, actor);
      items.set(item.id, item);
    }
    actor.items = items;
  }
  return Item;
}

/** The stand-ins above and the declarations they imitate (check-declarations.mjs). */
export const ITEM_STAND_INS = [
  { path: "harness.Actor.prototype.createEmbeddedDocuments", owner: ["Actor", "Document", "ClientDocument"], member: "createEmbeddedDocuments" },
  { path: "harness.Actor.prototype.updateEmbeddedDocuments", owner: ["Actor", "Document", "ClientDocument"], member: "updateEmbeddedDocuments" },
  { path: "harness.Actor.prototype.deleteEmbeddedDocuments", owner: ["Actor", "Document", "ClientDocument"], member: "deleteEmbeddedDocuments" },
  { path: "harness.Item.prototype.update", owner: ["Item", "Document", "ClientDocument"], member: "update" },
  { path: "harness.Item.prototype.id", owner: ["Item", "Document", "ClientDocument"], member: "id", kind: "property" },
  { path: "hook:createItem", hook: "createItem", documentHook: "CreateDocument", arguments: 3 },
  { path: "hook:updateItem", hook: "updateItem", documentHook: "UpdateDocument", arguments: 4 },
  { path: "hook:deleteItem", hook: "deleteItem", documentHook: "DeleteDocument", arguments: 3 },
];
