// The status badge and the connection doctor: what state the connection is in, what is wrong
// and what to do about it, in one translated sentence.

// Every label the badge and the doctor can show, keyed by state / problem.
const BADGE = {
  idle: "ARBITER.Status.Badge.idle",
  connecting: "ARBITER.Status.Badge.connecting",
  open: "ARBITER.Status.Badge.open",
  retrying: "ARBITER.Status.Badge.retrying",
  refused: "ARBITER.Status.Badge.refused",
  failed: "ARBITER.Status.Badge.failed",
  relay: "ARBITER.Status.Badge.relay",
};
const DOCTOR = {
  NoUrl: "ARBITER.Doctor.NoUrl",
  BadUrl: "ARBITER.Doctor.BadUrl",
  NoToken: "ARBITER.Doctor.NoToken",
  MixedContent: "ARBITER.Doctor.MixedContent",
  SafariLoopback: "ARBITER.Doctor.SafariLoopback",
  LocalNetworkPrompt: "ARBITER.Doctor.LocalNetworkPrompt",
  LocalNetworkDenied: "ARBITER.Doctor.LocalNetworkDenied",
  WrongSecret: "ARBITER.Doctor.WrongSecret",
  Revoked: "ARBITER.Doctor.Revoked",
  ServerDown: "ARBITER.Doctor.ServerDown",
  Lost: "ARBITER.Doctor.Lost",
};

/**
 * The doctor of one client. `ctx`: i18n, isConnector(), connection() (or null), rules() (the
 * module's data/rules.json), url() (the server address setting), onClick().
 */
export function createDoctor(ctx) {
  /** Rulesets whose content hash in this module differs from what the server serves. */
  function stale() {
    const served = ctx.connection()?.welcome?.rulesets ?? {};
    const mine = ctx.rules().rulesets;
    return Object.entries(served)
      .filter(([id, info]) => mine[id] && mine[id].hash !== info.hash)
      .map(([id]) => id);
  }

  /** What is wrong and what to do, as one sentence (or that all is well). */
  function diagnosis() {
    if (!ctx.isConnector()) return ctx.i18n("ARBITER.Status.NotGM");
    const connection = ctx.connection();
    const problem = connection?.problem;
    if (problem) return ctx.i18n(DOCTOR[problem.key], { ...problem.data, url: problem.data?.url ?? ctx.url() });
    if (connection?.status !== "open") return ctx.i18n("ARBITER.Doctor.ServerDown", { url: ctx.url(), seconds: 1 });
    const old = stale();
    if (old.length) return ctx.i18n("ARBITER.Doctor.OldModule", { rulesets: old.join(", ") });
    return ctx.i18n("ARBITER.Doctor.Ok", { url: ctx.url(), session: connection.welcome.session });
  }

  /** The badge: its class and tooltip follow the connection; a click asks the doctor. */
  function show() {
    let badge = document.getElementById("arbiter-status");
    if (!badge) {
      badge = document.createElement("button");
      badge.id = "arbiter-status";
      badge.type = "button";
      badge.addEventListener("click", () => ctx.onClick());
      document.body.append(badge);
    }
    const status = ctx.isConnector() ? (ctx.connection()?.status ?? "idle") : "relay";
    badge.className = `arbiter-status arbiter-status--${status}`;
    badge.textContent = ctx.i18n(BADGE[status]);
    badge.title = diagnosis();
  }

  return { stale, diagnosis, show };
}
