// The encounter bound to the scene's Foundry Combat, both ways, on the active GM's client only;
// it computes no rule. Starting combat in Foundry starts the server's encounter for the ruleset
// with the combatants' stat blocks (from their tokens' actors, as the dialogs get them) and
// rolls the server's initiative; each outcome of that encounter writes the server's initiative
// order (as combatants' initiative values: the tracker sorts by them), round and current
// combatant onto the Combat; Foundry's next round (and, where the ruleset has turns, next turn)
// sends the ruleset's request. Foundry's hooks `combatStart`, `combatRound` and `combatTurn`
// fire on the initiating client only, before the update (hooks.d.mts), so the binding listens to
// `updateCombat`, which every client gets after the update: the GM's client follows a combat
// another user (an assistant GM) advanced. Its own writes carry `{arbiter: true}` and are not
// taken for a GM's action. docs/client.md, "The combat tracker".

import { filled } from "./vault.mjs";

const RULESETS = ["hmk", "combat-styles", "karmic"];
const BINDING = "binding"; // the Combat's flag: {ruleset, encounter} (survives a reload)
export const OURS = { arbiter: true }; // the update option that marks the binding's own writes

/** Pairs of foes (fighters on different sides; every pair when no side is given). */
function foePairs(blocks) {
  const pairs = [];
  for (let i = 0; i < blocks.length; i++) {
    for (let j = i + 1; j < blocks.length; j++) {
      if (!blocks[i].side || blocks[i].side !== blocks[j].side) pairs.push([blocks[i].id, blocks[j].id]);
    }
  }
  return pairs;
}

/**
 * Per ruleset, the requests (docs/requests-<ruleset>.md) that start the encounter, advance a
 * round and pass the current turn. `null`: Foundry's action has no request in that ruleset
 * (Foundry's turn marker then stays the GM's own).
 */
export const STEPS = {
  hmk: {
    start: (blocks) => [["start", { combatants: blocks }], ["initiative", { mode: "individual", entrants: [] }]],
    round: "round",
    turn: null,
  },
  "combat-styles": {
    start: (blocks) => [["start_encounter", { combatants: blocks, surprised: [], fatigue_checks: false }], ["initiative", {}]],
    round: "next_round",
    turn: "next_turn",
  },
  karmic: {
    start: (blocks) => [["start_duel", { combatants: blocks }], ...foePairs(blocks).map((between) => ["draw_initiative", { between }]), ["draw_hands", {}]],
    round: "draw_hands",
    turn: null,
  },
};

/**
 * The server's order of action as ranks by combatant id (higher acts first), from one outcome's
 * public result, or null when it says nothing of the order. `previous`: the order known so far
 * (karmic changes it pairwise: "holder over").
 */
export function orderOf(ruleset, result, previous, parties = {}) {
  if (!result) return null;
  if (ruleset === "hmk" && result.kind === "initiative" && Array.isArray(result.order)) {
    // Groups act together (ties, or a party in party mode): they share a rank.
    const ranks = {};
    result.order.forEach((group, i) => {
      for (const id of Object.keys(parties)) if (group.includes(id) || group.includes(parties[id])) ranks[id] = result.order.length - i;
    });
    return ranks;
  }
  if (ruleset === "combat-styles" && result.kind === "initiative" && Array.isArray(result.order)) {
    return Object.fromEntries(result.order.map((id, i) => [id, result.order.length - i]));
  }
  if (ruleset === "karmic") {
    const changes = [...(Array.isArray(result.changes) ? result.changes : []), ...(Array.isArray(result.initiative) ? result.initiative : [])];
    if (!changes.length) return null;
    const order = [...previous];
    for (const { holder, over } of changes) {
      const h = order.indexOf(holder);
      const o = order.indexOf(over);
      if (h < 0 || o < 0 || h < o) continue;
      order.splice(h, 1);
      order.splice(o, 0, holder);
    }
    return Object.fromEntries(order.map((id, i) => [id, order.length - i]));
  }
  return null;
}

