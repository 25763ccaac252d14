// Boot a Foundry-shaped page: build the flavour's globals, load the module exactly as Foundry
// would (its manifest's language file and esmodules), then run the lifecycle hooks.
// Query: v (12|13|14), user (user id), world (JSON: settings, actors, tokens, controlled,
// targets, modules).
import { createFoundry } from "/harness/foundry/index.mjs";

const params = new URLSearchParams(location.search);
const generation = Number(params.get("v"));
const world = JSON.parse(params.get("world") ?? "{}");

async function text(path) {
  const response = await fetch(`/${path}`);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
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
  channel: (name) => new BroadcastChannel(name),
  actors: world.actors,
  tokens: world.tokens,
  controlled: world.controlled,
  targets: world.targets,
  modules: world.modules,
});
Object.assign(window, globals);
for (const script of manifest.esmodules) await import(`/modules/arbiter/${script}`);
for (const hook of ["init", "i18nInit", "setup", "ready"]) Hooks.callAll(hook);
window.harnessBooted = true;
