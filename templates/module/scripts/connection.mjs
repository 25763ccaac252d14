// The one connection a world keeps to the Arbiter server (held by the active GM's browser).
//
// Protocol v1 (docs/protocol.md): the first message is `hello` with the world secret (a GM) or a
// player token; the server answers `welcome` (rulesets with versions) or closes with 4001 (4003:
// a revoked player token). Requests carry an id that the
// server treats as an idempotency key, so every request still unanswered when the socket drops
// is queued and sent again, with the same id, once a new socket is welcomed: the server returns
// the stored outcome instead of rolling twice. A ping every HEARTBEAT_MS notices a dead link.
// Outcome events missed while the socket was down come back on the next: the hello says the
// greatest `seq` this connection saw (`since`), and the server replays every outcome event
// after it (`replayed: true`) before going on live. An event seen already (a seq not above the
// greatest), or a replayed one of a request still queued (its own answer follows), is dropped.

import { blockedBy, browserOf, localNetworkPermission } from "./network-doctor.mjs";

export const HEARTBEAT_MS = 15000; // default; the `heartbeat` setting (seconds) overrides it
export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_CAP_MS = 15000;
/** How long a connection being let go (`release`) waits for the answers to requests it sent. */
export const RELEASE_MS = 5000;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
/** The answers to a control message (`control`): matched to it by their id. */
const CONTROL_REPLIES = new Set(["pong", "checked", "stat_block", "stat_blocks", "error"]);

/**
 * The WebSocket URL to dial, or an error naming why it cannot work from this page.
 * An http(s) address is turned into ws(s); a bare host:port gets the page's scheme, except that
 * loopback always may use ws (browsers treat it as trustworthy), while any other host needs wss
 * from an https page (mixed content) — and Safari refuses even loopback ws from https.
 */
export function resolveUrl(setting, page = globalThis.location, userAgent = globalThis.navigator?.userAgent ?? "") {
  let text = String(setting ?? "").trim();
  if (!text) return { error: "NoUrl" };
  if (!/^[a-z]+:\/\//i.test(text)) {
    const host = text.split("/")[0].replace(/:\d+$/, "");
    const secure = page?.protocol === "https:" && !LOOPBACK.has(host);
    text = `${secure ? "wss" : "ws"}://${text}`;
  }
  let url;
  try {
    url = new URL(text.replace(/^http/i, "ws"));
  } catch {
    return { error: "BadUrl" };
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") return { error: "BadUrl" };
  if (url.protocol === "ws:" && page?.protocol === "https:" && !LOOPBACK.has(url.hostname)) {
    return { error: "MixedContent", url: url.href };
  }
  if (url.protocol === "ws:" && page?.protocol === "https:" && browserOf(userAgent) === "safari") {
    return { error: "SafariLoopback", url: url.href };
  }
  return { url: url.href };
}

/**
 * Where a "moved" close (4010, reason `{"owner", "url"}`, docs/protocol.md) sends a client that
 * dialled `configured`: the named host's address followed by the configured path's world part
 * (`/w/<world id>`; a proxy's prefix before it is not the named host's), or
 * null when the reason names no usable address. Never a downgrade: from a `wss` address only
 * to `wss`, and only what `resolveUrl` allows from this page (mixed content).
 */
export function movedTo(configured, reason, page = globalThis.location) {
  let named;
  try {
    named = JSON.parse(reason)?.url;
  } catch {
    return null;
  }
  if (typeof named !== "string" || !named) return null;
  const resolved = resolveUrl(named, page);
  if (resolved.error) return null;
  const from = new URL(configured);
  const to = new URL(resolved.url);
  if (from.protocol === "wss:" && to.protocol !== "wss:") return null;
  // Only the world's part of the configured path: a proxy's prefix before it is the proxy's.
  const world = from.pathname.match(/\/w\/[^/]+\/?$/)?.[0] ?? "";
  to.pathname = `${to.pathname.replace(/\/+$/, "")}${world}` || "/";
  to.search = from.search;
  if (to.href === from.href) return null;
  return { from: configured, url: to.href };
}

/** Delay before reconnect attempt `n` (0-based): doubling from BACKOFF_FIRST_MS, capped. */
export function backoff(n) {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** n);
}

