// Combat stand-ins: `game.combats`, `game.combat`, Combat and its Combatants, tokens dropped
// from actors and put into combat, and the combat tracker's sidebar (a list the screenshots and
// tests read). They follow Foundry V12-V14 where the module depends on it (checked against the
// type declarations, check-declarations.mjs):
//  - `Combat#startCombat` calls the `combatStart` hook with `{round: 1, turn: 0}` on the
//    initiating client, then updates; `nextRound` calls `combatRound`, `nextTurn` `combatTurn`
//    (past the last turn it moves to the next round), `previousRound` / `previousTurn` the same
//    with `direction: -1`, each before its update, on the initiating client only (hooks.d.mts: "fires on the initiating client before any database update").
//  - Every update calls `updateCombat(combat, changed, options, userId)` with only the keys that
//    changed (Foundry diffs an update), and `combatTurnChange` when the round or turn moved.
//  - The turn order (`turns`) sorts combatants by initiative, highest first, unrolled ones last,
//    then by id (`Combat#_sortCombatants`); when combatants are added or their initiative
//    changes, the turn index stays (or becomes the operation's `combatTurn`) and the order is
//    sorted again, so the current combatant may change (V12 and V13 `#onModifyCombatants`;
//    older versions updated `turn` to keep the same combatant).
//  - `Combatant#update` calls `updateCombatant`; `endCombat` deletes the combat (Foundry asks
//    for a confirmation first) and calls `deleteCombat`.

import { Collection } from "./core.mjs";
import { syntheticActor } from "./documents.mjs";
import { checkFlagScope, getProperty, setProperty } from "./utils.mjs";

const ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const randomID = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => ID_CHARS[b % ID_CHARS.length]).join("");

/** Apply `{path: value}` (dotted keys as Foundry's update) and return what changed. */
function applyChanges(target, data) {
  const changed = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "_id") continue;
    // Foundry's deletion key (`flags.scope.-=key`): the key goes, the diff says so.
    const steps = key.split(".");
    if (steps.at(-1).startsWith("-=")) {
      const parent = getProperty(target, steps.slice(0, -1).join("."));
      const name = steps.at(-1).slice(2);
      if (!parent || !(name in parent)) continue;
      delete parent[name];
      setProperty(changed, key, null);
      continue;
    }
    const before = getProperty(target, key);
    if (JSON.stringify(before) === JSON.stringify(value)) continue;
    setProperty(target, key, structuredClone(value));
    setProperty(changed, key, structuredClone(value));
  }
  return changed;
}

/** As Foundry's Document: the scope is checked, and setting or unsetting a flag is an update
 * (so `updateCombat` fires with the flag's diff). */
function flagMethods(cls, env) {
  cls.prototype.getFlag = function getFlag(scope, key) {
    checkFlagScope(env.game(), scope);
    return getProperty(this.flags?.[scope] ?? {}, key);
  };
  cls.prototype.setFlag = function setFlag(scope, key, value) {
    checkFlagScope(env.game(), scope);
    return this.update({ [`flags.${scope}.${key}`]: value });
  };
  cls.prototype.unsetFlag = function unsetFlag(scope, key) {
    const steps = key.split(".");
    const last = steps.pop();
    return this.update({ [["flags", scope, ...steps, `-=${last}`].join(".")]: null });
  };
}

