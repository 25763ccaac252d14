// Chat cards: an outcome becomes a chat message rendered from the card template of its kind,
// carrying the server's dice as evaluated Rolls (so Dice So Nice animates exactly those dice),
// and the card is re-rendered in place when a pending choice on it is resolved.

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

/**
 * Whether a recorded die is a die roll worth showing as 3D dice. A deck shuffle draws many
 * numbers too (karmic's `shuffle`): the card lists them, Dice So Nice does not throw them.
 */
export function isDieRoll(die) {
  return /^\d*d\d+/i.test(die.expr ?? "");
}

/** The card template for an outcome: `<ruleset>-<kind>`, else a shared one, else the generic one. */
export function cardName(cards, outcome) {
  const kind = outcome.result?.kind;
  return [`${outcome.ruleset}-${kind}`, SHARED_CARDS[kind], kind].find((n) => n && n in cards) ?? "outcome";
}

/** The request id that answers `choice` on the card of `outcome` (a card's only choice: `-choice`). */
export function choiceRequestId(outcome, choice) {
  return `${outcome.id}-${choice.key ?? "choice"}`;
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

/** A value as one line of text: lists joined, objects as `key: value` pairs (one level). */
function plain(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(plain).join(", ");
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k}: ${plain(v)}`).join("; ");
  return String(value);
}

/** The result's own fields for the generic card (everything but kind, summary and pending). */
function fields(result) {
  return Object.entries(result ?? {})
    .filter(([key]) => !["kind", "summary", "pending", "fatigue_checks"].includes(key))
    .map(([key, value]) => ({ key, text: plain(value) }));
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
  // A resolution the card shows in place (the finished exchange or leap, a sweep's finished
  // pair) is not listed again as fields.
  const sweepPair = (r) => outcome.result?.kind === "sweep_attack" && r.result?.kind === "exchange";
  const shownInPlace = (r) => r.result?.summary || r.result?.kind === outcome.result?.kind || sweepPair(r);
  return {
    outcome,
    result: outcome.result,
    final,
    title,
    seq,
    choice: choices[0] ?? null,
    choices,
    resolution,
    resolutions: resolutions.map((r) => ({ outcome: r, fields: shownInPlace(r) ? [] : fields(r.result) })),
    fields: fields(outcome.result),
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
  return message.update({ content, flags: { [module]: { resolution, resolutions } } });
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
