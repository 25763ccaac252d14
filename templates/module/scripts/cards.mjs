// Chat cards: an outcome becomes a chat message rendered from the card template of its kind,
// carrying the server's dice as evaluated Rolls (so Dice So Nice animates exactly those dice),
// and the card is re-rendered in place when a pending choice on it is resolved.

import { cardView } from "./card-views.mjs";
import { messageData, renderTemplate } from "./compat.mjs";

/** An evaluated Roll rebuilt from one die the server rolled (no local randomness). */
export function rollFromDie(die) {
  return Roll.fromData({
    class: "Roll",
    formula: `1d${die.faces}`,
    terms: [
      {
        class: "Die", number: 1, faces: die.faces, modifiers: [],
        results: [{ result: die.result, active: true }], options: { flavor: die.expr }, evaluated: true,
      },
    ],
    total: die.result,
    evaluated: true,
    options: {},
    dice: [],
  });
}

/** Cards shared by every ruleset, by outcome kind. */
const SHARED_CARDS = { draw: "table-draw" };

/** Result kinds that share one card of their ruleset (the card tells them apart). */
const SAME_CARD = {
  "combat-styles": {
    delay: "turn", interrupt: "turn", next_turn: "turn", next_cycle: "turn", next_round: "turn", state: "turn",
  },
  hmk: { start: "roster", round: "roster", reload: "action", ready: "action", stand: "action" },
  karmic: { view: "duel" },
};

/**
 * Whether a recorded die is a die roll its viewer may see thrown as 3D dice: never a die that
 * decides hidden state (`hidden`: a deck shuffle, which the server withholds anyway), and
 * only dice of a dice expression (`1d100 …`).
 */
export function isDieRoll(die) {
  return !die.hidden && /^\d*d\d+/i.test(die.expr ?? "");
}

/**
 * The card template for an outcome: `<ruleset>-<kind>`, else the card its ruleset shares
 * between kinds, else a shared one; an unknown kind gets the card that says so.
 */
export function cardName(cards, outcome) {
  const kind = outcome.result?.kind;
  const same = SAME_CARD[outcome.ruleset]?.[kind];
  const names = [`${outcome.ruleset}-${kind}`, same && `${outcome.ruleset}-${same}`, SHARED_CARDS[kind]];
  return names.find((n) => n && n in cards) ?? "unknown";
}

/** The request id that answers `choice` on the card of `outcome` (a card's only choice: `-choice`). */
export function choiceRequestId(outcome, choice) {
  return `${outcome.id}-${choice.key ?? "choice"}`;
}

/**
 * Whether `outcome` answers one of the pending choices shown on a card (`flags`: the card's
 * module flags): its id is the id that choice's request takes (`choiceRequestId`) and its type
 * and ruleset are that request's. An outcome of any other request whose id merely begins with
 * the card's (a player picks his own request ids) does not resolve the card.
 */
export function answersChoiceOn(flags, outcome) {
  if (!outcome?.id) return false;
  for (const shown of [flags?.outcome, ...resolutionsOf(flags)]) {
    if (!shown?.id || shown.ruleset !== outcome.ruleset) continue;
    const listed = shown.result?.pending;
    const pending = Array.isArray(listed) ? listed : listed ? [listed] : [];
    if (pending.some((p) => p && p.type === outcome.type && choiceRequestId(shown, p) === outcome.id)) return true;
  }
  return false;
}

/**
 * The pending choices of an outcome, for any ruleset (docs/requests.md, "Pending choices"): the
 * engine lists them in `result.pending`, each with who answers it (`by`: a participant, or null
 * for the GM), the request that answers it (`type`, `body`, and the `field` that receives the
 * chosen options, or `complete` when the body is complete), its `options` (id, label, and the
 * `param` an option takes, with its choices) and `count`; `key` tells the choices of one card
 * apart. A choice is done once a resolution on the card (`done`) carries its request id; the
 * others stay open. `users`: who may answer (the owners of `by`; GMs always may). `rules` is not
 * read: the choices carry everything.
 */
export function pendingChoices(outcome, owners, rules, done = []) {
  const listed = outcome.result?.pending;
  const pending = Array.isArray(listed) ? listed : listed ? [listed] : [];
  const answered = new Set(done.map((o) => o?.id));
  return pending
    .filter((p) => p && !answered.has(choiceRequestId(outcome, p)))
    .map((p) => ({ ...p, users: [...new Set((p.by == null ? null : owners?.[p.by]) ?? owners?.["*"] ?? [])] }));
}

/** The outcomes that resolved choices on a card, oldest first (`resolution` is the latest). */
export function resolutionsOf(flags) {
  return flags?.resolutions ?? (flags?.resolution ? [flags.resolution] : []);
}

