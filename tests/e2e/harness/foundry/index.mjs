// The Foundry-shaped world of the harness, per generation (V12, V13, V14).
//
// `createFoundry(generation, options)` returns the globals a page gets (game, Hooks, ui,
// ChatMessage, Roll, foundry, CONST, canvas, and the V12 template globals): exactly what the
// module uses, nothing else (Actor documents are reached through tokens). Nothing
// touches the DOM until a function is called, so check-declarations.mjs can build the same
// globals in node and compare every stand-in listed in STAND_INS with the type declarations.

import { createHooks, createI18n, createNotifications, createQueries, createSettings, createSocket, createUsers, Collection } from "./core.mjs";
import { CHAT_MESSAGE_STYLES, createActors, createChatMessage, createRoll } from "./documents.mjs";
import { createDialogV2 } from "./dialogs.mjs";
import { createCombats, renderTracker, tokenFor } from "./combat.mjs";
import { adoptItems, ITEM_STAND_INS } from "./items.mjs";
import { createRollTable } from "./tables.mjs";
import { createTemplates, templateGlobals } from "./templates.mjs";

/** Per flavour: the types package that describes it, its build, and what Foundry removed. */
export const FLAVOURS = {
  12: { types: "foundry-types-v12", build: "331", absent: ["foundry.applications.handlebars", "ui.notifications.success", "CONFIG.queries", "game.user.query"] },
  13: { types: "foundry-types-v13", build: "351", absent: [] },
  14: { types: "foundry-types-newest", build: "366", absent: ["CONST.CHAT_MESSAGE_TYPES"] },
};

/**
 * Every stand-in and the declaration it imitates. `owner` is a class or interface name (one of
 * a list), `static` for static members, `kind: "property"` for values, `hook` + `arguments` for
 * hooks the harness calls, `since` for APIs a generation added.
 */
