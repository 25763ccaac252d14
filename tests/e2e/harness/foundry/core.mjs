import { expandObject, getProperty } from "./utils.mjs";

// Core stand-ins: Hooks, settings, i18n, notifications, users, modules, the module socket.
// Each imitates the Foundry API it is named after closely enough for the Arbiter module, and
// records what happened so a test can read it (see `env.record`).

/** Foundry's deprecation warning, word for word in shape; the e2e tests fail on any of them. */
export function deprecated(env, what, since, until) {
  env.console.warn(`Deprecated since Version ${since}, ${what} will be removed in Version ${until}`);
}

/** `Hooks`: named events with persistent and one-shot listeners. */
export function createHooks(env) {
  const listeners = new Map();
  let nextId = 1;
  const add = (hook, fn, once) => {
    if (typeof fn !== "function") throw new Error(`Hooks: the listener for "${hook}" is not a function`);
    const id = nextId++;
    if (!listeners.has(hook)) listeners.set(hook, []);
    listeners.get(hook).push({ id, fn, once });
    return id;
  };
  const run = (hook, args) => {
    for (const entry of [...(listeners.get(hook) ?? [])]) {
      if (entry.once) Hooks.off(hook, entry.id);
      try {
        entry.fn(...args);
      } catch (err) {
        env.console.error(`Error thrown in hooked function for "${hook}"`, err);
      }
    }
    return true;
  };
  class Hooks {
    static on(hook, fn, options) {
      return add(hook, fn, Boolean(options?.once));
    }
    static once(hook, fn) {
      return add(hook, fn, true);
    }
    static off(hook, fn) {
      const list = listeners.get(hook) ?? [];
      const index = list.findIndex((e) => e.id === fn || e.fn === fn);
      if (index >= 0) list.splice(index, 1);
    }
    static callAll(hook, ...args) {
      return run(hook, args);
    }
    static call(hook, ...args) {
      for (const entry of [...(listeners.get(hook) ?? [])]) {
        if (entry.once) Hooks.off(hook, entry.id);
        if (entry.fn(...args) === false) return false;
      }
      return true;
    }
    /** Harness only: whether anything listens to a hook. */
    static _has(hook) {
      return (listeners.get(hook) ?? []).length > 0;
    }
  }
  return Hooks;
}

/** `game.settings`: registered settings; client scope persists in localStorage like Foundry. */
export function createSettings(env) {
  const registry = new Map();
  const values = new Map(Object.entries(env.settings ?? {}));
  class ClientSettings {
    register(namespace, key, data) {
      const id = `${namespace}.${key}`;
      if (!data || !["world", "client", ...(env.generation >= 13 ? ["user"] : [])].includes(data.scope ?? "client")) {
        throw new Error(`Invalid setting scope for ${id}: ${data?.scope}`);
      }
      registry.set(id, { ...data, namespace, key });
    }
    get(namespace, key) {
      const id = `${namespace}.${key}`;
      const config = registry.get(id);
      if (!config) throw new Error(`"${id}" is not a registered game setting`);
      if (values.has(id)) return values.get(id);
      const stored = config.scope === "client" ? env.storage?.getItem(id) : null;
      if (stored != null) return JSON.parse(stored);
      return config.default;
    }
    async set(namespace, key, value) {
      const id = `${namespace}.${key}`;
      const config = registry.get(id);
      if (!config) throw new Error(`"${id}" is not a registered game setting`);
      if (config.scope === "world" && !env.currentUser().isGM) {
        throw new Error(`User ${env.currentUser().name} lacks permission to update the world setting ${id}`);
      }
      values.set(id, value);
      if (config.scope === "client") env.storage?.setItem(id, JSON.stringify(value));
      config.onChange?.(value);
      return value;
    }
    /** Harness only: the registered configuration of a setting. */
    _config(namespace, key) {
      return registry.get(`${namespace}.${key}`);
    }
  }
  return new ClientSettings();
}

/**
 * `game.i18n`: the module's language file as Foundry loads it — expanded with
 * `foundry.utils.expandObject` (a key that is both a string and an object loses one of them)
 * and read with `getProperty`; a key that is no string is recorded as missing.
 */
export function createI18n(env) {
  class Localization {
    constructor() {
      this.lang = "en";
      this.translations = expandObject(env.translations ?? {});
    }
    has(key, fallback) {
      return typeof getProperty(this.translations, key) === "string";
    }
    localize(stringId) {
      if (!this.has(stringId)) env.record.missingKeys.push(stringId);
      return getProperty(this.translations, stringId) ?? stringId;
    }
    format(stringId, data) {
      const text = this.localize(stringId);
      if (typeof text !== "string") return text;
      return text.replace(/{([^}]+)}/g, (match, name) => (data && name in data ? String(data[name]) : match));
    }
  }
  return new Localization();
}

/** `ui.notifications`: shown in a list on the page and recorded. V13 added `success`. */
export function createNotifications(env) {
  class Notifications {
    notify(message, type, options) {
      const text = options?.localize ? env.game().i18n.localize(message) : message;
      env.record.notifications.push({ type, message: text });
      const list = env.document?.getElementById("notifications");
      if (list) {
        const li = env.document.createElement("li");
        li.className = `notification ${type}`;
        li.textContent = text;
        list.append(li);
      }
      return { id: env.record.notifications.length, message: text, type };
    }
    info(message, options) {
      return this.notify(message, "info", options);
    }
    warn(message, options) {
      return this.notify(message, "warning", options);
    }
    error(message, options) {
      return this.notify(message, "error", options);
    }
  }
  if (env.generation >= 13) {
    Notifications.prototype.success = function success(message, options) {
      return this.notify(message, "success", options);
    };
  }
  return new Notifications();
}

