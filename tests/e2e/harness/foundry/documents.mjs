// Document stand-ins: ChatMessage (with the chat log and its render hooks), Roll, Actor.
// The ChatMessage schema follows Foundry's per generation: `author` and `style` since V12,
// the `user`/numeric `type` shims deprecated in V12-V13 and gone in V14.

import { Collection, deprecated } from "./core.mjs";
import { checkFlagScope, getProperty, setProperty } from "./utils.mjs";

const MESSAGE_FIELDS = new Set([
  "_id", "type", "system", "style", "author", "timestamp", "flavor", "content", "speaker",
  "whisper", "blind", "rolls", "sound", "emote", "flags", "_stats",
]);
export const CHAT_MESSAGE_STYLES = Object.freeze({ OTHER: 0, OOC: 1, IC: 2, EMOTE: 3 });

// Foundry's ids are 16 random alphanumerics, unique across every browser of the world: a
// per-page counter would give two pages' messages the same id (the GM's first card and a V12
// player's own first card), and a page would take one for the other.
const ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
function randomID() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => ID_CHARS[b % ID_CHARS.length]).join("");
}

/** A jQuery-like wrapper (what V12 hands to `renderChatMessage`). */
function jq(element) {
  const wrapped = { 0: element, length: 1 };
  wrapped.find = (selector) => {
    const found = [...element.querySelectorAll(selector)];
    return Object.assign(Object.fromEntries(found.map((e, i) => [i, e])), { length: found.length });
  };
  return wrapped;
}

/** `Roll`: rebuilds evaluated rolls from data and checks their total adds up. */
export function createRoll(env) {
  const TERMS = new Set(["Die", "OperatorTerm", "NumericTerm"]);
  class Roll {
    constructor(formula, data, options) {
      this._formula = formula;
      this.data = data ?? {};
      this.options = options ?? {};
      this.terms = [];
      this._evaluated = false;
      this._total = undefined;
    }
    get formula() {
      return this._formula;
    }
    get total() {
      return this._total;
    }
    get dice() {
      return this.terms.filter((t) => t.class === "Die");
    }
    get isEvaluated() {
      return this._evaluated;
    }
    static fromData(data) {
      if (data?.class !== "Roll") throw new Error(`Roll.fromData: unknown roll class ${data?.class}`);
      if (typeof data.formula !== "string" || !Array.isArray(data.terms)) {
        throw new Error("Roll.fromData: a roll needs a formula and terms");
      }
      const roll = new this(data.formula, data.data, data.options);
      let sum = 0;
      let sign = 1;
      for (const term of data.terms) {
        if (!TERMS.has(term.class)) throw new Error(`Roll.fromData: unknown term class ${term.class}`);
        if (term.class === "OperatorTerm") {
          if (!["+", "-"].includes(term.operator)) throw new Error(`Roll.fromData: operator ${term.operator}`);
          sign = term.operator === "-" ? -1 : 1;
        } else if (term.class === "NumericTerm") {
          sum += sign * term.number;
        } else {
          const results = term.results ?? [];
          if (!Number.isInteger(term.faces) || results.length !== term.number) {
            throw new Error(`Roll.fromData: a d${term.faces} term with number ${term.number} has ${results.length} results`);
          }
          for (const r of results) {
            if (!Number.isInteger(r.result) || r.result < 1 || r.result > term.faces) {
              throw new Error(`Roll.fromData: result ${r.result} on a d${term.faces}`);
            }
            if (r.active !== false) sum += sign * r.result;
          }
        }
        roll.terms.push(structuredClone(term));
      }
      if (data.total !== sum) throw new Error(`Roll.fromData: total ${data.total} does not add up (${sum})`);
      roll._total = data.total;
      roll._evaluated = data.evaluated ?? true;
      return roll;
    }
    toJSON() {
      return {
        class: "Roll", formula: this._formula, terms: structuredClone(this.terms), total: this._total,
        evaluated: this._evaluated, options: this.options, dice: [],
      };
    }
  }
  return Roll;
}

/**
 * `Actor` with flags and tokens on a canvas. As Foundry's server does, every change of an actor
 * (`update`, `setFlag`, `unsetFlag`) reaches every other browser of the world (the hub's
 * `actor` op): an actor's data is never one browser's alone, which is why stat blocks do not
 * live in its flags.
 */