export const STAND_INS = [
  { path: "Hooks.on", owner: "Hooks", member: "on", static: true },
  { path: "Hooks.once", owner: "Hooks", member: "once", static: true },
  { path: "Hooks.off", owner: "Hooks", member: "off", static: true },
  { path: "Hooks.call", owner: "Hooks", member: "call", static: true },
  { path: "Hooks.callAll", owner: "Hooks", member: "callAll", static: true },
  { path: "game.settings.register", owner: "ClientSettings", member: "register" },
  { path: "game.settings.get", owner: "ClientSettings", member: "get" },
  { path: "game.settings.set", owner: "ClientSettings", member: "set" },
  { path: "game.i18n.localize", owner: "Localization", member: "localize" },
  { path: "game.i18n.format", owner: "Localization", member: "format" },
  { path: "game.i18n.has", owner: "Localization", member: "has" },
  { path: "game.users.activeGM", owner: "Users", member: "activeGM", kind: "property" },
  { path: "game.users.get", owner: ["Collection", "Methods"], member: "get" },
  { path: "game.users.find", owner: ["Collection", "Methods"], member: "find" },
  { path: "game.user.isGM", owner: ["User", "BaseUser"], member: "isGM", kind: "property" },
  { path: "game.user.isSelf", owner: "User", member: "isSelf", kind: "property" },
  { path: "game.user.targets", owner: "User", member: "targets", kind: "property" },
  { path: "game.user.query", owner: "User", member: "query", since: 13 },
  { path: "CONFIG.queries", owner: "CONFIG", member: "queries", kind: "property", since: 13 },
  { path: "game.system.id", owner: "Schema", member: "id", kind: "property", file: "common/packages/base-package" },
  { path: "game.system.title", owner: "Schema", member: "title", kind: "property", file: "common/packages/base-package" },
  { path: "game.modules.get", owner: ["Collection", "Methods"], member: "get" },
  { path: "game.messages.get", owner: ["Collection", "Methods"], member: "get" },
  { path: "game.release.generation", owner: "Schema", member: "generation", kind: "property", file: "common/config" },
  { path: "game.socket.on", owner: "Emitter", member: "on", types: "@socket.io/component-emitter" },
  { path: "game.socket.emit", owner: "Socket", member: "emit", types: "socket.io-client" },
  { path: "ui.notifications.info", owner: "Notifications", member: "info" },
  { path: "ui.notifications.warn", owner: "Notifications", member: "warn" },
  { path: "ui.notifications.error", owner: "Notifications", member: "error" },
  { path: "ui.notifications.success", owner: "Notifications", member: "success", since: 13 },
  { path: "ChatMessage.create", owner: ["ChatMessage", "Document", "ClientDocument"], member: "create", static: true },
  { path: "ChatMessage.getSpeaker", owner: "ChatMessage", member: "getSpeaker", static: true },
  { path: "ChatMessage.getWhisperRecipients", owner: "ChatMessage", member: "getWhisperRecipients", static: true },
  { path: "ChatMessage.prototype.update", owner: ["ChatMessage", "Document", "ClientDocument"], member: "update" },
  { path: "ChatMessage.prototype.getFlag", owner: ["ChatMessage", "Document", "ClientDocument"], member: "getFlag" },
  { path: "ChatMessage.prototype.isAuthor", owner: ["ChatMessage", "Document", "ClientDocument"], member: "isAuthor", kind: "property" },
  { path: "CONST.CHAT_MESSAGE_STYLES", owner: null, member: "CHAT_MESSAGE_STYLES", kind: "property", constant: true },
  { path: "Roll.fromData", owner: "Roll", member: "fromData", static: true },
  { path: "CONFIG.RollTable.documentClass.prototype.draw", owner: "RollTable", member: "draw" },
  { path: "CONFIG.RollTable.documentClass.prototype.roll", owner: "RollTable", member: "roll" },
  { path: "CONFIG.RollTable.documentClass.prototype.toMessage", owner: "RollTable", member: "toMessage" },
  { path: "CONFIG.RollTable.documentClass.prototype.getResultsForRoll", owner: "RollTable", member: "getResultsForRoll" },
  { path: "Roll.prototype.toJSON", owner: "Roll", member: "toJSON" },
  { path: "harness.Actor.prototype.getFlag", owner: ["Actor", "Document", "ClientDocument"], member: "getFlag" },
  { path: "harness.Actor.prototype.isToken", owner: ["Actor"], member: "isToken", kind: "property" },
  { path: "harness.Actor.prototype.token", owner: ["Actor"], member: "token", kind: "property" },
  { path: "harness.Actor.prototype.uuid", owner: ["Actor", "Document", "ClientDocument"], member: "uuid", kind: "property" },
  { path: "game.actors", owner: ["Game", "InternalGame"], member: "actors", kind: "property" },
  { path: "game.actors.get", owner: ["Collection", "Methods"], member: "get" },
  { path: "harness.Actor.prototype.canUserModify", owner: ["Actor", "Document", "ClientDocument"], member: "canUserModify" },
  { path: "harness.Actor.prototype.isOwner", owner: ["Actor", "Document", "ClientDocument", "InternalClientDocument"], member: "isOwner", kind: "property" },
  { path: "harness.Actor.prototype.unsetFlag", owner: ["Actor", "Document", "ClientDocument", "InternalClientDocument"], member: "unsetFlag" },
  { path: "harness.Actor.prototype.update", owner: ["Actor", "Document", "ClientDocument"], member: "update" },
  { path: "harness.Actor.prototype.statuses", owner: ["Actor"], member: "statuses", kind: "property" },
  { path: "harness.Actor.prototype.toggleStatusEffect", owner: ["Actor"], member: "toggleStatusEffect" },
  { path: "CONFIG.statusEffects", owner: "CONFIG", member: "statusEffects", kind: "property" },
  { path: "harness.Actor.prototype.setFlag", owner: ["Actor", "Document", "ClientDocument"], member: "setFlag" },
  { path: "canvas.tokens.controlled", owner: "PlaceablesLayer", member: "controlled", kind: "property" },
  { path: "foundry.utils.randomID", owner: null, member: "randomID" },
  { path: "foundry.applications.api.DialogV2.wait", owner: "DialogV2", member: "wait", static: true },
  { path: "foundry.applications.handlebars.loadTemplates", owner: null, member: "loadTemplates", file: "handlebars", since: 13 },
  { path: "foundry.applications.handlebars.renderTemplate", owner: null, member: "renderTemplate", file: "handlebars", since: 13 },
  { path: "loadTemplates", owner: null, member: "loadTemplates", until: 12, file: "templates" },
  { path: "renderTemplate", owner: null, member: "renderTemplate", until: 12, file: "templates" },
  { path: "game.combats", owner: ["Game", "InternalGame"], member: "combats", kind: "property" },
  { path: "game.combat", owner: ["Game", "InternalGame"], member: "combat", kind: "property" },
  { path: "Combat.create", owner: ["Combat", "Document", "ClientDocument"], member: "create", static: true },
  { path: "Combat.prototype.startCombat", owner: "Combat", member: "startCombat" },
  { path: "Combat.prototype.nextRound", owner: "Combat", member: "nextRound" },
  { path: "Combat.prototype.nextTurn", owner: "Combat", member: "nextTurn" },
  { path: "Combat.prototype.previousRound", owner: "Combat", member: "previousRound" },
  { path: "Combat.prototype.previousTurn", owner: "Combat", member: "previousTurn" },
  { path: "Combat.prototype.endCombat", owner: "Combat", member: "endCombat" },
  { path: "Combat.prototype.setupTurns", owner: "Combat", member: "setupTurns" },
  { path: "Combat.prototype.getCombatantsByToken", owner: "Combat", member: "getCombatantsByToken" },
  { path: "Combat.prototype.combatant", owner: "Combat", member: "combatant", kind: "property" },
  { path: "Combat.prototype.started", owner: "Combat", member: "started", kind: "property" },
  { path: "Combat.prototype.update", owner: ["Combat", "Document", "ClientDocument"], member: "update" },
  { path: "Combat.prototype.delete", owner: ["Combat", "Document", "ClientDocument"], member: "delete" },
  { path: "Combat.prototype.createEmbeddedDocuments", owner: ["Combat", "Document", "ClientDocument"], member: "createEmbeddedDocuments" },
  { path: "Combat.prototype.updateEmbeddedDocuments", owner: ["Combat", "Document", "ClientDocument"], member: "updateEmbeddedDocuments" },
  { path: "Combat.prototype.getFlag", owner: ["Combat", "Document", "ClientDocument"], member: "getFlag" },
  { path: "Combat.prototype.setFlag", owner: ["Combat", "Document", "ClientDocument"], member: "setFlag" },
  { path: "Combat.prototype.unsetFlag", owner: ["Combat", "Document", "ClientDocument", "InternalClientDocument"], member: "unsetFlag" },
  { path: "harness.samples.combat.turns", owner: "Combat", member: "turns", kind: "property" },
  { path: "harness.samples.combat.round", owner: "Schema", member: "round", kind: "property", file: "documents/combat.d" },
  { path: "harness.samples.combat.turn", owner: "Schema", member: "turn", kind: "property", file: "documents/combat.d" },
  { path: "harness.samples.combat.combatants", owner: "Schema", member: "combatants", kind: "property", file: "documents/combat.d" },
  { path: "harness.samples.combatant.initiative", owner: "Schema", member: "initiative", kind: "property", file: "documents/combatant.d" },
  { path: "harness.samples.combatant.defeated", owner: "Schema", member: "defeated", kind: "property", file: "documents/combatant.d" },
  { path: "harness.samples.combatant.actorId", owner: "Schema", member: "actorId", kind: "property", file: "documents/combatant.d" },
  { path: "harness.samples.combatant.tokenId", owner: "Schema", member: "tokenId", kind: "property", file: "documents/combatant.d" },
  { path: "harness.Combatant.prototype.actor", owner: "Combatant", member: "actor", kind: "property" },
  { path: "harness.Combatant.prototype.token", owner: "Combatant", member: "token", kind: "property" },
  { path: "harness.Combatant.prototype.isDefeated", owner: "Combatant", member: "isDefeated", kind: "property" },
  { path: "harness.Combatant.prototype.update", owner: ["Combatant", "Document", "ClientDocument"], member: "update" },
  { path: "harness.samples.token.document.inCombat", owner: "TokenDocument", member: "inCombat", kind: "property" },
  { path: "harness.samples.token.document.actor", owner: "TokenDocument", member: "actor", kind: "property" },
  { path: "harness.samples.token.document.baseActor", owner: "TokenDocument", member: "baseActor", kind: "property" },
  { path: "harness.samples.token.document.isLinked", owner: "TokenDocument", member: "isLinked", kind: "property" },
  { path: "harness.samples.token.document.actorLink", owner: "SharedProtoSchema", member: "actorLink", kind: "property", file: "documents/token.d" },
  { path: "hook:createToken", hook: "createToken", documentHook: "CreateDocument", arguments: 3 },
  { path: "hook:updateActor", hook: "updateActor", documentHook: "UpdateDocument", arguments: 4 },
  { path: "hook:combatStart", owner: ["StaticCallbacks", "AllHooks"], hook: "combatStart", arguments: 2 },
  { path: "hook:combatRound", owner: ["StaticCallbacks", "AllHooks"], hook: "combatRound", arguments: 3 },
  { path: "hook:combatTurn", owner: ["StaticCallbacks", "AllHooks"], hook: "combatTurn", arguments: 3 },
  { path: "hook:combatTurnChange", owner: ["StaticCallbacks", "AllHooks"], hook: "combatTurnChange", arguments: 3 },
  { path: "hook:updateCombat", hook: "updateCombat", documentHook: "UpdateDocument", arguments: 4 },
  { path: "hook:updateCombatant", hook: "updateCombatant", documentHook: "UpdateDocument", arguments: 4 },
  { path: "hook:deleteCombat", hook: "deleteCombat", documentHook: "DeleteDocument", arguments: 3 },
  { path: "hook:createCombat", hook: "createCombat", documentHook: "CreateDocument", arguments: 3 },
  { path: "hook:createCombatant", hook: "createCombatant", documentHook: "CreateDocument", arguments: 3 },
  { path: "hook:userConnected", owner: ["StaticCallbacks", "AllHooks"], hook: "userConnected", arguments: 2 },
  { path: "game.user.active", owner: ["User", "BaseUser"], member: "active", kind: "property" },
  { path: "hook:init", owner: ["StaticCallbacks", "AllHooks"], hook: "init", arguments: 0 },
  { path: "hook:i18nInit", owner: ["StaticCallbacks", "AllHooks"], hook: "i18nInit", arguments: 0 },
  { path: "hook:setup", owner: ["StaticCallbacks", "AllHooks"], hook: "setup", arguments: 0 },
  { path: "hook:ready", owner: ["StaticCallbacks", "AllHooks"], hook: "ready", arguments: 0 },
  { path: "hook:renderChatMessage", owner: ["StaticCallbacks", "AllHooks"], hook: "renderChatMessage", arguments: 3, until: 12 },
  { path: "hook:renderChatMessageHTML", owner: ["StaticCallbacks", "AllHooks"], hook: "renderChatMessageHTML", arguments: 3, since: 13 },
];

