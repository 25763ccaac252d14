// Why a WebSocket to the Arbiter server never opened, when the server is not the reason: the
// browser's own rules about which pages may reach which addresses. The connection doctor then
// says what to do instead of "start `arbiter serve`".
//
// - Chrome's Local Network Access (Chrome 142+): a page may reach an address in a more private
//   address space (a public page → this machine or the local network; a local-network page →
//   this machine) only after the user allows it in a permission prompt; WebSockets included.
//   Until then, or once refused, the socket fails as if nobody listened.
// - Safari refuses `ws://` to this machine from an `https` page (it does not treat loopback
//   `ws://` as a secure context, unlike Chrome and Firefox).
// - Mixed content: `ws://` to any other host from an `https` page is blocked everywhere.

/** The address space of a host: 0 this machine, 1 a private network, 2 the public internet. */
export function addressSpace(hostname) {
  const host = String(hostname ?? "").toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host)) return 0;
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^169\.254\./.test(host)) return 1;
  if (/^172\.(1[6-9]|2\d|3[01])\./.test(host)) return 1;
  if (/^f[cd][0-9a-f]{2}:/.test(host) || /^fe80:/.test(host) || host.endsWith(".local")) return 1;
  return 2;
}

/** Which engine this browser is, as far as the doctor cares: "chromium", "safari" or "other". */
export function browserOf(userAgent = globalThis.navigator?.userAgent ?? "") {
  if (/Chrome\/|Chromium\/|CriOS\/|Edg\//.test(userAgent)) return "chromium";
  if (/Safari\//.test(userAgent) && /Version\//.test(userAgent)) return "safari";
  return "other";
}

/** Chrome's major version from its user agent (0 when it is not Chrome). */
export function chromeVersion(userAgent = globalThis.navigator?.userAgent ?? "") {
  return Number(/Chrome\/(\d+)/.exec(userAgent)?.[1] ?? 0);
}

/**
 * The state of Chrome's Local Network Access permission for this page ("granted", "prompt",
 * "denied"), or null where the browser has no such permission. Chrome named it
 * `local-network-access` (142) and later split it into `local-network` and `loopback-network`.
 */
export async function localNetworkPermission(target, permissions = globalThis.navigator?.permissions) {
  if (!permissions?.query) return null;
  const names = addressSpace(target) === 0 ? ["loopback-network", "local-network-access"] : ["local-network", "local-network-access"];
  for (const name of names) {
    try {
      return (await permissions.query({ name })).state;
    } catch {
      // Not a permission this browser knows: try the next name.
    }
  }
  return null;
}

/**
 * The doctor's key for a socket that never opened (`thrown`: the constructor threw), or null
 * when the browser's rules do not explain it (then the server is down or unreachable).
 * `page`: the Foundry page's location; `url`: the ws(s) URL dialled; `permission`: the Local
 * Network Access state (localNetworkPermission) or null.
 */
export function blockedBy({ page, url, userAgent, permission = null, thrown = false }) {
  let target;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  const secure = page?.protocol === "https:";
  const browser = browserOf(userAgent);
  const there = addressSpace(target.hostname);
  if (target.protocol === "ws:" && secure) {
    if (there !== 0) return "MixedContent";
    if (browser === "safari") return "SafariLoopback";
  }
  if (thrown) return secure && target.protocol === "ws:" ? "MixedContent" : null;
  const here = addressSpace(page?.hostname);
  if (browser === "chromium" && there < here) {
    if (permission === "denied") return "LocalNetworkDenied";
    if (permission === "prompt") return "LocalNetworkPrompt";
    // A Chrome that does not name the permission but enforces it (142+: the prompt).
    if (permission === null && chromeVersion(userAgent) >= 142) return "LocalNetworkPrompt";
  }
  return null;
}