export class Connection extends EventTarget {
  #options;
  #socket = null;
  #queue = new Map(); // request id → {message, resolve, reject, sent}
  #releasing = null; // {error, drained()} while `release` waits for the answers to what was sent
  #controls = new Map(); // control message id (bind) → {resolve, reject}
  #attempt = 0;
  #timers = { retry: null, ping: null, pong: null, welcome: null };
  #stopped = false;
  #pingId = 0;
  #seen = { key: null, seq: null }; // the greatest seq seen, and the server (url + token) it is of
  #dialled = null; // the key of the socket being dialled
  #moved = null; // {from, url}: where a "moved" close (4010) sent the configured address
  status = "idle"; // idle | connecting | open | retrying | refused | failed
  welcome = null;
  problem = null; // {key, data} for the connection doctor

  /**
   * @param {object} options  url(), token(), client (hello client info), WebSocket (class).
   */
  constructor(options) {
    super();
    this.#options = options;
  }

  /** Start (or restart) connecting; keeps retrying with backoff until stopped or refused. */
  start() {
    this.#stopped = false;
    this.#attempt = 0;
    this.#dial();
  }

  /**
   * Dial again now with a fresh `hello` (e.g. to declare more participants); unanswered
   * requests stay queued and are sent again once welcomed.
   */
  redial() {
    const old = this.#socket;
    this.#socket = null;
    for (const key of Object.keys(this.#timers)) clearTimeout(this.#timers[key]);
    old?.close(1000, "redial");
    this.#stopped = false;
    this.#attempt = 0;
    this.#dial();
  }

  /**
   * Stop: close the socket and dial no more. With `error`, every request and control message
   * still waiting for an answer is rejected with it (none is sent again from here): the world's
   * connection passed to another browser (arbiter.mjs, `follow`), which cannot take them over.
   */
  stop(error = null) {
    this.#stopped = true;
    for (const key of Object.keys(this.#timers)) clearTimeout(this.#timers[key]);
    this.#socket?.close(1000, "stopped");
    if (error) {
      const waiting = [...this.#queue.values(), ...this.#controls.values()];
      this.#queue.clear();
      this.#controls.clear();
      for (const entry of waiting) entry.reject(error);
    }
    this.#set("idle");
  }

  /**
   * Let go of the world's connection (arbiter.mjs, `follow`) without dropping what the server may
   * be deciding. From now on no request or control message is taken (each is refused with
   * `error`). Control messages, and requests never sent, are refused now with `error`: nothing
   * of them was decided, so they may be sent again. A request already sent may have been decided
   * (its answer on its way): it stays queued, and the connection stays up (dialling again and
   * re-sending it with its id after a drop, as ever) until every such request is answered or `ms`
   * passes. Then it stops, refusing each one still unanswered with `undecided(id)`: only a resend
   * with that same id is safe (the server answers the stored outcome if it was decided).
   * Resolves once stopped.
   */
  release(error, undecided, ms = RELEASE_MS) {
    const controls = [...this.#controls.values()];
    this.#controls.clear();
    for (const entry of controls) entry.reject(error);
    for (const [id, entry] of [...this.#queue]) {
      if (entry.sent) continue;
      this.#queue.delete(id);
      entry.reject(error);
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#releasing = null;
        const left = [...this.#queue];
        this.#queue.clear();
        this.stop();
        for (const [id, entry] of left) entry.reject(undecided(id));
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.#releasing = { error, drained: () => this.#queue.size || finish() };
      this.#releasing.drained();
    });
  }

  /** The greatest outcome seq this connection saw on its server (null: none yet). */
  get lastSeq() {
    return this.#seen.seq;
  }

  /** The number of requests sent or waiting to be sent without an answer yet. */
  get queued() {
    return this.#queue.size;
  }

  /**
   * Send a request envelope (and, for tests, scripted dice); resolves with `{outcome, seq, replayed}`, rejects with an Error
   * carrying `code` (and `unstored`, docs/protocol.md) when the server refuses it. Queued while offline, re-sent with its id.
   * `player` relays it for that player (a GM connection only): the server authorises and
   * answers it as that player's own connection.
   */
  request(envelope, dice = null, player = undefined) {
    const existing = this.#queue.get(envelope.id);
    if (existing) return existing.promise;
    if (this.#releasing) return Promise.reject(this.#releasing.error);
    let entry;
    const message = { v: 1, type: "request", request: envelope };
    if (player) message.player = player;
    // Scripted dice: only servers started with --allow-scripted-dice (tests) accept them.
    if (dice) message.dice = dice;
    const promise = new Promise((resolve, reject) => {
      entry = { message, resolve, reject };
    });
    entry.promise = promise;
    entry.sent = false; // once true, the server may have decided it: only its id may go again
    this.#queue.set(envelope.id, entry);
    if (this.status === "open") entry.sent = this.#send(entry.message);
    else if (this.status === "idle" || this.status === "failed") this.start();
    return promise;
  }

  /**
   * Send a control message with an `id` (`bind`, `check`, the stat-block vault's) on the open
   * connection; resolves with the answer carrying that id (`pong`, `checked`, `stat_block`,
   * `stat_blocks`), rejects with an Error carrying the `code` of its error.
   */
  control(message) {
    if (this.#releasing) return Promise.reject(this.#releasing.error);
    if (this.status !== "open") return Promise.reject(new Error(`not connected (${this.status})`));
    return new Promise((resolve, reject) => {
      this.#controls.set(message.id, { resolve, reject });
      this.#send(message);
    });
  }

  #set(status, problem = null) {
    this.status = status;
    if (problem !== undefined) this.problem = problem;
    this.dispatchEvent(new CustomEvent("status", { detail: { status, problem: this.problem } }));
  }

  #dial() {
    clearTimeout(this.#timers.retry);
    if (this.#stopped) return;
    const resolved = this.#options.url();
    if (resolved.error) {
      this.#set("failed", { key: resolved.error, data: { url: resolved.url ?? "" } });
      return;
    }
    const token = this.#options.token();
    if (!token) {
      this.#set("failed", { key: "NoToken", data: {} });
      return;
    }
    // A seq is the row number of one world's log: the configured address names the world,
    // whichever of its hosts a "moved" close sends us to.
    const key = `${resolved.url}\n${token}`;
    const moved = this.#moved?.from === resolved.url ? this.#moved : null;
    const url = moved ? moved.url : resolved.url;
    this.#set("connecting", this.problem);
    // Chrome's Local Network Access state, known by the time a refused socket closes.
    let permission = null;
    localNetworkPermission(new URL(url).hostname).then((state) => (permission = state), () => null);
    const page = globalThis.location;
    const userAgent = globalThis.navigator?.userAgent ?? "";
    let socket;
    try {
      socket = new this.#options.WebSocket(url);
    } catch (err) {
      // Browsers throw synchronously for blocked mixed content (Safari: loopback ws too).
      const key = blockedBy({ page, url, userAgent, thrown: true }) ?? "MixedContent";
      this.#set("failed", { key, data: { url, detail: err.message } });
      return;
    }
    this.#socket = socket;
    this.#dialled = key;
    const since = this.#seen.key === key ? this.#seen.seq : null;
    let welcomed = false;
    // A server that accepts the connection but never welcomes it (stopped, or a wrong port
    // behind a proxy) is dropped like a dead link and dialled again.
    clearTimeout(this.#timers.welcome);
    this.#timers.welcome = setTimeout(() => welcomed || this.#dropDeadLink(), Math.max(5000, this.#options.heartbeatMs?.() || 0));
    let opened = false;
    socket.addEventListener("open", () => {
      opened = true;
      const hello = { v: 1, type: "hello", token, client: this.#options.client() };
      if (since !== null) hello.since = since;
      socket.send(JSON.stringify(hello));
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "welcome") {
        welcomed = true;
        this.#welcomed(message);
      } else {
        this.#receive(message);
      }
    });
    socket.addEventListener("close", (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      clearTimeout(this.#timers.ping);
      clearTimeout(this.#timers.pong);
      clearTimeout(this.#timers.welcome);
      if (this.#stopped) return;
      if (event.code === 4001 || event.code === 4003) {
        // A wrong token, or a player token revoked: dialling again cannot help. A later start
        // dials the configured address.
        this.#moved = null;
        this.#set("refused", { key: event.code === 4003 ? "Revoked" : "WrongSecret", data: { reason: event.reason } });
        return;
      }
      const configured = resolved.url;
      // Another host owns the world: dial the one it names (same path). Anything else from a
      // host we were sent to (4009, a refused or dropped socket) goes back to the configured
      // address, whose proxy or host knows where the world is now.
      this.#moved = event.code === 4010 ? movedTo(configured, event.reason, page) : null;
      // At once the first time; a host we were sent to sending us on again waits like any retry
      // (two hosts naming each other while a lease changes hands must not spin).
      const delay = this.#moved && !moved ? 0 : backoff(this.#attempt++);
      // A socket that never opened may have been refused by the browser, not the server:
      // Local Network Access (retrying helps once the user allows it) says so.
      const blocked = opened ? null : blockedBy({ page, url, userAgent, permission });
      const key = welcomed ? "Lost" : (blocked ?? "ServerDown");
      const data = { url, seconds: Math.ceil(delay / 1000), page: page?.host ?? "" };
      this.#set("retrying", { key, data });
      this.#timers.retry = setTimeout(() => this.#dial(), delay);
    });
  }

  #welcomed(welcome) {
    this.welcome = welcome;
    if (this.#seen.key !== this.#dialled || this.#seen.seq === null) {
      // A first connection (or another server): its events begin after the welcome's head.
      this.#seen = { key: this.#dialled, seq: welcome.head ?? null };
    }
    this.#attempt = 0;
    this.#set("open", null);
    this.dispatchEvent(new CustomEvent("welcome", { detail: welcome }));
    for (const entry of this.#queue.values()) entry.sent = this.#send(entry.message) || entry.sent;
    this.#heartbeat();
  }

  /** A ping after each quiet interval; no pong within the same interval means a dead link. */
  #heartbeat() {
    clearTimeout(this.#timers.ping);
    const interval = this.#options.heartbeatMs?.() || HEARTBEAT_MS;
    this.#timers.ping = setTimeout(() => {
      if (this.status !== "open") return;
      this.#send({ v: 1, type: "ping", id: `ping-${++this.#pingId}` });
      this.#timers.pong = setTimeout(() => this.#dropDeadLink(), interval);
    }, interval);
  }

  /** Give up on a socket that stopped answering: a close handshake would wait on it too. */
  #dropDeadLink() {
    const socket = this.#socket;
    if (!socket) return;
    socket.close(4000, "no pong");
    socket.dispatchEvent(new CloseEvent("close", { code: 4000, reason: "no pong" }));
  }

  /** Send on the open socket; whether it went. */
  #send(message) {
    if (this.#socket?.readyState !== 1) return false;
    this.#socket.send(JSON.stringify(message));
    return true;
  }

  /** Note a seq seen; false when it was seen already (a duplicate to drop). */
  #saw(seq) {
    if (typeof seq !== "number") return true;
    if (this.#seen.seq !== null && seq <= this.#seen.seq) return false;
    this.#seen.seq = seq;
    return true;
  }

  #receive(message) {
    const control = this.#controls.get(message.id);
    if (control && CONTROL_REPLIES.has(message.type)) {
      this.#controls.delete(message.id);
      if (message.type !== "error") control.resolve(message);
      else control.reject(Object.assign(new Error(message.message), { code: message.code }));
      return;
    }
    if (message.type === "pong") {
      clearTimeout(this.#timers.pong);
      this.#heartbeat();
      return;
    }
    if (message.type === "outcome") {
      if (!message.replayed) this.#saw(message.seq);
      const entry = this.#queue.get(message.outcome?.id);
      if (!entry) return;
      this.#queue.delete(message.outcome.id);
      entry.resolve({ outcome: message.outcome, seq: message.seq, replayed: message.replayed });
      this.#releasing?.drained();
      return;
    }
    if (message.type === "error") {
      const entry = message.id ? this.#queue.get(message.id) : null;
      if (!entry && String(message.message ?? "").startsWith("since:")) {
        // The server has no such row (another world, a restored log): start from its head.
        this.#seen.seq = this.welcome?.head ?? null;
      }
      if (!entry) {
        this.dispatchEvent(new CustomEvent("server-error", { detail: message }));
        return;
      }
      if (message.code === "rate_limited") {
        // Too fast: the request was not decided; send it again (same id) when the server says.
        setTimeout(() => this.#queue.has(message.id) && this.#send(entry.message), Math.ceil((message.retry_after ?? 1) * 1000));
        return;
      }
      this.#queue.delete(message.id);
      // `unstored`: the participant whose block must be stored (docs/protocol.md), if that is why.
      entry.reject(Object.assign(new Error(message.message), { code: message.code, unstored: message.unstored ?? null }));
      this.#releasing?.drained();
      return;
    }
    if (message.type === "event" && message.event === "outcome") {
      if (!this.#saw(message.seq)) return;
      // A replayed outcome of a request still waiting here: its own answer comes next.
      if (message.replayed && this.#queue.has(message.outcome?.id)) return;
    }
    if (message.type === "event" && message.event === "gap_too_large") this.#seen.seq = Math.max(this.#seen.seq ?? 0, message.head);
    if (message.type === "event") this.dispatchEvent(new CustomEvent("event", { detail: message }));
  }
}
