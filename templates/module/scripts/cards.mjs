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

/** Which effects take an option in `choose_effects` (docs/requests-combat-styles.md). */
const EFFECT_PARAMS = {
  choose_location: "location",
  marksman: "location",
  entangle: "location",
  damage_weapon: "weapon",
  pin_weapon: "weapon",
  disarm_opponent: "weapon",
  take_weapon: "weapon",
  bypass_armor: "bypass",
};

/** The option an effect needs, with its choices: hit locations, the opponent's weapon, armour. */
function effectParam(id, result, data) {
  const name = EFFECT_PARAMS[id];
  if (!name) return null;
  let choices = [];
  if (name === "location") choices = (data.hit_locations ?? []).map((l) => ({ id: l.id, name: l.name ?? l.id }));
  if (name === "bypass") choices = [{ id: "worn", name: "worn" }, { id: "natural", name: "natural" }];
  if (name === "weapon") {
    const theirs = result.chooser === result.attacker ? result.parry_weapon : result.weapon;
    choices = theirs ? [{ id: theirs, name: theirs }] : [];
  }
  return choices.length ? { name, choices } : null;
}

/** combat-styles' choice of special effects for one parked exchange-like result. */
function effectsChoice(result, rules, key) {
  const data = rules?.["combat-styles"]?.data ?? {};
  return {
    by: result.chooser,
    key,
    type: "choose_effects",
    body: { token: result.token },
    field: "effects",
    options: (result.eligible ?? []).map((e) => ({ id: e.id, label: e.name, param: effectParam(e.id, result, data) })),
    count: (result.differential?.effects ?? 0) + (result.differential?.bonus_effects ?? 0),
  };
}

/** Result kinds that park like an exchange, waiting for the winner's special effects (spirit combat: its own spirit effects). */
const PARKED = ["exchange", "leaping_attack", "spirit_combat"];

/**
 * The pending choices rulesets describe in their own words, as `{by, type, body, field,
 * options, count}`: combat-styles' exchange (and leaping attack) waits for the winner's
 * special effects (`choose_effects` with the exchange's token; each effect sent as `{id}`).
 */
function rulesetPending(outcome, rules) {
  const result = outcome.result;
  if (outcome.ruleset === "combat-styles" && PARKED.includes(result?.kind) && result.status === "awaiting_effects") {
    return effectsChoice(result, rules);
  }
  return null;
}

/**
 * A sweep attack's open pairs: each pair still `awaiting_effects` is a choice of its own, for
 * its own winner (`key` names the pair's defender), until a resolution finished that pair.
 */
function sweepChoices(result, rules, done) {
  const finished = new Set(done.filter((o) => o.result?.kind === "exchange").map((o) => o.result.defender));
  return (result.exchanges ?? [])
    .filter((pair) => pair.status === "awaiting_effects" && !finished.has(pair.defender))
    .map((pair) => ({ ...effectsChoice(pair, rules, `sweep-${pair.defender}`), heading: `${pair.attacker} ⟶ ${pair.defender}` }));
}

/**
 * A karmic reveal's open hit draws: every revealed "hit" card its player has not drawn on yet
 * (`done`: the outcomes that resolved choices on this card). Each is its own choice, for its
 * own player, named by its place among his plays (the order the reveal lists them in), so
 * neither the card id nor any private data is needed and several may be drawn in any order.
 */
function karmicHitDraws(result, done) {
  const drawn = new Set(done.filter((o) => o.result?.kind === "hit_draw").map((o) => `${o.result.combatant}/${o.result.play}`));
  const open = [];
  for (const [combatant, plays] of Object.entries(result.declarations ?? {})) {
    plays.forEach((p, play) => {
      if (!p.card?.hit || drawn.has(`${combatant}/${play}`)) return;
      const card = `${p.card.value > 0 ? "+" : ""}${p.card.value}`;
      open.push({
        by: combatant,
        key: `hit-${combatant}-${play}`,
        type: "hit_draw",
        body: { combatant, register: result.register, play },
        complete: true,
        options: [{ id: "hit", label: game.i18n.format("ARBITER.Card.HitDraw", { combatant, card }) }],
      });
    });
  }
  return open;
}

/**
 * The pending choices of an outcome, normalised: who may choose each (user ids), its options,
 * and the request that resolves it (`key` tells the choices of one card apart). Engines
 * describe one as `result.pending`; once a choice is resolved (`done`) there is none left,
 * except a karmic reveal's further hit draws.
 */
export function pendingChoices(outcome, owners, rules, done = []) {
  const result = outcome.result;
  let pending = [];
  if (outcome.ruleset === "karmic" && result?.kind === "reveal") pending = karmicHitDraws(result, done);
  else if (outcome.ruleset === "combat-styles" && result?.kind === "sweep_attack") pending = sweepChoices(result, rules, done);
  else if (!done.length) pending = [result?.pending ?? rulesetPending(outcome, rules)].filter(Boolean);
  return pending.map((p) => ({ ...p, users: [...new Set(owners?.[p.by] ?? owners?.["*"] ?? [])] }));
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