/** A `Collection` (Foundry's Map with `get(key, {strict})`, `find`, `filter`, `contents`; iterating
 * it yields its values). */
export class Collection extends Map {
  /** Foundry's Collection iterates its values (a Map iterates [key, value] pairs). */
  *[Symbol.iterator]() {
    yield* this.values();
  }
  get(key, options) {
    const value = super.get(key);
    if (options?.strict && value === undefined) throw new Error(`The key ${key} does not exist in the Collection`);
    return value;
  }
  get contents() {
    return [...this.values()];
  }
  find(condition) {
    return this.contents.find(condition);
  }
  filter(condition) {
    return this.contents.filter(condition);
  }
}

/** The users of the harness world: one full GM and two players (and a world's more); `query`
 * since V13. Active while a page of theirs is open (the hub says). */
export function createUsers(env) {
  class User {
    constructor(data) {
      Object.assign(this, data);
      this.targets = new Set();
      this.flags = {};
    }
    get isGM() {
      return this.role >= 3;
    }
    get isSelf() {
      return env.currentUserId === this.id;
    }
  }
  if (env.generation >= 13) {
    User.prototype.query = function query(queryName, queryData, { timeout } = {}) {
      return env.query(this, queryName, queryData, timeout);
    };
  }
  class Users extends Collection {
    get activeGM() {
      const gms = this.filter((u) => u.active && u.isGM).sort((a, b) => b.role - a.role || (a.id < b.id ? -1 : 1));
      return gms[0] ?? null;
    }
  }
  const users = new Users();
  for (const data of env.userList) users.set(data.id, new User(data));
  // Who is active as the page loads (Foundry: `game.data.activeUsers`, and the current user):
  // the users with a page open, as the hub says; every user without a hub (node).
  if (env.hub) for (const user of users.contents) user.active = user.id === env.currentUserId || env.hub.active.includes(user.id);
  // Foundry's `userActivity` from its server (Users#handleUserActivity): another user's page
  // opened or closed; a change of his `active` calls `userConnected(user, active)` everywhere.
  env.hub?.on("activity", ({ user: id, active }) => {
    const user = users.get(id);
    if (!user || user.isSelf || user.active === active) return;
    user.active = active;
    env.Hooks.callAll("userConnected", user, active);
  });
  return users;
}

/**
 * `game.socket` for module events, through the hub that plays Foundry's server: an emit reaches
 * every other page of the world, whoever it is meant for (each in its own browser context). Like
 * Foundry, the sender does not receive its own emit. Every message received is recorded.
 */
export function createSocket(env) {
  const handlers = new Map();
  env.hub?.on("socket", ({ name, args }) => {
    env.record.socketIn.push({ name, args });
    for (const fn of handlers.get(name) ?? []) fn(...args);
  });
  class Socket {
    on(ev, listener) {
      if (!handlers.has(ev)) handlers.set(ev, []);
      handlers.get(ev).push(listener);
      return this;
    }
    emit(ev, ...args) {
      if (!ev.startsWith("module.") && !ev.startsWith("system.")) {
        throw new Error(`game.socket: only module.* and system.* events can be emitted, not "${ev}"`);
      }
      env.record.socketOut.push({ name: ev, args });
      env.hub?.send({ op: "socket", name: ev, args: JSON.parse(JSON.stringify(args)) });
      return this;
    }
  }
  return new Socket();
}

/**
 * V13+ user queries as Foundry's `Users` collection handles them: the hub delivers a query to
 * the target user's pages only, with the asking user's id stamped by the server; the handler in
 * `CONFIG.queries` gets `(queryData, {timeout})` and nothing about the sender; its value (or
 * error message) returns to the asking page alone.
 */
export function createQueries(env) {
  const waiting = new Map(); // query id → resolve
  env.hub?.on("query", async ({ id, from, name, data, options }) => {
    env.record.queriesIn.push({ from, name, data });
    const handler = env.CONFIG.queries?.[name];
    let result;
    try {
      if (!handler) throw new Error(`Received invalid User query '${name}'`);
      result = { status: "fulfilled", value: await handler(data, { timeout: options?.timeout }) };
    } catch (err) {
      result = { status: "rejected", reason: err.message };
    }
    env.hub.send({ op: "query-answer", id, result: JSON.parse(JSON.stringify(result)) });
  });
  env.hub?.on("query-result", ({ id, result }) => {
    waiting.get(id)?.(result);
    waiting.delete(id);
  });
  /** `User#query`: Foundry's checks, then the round trip through the hub. */
  return async function query(user, queryName, queryData, timeout) {
    if (!(queryName in env.CONFIG.queries)) throw new Error(`User query '${queryName}' is not registered`);
    if (!user.active) throw new Error(`User [${user.id}] is not active`);
    const id = `q${Math.random().toString(36).slice(2)}`;
    const result = await new Promise((resolve) => {
      waiting.set(id, resolve);
      env.hub.send({ op: "query", id, target: user.id, name: queryName, data: JSON.parse(JSON.stringify(queryData ?? null)), options: { timeout } });
    });
    if (result.status === "rejected") throw new Error(result.reason);
    return result.value;
  };
}