function mergeDeep(target, source) {
  for (const [k, v] of Object.entries(source)) {
    if (v && typeof v === "object" && !Array.isArray(v) && target[k] && typeof target[k] === "object") mergeDeep(target[k], v);
    else target[k] = v;
  }
  return target;
}

/** The harness's one scene. */
export const SCENE_ID = "harnessScene0001";
/** An actor's harness-only fields, never data: not copied from a world actor to its tokens'. */
const INTERNAL = new Set(["items", "_token", "_delta", "_dependents"]);
/** A token's status effects are its own once made (its ActorDelta's effects). */
const OWN_STATUSES = new Set(["_statuses", "_overlay"]);

/**
 * The synthetic actor of an unlinked token (Foundry: `TokenDocument#actor` when `actorLink` is
 * false): its own document, with the world actor's id, data, flags and items as they are
 * when the token is made; what it changes (data, flags, items) is its token's (the ActorDelta),
 * never the world actor's, and a later change of the world actor shows in it under its own
 * changes. `game.actors.get(id)` stays the world actor.
 */
export function syntheticActor(env, base, token) {
  const source = {};
  for (const [key, value] of Object.entries(base)) if (!INTERNAL.has(key)) source[key] = structuredClone(value);
  const actor = new base.constructor(source);
  actor._token = token;
  actor._delta = [];
  (base._dependents ??= []).push(actor);
  if (base.items && env.Item) {
    actor.items = new base.items.constructor();
    for (const item of base.items.values()) {
      const { parent, ...data } = item;
      const copy = new env.Item(structuredClone(data), actor);
      actor.items.set(copy.id, copy);
    }
  }
  return actor;
}