/**
 * Draw the tokens as a screenshot needs them (the harness has no canvas): each token's name,
 * its bar (the actor's `system.health`) and the status effects on its actor, by name.
 */
function drawTokens(env, tokens) {
  const doc = env.document;
  let board = doc.getElementById("board");
  if (!board) {
    board = doc.createElement("section");
    board.id = "board";
    board.style.cssText = "display:flex;gap:12px;padding:8px;background:#3b4a3b;width:max-content";
    doc.body.prepend(board);
  }
  board.innerHTML = "";
  for (const token of tokens) {
    const health = token.actor?.system?.health;
    const statuses = [...(token.actor?.statuses ?? [])].map((id) => env.CONFIG.statusEffects.find((s) => s.id === id) ?? { id, name: id });
    const div = doc.createElement("div");
    div.className = "token";
    div.style.cssText = "width:140px;padding:6px;border:2px solid #222;border-radius:6px;background:#d9d2c0;font:13px sans-serif";
    div.dataset.token = token.id;
    const width = health?.max ? Math.max(0, Math.min(100, (100 * health.value) / health.max)) : 0;
    div.innerHTML = `<strong>${token.name}</strong>
      <div class="bar" data-value="${health?.value ?? ""}" data-max="${health?.max ?? ""}" style="height:10px;background:#5a1c1c;margin:4px 0"><span style="display:block;height:100%;background:#3fae3f;width:${width}%"></span></div>
      <small>${health ? `${health.value} / ${health.max}` : ""}</small>
      <div class="statuses">${statuses.map((s) => `<span class="status" data-status="${s.id}" style="display:inline-block;margin:2px;padding:1px 4px;background:#222;color:#fff;border-radius:3px">${env.game().i18n.localize(s.name)}</span>`).join("")}</div>`;
    board.append(div);
  }
}

