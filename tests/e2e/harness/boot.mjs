// Boot a Foundry-shaped page: build the flavour's globals, load the module exactly as Foundry
// would (its manifest's language file and esmodules), then run the lifecycle hooks.
// Query: v (12|13|14), user (user id), hub (the ws:// address of the hub that plays Foundry's
// server between pages, tests/e2e/support/hub.py), world (JSON: settings, actors, tokens,
// controlled, targets, modules, system, systemStatuses, users: more users than the harness's).
import { createFoundry } from "/harness/foundry/index.mjs";

const params = new URLSearchParams(location.search);
const generation = Number(params.get("v"));
const world = JSON.parse(params.get("world") ?? "{}");

async function text(path) {
  const response = await fetch(`/${path}`);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

/**
 * The page's line to the hub: `send(message)`, `on(op, fn)`, `active` (the users with a page
 * open, the hub's first frame: Foundry's `game.data.activeUsers`) and `actors` (the actor changes
 * the world's pages made before this one opened, in order: what Foundry's world data at load
 * already holds); open before anything runs.
 */
async function connectHub(address, user) {
  const handlers = new Map();
  if (!address) return null;
  const url = new URL(address);
  url.searchParams.set("user", user);
  const socket = new WebSocket(url.href);
  const first = new Promise((resolve) => handlers.set("users", [resolve]));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`harness hub ${url.href} unreachable`)), { once: true });
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    for (const fn of handlers.get(message.op) ?? []) fn(message);
  });
  const { active, actors } = await first;
  return {
    active,
    actors: actors ?? [],
    send(message) {
      socket.send(JSON.stringify(message));
    },
    on(op, fn) {
      if (!handlers.has(op)) handlers.set(op, []);
      handlers.get(op).push(fn);
    },
  };
}

const manifest = JSON.parse(await text("modules/arbiter/module.json"));
const language = manifest.languages.find((l) => l.lang === "en");
const translations = JSON.parse(await text(`modules/arbiter/${language.path}`));
const globals = createFoundry(generation, {
  document,
  user: params.get("user"),
  settings: world.settings,
  translations,
  Handlebars: window.Handlebars,
  fetchText: text,
  storage: window.localStorage,
  hub: await connectHub(params.get("hub"), params.get("user")),
  users: world.users,
  actors: world.actors,
  tokens: world.tokens,
  controlled: world.controlled,
  targets: world.targets,
  modules: world.modules,
  system: world.system,
  systemStatuses: world.systemStatuses,
});
Object.assign(window, globals);
for (const script of manifest.esmodules) await import(`/modules/arbiter/${script}`);
for (const hook of ["init", "i18nInit", "setup", "ready"]) Hooks.callAll(hook);
window.harnessBooted = true;
