// The GM's stat blocks live on the Arbiter server, not on actors (docs/client.md, "Where stat
// blocks live"). Foundry sends every actor and every world setting to every browser, so a block
// kept in a flag or a setting is a block every player can read; the server answers only the
// GM's connection (a player's, for the participants he holds). What an actor keeps is the id of
// its combatant per ruleset (flag `participant`: {ruleset: id}), which every card names anyway:
// a request names a stored block by `{id, stored: true}` and the server fills it in; and flag
// `derived` ({ruleset: true}) while that block is the one its system data gives, no stat value.

export const PARTICIPANT = "participant";
/** {ruleset: true} while the actor's stored block is the one its system data gives (system-blocks.mjs). */
export const DERIVED = "derived";
/** Flags of earlier versions, moved to the server once by the GM's client (`migrate`). */
export const LEGACY = "statBlocks";
export const LEGACY_EDITED = "editedStatBlocks";

/** Whether a block says more than an id and a name (a reference counts: it names a stored one). */
export const filled = (block) => Boolean(block) && Object.keys(block).some((k) => k !== "id" && k !== "name");

/** Whether a stat block is a reference to a block the server keeps (`{id, stored: true}`). */
export function isReference(block) {
  return Boolean(block) && block.stored === true && Object.keys(block).length === 2 && typeof block.id === "string";
}

/** The reference a request sends for a stored block. */
export function reference(participant) {
  return { id: participant, stored: true };
}

/** The participant id an actor's stored block has for a ruleset, or null. */
export function participantOf(module, actor, ruleset) {
  const id = actor?.getFlag?.(module, PARTICIPANT)?.[ruleset];
  return typeof id === "string" && id ? id : null;
}

/**
 * The vault of one client. `ctx`: module, i18n, connection() (this browser's open Connection or
 * null), isGM(). Blocks read are cached in this browser's memory only (the GM's, or a player's
 * own participants'), and only while its connection is open: another GM's browser may hold the
 * world's connection meanwhile and change them.
 */