export function createActors(env) {
  class Actor {
    constructor(data) {
      Object.assign(this, data);
      this.flags = data.flags ?? {};
    }
    get id() {
      return this._id;
    }
    /** `Actor#isToken`: a synthetic actor (an unlinked token's), not the world's. */
    get isToken() {
      return Boolean(this._token);
    }
    /** `Actor#token`: the unlinked token whose synthetic actor this is (null: a world actor). */
    get token() {
      return this._token ?? null;
    }
    /** `Document#uuid`: a synthetic actor's names its token (its id is the base actor's). */
    get uuid() {
      return this._token ? `Scene.${SCENE_ID}.Token.${this._token.id}.Actor.${this._id}` : `Actor.${this._id}`;
    }
    /** The GM owns every actor; a player those whose `ownership` names him with level 3. */
    get isOwner() {
      return this.canUserModify(env.currentUser(), "update");
    }
    /** `Document#canUserModify`: as Foundry's Actor, an update needs the OWNER level (3);
     * the GM may do anything. */
    canUserModify(user, action, data = {}) {
      return Boolean(user?.isGM) || (this.ownership?.[user?.id] ?? this.ownership?.default ?? 0) >= 3;
    }
    /** Harness only: Foundry's server refuses a document update by a user who may not modify
     * the document, and the update's promise rejects (nothing changes, in no browser). An
     * embedded item's permission is its actor's. */
    _mayUpdate(action = "update", documentName = "Actor", id = this.id) {
      const user = env.currentUser();
      if (!this.canUserModify(user, "update")) throw new Error(`User ${user.name} lacks permission to ${action} ${documentName} [${id}]`);
    }
    getFlag(scope, key) {
      checkFlagScope(env.game(), scope);
      return getProperty(this.flags[scope] ?? {}, key);
    }
    async setFlag(scope, key, value) {
      checkFlagScope(env.game(), scope);
      this._mayUpdate();
      this._apply({ kind: "setFlag", scope, key, value: structuredClone(value) }, env.currentUserId);
      env.record.flags.push({ actor: this._id, token: this._token?.id ?? null, scope, key, value });
      this._broadcast({ kind: "setFlag", scope, key, value });
      return this;
    }
    async unsetFlag(scope, key) {
      this._mayUpdate();
      this._apply({ kind: "unsetFlag", scope, key }, env.currentUserId);
      this._broadcast({ kind: "unsetFlag", scope, key });
      return this;
    }
    /** `Actor#update`: dotted keys set paths of the actor's data (`system.health.value`). */
    async update(data, operation) {
      this._mayUpdate();
      this._apply({ kind: "update", data: structuredClone(data) }, env.currentUserId);
      (env.record.actorUpdates ??= []).push({ actor: this._id, data: structuredClone(data) });
      this._broadcast({ kind: "update", data });
      return this;
    }
    /** Harness only: one change, made here or received from another browser (by `userId`).
     * As Foundry's, every browser then calls `updateActor` (actor, changed, options, userId)
     * with the change expanded (`{system: {…}}`, `{flags: {scope: {…}}}`) and the actor's id. */
    _apply(change, userId = null) {
      this._take(change);
      const changed = { _id: this._id };
      if (change.kind === "setFlag") setProperty(changed, `flags.${change.scope}.${change.key}`, structuredClone(change.value));
      else if (change.kind === "unsetFlag") setProperty(changed, `flags.${change.scope}.${change.key.replace(/([^.]+)$/, "-=$1")}`, null);
      else for (const [path, value] of Object.entries(change.data)) setProperty(changed, path, structuredClone(value));
      env.Hooks?.callAll("updateActor", this, changed, {}, userId);
    }
    /** Harness only: one change taken into the actor's data, no hook called (`_apply`'s, and
     * a change made before this page loaded: the world's data as Foundry's server sends it). */
    _take(change) {
      this._change(change);
      // A synthetic actor keeps its changes (its token's ActorDelta); a world actor's change
      // shows in its unlinked tokens' actors, under what their deltas change.
      if (this._token) this._delta.push(structuredClone(change));
      else for (const synthetic of this._dependents ?? []) synthetic._derive(this);
    }
    _change(change) {
      const { kind, scope, key } = change;
      if (kind === "setFlag") {
        // As Foundry: a dotted key is a path, and an object value merges into what is there.
        this.flags[scope] ??= {};
        const now = getProperty(this.flags[scope], key);
        const value = change.value;
        const next = now && typeof now === "object" && value && typeof value === "object" && !Array.isArray(value) ? mergeDeep(structuredClone(now), structuredClone(value)) : structuredClone(value);
        setProperty(this.flags[scope], key, next);
      } else if (kind === "unsetFlag") {
        const steps = key.split(".");
        const parent = steps.length > 1 ? getProperty(this.flags[scope] ?? {}, steps.slice(0, -1).join(".")) : this.flags[scope];
        if (parent) delete parent[steps.at(-1)];
      } else {
        for (const [path, value] of Object.entries(change.data)) setProperty(this, path, structuredClone(value));
      }
    }
    /** Harness only: this synthetic actor made anew from its world actor, then its delta. */
    _derive(base) {
      const kept = (key) => INTERNAL.has(key) || OWN_STATUSES.has(key);
      for (const key of Object.keys(this)) if (!kept(key)) delete this[key];
      for (const [key, value] of Object.entries(base)) if (!kept(key)) this[key] = structuredClone(value);
      for (const change of this._delta) this._change(change);
    }
    /** Harness only: the change (not the whole actor: Foundry sends the update's diff) to the
     * world's other browsers; a synthetic actor's names its token. */
    _broadcast(change) {
      env.hub?.send({ op: "actor", actor: this._id, token: this._token?.id ?? null, user: env.currentUserId, change: JSON.parse(JSON.stringify(change)) });
    }
    /** The ids of the status effects on the actor (Foundry: from its active effects). */
    get statuses() {
      return new Set(this._statuses ?? []);
    }
    /** `Actor#toggleStatusEffect` (V12+): on, off, or flipped when `active` is not given. */
    async toggleStatusEffect(statusId, { active, overlay = false } = {}) {
      // As Foundry: a status must be one of CONFIG.statusEffects.
      if (!env.CONFIG.statusEffects.some((s) => s.id === statusId)) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
      const on = new Set(this._statuses ?? []);
      const wanted = active ?? !on.has(statusId);
      if (wanted) on.add(statusId);
      else on.delete(statusId);
      this._statuses = [...on];
      this._overlay = wanted && overlay ? statusId : this._overlay === statusId ? null : this._overlay;
      env.record.statuses = [...(env.record.statuses ?? []), { actor: this._id, statusId, active: wanted }];
      env.Hooks?.callAll("arbiterHarnessTokens");
      return wanted;
    }
  }
  const actors = new Collection();
  for (const data of env.actorList ?? []) actors.set(data._id, new Actor(data));
  const target = ({ actor, token }) => (token ? env.tokenById?.(token)?.actor : actors.get(actor));
  env.hub?.on("actor", (message) => target(message)?._apply(message.change, message.user ?? null));
  /**
   * The actors as they are when this page loads: Foundry's server sends a loading browser the
   * world's data as it holds it then (`Game.getWorldData`: `game.data.actors`), with every change
   * any browser made before; the hub's first frame carries those changes, in order, and this
   * page takes them without calling `updateActor` (they are not news to it). Call once the
   * scene's tokens exist (an unlinked token's changes are its own).
   */
  const load = (changes) => {
    for (const message of changes ?? []) target(message)?._take(message.change);
  };
  const tokens = (env.tokenList ?? []).map((t) => ({ id: t.id, name: t.name, actor: actors.get(t.actor), document: { id: t.id } }));
  return { Actor, actors, tokens, load };
}