/**
 * The binding. `ctx`: module, i18n, request(ruleset, type, body, options) (the module's own:
 * a card per outcome), isConnector() (this browser holds the GM's connection), statBlock(token,
 * ruleset) (the dialogs' block of a token), fromSystem(actor, ruleset) (the world's system's
 * block, or null), storedFor(actor, ruleset) (whether the server stores the actor's block),
 * keep(ruleset, actor) (store the actor's system block on the server: system-blocks.mjs), notify(level,
 * text).
 */
export function createCombatTracker(ctx) {
  const bindings = new Map(); // combat id → {ruleset, encounter, ids, parties, order, round, current, seen, queue}
  const starting = new Set(); // combat ids whose stat blocks are being gathered
  // Combats this client did not bind (no ruleset fits, or the server refused the start): they
  // stay Foundry's alone until they end; a new combat tries again.
  const declined = new Set();
  const active = () => game.user.isGM && ctx.isConnector();

  /** The ruleset a combat binds to: the GM's setting, else the one every combatant has a block for. */
  async function rulesetFor(combatants) {
    const chosen = game.settings.get(ctx.module, "combatRuleset");
    if (chosen === "none") return null;
    if (RULESETS.includes(chosen)) return chosen;
    const fits = [];
    for (const ruleset of RULESETS) {
      let all = combatants.length > 0;
      for (const c of combatants) all &&= Boolean(await blockOf(c, ruleset, true));
      if (all) fits.push(ruleset);
    }
    // Several fit: the GM says which (the setting); none: this combat is not Arbiter's.
    if (fits.length > 1) ctx.notify("warn", ctx.i18n("ARBITER.Combat.Ambiguous", { rulesets: fits.join(", ") }));
    return fits.length === 1 ? fits[0] : null;
  }

  /** A combatant's stat block: the one saved for its actor, else its system's (a preset or
   * the GM's mapping); `strict`: null when neither gives more than an id and a name. */
  async function blockOf(combatant, ruleset, strict = false) {
    const token = { id: combatant.tokenId, name: combatant.name, actor: combatant.actor };
    const saved = await ctx.statBlock(token, ruleset);
    if (filled(saved)) return saved;
    const system = combatant.actor ? ctx.fromSystem(combatant.actor, ruleset) : null;
    if (filled(system)) return system;
    return strict ? null : saved;
  }

  /** Serialise a binding's work: one Foundry action's requests before the next one's. */
  function queued(binding, fn) {
    binding.queue = binding.queue.then(fn).catch((err) => ctx.notify("warn", err.message));
    return binding.queue;
  }

  async function start(combat) {
    // By name (then id): the order the start lists them in, and the server rolls in.
    const combatants = Array.from(combat.combatants ?? []).sort((a, b) => a.name.localeCompare(b.name) || (a.id > b.id ? 1 : -1));
    const ruleset = await rulesetFor(combatants);
    if (!ruleset) return null;
    const blocks = [];
    const ids = {};
    const unstored = []; // actors whose block was read from the system, none stored for them
    for (const c of combatants) {
      const block = await blockOf(c, ruleset);
      ids[c.id] = block.id;
      blocks.push(block);
      if (c.actor && !ctx.storedFor(c.actor, ruleset) && filled(block)) unstored.push(c.actor);
    }
    // Two tokens of one unlinked actor carry one stat block, one id: the server could not tell
    // them apart. Nothing is sent; the GM is told.
    const twice = blocks.map((b) => b.id).filter((id, i, all) => all.indexOf(id) !== i);
    if (twice.length) return ctx.notify("warn", ctx.i18n("ARBITER.Combat.SameId", { ids: [...new Set(twice)].join(", ") }));
    const encounter = `combat-${combat.id}`;
    const parties = Object.fromEntries(blocks.map((b) => [b.id, b.party ?? b.id]));
    const binding = { combat: combat.id, ruleset, encounter, ids, parties, order: blocks.map((b) => b.id), round: 0, current: null, seen: combat.combatant?.id ?? null, queue: Promise.resolve() };
    bindings.set(combat.id, binding);
    await combat.setFlag(ctx.module, BINDING, { ruleset, encounter, ids, parties });
    return queued(binding, async () => {
      try {
        for (const [type, body] of STEPS[ruleset].start(blocks)) await ctx.request(ruleset, type, body, { encounter });
      } catch (err) {
        // A step sent and perhaps decided while the connection changed hands (`sent`): the
        // encounter may exist on the server; the binding stays, for the new active GM.
        if (err?.sent || !active()) throw err;
        // Refused (its error card says why): the combat stays Foundry's alone.
        bindings.delete(combat.id);
        await combat.unsetFlag(ctx.module, BINDING);
        throw err;
      }
      // A player's request is decided with the GM's stored block of every combatant he does
      // not hold, whatever it writes in (docs/protocol.md): the blocks this start read from
      // the system go to the server's store, so a player's attack on these NPCs (his dialog
      // then names them by reference) is decided. Only where none was stored: a stored block
      // is the GM's, changed in the editor.
      for (const actor of unstored) await ctx.keep(ruleset, actor);
    });
  }

  /** The binding of a combat: in memory, else from its flag (after a reload of the GM's page). */
  function bindingOf(combat) {
    if (bindings.has(combat.id)) return bindings.get(combat.id);
    const saved = combat.getFlag?.(ctx.module, BINDING);
    if (!saved?.encounter) return null;
    const binding = { ...saved, combat: combat.id, order: Object.values(saved.ids), round: combat.round, current: null, seen: combat.combatant?.id ?? null, queue: Promise.resolve() };
    bindings.set(combat.id, binding);
    return binding;
  }

  /** Write the server's round and (when it names one, or the order changed) current turn. */
  async function writeTurn(combat, binding, orderChanged) {
    const update = {};
    if (binding.round > 0 && combat.round !== binding.round) update.round = binding.round;
    const first = binding.current ?? (orderChanged ? binding.order[0] : null);
    if (first) {
      const index = combat.turns.findIndex((c) => binding.ids[c.id] === first);
      if (index >= 0 && index !== combat.turn) update.turn = index;
    }
    if (Object.keys(update).length) await combat.update(update, OURS);
  }

  /** An outcome this client applied: its encounter's order, round and current onto the Combat. */
  async function onOutcome(outcome) {
    if (!active() || !outcome?.encounter) return;
    for (const [combatId, binding] of bindings) {
      if (binding.encounter !== outcome.encounter || binding.ruleset !== outcome.ruleset) continue;
      const combat = game.combats?.get(combatId);
      if (!combat) continue;
      const result = outcome.result ?? {};
      const ranks = orderOf(binding.ruleset, result, binding.order, binding.parties);
      const round = typeof result.round === "number" ? result.round : result.view?.round;
      if (typeof round === "number" && round > 0) binding.round = round;
      if (typeof result.current === "string") binding.current = result.current;
      if (ranks) {
        binding.ranks = ranks;
        binding.order = Object.keys(ranks).sort((a, b) => ranks[b] - ranks[a]);
        const updates = combat.turns
          .filter((c) => binding.ids[c.id] in ranks && c.initiative !== ranks[binding.ids[c.id]])
          .map((c) => ({ _id: c.id, initiative: ranks[binding.ids[c.id]] }));
        if (updates.length) await combat.updateEmbeddedDocuments("Combatant", updates, OURS);
      }
      await writeTurn(combat, binding, Boolean(ranks));
    }
  }

  /** Foundry's round or turn moved (by a GM's click, or by another user): ask the server. */
  function onUpdateCombat(combat, changed, options) {
    if (!active()) return;
    const binding = bindingOf(combat);
    // A turn update that leaves the same combatant current is a re-index after the order
    // changed (Foundry before V12 and `Combat#rollInitiative` keep the current combatant by an
    // update of `turn`), not a GM's action.
    const seen = binding?.seen;
    if (binding) binding.seen = combat.combatant?.id ?? null;
    if (options?.arbiter) return;
    if (!binding) {
      if (!("round" in changed) || combat.round <= 0 || starting.has(combat.id) || declined.has(combat.id)) return;
      starting.add(combat.id);
      start(combat)
        .catch((err) => ctx.notify("warn", err.message))
        .finally(() => {
          starting.delete(combat.id);
          if (!bindings.has(combat.id)) declined.add(combat.id);
        });
      return;
    }
    const steps = STEPS[binding.ruleset];
    const send = (type) => ctx.request(binding.ruleset, type, {}, { encounter: binding.encounter });
    // A refused step puts Foundry back where the server is; not one that was sent and may have
    // been decided while the connection changed hands (`sent`), nor from a browser that no
    // longer holds it: the active GM's follows the server's outcome event.
    const undo = (err) => (err?.sent || !active() ? null : writeTurn(combat, binding, false));
    if ("round" in changed && combat.round !== binding.round) {
      if (combat.round < binding.round || !steps.round) {
        // No request takes a round back: the server's round stands.
        ctx.notify("warn", ctx.i18n("ARBITER.Combat.NoRewind"));
        return queued(binding, () => writeTurn(combat, binding, false));
      }
      return queued(binding, () => send(steps.round).catch(undo));
    }
    if ("turn" in changed && steps.turn && binding.current && combat.combatant?.id !== seen) {
      if (options?.direction < 0) {
        // No request takes a turn back either: the server's current combatant stands.
        ctx.notify("warn", ctx.i18n("ARBITER.Combat.NoRewind"));
        return queued(binding, () => writeTurn(combat, binding, false));
      }
      const now = binding.ids[combat.combatant?.id];
      if (now === binding.current) return;
      // The server's current combatant passes (dithers); its answer names who is current now.
      return queued(binding, () => send(steps.turn).catch(undo));
    }
  }

  /** An initiative set in Foundry (a roll, an edit) on a bound combat: the server's order
   * stands, its rank is written back. */
  function onUpdateCombatant(combatant, changed, options) {
    if (!active() || options?.arbiter || !("initiative" in changed) || !combatant.parent) return;
    const binding = bindingOf(combatant.parent);
    const rank = binding?.ranks?.[binding.ids[combatant.id]];
    if (rank === undefined || combatant.initiative === rank) return;
    ctx.notify("warn", ctx.i18n("ARBITER.Combat.ServerInitiative", { name: combatant.name }));
    return queued(binding, () => combatant.parent.updateEmbeddedDocuments("Combatant", [{ _id: combatant.id, initiative: rank }], OURS));
  }

  return {
    /** Register the setting and the hooks (at init). */
    register() {
      game.settings.register(ctx.module, "combatRuleset", {
        name: "ARBITER.Settings.CombatRuleset.Name",
        hint: "ARBITER.Settings.CombatRuleset.Hint",
        scope: "world",
        config: true,
        type: String,
        choices: { "": "ARBITER.Combat.Auto", hmk: "hmk", "combat-styles": "combat-styles", karmic: "karmic", none: "ARBITER.Combat.None" },
        default: "",
      });
      Hooks.on("updateCombat", onUpdateCombat);
      Hooks.on("updateCombatant", onUpdateCombatant);
      // No request adds a combatant to a running encounter: the GM is told it is not in it.
      Hooks.on("createCombatant", (combatant) => {
        if (active() && combatant.parent && bindingOf(combatant.parent)) ctx.notify("warn", ctx.i18n("ARBITER.Combat.Joined", { name: combatant.name }));
      });
      Hooks.on("deleteCombat", (combat) => {
        bindings.delete(combat.id);
        declined.delete(combat.id);
      });
    },
    onOutcome,
    /** The encounter the scene's combat is bound to for a ruleset, with its combatants' ids, or
     * null (read from the Combat's flag: every client's dialogs know it). */
    bound(ruleset) {
      const saved = game.combat?.getFlag?.(ctx.module, BINDING);
      return saved?.ruleset === ruleset && saved.encounter ? { encounter: saved.encounter, ids: Object.values(saved.ids ?? {}) } : null;
    },
    /** Wait until the binding's queued requests are done (tests, macros). */
    settled: () => Promise.all([...bindings.values()].map((b) => b.queue)),
  };
}