export function createVault(ctx) {
  const cache = new Map(); // "<ruleset>/<participant>" → block
  const key = (ruleset, participant) => `${ruleset}/${participant}`;
  const newId = () => `vault-${foundry.utils.randomID(16)}`;
  let readUnder = null; // the welcome the cache was read under
  const open = () => {
    const connection = ctx.connection();
    if (connection?.status === "open") {
      // Read under another welcome (a new connection, or this browser's again after another
      // GM's browser held the world's): the stored blocks may have changed meanwhile.
      if (readUnder !== connection.welcome) cache.clear();
      readUnder = connection.welcome;
      return connection;
    }
    // Not this browser's to ask now (the connection is down, or another GM's browser holds the
    // world's): what it read may change meanwhile (another GM's edits), so it reads anew.
    cache.clear();
    return null;
  };
  /** The participants this browser's connection may read (null: all, the GM's). */
  const readable = () => {
    const you = open()?.welcome?.you;
    if (!you) return new Set();
    return you.gm ? null : new Set(you.participants ?? []);
  };

  /** The stored block of `participant`, or null (none stored, or not this browser's to read). */
  async function get(ruleset, participant) {
    const connection = open();
    if (!connection) return null;
    if (cache.has(key(ruleset, participant))) return structuredClone(cache.get(key(ruleset, participant)));
    const may = readable();
    if (may && !may.has(participant)) return null;
    try {
      const answer = await connection.control({ v: 1, type: "get_stat_block", id: newId(), ruleset, participant });
      cache.set(key(ruleset, participant), answer.stat_block);
      return structuredClone(answer.stat_block);
    } catch (err) {
      if (err.code === "not_found" || err.code === "forbidden") return null;
      throw err;
    }
  }

  /**
   * Store a block on the server (GM) and note its participant on the actor. Resolves with the
   * server's verdict ({ok, problems}: nothing stored unless ok), or null without a connection.
   * `derived`: the block was read from the actor's system data (system-blocks.mjs), which the
   * actor's `derived` flag then says; any other block stored is the GM's, and clears it.
   */
  async function put(ruleset, block, actor, { derived = false } = {}) {
    const connection = open();
    if (!connection || !ctx.isGM()) return null;
    const message = { v: 1, type: "put_stat_block", id: newId(), ruleset, stat_block: block };
    if (actor?.id) message.actor = actor.id;
    const answer = await connection.control(message);
    if (!answer.ok) return answer;
    cache.set(key(ruleset, block.id), structuredClone(block));
    if (actor) {
      // Marker and participant in one update (one change sent to every browser): a participant
      // noted without its marker would be taken for the GM's block.
      const change = {};
      if ((actor.getFlag(ctx.module, DERIVED)?.[ruleset] === true) !== derived) change[`flags.${ctx.module}.${DERIVED}.${ruleset}`] = derived;
      if (participantOf(ctx.module, actor, ruleset) !== block.id) change[`flags.${ctx.module}.${PARTICIPANT}.${ruleset}`] = block.id;
      if (Object.keys(change).length) await actor.update(change);
      // A block of an earlier version for this ruleset goes: the server's is the one now.
      if (actor.getFlag(ctx.module, LEGACY)?.[ruleset] !== undefined) await actor.unsetFlag(ctx.module, `${LEGACY}.${ruleset}`);
      if (actor.getFlag(ctx.module, LEGACY_EDITED)?.[ruleset] !== undefined) await actor.unsetFlag(ctx.module, `${LEGACY_EDITED}.${ruleset}`);
    }
    return answer;
  }

  /** Every stored block this connection may hear of: [{ruleset, participant, name, actor, updated, problems}] (problems: GM only, null when valid). */
  async function list(ruleset = null) {
    const connection = open();
    if (!connection) return [];
    return (await connection.control({ v: 1, type: "list_stat_blocks", id: newId(), ruleset })).entries;
  }

  /** Forget a stored block (GM). */
  async function remove(ruleset, participant) {
    const connection = open();
    if (!connection || !ctx.isGM()) return;
    await connection.control({ v: 1, type: "delete_stat_block", id: newId(), ruleset, participant });
    cache.delete(key(ruleset, participant));
  }

  /**
   * The stat block a request uses for an actor: the stored block where this browser may read it
   * (the GM: every one; a player: his own participants'), else a reference the server fills in
   * (a player naming the GM's NPC), else null (no block stored for the actor).
   */
  async function blockFor(actor, ruleset) {
    const participant = participantOf(ctx.module, actor, ruleset);
    if (!participant) return null;
    return (await get(ruleset, participant)) ?? reference(participant);
  }

  /**
   * The GM's request `body` (a copy) with each stat block this browser knows the server keeps
   * as it is, key for key (the block this vault last stored or read for that id), as a
   * reference `{id, stored: true}`: the server fills in its stored block, validated once when
   * stored instead of with every request, and logs the request with it written in, as it logs
   * the block sent whole. Anything else goes as it is (a changed block, an unknown one, a
   * player's browser: his request is decided with the GM's blocks anyway).
   */
  function referenced(ruleset, body) {
    if (!ctx.isGM() || !open() || cache.size === 0) return body;
    const walk = (value) => {
      if (Array.isArray(value)) return value.map(walk);
      if (!value || typeof value !== "object") return value;
      if (typeof value.id === "string" && !isReference(value)) {
        const kept = cache.get(key(ruleset, value.id));
        if (kept !== undefined && JSON.stringify(kept) === JSON.stringify(value)) return reference(value.id);
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    };
    return walk(body);
  }

  /**
   * GM, once connected: move the stat blocks earlier versions kept in actor flags to the server,
   * then remove them from the actor (which removes them from every browser). A block the server
   * refuses stays on its actor and the GM is told which, to fix it in the editor (saving it
   * moves it). Returns {moved, kept}: "actor name/ruleset" lists.
   */
  async function migrate(actors) {
    const moved = [];
    const kept = [];
    if (!ctx.isGM() || !open()) return { moved, kept };
    for (const actor of actors) {
      const legacy = actor.getFlag(ctx.module, LEGACY);
      if (!legacy || typeof legacy !== "object") continue;
      for (const [ruleset, block] of Object.entries(legacy)) {
        const label = `${actor.name}/${ruleset}`;
        const valid = block && typeof block === "object" && typeof block.id === "string";
        const answer = valid ? await put(ruleset, block, actor) : null;
        (answer?.ok ? moved : kept).push(label);
      }
      if (!Object.keys(actor.getFlag(ctx.module, LEGACY) ?? {}).length) {
        await actor.unsetFlag(ctx.module, LEGACY);
        await actor.unsetFlag(ctx.module, LEGACY_EDITED);
      }
    }
    if (kept.length) ui.notifications.warn(ctx.i18n("ARBITER.Vault.NotMoved", { blocks: kept.join(", ") }));
    return { moved, kept };
  }

  /** Forget what this browser read (a new connection may read other blocks). */
  function forget() {
    cache.clear();
  }

  return { get, put, list, remove, blockFor, referenced, migrate, forget };
}

/**
 * What the GM is told of a `stat_blocks_invalid` event (docs/protocol.md, "Stat blocks on the
 * server"): per block "actor (participant, ruleset): field: message; …", blocks joined by " | ".
 * `actorName(id)` is the name of the actor of that id, or null (deleted, or never noted).
 */
export function invalidBlocksText(blocks, actorName) {
  return (blocks ?? [])
    .map((block) => {
      const who = (block.actor && actorName(block.actor)) || block.name || block.participant;
      const why = (block.problems ?? []).map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join("; ");
      return `${who} (${block.participant}, ${block.ruleset}): ${why}`;
    })
    .join(" | ");
}

let current = null;

/** This browser's vault (set once at init by arbiter.mjs). */
export function setVault(vault) {
  current = vault;
}

/** This browser's vault (null before init). */
export function vault() {
  return current;
}
