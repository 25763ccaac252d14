// What an outcome does once decided: its card (without private parts), its private parts to
// their owners' browsers only (private.mjs), the tabletop (tabletop.mjs) and the bound combat
// (combat-tracker.mjs) on the active GM's client, and a card re-rendered when a choice resolves
// it. docs/client.md: the trust model.
import { answersChoiceOn, outcomeMessage, resolveCard } from "./cards.mjs";
import { publicView, showPrivate } from "./private.mjs";
import { canQuery } from "./relay.mjs";
import { mappingFor } from "./presets.mjs";
import { APPLIED, applyOutcome, undoApplied } from "./tabletop.mjs";

/**
 * `ctx` (arbiter.mjs): module, cards, i18n, rules(), connection(), isConnector(), titleOf(ruleset),
 * bound (player name → participants this GM's client bound), and, once made, relay and tracker.
 */
export function createOutcomes(ctx) {
  const { i18n, isConnector, titleOf } = ctx;
  // The outcomes this browser wrote onto the tabletop (id → {undo, card}): one outcome can reach
  // it twice, as a server event (another browser's request, applied without a card) and then as
  // the answer to a resend of that request with the same id (`replayed`, after a handover:
  // relay.mjs). It is written once; the card that comes second gets its Undo.
  const applied = new Map();
  const APPLIED_KEPT = 1000;
  const keep = (participant, data) => showPrivate({ module: ctx.module, cards: ctx.cards, participant, data });

  /** Post an outcome as a card, without its private parts (the connector's side). */
  async function postOutcome(answer, request, owners) {
    const data = await outcomeMessage({
      module: ctx.module, cards: ctx.cards, outcome: publicView(answer.outcome), seq: answer.seq, owners, rules: ctx.rules().rulesets,
      title: titleOf(request.ruleset), mode: request.mode, requester: request.requester,
      speaker: ChatMessage.getSpeaker({ alias: titleOf(request.ruleset) }),
    });
    return ChatMessage.create(data);
  }

  /** The server's player records: name → participants (its welcome, and what this GM bound since). */
  function players() {
    return { ...(ctx.connection()?.welcome?.players ?? {}), ...ctx.bound };
  }

  /**
   * The private parts of an outcome this browser received, to their owners' browsers only: kept
   * here; and from the GM's connection (which sees every participant's) to each player whose
   * server record holds that participant, by a query to that user alone (V13+). The requester's
   * `owners` never decide it. A relayed request's answer is its player's own view and goes back
   * to him with the answer instead.
   */
  async function deliverPrivate(outcome, relayedFor) {
    if (relayedFor) return;
    for (const [participant, data] of Object.entries(outcome.private ?? {})) {
      await keep(participant, data);
      if (!game.user.isGM || !canQuery()) continue;
      const names = Object.entries(players()).filter(([, held]) => held.includes(participant)).map(([name]) => name);
      for (const name of names) {
        const user = game.users.find((u) => u.name === name);
        if (!user || user.isSelf || !user.active) continue;
        ctx.relay.deliver(user, participant, data).catch((err) => ui.notifications.warn(err.message));
      }
    }
  }

  /**
   * The active GM's client writes each outcome onto the tabletop (tabletop.mjs) and keeps what it
   * changed on the card, for Undo. Any other client leaves the tabletop alone.
   */
  async function onTabletop(outcome, message) {
    if (!game.user.isGM || !isConnector() || !outcome) return;
    const done = applied.get(outcome.id);
    if (done) {
      // The first arrival may still be writing: its Undo is known only once it has written.
      await done.written;
      if (message && !done.card && done.undo.length) {
        done.card = message.id;
        await addUndo(message, outcome, done.undo).catch((err) => ui.notifications.warn(err.message));
      }
      return;
    }
    const entry = { undo: [], card: message?.id ?? null, written: null };
    applied.set(outcome.id, entry);
    if (applied.size > APPLIED_KEPT) applied.delete(applied.keys().next().value);
    entry.written = write(outcome).then((undo) => {
      entry.undo = undo;
    });
    await entry.written;
    if (entry.undo.length && message) await addUndo(message, outcome, entry.undo).catch((err) => ui.notifications.warn(err.message));
  }

  /** Write an outcome onto the tabletop; what it changed, for Undo (nothing when it failed). */
  async function write(outcome) {
    try {
      // The scene's Combat follows its bound encounter: order, round, current (combat-tracker.mjs).
      await ctx.tracker.onOutcome(outcome);
    } catch (err) {
      ui.notifications.warn(err.message);
    }
    try {
      return await applyOutcome({ module: ctx.module, outcome, mapping: (ruleset) => mappingFor(ctx.module, game.system?.id, ruleset), i18n });
    } catch (err) {
      ui.notifications.warn(err.message);
      return [];
    }
  }

  /** Keep on the card what an outcome changed on the tabletop, for its Undo button. */
  function addUndo(message, outcome, undo) {
    const applications = [...(message.flags?.[ctx.module]?.[APPLIED] ?? []), { outcome: outcome.id, ruleset: outcome.ruleset, undo, undone: false }];
    return message.update({ flags: { [ctx.module]: { [APPLIED]: applications } } });
  }

  /** Undo every application a card holds that is not undone yet (GM): the previous values back. */
  async function undoCard(messageId) {
    const message = game.messages.get(messageId);
    const applied = message?.flags?.[ctx.module]?.[APPLIED] ?? [];
    for (const entry of [...applied].reverse()) if (!entry.undone) await undoApplied(ctx.module, entry.ruleset, entry.undo);
    await message.update({ flags: { [ctx.module]: { [APPLIED]: applied.map((e) => ({ ...e, undone: true })) } } });
  }

  /** Re-render a card with a resolution (without private parts), when this user may update it. */
  function resolveOn(message, resolution) {
    if (!message || !(game.user.isGM || message.isAuthor)) return null;
    return resolveCard({ module: ctx.module, cards: ctx.cards, message, resolution: publicView(resolution), rules: ctx.rules().rulesets });
  }

  /**
   * Another client's outcome (a server event, already this connection's view of it): its private
   * parts are this browser's; the active GM's client re-renders its own card that the outcome resolves
   * (a choice a player made over his own connection; id `<card's outcome id>-<key>`).
   */
  async function onOutcomeEvent(outcome) {
    for (const [participant, data] of Object.entries(outcome.private ?? {})) await keep(participant, data);
    // Only the active GM's browser writes: another GM's, still connected for a moment while the
    // connection changes hands (arbiter.mjs, `follow`), leaves the card and the tabletop alone.
    if (!game.user.isGM || !isConnector()) return;
    // The GM's card whose pending choice this outcome answers (its request id and type), never
    // a card whose id the outcome's merely begins with: a player chooses his own request ids.
    const message = game.messages.find((m) => game.users.get(m.author)?.isGM && answersChoiceOn(m.flags?.[ctx.module], outcome));
    if (message) await resolveOn(message, outcome);
    await onTabletop(outcome, message);
  }

  return { keep, postOutcome, players, deliverPrivate, onTabletop, undoCard, resolveOn, onOutcomeEvent };
}