export function createCombats(env) {
  const user = () => env.currentUserId;
  const Hooks = () => env.Hooks;

  class Combatant {
    constructor(data, parent) {
      Object.assign(this, { initiative: null, defeated: false, hidden: false, flags: {} }, structuredClone(data));
      this._id ??= randomID();
      this.parent = parent;
    }
    get id() {
      return this._id;
    }
    get token() {
      return env.tokenById(this.tokenId)?.document ?? null;
    }
    get actor() {
      return env.tokenById(this.tokenId)?.actor ?? env.actorById(this.actorId) ?? null;
    }
    get name() {
      return this._name ?? env.tokenById(this.tokenId)?.name ?? this.actor?.name ?? "";
    }
    /** V12+: defeated, or its actor carries the defeated status (CONFIG.specialStatusEffects). */
    get isDefeated() {
      return this.defeated || Boolean(this.actor?.statuses?.has("dead"));
    }
    async update(data, operation = {}) {
      await this.parent.updateEmbeddedDocuments("Combatant", [{ ...data, _id: this.id }], operation);
      return this;
    }
  }

  class Combat {
    constructor(data) {
      Object.assign(this, { round: 0, turn: null, active: true, flags: {} }, structuredClone(data));
      this._id ??= randomID();
      this.combatants = new Collection();
      this.turns = [];
    }
    get id() {
      return this._id;
    }
    get started() {
      return this.turns.length > 0 && this.round > 0;
    }
    get combatant() {
      return this.turn === null ? undefined : this.turns[this.turn];
    }
    static async create(data, operation = {}) {
      const combat = new Combat(data ?? {});
      combats.set(combat.id, combat);
      Hooks().callAll("createCombat", combat, operation, user());
      env.renderTracker();
      return combat;
    }
    /** `Combat#_sortCombatants` (V12+): initiative high to low (unrolled last), then the id. */
    _sortCombatants(a, b) {
      const ia = Number.isFinite(a.initiative) ? a.initiative : -Infinity;
      const ib = Number.isFinite(b.initiative) ? b.initiative : -Infinity;
      return ib - ia || (a.id > b.id ? 1 : -1);
    }
    /** `#onModifyCombatants`: the turn index stays (or becomes `options.combatTurn`), the order
     * is sorted again, and a change of the current combatant is a turn change. */
    _modified(options, before) {
      if (typeof options.combatTurn === "number") this.turn = options.combatTurn;
      this.setupTurns();
      const now = { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null };
      if (this.started && now.combatantId !== before.combatantId) Hooks().callAll("combatTurnChange", this, before, now);
    }
    _state() {
      return { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null };
    }
    setupTurns() {
      this.turns = this.combatants.contents.sort((a, b) => this._sortCombatants(a, b));
      if (this.turn !== null) this.turn = Math.min(Math.max(this.turn, 0), Math.max(this.turns.length - 1, 0));
      return this.turns;
    }
    getCombatantsByToken(token) {
      const id = typeof token === "string" ? token : token.id;
      return this.combatants.filter((c) => c.tokenId === id);
    }
    async createEmbeddedDocuments(embeddedName, data, operation = {}) {
      if (embeddedName !== "Combatant") throw new Error(`Combat has no embedded ${embeddedName}`);
      const created = data.map((d) => new Combatant(d, this));
      const before = this._state();
      for (const c of created) this.combatants.set(c.id, c);
      this._modified(operation, before);
      for (const c of created) Hooks().callAll("createCombatant", c, operation, user());
      env.renderTracker();
      return created;
    }
    async updateEmbeddedDocuments(embeddedName, updates, operation = {}) {
      if (embeddedName !== "Combatant") throw new Error(`Combat has no embedded ${embeddedName}`);
      const before = this._state();
      const done = [];
      for (const data of updates) {
        const combatant = this.combatants.get(data._id, { strict: true });
        const changed = applyChanges(combatant, data);
        done.push([combatant, { ...changed, _id: combatant.id }]);
      }
      this._modified(operation, before);
      for (const [combatant, changed] of done) Hooks().callAll("updateCombatant", combatant, changed, operation, user());
      env.record.combatantUpdates = [...(env.record.combatantUpdates ?? []), ...updates.map((u) => structuredClone(u))];
      env.renderTracker();
      return done.map(([c]) => c);
    }
    async update(data, operation = {}) {
      const before = { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null };
      const changed = applyChanges(this, data);
      if (!Object.keys(changed).length) return this;
      env.record.combatUpdates = [...(env.record.combatUpdates ?? []), { data: structuredClone(data), options: structuredClone(operation) }];
      Hooks().callAll("updateCombat", this, { ...changed, _id: this.id }, operation, user());
      if ("round" in changed || "turn" in changed) {
        const now = { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null };
        Hooks().callAll("combatTurnChange", this, before, now);
      }
      env.renderTracker();
      return this;
    }
    async startCombat() {
      const updateData = { round: 1, turn: 0 };
      Hooks().callAll("combatStart", this, updateData);
      await this.update(updateData);
      return this;
    }
    async nextRound() {
      const turn = this.turn === null ? null : 0;
      const updateData = { round: this.round + 1, turn };
      const updateOptions = { direction: 1, worldTime: { delta: 0 } };
      Hooks().callAll("combatRound", this, updateData, updateOptions);
      await this.update(updateData, updateOptions);
      return this;
    }
    async nextTurn() {
      const next = (this.turn ?? -1) + 1;
      if (this.round === 0 || next >= this.turns.length) return this.nextRound();
      const updateData = { round: this.round, turn: next };
      const updateOptions = { direction: 1, worldTime: { delta: 0 } };
      Hooks().callAll("combatTurn", this, updateData, updateOptions);
      await this.update(updateData, updateOptions);
      return this;
    }
    async previousRound() {
      const round = Math.max(this.round - 1, 0);
      let turn = this.round === 0 ? 0 : Math.max(this.turns.length - 1, 0);
      if (this.turn === null || round === 0) turn = null;
      const updateData = { round, turn };
      const updateOptions = { direction: -1, worldTime: { delta: 0 } };
      Hooks().callAll("combatRound", this, updateData, updateOptions);
      await this.update(updateData, updateOptions);
      return this;
    }
    async previousTurn() {
      if (this.turn === 0 && this.round === 0) return this;
      if (this.turn !== null && this.turn <= 0) return this.previousRound();
      const updateData = { round: this.round, turn: (this.turn ?? this.turns.length) - 1 };
      const updateOptions = { direction: -1, worldTime: { delta: 0 } };
      Hooks().callAll("combatTurn", this, updateData, updateOptions);
      await this.update(updateData, updateOptions);
      return this;
    }
    async endCombat() {
      return this.delete();
    }
    async delete(operation = {}) {
      combats.delete(this.id);
      Hooks().callAll("deleteCombat", this, operation, user());
      env.renderTracker();
      return this;
    }
  }
  flagMethods(Combat, env);

  class CombatEncounters extends Collection {
    /** The active combat of the viewed scene (the harness has one scene). */
    get active() {
      return this.find((c) => c.active) ?? null;
    }
    get viewed() {
      return this.active;
    }
  }
  const combats = new CombatEncounters();
  return { Combat, Combatant, combats };
}