/** `ChatMessage` and the chat log it renders into. */
export function createChatMessage(env) {
  const messages = new Collection();
  // Foundry's server sends a created or updated message to the other clients, and the browser
  // hides a whisper from non-recipients (`visible`): the hub delivers every message to every
  // other page of the world, and each page keeps it in `game.messages` (docs/client.md).
  const broadcast = (op, message) => env.hub?.send({ op: "chat", action: op, data: JSON.parse(JSON.stringify(message.toObject())) });
  class ChatMessage {
    constructor(data) {
      Object.assign(this, data);
    }
    get id() {
      return this._id;
    }
    get isAuthor() {
      return this.author === env.currentUserId;
    }
    get visible() {
      const me = env.currentUserId;
      if (!this.whisper.length) return true;
      if (this.blind && this.author === me && !env.currentUser().isGM) return false;
      return this.whisper.includes(me) || this.author === me || env.currentUser().isGM;
    }
    get user() {
      if (env.generation >= 14) return undefined;
      deprecated(env, "ChatMessage#user", 12, 14);
      return env.game().users.get(this.author);
    }
    getFlag(scope, key) {
      return this.flags?.[scope]?.[key];
    }
    static _validate(data) {
      const source = { ...data };
      if ("user" in source) {
        if (env.generation < 14) {
          deprecated(env, "ChatMessage#user (use author)", 12, 14);
          source.author ??= source.user;
        }
        delete source.user;
      }
      if (typeof source.type === "number") {
        if (env.generation >= 14) {
          throw new Error(`ChatMessage validation errors: type: ${source.type} is not a valid type for the ChatMessage Document class`);
        }
        deprecated(env, "ChatMessage#type as a CHAT_MESSAGE_TYPES number (use style)", 12, 14);
        source.style = source.type;
        delete source.type;
      }
      for (const key of Object.keys(source)) if (!MESSAGE_FIELDS.has(key)) delete source[key];
      if (source.style !== undefined && !Object.values(CHAT_MESSAGE_STYLES).includes(source.style)) {
        throw new Error(`ChatMessage validation errors: style: ${source.style} is not a valid choice`);
      }
      const Roll = env.Roll;
      source.rolls = (source.rolls ?? []).map((r) => (r instanceof Roll ? r : Roll.fromData(typeof r === "string" ? JSON.parse(r) : r)));
      return source;
    }
    static async create(data, operation) {
      const source = ChatMessage._validate(data);
      const message = new ChatMessage({
        _id: randomID(), type: "base", style: CHAT_MESSAGE_STYLES.OTHER, author: env.currentUserId,
        timestamp: Date.now(), flavor: "", content: "", speaker: {}, whisper: [], blind: false,
        sound: null, emote: false, flags: {}, ...source,
      });
      messages.set(message.id, message);
      env.record.created.push(message.id);
      broadcast("create", message);
      env.Hooks.callAll("createChatMessage", message, operation ?? {}, env.currentUserId);
      const dsn = env.game().modules.get("dice-so-nice");
      if (dsn?.active && message.rolls.length) {
        env.record.dice3d.push({ message: message.id, rolls: message.rolls.map((r) => r.toJSON()) });
      }
      await message._render();
      return message;
    }
    async update(changes, operation) {
      const me = env.currentUser();
      if (!me.isGM && this.author !== me.id) {
        throw new Error(`User ${me.name} lacks permission to update ChatMessage [${this.id}]`);
      }
      const source = ChatMessage._validate(changes);
      for (const [key, value] of Object.entries(source)) {
        if (key === "flags") {
          for (const [scope, flags] of Object.entries(value)) this.flags[scope] = { ...(this.flags[scope] ?? {}), ...flags };
        } else if (key !== "rolls" || "rolls" in changes) {
          this[key] = value;
        }
      }
      env.record.updated.push(this.id);
      broadcast("update", this);
      env.Hooks.callAll("updateChatMessage", this, changes, operation ?? {}, env.currentUserId);
      await this._render();
      return this;
    }
    static getSpeaker(options) {
      const actor = options?.actor ?? options?.token?.actor ?? null;
      return {
        scene: options?.scene?.id ?? null,
        actor: actor?.id ?? null,
        token: options?.token?.id ?? null,
        alias: options?.alias ?? options?.token?.name ?? actor?.name ?? env.currentUser().name,
      };
    }
    static getWhisperRecipients(name) {
      const users = env.game().users;
      if (name === "GM") return users.filter((u) => u.isGM);
      return users.filter((u) => u.name === name);
    }
    /** A message another page created or updated, as the server would deliver it here. */
    static async _receive({ op, data }) {
      const source = { ...data, rolls: data.rolls.map((r) => env.Roll.fromData(JSON.parse(r))) };
      let message = messages.get(data._id);
      if (op === "create" || !message) {
        message = new ChatMessage(source);
        messages.set(message.id, message);
        env.Hooks.callAll("createChatMessage", message, {}, message.author);
      } else {
        Object.assign(message, source);
        env.Hooks.callAll("updateChatMessage", message, data, {}, message.author);
      }
      await message._render();
    }
    async _render() {
      const doc = env.document;
      if (!doc) return;
      const log = doc.getElementById("chat-log");
      // Foundry does not display whispers a user may not see.
      if (!this.visible) return;
      const li = doc.createElement("li");
      li.className = "chat-message message flexcol";
      li.dataset.messageId = this.id;
      if (this.whisper.length) li.classList.add("whisper");
      if (this.blind) li.classList.add("blind");
      const alias = this.speaker?.alias ?? env.game().users.get(this.author)?.name ?? "";
      li.innerHTML = `<header class="message-header"><h4 class="message-sender"></h4></header><div class="message-content"></div>`;
      li.querySelector(".message-sender").textContent = alias;
      li.querySelector(".message-content").innerHTML = this.content;
      const old = log.querySelector(`[data-message-id="${this.id}"]`);
      if (old) old.replaceWith(li);
      else log.append(li);
      const context = { message: this.toObject(), user: env.currentUser(), author: env.game().users.get(this.author), alias, isWhisper: this.whisper.length > 0, whisperTo: "" };
      const Hooks = env.Hooks;
      if (env.generation >= 13) {
        Hooks.callAll("renderChatMessageHTML", this, li, context);
        if (Hooks._has("renderChatMessage")) {
          deprecated(env, "the renderChatMessage hook (use renderChatMessageHTML)", 13, 15);
          Hooks.callAll("renderChatMessage", this, jq(li), context);
        }
      } else {
        Hooks.callAll("renderChatMessage", this, jq(li), context);
      }
    }
    toObject() {
      return {
        _id: this._id, type: this.type, style: this.style, author: this.author, timestamp: this.timestamp, content: this.content, speaker: this.speaker,
        whisper: this.whisper, blind: this.blind, flags: structuredClone(this.flags), rolls: this.rolls.map((r) => JSON.stringify(r.toJSON())),
      };
    }
  }
  env.hub?.on("chat", ({ action, data }) => ChatMessage._receive({ op: action, data }));
  return { ChatMessage, messages };
}
