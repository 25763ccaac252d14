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
// clears the marker, and nothing here overwrites it.

import { DERIVED, filled, participantOf } from "./vault.mjs";

/** Whether an actor's stored block for a ruleset is the one read from its system data. */
export function isDerived(module, actor, ruleset) {
  return actor?.getFlag?.(module, DERIVED)?.[ruleset] === true;
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
 * scene's tokens), notify(level, text), delayMs (how long a burst of changes is gathered).
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
          const label = await keep(actor, ruleset);
          if (label) refused.push(label);
        } catch (err) {
          ctx.notify("warn", err.message);
        }
      }
    }
    if (refused.length === 1) ctx.notify("warn", ctx.i18n("ARBITER.Vault.NotKept", refused[0]));
    else if (refused.length) ctx.notify("warn", ctx.i18n("ARBITER.Vault.NotKeptMany", { blocks: refused.map((r) => `${r.actor} (${r.ruleset})`).join(", ") }));
  }

  /** Store one actor's system block for a ruleset where that is ours to do; the refusal, if any. */
  async function keep(actor, ruleset) {
    const participant = participantOf(ctx.module, actor, ruleset);
    // A block the GM saved is his: never overwritten.
    if (participant && !isDerived(ctx.module, actor, ruleset)) return null;
    const block = ctx.fromSystem(actor, ruleset);
    if (!filled(block)) return null;
    const key = `${ruleset}/${actor.id}`;
    const text = canonical(block);
    if (tried.get(key) === text) return null;
    if (participant === block.id) {
      // Read again after a reload: put only what differs from the server's.
      const stored = await ctx.vault().get(ruleset, participant);
      if (stored && canonical(stored) === text) return void tried.set(key, text);
    }
    const answer = await ctx.vault().put(ruleset, block, actor, { derived: true });
    if (!answer) return null; // no connection: tried again at the next connect
    tried.set(key, text);
    return answer.ok ? null : { actor: actor.name, ruleset };
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
