// Requests to the server: from this browser's connection (the active GM's, or a player's own),
// or through the active GM's browser by a user query (V13+; relay.mjs), which relays them as the
// player's. A card's pending choice is its own request. docs/client.md.
import { currentMode } from "./compat.mjs";
import { choiceRequestId, errorMessage, pendingChoices, resolutionsOf } from "./cards.mjs";
import { canQuery } from "./relay.mjs";

const DEFAULT_ENCOUNTER = "table"; // the world's encounter when a request names none

/**
 * `ctx` (arbiter.mjs): module, cards, i18n, rules(), connection(), isConnector(), newId(),
 * titleOf(ruleset), outcomes (outcomes.mjs), and, once made, vault, relay, systemBlocks.
 */
export function createRequests(ctx) {
  const { i18n, isConnector, newId, titleOf } = ctx;
  const { postOutcome, deliverPrivate, resolveOn, onTabletop, keep } = ctx.outcomes;

  /**
   * Send a request from the connector and post its card; `player` relays it for that player (the
   * server authorises and answers it as his own connection would). A refusal of the connector's
   * own request is whispered to it as an error card naming the request's type, never its body; a
   * relayed one goes back to the player alone.
   */
  async function decide(request, { owners, player, retried = false } = {}) {
    // Stat blocks the server keeps unchanged go as references (vault.mjs, referenced).
    const body = ctx.vault.referenced(request.ruleset, request.body);
    const envelope = { id: request.id, ruleset: request.ruleset, type: request.type, body, encounter: request.encounter ?? null };
    try {
      const answer = await ctx.connection().request(envelope, request.dice ?? null, player);
      const message = request.resolves ? null : await postOutcome(answer, request, owners);
      await deliverPrivate(answer.outcome, player);
      if (request.resolves) await resolveOn(game.messages.get(request.resolves), answer.outcome);
      await onTabletop(answer.outcome, message ?? game.messages.get(request.resolves));
      return { outcome: answer.outcome, message: message?.id ?? request.resolves };
    } catch (err) {
      // A relayed request refused for want of a participant's stored block (docs/protocol.md,
      // `unstored`): the system's block of that participant, where an actor here gives one, goes
      // to the server, and the same request (same id: the refusal came before any die, nothing
      // was logged) is sent once more.
      if (player && !retried && err.code === "invalid_request" && err.unstored) {
        const stored = await ctx.systemBlocks.storeFor(err.unstored, request.ruleset).catch(() => false);
        if (stored) return decide(request, { owners, player, retried: true });
      }
      if (!player) {
        const named = { id: envelope.id, ruleset: envelope.ruleset, type: envelope.type, encounter: envelope.encounter };
        const data = await errorMessage({ module: ctx.module, cards: ctx.cards, error: err, request: named, requester: game.user.id, speaker: ChatMessage.getSpeaker({ alias: titleOf(request.ruleset) }) });
        await ChatMessage.create(data);
      }
      throw err;
    }
  }

  /**
   * Ask for a decision: directly when this browser holds a connection; else through the active
   * GM's browser by a user query (V13+). On V12 nothing is relayed: the module socket reaches every
   * browser and cannot say who sent a message, so a player needs his own player token there.
   */
  async function ask(request, owners) {
    if (isConnector()) return decide(request, { owners });
    if (!canQuery()) throw new Error(i18n("ARBITER.Error.OwnToken"));
    const answer = await ctx.relay.ask("request", { request, owners });
    for (const [participant, data] of Object.entries(answer.outcome.private ?? {})) await keep(participant, data);
    return answer;
  }

  /**
   * Send one request. `options`: encounter, mode ("public" | "gm" | "blind" | "self"; default the
   * user's chat mode), owners ({participant id: [user ids]} who may answer pending choices),
   * dice (scripted results, accepted only by a server started with --allow-scripted-dice).
   */
  function request(ruleset, type, body = {}, options = {}) {
    const owners = options.owners ?? { "*": [game.user.id] };
    const encounter = options.encounter === undefined ? DEFAULT_ENCOUNTER : options.encounter;
    const envelope = { id: options.id ?? newId(), ruleset, type, body, encounter };
    return ask({ ...envelope, mode: options.mode ?? currentMode(), requester: game.user.id, dice: options.dice }, owners);
  }

  /**
   * What a choice sends: one option id, or for a pick-several choice `[{id, <param>?}, …]`
   * (an option's parameter, e.g. a location, only when it is one of the offered values).
   */
  function choiceValue(choice, option) {
    if (!choice.count) return option;
    const picked = (Array.isArray(option) ? option : [option]).map((o) => (typeof o === "string" ? { id: o } : o));
    const value = [];
    for (const pick of picked) {
      const offered = choice.options.find((o) => o.id === pick.id);
      if (!offered) continue;
      const item = { id: pick.id };
      const param = offered.param;
      if (param && param.choices.some((c) => c.id === pick[param.name])) item[param.name] = pick[param.name];
      value.push(item);
    }
    if (value.length > choice.count) throw new Error(i18n("ARBITER.Card.ChooseUpTo", { count: choice.count }));
    return value;
  }

  /**
   * Answer a pending choice on a card with one of its options (or several, as an array). `key`
   * names the choice when a card has several (a karmic reveal's hit draws, a sweep's pairs);
   * default the first. The request is the one the choice describes (`result.pending`): its body
   * names who answers (`by` for combat-styles' effects), so the server lets the player who holds
   * him send it, on his own connection or relayed by the GM's (`player`).
   */
  async function choose(messageId, option, from = game.user.id, key = undefined, player = undefined) {
    const message = game.messages.get(messageId);
    const flags = message?.flags?.[ctx.module];
    if (!flags?.outcome) throw new Error(i18n("ARBITER.Error.NoChoice"));
    const choices = pendingChoices(flags.outcome, flags.owners, ctx.rules().rulesets, resolutionsOf(flags));
    if (!choices.length) throw new Error(i18n("ARBITER.Error.AlreadyChosen"));
    const choice = key === undefined ? choices[0] : choices.find((c) => c.key === key);
    if (!choice) throw new Error(i18n("ARBITER.Error.AlreadyChosen"));
    const user = game.users.get(from);
    if (!(choice.users.includes(from) || user?.isGM)) throw new Error(i18n("ARBITER.Error.NotYourChoice"));
    if (!isConnector()) {
      if (!canQuery()) throw new Error(i18n("ARBITER.Error.OwnToken"));
      return ctx.relay.ask("choose", { message: messageId, option, key });
    }
    const outcome = flags.outcome;
    // Each choice of a card is its own request: a retry of one is never taken for another.
    return decide({
      id: choiceRequestId(outcome, choice), ruleset: outcome.ruleset, type: choice.type,
      body: choice.complete ? choice.body : { ...(choice.body ?? {}), [choice.field ?? "choice"]: choiceValue(choice, option) },
      encounter: outcome.encounter, resolves: messageId,
    }, { player });
  }

  return { decide, ask, request, choose };
}