/** The stand-ins of one generation. */
export function standInsFor(generation) {
  return [...STAND_INS, ...ITEM_STAND_INS].filter((s) => (s.since ?? 0) <= generation && (s.until ?? 99) >= generation);
}

export const USERS = [
  { id: "harnessGamemast", name: "Gamemaster", role: 4, active: true },
  { id: "harnessPlayerAa", name: "Aria", role: 1, active: true },
  { id: "harnessPlayerBb", name: "Bram", role: 1, active: true },
];

/**
 * Build the globals of one flavour. `options`: document (or null in node), user (id), settings
 * (initial values by "namespace.key"), translations, Handlebars, fetchText(path), storage,
 * hub (the page's line to the hub that plays Foundry's server: send, on, active), users (more
 * than USERS), actors, tokens, targets (token ids), modules (extra
 * active module ids such as "dice-so-nice"), console.
 */
export function createFoundry(generation, options = {}) {
  const record = {
    notifications: [], created: [], updated: [], dice3d: [], dialogs: [], flags: [], socketOut: [],
    socketIn: [], queriesIn: [], missingKeys: [], localTableRolls: [],
  };
  const env = {
    generation,
    document: options.document ?? null,
    console: options.console ?? console,
    settings: options.settings,
    storage: options.storage ?? null,
    translations: options.translations ?? {},
    Handlebars: options.Handlebars ?? null,
    fetchText: options.fetchText ?? (async (path) => { throw new Error(`no fetch for ${path}`); }),
    hub: options.hub ?? null,
    userList: [...USERS, ...(options.users ?? [])],
    actorList: options.actors ?? [],
    tokenList: options.tokens ?? [],
    currentUserId: options.user ?? USERS[0].id,
    record,
  };
  let game;
  env.game = () => game;
  env.currentUser = () => game.users.get(env.currentUserId);

  // CONFIG.queries exists since V13 (core registers its own, unprefixed, queries there).
  env.CONFIG = generation >= 13 ? { queries: {} } : {};
  // Core's status effects (a few of CONFIG.statusEffects: id, name, img as in V12+).
  env.CONFIG.statusEffects = [
    { id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" },
    { id: "unconscious", name: "EFFECT.StatusUnconscious", img: "icons/svg/unconscious.svg" },
    { id: "stun", name: "EFFECT.StatusStunned", img: "icons/svg/daze.svg" },
    { id: "prone", name: "EFFECT.StatusProne", img: "icons/svg/falling.svg" },
    { id: "restrain", name: "EFFECT.StatusRestrained", img: "icons/svg/net.svg" },
    { id: "bleeding", name: "EFFECT.StatusBleeding", img: "icons/svg/blood.svg" },
  ];
  env.query = createQueries(env);
  const Hooks = createHooks(env);
  env.Hooks = Hooks;
  const users = createUsers(env);
  const Roll = createRoll(env);
  env.Roll = Roll;
  const { Actor, actors, load: loadActors } = createActors(env);
  // Embedded items (items.mjs): the actor's items as documents, and the embedded-document API.
  const Item = adoptItems(env, Actor, actors, options.system?.id ?? "worldbuilding");
  env.Item = Item; // an unlinked token's synthetic actor copies its world actor's items
  // The statuses the world's system registers at its init (e.g. Mythras's `seriousWound`); one
  // with a core status's id replaces it, as Mythras's registration does.
  for (const status of options.systemStatuses ?? []) {
    const at = env.CONFIG.statusEffects.findIndex((s) => s.id === status.id);
    if (at >= 0) env.CONFIG.statusEffects[at] = { ...status };
    else env.CONFIG.statusEffects.push({ ...status });
  }
  // Tokens on the scene, each linked to its actor; more are dropped from actors (harness.dropActor).
  const tokens = (env.tokenList ?? []).map((t) => tokenFor(env, actors.get(t.actor), t));
  env.tokenById = (id) => tokens.find((t) => t.id === id) ?? null;
  env.actorById = (id) => actors.get(id) ?? null;
  // What other browsers changed before this one loaded (the hub's first frame).
  loadActors(env.hub?.actors);
  env.renderTracker = () => renderTracker(env);
  const { Combat, Combatant, combats } = createCombats(env);
  // One of each, outside the world, for the declaration check of their data fields.
  const sampleCombat = new Combat({});
  const samples = { combat: sampleCombat, combatant: new Combatant({ actorId: null, tokenId: null }, sampleCombat), token: tokenFor(env, null, { id: "harnessSample0001" }) };
  const { ChatMessage, messages } = createChatMessage(env);
  env.ChatMessage = ChatMessage;
  env.CONFIG.RollTable = { documentClass: createRollTable(env) };
  const templates = createTemplates(env);
  const modules = new Collection();
  modules.set("arbiter", { id: "arbiter", active: true, title: "Arbiter" });
  for (const id of options.modules ?? []) modules.set(id, { id, active: true, title: id });

  game = {
    release: { generation, build: Number(FLAVOURS[generation].build), version: `${generation}.${FLAVOURS[generation].build}` },
    settings: createSettings(env),
    i18n: createI18n(env),
    users,
    get user() {
      return users.get(env.currentUserId);
    },
    modules,
    messages,
    /** The world's actors (`game.actors`): an unlinked token's actor is not among them. */
    actors,
    socket: createSocket(env),
    // The world's game system (the package whose actor data the module's presets read).
    system: { id: options.system?.id ?? "worldbuilding", title: options.system?.title ?? "Simple Worldbuilding" },
    combats,
    /** The active combat of the viewed scene, or null (Foundry: `game.combats.viewed`). */
    get combat() {
      return combats.viewed;
    },
  };
  for (const id of options.targets ?? []) game.user.targets.add(tokens.find((t) => t.id === id));
  // Dice So Nice's API (its module.js: `game.dice3d.showForRoll(roll, user, synchronize, users,
  // blind, messageID, speaker)`), recording what it is asked to throw beside the dice it throws
  // itself when a message with rolls is created (documents.mjs).
  if (modules.get("dice-so-nice")?.active) {
    game.dice3d = {
      async showForRoll(roll, user, synchronize, users, blind, messageID, speaker) {
        record.dice3d.push({ message: messageID ?? null, rolls: [roll.toJSON()], by: "showForRoll", user: user?.id ?? null, synchronize: Boolean(synchronize), users: users ?? null, blind: Boolean(blind) });
        return true;
      },
    };
  }

  const CONST = { CHAT_MESSAGE_STYLES };
  if (generation < 14) {
    Object.defineProperty(CONST, "CHAT_MESSAGE_TYPES", {
      enumerable: true,
      get() {
        env.console.warn("Deprecated since Version 12, CONST.CHAT_MESSAGE_TYPES will be removed in Version 14");
        return CHAT_MESSAGE_STYLES;
      },
    });
  }
  // Core settings the module reads: the chat visibility mode per generation.
  if (generation >= 14) game.settings.register("core", "messageMode", { scope: "client", default: "public" });
  else game.settings.register("core", "rollMode", { scope: "client", default: "publicroll" });

  const applications = { api: { DialogV2: createDialogV2(env) } };
  if (generation >= 13) applications.handlebars = templates;
  const globals = {
    game,
    Hooks,
    ui: { notifications: createNotifications(env) },
    ChatMessage,
    Roll,
    CONST,
    CONFIG: env.CONFIG,
    canvas: { ready: true, scene: { id: "harnessScene0001" }, tokens: { controlled: tokens.filter((t) => (options.controlled ?? []).includes(t.id)), placeables: tokens } },
    foundry: { applications, utils: { randomID(length) { return Array.from({ length: length ?? 16 }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(Math.random() * 36)]).join(""); } } },
    ...templateGlobals(env, templates),
    Combat,
    harness: {
      record, generation, env, Actor, Item, Combat, Combatant, samples, drawTokens: () => drawTokens(env, tokens),
      /** Foundry's drop of an actor on the scene (TokenLayer#_onDropActorData): a token made
       * from the actor (`Actor#getTokenDocument`) created on the scene; `actorLink: false`
       * as the actor's prototype token says for an NPC (its own synthetic actor). */
      dropActor(actorId, { actorLink = true } = {}) {
        const token = tokenFor(env, actors.get(actorId, { strict: true }), { actorLink });
        tokens.push(token);
        // As Foundry's, once the token is on the scene (this page only: drops are not sent).
        env.Hooks.callAll("createToken", token.document, {}, env.currentUserId);
        return token;
      },
      /** The token HUD's "Toggle Combat State" (`TokenDocument.createCombatants`): the scene's
       * combat (created and activated if there is none) gets a combatant per token. */
      async toggleCombat(tokenIds) {
        const combat = game.combat ?? (await Combat.create({ scene: "harnessScene0001", active: true }));
        const fresh = tokenIds.map((id) => env.tokenById(id)).filter((t) => t && !t.inCombat);
        await combat.createEmbeddedDocuments("Combatant", fresh.map((t) => ({ tokenId: t.id, sceneId: "harnessScene0001", actorId: t.actor?.id ?? null, hidden: false })));
        return combat;
      },
      /** Select (control) and target tokens as a user's clicks do. */
      select(controlled, targeted) {
        globals.canvas.tokens.controlled = controlled.map((id) => env.tokenById(id));
        game.user.targets.clear();
        for (const id of targeted) game.user.targets.add(env.tokenById(id));
      },
    },
  };
  return globals;
}
