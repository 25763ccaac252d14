// The stat blocks the world's game system gives (presets.mjs: an HM3 or Mythras actor's own
// data), kept on the Arbiter server by the active GM's client by itself, so that a player's
// request naming such an NPC is decided without the GM saving each block in the editor: the
// server decides a player's request with the GM's stored block of every participant he does not
// hold, and refuses it when none is stored (docs/protocol.md). docs/client.md, "Blocks the GM's
// client stores by itself". It computes no rule: it reads and stores, the server checks.
//
// A block stored so is marked on its actor as read from the system (flag `derived`:
// {ruleset: true}; no stat value, only that marker beside the `participant` id), and follows
// the actor's sheet: a change of the actor's data or of its embedded items stores the block read
// anew. A block the GM saved (the editor, a dialog, `api.statBlocks.save`) is his: the vault
// clears the marker, and nothing here overwrites it; nor a block of an earlier version still in
// the actor's flags (`systemMay`).

import { DERIVED, LEGACY, filled, participantOf } from "./vault.mjs";

/** Whether an actor's stored block for a ruleset is the one read from its system data. */
export function isDerived(module, actor, ruleset) {
  return actor?.getFlag?.(module, DERIVED)?.[ruleset] === true;
}

/**
 * Whether the system's block may be stored for an actor in a ruleset: none is stored for it, or
 * the stored one is the system's. Never over the GM's: a block he saved (marker `false`, or no
 * marker at all: a block stored before derived blocks existed was always his, from the editor,
 * a dialog or a move of an earlier version's), nor a block an earlier version kept in the
 * actor's flags that is still there (the server refused to take it: the GM was told, and fixes
 * it in the editor; storing the system's block would unset it, docs/client.md).
 */
export function systemMay(module, actor, ruleset) {
  if (actor?.getFlag?.(module, LEGACY)?.[ruleset] !== undefined) return false;
  return !participantOf(module, actor, ruleset) || isDerived(module, actor, ruleset);
}

/** The same JSON whatever the order of keys (the server keeps a block as it was put). */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** An actor update that changes what a mapping may read (not only flags: our own writes). */
const readable = (changed) => Object.keys(changed ?? {}).some((k) => !["_id", "flags", "_stats"].includes(k));

/**
 * `ctx`: module, i18n, active() (this browser is the active GM's with an open connection),
 * rulesets() (the rulesets this world's system has a mapping with fields for), fromSystem(actor,
 * ruleset) (the block the mapping reads), vault() (vault.mjs), actors() (the actors of the viewed
 * scene's tokens), notify(level, text),
 * delayMs (how long a burst of changes is gathered).
 */