/**
 * What a card shows: the resolved outcome once a choice completed it (combat-styles returns
 * the whole finished exchange or leap), else the outcome itself; a sweep attack shows each
 * pair finished by a resolution in that pair's place.
 */
function finalResult(outcome, resolutions) {
  const result = outcome.result;
  const resolution = resolutions[resolutions.length - 1] ?? null;
  if (result?.kind === "sweep_attack") {
    const finished = new Map(resolutions.filter((r) => r.result?.kind === "exchange").map((r) => [r.result.defender, r.result]));
    return { ...result, exchanges: (result.exchanges ?? []).map((pair) => finished.get(pair.defender) ?? pair) };
  }
  return resolution?.result?.kind === result?.kind ? resolution.result : result;
}

/** Everything a card template gets. */
export function cardContext(outcome, { title, seq, owners, resolutions = [], rules }) {
  const choices = pendingChoices(outcome, owners, rules, resolutions);
  const resolution = resolutions[resolutions.length - 1] ?? null;
  const final = finalResult(outcome, resolutions);
  const dice = (outcome.dice ?? []).filter((d) => !d.hidden);
  return {
    outcome,
    result: outcome.result,
    final,
    title,
    seq,
    choice: choices[0] ?? null,
    choices,
    resolution,
    resolutions: resolutions.map((r) => ({ outcome: r })),
    view: cardView(outcome, final, rules),
    dice,
    // The server withholds hidden dice and counts them; a logged outcome still holds them.
    hiddenDice: outcome.hidden_dice ?? (outcome.dice ?? []).length - dice.length,
    roll: { id: outcome.id, version: outcome.rules_version, hash: outcome.rules_hash },
  };
}

/** Chat message data for an outcome: rendered card, rolls, flags to find it again. */
export async function outcomeMessage({ module, cards, outcome, title, seq, owners, speaker, mode, requester, rules }) {
  const path = `modules/${module}/${cards[cardName(cards, outcome)]}`;
  const content = await renderTemplate(path, cardContext(outcome, { title, seq, owners, rules }));
  return messageData({
    content,
    speaker,
    mode,
    requester,
    rolls: (outcome.dice ?? []).filter(isDieRoll).map(rollFromDie),
    flags: { [module]: { outcome, seq, owners: owners ?? {}, title } },
  });
}

const rerenders = new Map(); // message id → the last re-render queued for that card

/**
 * Re-render a card after one of its pending choices was resolved by `resolution` (an outcome).
 * Re-renders of one card run one after another, so two choices resolved at once (two players'
 * hit draws) both stay on it.
 */
export function resolveCard(args) {
  const id = args.message?.id;
  const next = (rerenders.get(id) ?? Promise.resolve()).catch(() => null).then(() => rerender(args));
  rerenders.set(id, next);
  next.finally(() => rerenders.get(id) === next && rerenders.delete(id)).catch(() => null);
  return next;
}

async function rerender({ module, cards, message, resolution, rules }) {
  const flags = message.getFlag(module, "outcome") ? message.flags[module] : null;
  if (!flags) return message;
  if (resolutionsOf(flags).some((r) => r.id === resolution.id)) return message; // a retried choice
  const resolutions = [...resolutionsOf(flags), resolution];
  const path = `modules/${module}/${cards[cardName(cards, flags.outcome)]}`;
  const content = await renderTemplate(
    path,
    cardContext(flags.outcome, { title: flags.title, seq: flags.seq, owners: flags.owners, resolutions, rules }),
  );
  const updated = await message.update({ content, flags: { [module]: { resolution, resolutions } } });
  throwDice(resolution, message);
  return updated;
}

/**
 * Dice So Nice throws a message's rolls when the message is created, never when it is updated:
 * the dice of a resolved choice (the blow after the effects were chosen) are thrown here, once,
 * by the one client that re-rendered the card, synchronised to everybody the card is for.
 * Only dice the viewer may see: the server never sends hidden ones, and `isDieRoll` skips any.
 */
function throwDice(resolution, message) {
  const dice3d = game.dice3d;
  if (typeof dice3d?.showForRoll !== "function") return;
  const users = message.whisper?.length ? [...message.whisper] : null;
  for (const die of (resolution.dice ?? []).filter(isDieRoll)) {
    Promise.resolve(dice3d.showForRoll(rollFromDie(die), game.user, true, users, Boolean(message.blind), message.id, message.speaker)).catch(() => null);
  }
}

/**
 * An error card (a refused request), whispered to whoever asked: why nothing was rolled. It
 * names the request's type, never its body (which may name a card of a hidden hand).
 */
export async function errorMessage({ module, cards, error, request, speaker, requester }) {
  const content = await renderTemplate(`modules/${module}/${cards.error}`, {
    message: error.message,
    code: error.code,
    request,
  });
  return messageData({ content, speaker, mode: "self", requester, flags: { [module]: { error: error.message, request } } });
}