/**
 * A token document as Foundry's drop handler makes it from an actor (`Actor#getTokenDocument`,
 * then `TokenDocument.create` on the scene): its own id, the actor's name, linked to the actor
 * unless `data.actorLink` is false (then its actor is its own synthetic one).
 */
export function tokenFor(env, actor, data = {}) {
  const id = data.id ?? randomID();
  // Linked unless the data says otherwise (Foundry's default is unlinked: a scene's NPC tokens
  // are; the tests say `actorLink: false` for those whose own actor matters).
  const actorLink = data.actorLink ?? true;
  const token = { id, name: data.name ?? actor?.name ?? "" };
  token.document = {
    id,
    actorId: actor?.id ?? null,
    actorLink,
    get isLinked() {
      return actorLink;
    },
    /** The world actor this token represents (`TokenDocument#baseActor`). */
    baseActor: actor ?? null,
    name: token.name,
    get inCombat() {
      return Boolean(env.game().combat?.getCombatantsByToken(id).length);
    },
  };
  Object.defineProperty(token, "inCombat", { get: () => token.document.inCombat });
  // `TokenDocument#actor`: the world actor when linked, else the token's synthetic actor.
  token.actor = actor && !actorLink ? syntheticActor(env, actor, token.document) : actor;
  token.document.actor = token.actor ?? null;
  return token;
}

/** The combat tracker's sidebar (V12 `CombatTracker`, V13+ `CombatTracker` ApplicationV2). */
export function renderTracker(env) {
  const doc = env.document;
  if (!doc) return;
  let tracker = doc.getElementById("combat-tracker");
  if (!tracker) {
    tracker = doc.createElement("section");
    tracker.id = "combat-tracker";
    tracker.style.cssText = "position:fixed;right:0.5rem;top:3rem;width:240px;background:#222;color:#eee;padding:6px;font:13px sans-serif";
    doc.body.append(tracker);
    tracker.addEventListener("click", (event) => {
      const action = event.target.closest("[data-action]")?.dataset.action;
      const combat = env.game().combat;
      if (!action || !combat) return;
      event.preventDefault();
      combat[action]?.();
    });
  }
  const combat = env.game().combat;
  if (!combat) {
    tracker.innerHTML = `<style>#combat-tracker li.active{background:#665;font-weight:bold}#combat-tracker li.defeated{text-decoration:line-through;opacity:.6}#combat-tracker li.defeated::after{content:" ☠"}</style>
    <h3 class="encounter-title">No Combat</h3>`;
    return;
  }
  const rows = combat.turns.map((c, i) => {
    const value = Number.isFinite(c.initiative) ? c.initiative : "";
    const classes = ["combatant", i === combat.turn && combat.started ? "active" : "", c.isDefeated ? "defeated" : ""].filter(Boolean).join(" ");
    return `<li class="${classes}" data-combatant-id="${c.id}"><span class="token-name">${c.name}</span> <span class="token-initiative">${value}</span></li>`;
  });
  tracker.innerHTML = `<style>#combat-tracker li.active{background:#665;font-weight:bold}#combat-tracker li.defeated{text-decoration:line-through;opacity:.6}#combat-tracker li.defeated::after{content:" ☠"}</style>
    <h3 class="encounter-title">${combat.started ? `Round <span class="encounter-round">${combat.round}</span>` : "Not started"}</h3>
    <ol class="combat-tracker">${rows.join("")}</ol>
    <nav class="combat-controls">${combat.started ? '<button data-action="previousRound">Previous Round</button><button data-action="previousTurn">Previous Turn</button><button data-action="nextTurn">Next Turn</button><button data-action="nextRound">Next Round</button><button data-action="endCombat">End Combat</button>' : '<button data-action="startCombat">Begin Combat</button>'}</nav>`;
}
