// A player's requests to the GM's browser, and a participant's private data to one player's
// browser, over the one Foundry channel that reaches a single user: `User#query` (V13+). The
// module socket reaches every browser and is never used for either (docs/client.md, "What Foundry
// delivers to whom").
//
// Foundry's server routes a query to the target user's browser alone and its answer back to the
// asker alone, but it gives the handler only `(queryData, {timeout})`: nothing says who asked.
// So the GM's browser confirms every relayed request with the user it claims to come from, by a
// query to that user: his browser says yes only for a ticket it issued itself, with exactly that
// payload. Another player cannot answer for him, nor learn his tickets (they travel only between
// his browser and the GM's).

import { generation } from "./compat.mjs";

/** How many GMs' browsers a relayed request is asked of when each hands the connection over. */
export const HANDOVER_TRIES = 3;
/** How long a player's browser waits for the next active GM after a handover (ms), and how often it looks. */
const NEXT_GM_MS = 10000;
const NEXT_GM_POLL_MS = 200;

/**
 * The active GM once it is another than `refused` (the browser that let the connection go), or
 * after NEXT_GM_MS whoever it is then (perhaps the same one, connected again; null: none).
 */
async function nextGM(refused) {
  for (let waited = 0; waited < NEXT_GM_MS; waited += NEXT_GM_POLL_MS) {
    const gm = game.users.activeGM;
    if (gm && gm.id !== refused) return gm;
    await new Promise((resolve) => setTimeout(resolve, NEXT_GM_POLL_MS));
  }
  return game.users.activeGM ?? null;
}

/** Whether this Foundry has user queries (V13+). */
export function canQuery() {
  return generation() >= 13 && Boolean(globalThis.CONFIG?.queries);
}

/**
 * The relay of one module. `ctx`: module (id), i18n, onRequest(payload, user) and
 * onChoose(payload, user) (GM side: decide for that confirmed user; their value is the answer),
 * onPrivate(participant, data) (player side: show it).
 */
export function createRelay(ctx) {
  const names = {
    request: `${ctx.module}.request`,
    choose: `${ctx.module}.choose`,
    confirm: `${ctx.module}.confirm`,
    private: `${ctx.module}.private`,
  };
  const outgoing = new Map(); // ticket → the JSON of what this browser asked the GM

  /** GM side: confirm who asked with that user's own browser, then answer for him. */
  async function answer({ user: userId, ticket, payload }, handler) {
    const user = game.users.get(userId);
    if (!user || user.isGM) return { error: { code: "forbidden", message: ctx.i18n("ARBITER.Error.NotConfirmed", { user: userId }) } };
    const confirmed = await user.query(names.confirm, { ticket, payload }).catch(() => false);
    if (confirmed !== true) return { error: { code: "forbidden", message: ctx.i18n("ARBITER.Error.NotConfirmed", { user: user.name }) } };
    try {
      return { value: await handler(payload, user) };
    } catch (err) {
      return { error: { code: err.code ?? "refused", message: err.message } };
    }
  }

  /** Register the handlers in `CONFIG.queries` (at init; V13+ only). */
  function register() {
    if (!canQuery()) return;
    CONFIG.queries[names.request] = (data) => answer(data, ctx.onRequest);
    CONFIG.queries[names.choose] = (data) => answer(data, ctx.onChoose);
    CONFIG.queries[names.confirm] = ({ ticket, payload }) => {
      const sent = outgoing.get(ticket);
      if (sent === undefined || sent !== JSON.stringify(payload)) return false;
      outgoing.delete(ticket); // one confirmation per ticket
      return true;
    };
    CONFIG.queries[names.private] = ({ participant, data }) => {
      ctx.onPrivate(participant, data);
      return true;
    };
  }

  /**
   * Player side: ask the active GM's browser (`kind`: "request" or "choose"); resolves with its
   * answer, or rejects with the server's refusal (an Error with its `code`). A `handed_over`
   * refusal (that browser let the world's connection go, perhaps after sending it: its answer may
   * be lost) is asked again, with the same payload and so the same request id, of the next active
   * GM's browser (at most HANDOVER_TRIES times): the server answers a request it decided already
   * with the stored outcome, so nothing is rolled twice and the player gets one answer.
   */
  async function ask(kind, payload) {
    let refusedBy = null;
    for (let tries = 1; ; tries++) {
      const gm = refusedBy ? await nextGM(refusedBy) : game.users.activeGM;
      if (!gm) throw new Error(ctx.i18n("ARBITER.Error.NoGM"));
      try {
        return await askOnce(gm, kind, payload);
      } catch (err) {
        if (err.code !== "handed_over" || tries >= HANDOVER_TRIES) throw err;
        refusedBy = gm.id;
      }
    }
  }

  /** One query to one GM's browser, under a fresh ticket. */
  async function askOnce(gm, kind, payload) {
    const ticket = foundry.utils.randomID(16);
    outgoing.set(ticket, JSON.stringify(payload));
    try {
      const reply = await gm.query(names[kind], { user: game.user.id, ticket, payload });
      if (reply?.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
      return reply.value;
    } finally {
      outgoing.delete(ticket);
    }
  }

  /** GM side: one participant's private data to one user's browser, and to no other. */
  function deliver(user, participant, data) {
    return user.query(names.private, { participant, data });
  }

  return { register, ask, deliver };
}
