// foundry.utils as Foundry implements the functions the harness needs (common/utils/helpers.mjs,
// the same in V12, V13 and V14): the language files are loaded through `expandObject`, which
// writes each dotted key with `setProperty`, and read back with `getProperty`. So a file holding
// both "A.B" and "A.B.c" loses one of them (the later write wins, or `in` on a string throws),
// exactly as in Foundry.

/** Foundry's `getType`, reduced to what expandObject asks: is this a plain object? */
function isPlainObject(value) {
  return value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype;
}

/** `foundry.utils.setProperty(object, key, value)`: walk (creating) the dotted path, then set. */
export function setProperty(object, key, value) {
  if (!key) return false;
  let target = object;
  if (key.indexOf(".") !== -1) {
    const parts = key.split(".");
    key = parts.pop();
    target = parts.reduce((o, i) => {
      if (!Object.prototype.hasOwnProperty.call(o, i)) o[i] = {};
      return o[i];
    }, object);
  }
  // As Foundry: `in` on a string (a key that is already a string) throws a TypeError.
  if (!(key in target) || target[key] !== value) {
    target[key] = value;
    return true;
  }
  return false;
}

/** `foundry.utils.getProperty(object, key)`. */
export function getProperty(object, key) {
  if (!key || !object) return undefined;
  if (key in object) return object[key];
  let target = object;
  for (const p of key.split(".")) {
    if (!target || typeof target !== "object") return undefined;
    if (p in target) target = target[p];
    else return undefined;
  }
  return target;
}

/** `foundry.utils.expandObject(obj)`: every dotted key written as nested objects, in order. */
export function expandObject(obj) {
  function expand(value, depth) {
    if (depth > 32) throw new Error("Maximum object expansion depth exceeded");
    if (!value) return value;
    if (Array.isArray(value)) return value.map((v) => expand(v, depth + 1));
    if (!isPlainObject(value)) return value;
    const expanded = {};
    for (const [k, v] of Object.entries(value)) setProperty(expanded, k, expand(v, depth + 1));
    return expanded;
  }
  return expand(obj, 0);
}

/**
 * The keys of a flat language file that Foundry cannot read back as the file wrote them: each
 * key whose value, after `expandObject`, is not that same string (another key overwrote it, or
 * it overwrote an object). `[]` when every key is a string and none is also an object.
 */
export function languageCollisions(flat) {
  let expanded;
  try {
    expanded = expandObject(flat);
  } catch (err) {
    return [`expandObject failed: ${err.message}`];
  }
  return Object.entries(flat)
    .filter(([key, text]) => getProperty(expanded, key) !== text)
    .map(([key]) => key);
}

/**
 * Foundry's check of a flag's scope (`getFlag` and `setFlag` of a document, V12-V14,
 * `ClientDatabaseBackend#getFlagScopes`): "core", "world", the system's id or an active
 * module's; any other scope throws.
 */
export function checkFlagScope(game, scope) {
  const scopes = ["core", "world", game.system?.id, ...Array.from(game.modules?.values?.() ?? [], (m) => (m.active ? m.id : null))];
  if (!scopes.includes(scope)) throw new Error(`Flag scope "${scope}" is not valid or not currently active`);
}