export function createSystemBlocks(ctx) {
  const pending = new Map(); // actor id → actor: read again at the next flush
  const tried = new Map(); // "<ruleset>/<actor id>" → canonical block last put (kept or refused)
  let timer = null;
  let running = Promise.resolve();

  /** Store, one actor after another, the block each pending actor's system data gives. */
  async function flush() {
    timer = null;
    const actors = [...pending.values()];
    pending.clear();
    if (!ctx.active()) return;
    const refused = [];
    for (const actor of actors) {
      for (const ruleset of ctx.rulesets()) {
        // One actor's failure (a dropped connection) does not cost the others theirs.
        try {
          const done = await keep(actor, ruleset);
          if (done?.refused) refused.push(done.refused);
        } catch (err) {
          ctx.notify("warn", err.message);
        }
      }
    }
    if (refused.length === 1) ctx.notify("warn", ctx.i18n("ARBITER.Vault.NotKept", refused[0]));
    else if (refused.length) ctx.notify("warn", ctx.i18n("ARBITER.Vault.NotKeptMany", { blocks: refused.map((r) => `${r.actor} (${r.ruleset})`).join(", ") }));
  }

  /**
   * Store one actor's system block for a ruleset where that is ours to do (`systemMay`). Null
   * when nothing was put (the GM's block, nothing to read, no connection, the block last put or
   * the server's already), else {stored: true} or {refused: {actor, ruleset}}. `force`: put it
   * even if it is the one last put (the server said it keeps none).
   */
  async function keep(actor, ruleset, { force = false } = {}) {
    if (!systemMay(ctx.module, actor, ruleset)) return null;
    const participant = participantOf(ctx.module, actor, ruleset);
    const block = ctx.fromSystem(actor, ruleset);
    if (!filled(block)) return null;
    const key = `${ruleset}/${actor.id}`;
    const text = canonical(block);
    if (!force && tried.get(key) === text) return null;
    if (!force && participant === block.id) {
      // Read again after a reload: put only what differs from the server's.
      const stored = await ctx.vault().get(ruleset, participant);
      if (stored && canonical(stored) === text) return void tried.set(key, text);
    }
    const answer = await ctx.vault().put(ruleset, block, actor, { derived: true });
    if (!answer) return null; // no connection: tried again at the next connect
    tried.set(key, text);
    return answer.ok ? { stored: true } : { refused: { actor: actor.name, ruleset } };
  }

  /** Store one actor's system block now (the combat tracker's start, a relayed request's
   * retry); the GM is told of a refusal. Whether it was stored. */
  async function store(actor, ruleset, options = {}) {
    const done = await keep(actor, ruleset, options);
    if (done?.refused) ctx.notify("warn", ctx.i18n("ARBITER.Vault.NotKept", done.refused));
    return Boolean(done?.stored);
  }

  /**
   * The actor whose system block is `participant`'s in a ruleset, or null: the viewed scene's
   * actor noted as that participant or read as it. Never an actor off the scene: a player who
   * names any world actor's id must not bring into play an NPC the GM has not put on it.
   */
  function actorOf(participant, ruleset) {
    const scene = ctx.actors();
    const noted = scene.find((a) => participantOf(ctx.module, a, ruleset) === participant);
    if (noted) return noted;
    const read = scene.find((a) => !participantOf(ctx.module, a, ruleset) && ctx.fromSystem(a, ruleset)?.id === participant);
    return read ?? null;
  }

  /** Read these actors again soon (a burst of hooks: one pass, one put per actor). */
  function queue(actors) {
    if (!ctx.active()) return;
    for (const actor of actors) if (actor?.id) pending.set(actor.id, actor);
    if (!pending.size || timer) return;
    timer = setTimeout(() => {
      running = running.then(flush).catch((err) => ctx.notify("warn", err.message));
    }, ctx.delayMs ?? 100);
  }

  /** The actor's data changed: read again where the block is ours or it stands on the scene. */
  function changed(actor) {
    // Every browser hears every actor change: only the active GM's reads the rulesets.
    if (!actor?.id || !ctx.active()) return;
    const ours = ctx.rulesets().some((ruleset) => isDerived(ctx.module, actor, ruleset));
    if (ours || ctx.actors().some((a) => a.id === actor.id)) queue([actor]);
  }

  /** The parent actor of an embedded item (a world item has none). */
  const parentOf = (item) => (item?.parent?.documentName === "Actor" || item?.parent?.items ? item.parent : null);

  return {
    keep,
    store,
    /**
     * Store the system's block of `participant` (a relayed request was refused for want of it,
     * docs/protocol.md `unstored`) if an actor this client sees gives one and it is ours to
     * store; whether it was stored (then the request can be sent again, same id).
     */
    async storeFor(participant, ruleset) {
      if (!ctx.active()) return false;
      const actor = actorOf(participant, ruleset);
      if (!actor || ctx.fromSystem(actor, ruleset)?.id !== participant) return false;
      return store(actor, ruleset, { force: true });
    },
    /** Forget which blocks were tried (a new connection, changed rules: a block refused, or
     * put on a server that lost it, may be stored now); `scan` then reads the scene again. */
    reset: () => tried.clear(),
    /** Every actor on the viewed scene (at connect, and when a scene is drawn). */
    scan: () => queue(ctx.actors()),
    /** Register the hooks (at init); they act on the active GM's client only. */
    register() {
      Hooks.on("canvasReady", () => queue(ctx.actors()));
      Hooks.on("createToken", (token) => queue([token?.actor]));
      Hooks.on("updateActor", (actor, change) => {
        if (readable(change)) changed(actor);
      });
      for (const hook of ["createItem", "updateItem", "deleteItem"]) Hooks.on(hook, (item) => changed(parentOf(item)));
    },
    /** Resolves when the stores queued so far are done (tests, macros). */
    settled: async () => {
      while (timer || pending.size) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await running;
    },
  };
}
