// Template stand-ins: real Handlebars (from npm) compiling the module's real .hbs files, with
// the Foundry helpers the module may use. V12 has the globals; V13+ has them under
// foundry.applications.handlebars (the globals still work there but warn, like Foundry's shims).

import { deprecated } from "./core.mjs";

/** Register the subset of Foundry's Handlebars helpers that exist in every flavour. */
function registerHelpers(env, Handlebars) {
  const i18n = () => env.game().i18n;
  Handlebars.registerHelper("localize", (value, options) => {
    const data = options?.hash ?? {};
    return Object.keys(data).length ? i18n().format(value, data) : i18n().localize(value);
  });
  Handlebars.registerHelper("concat", (...values) => values.slice(0, -1).join(""));
  Handlebars.registerHelper("eq", (a, b) => a === b);
  Handlebars.registerHelper("ne", (a, b) => a !== b);
  Handlebars.registerHelper("lt", (a, b) => a < b);
  Handlebars.registerHelper("gt", (a, b) => a > b);
  Handlebars.registerHelper("lte", (a, b) => a <= b);
  Handlebars.registerHelper("gte", (a, b) => a >= b);
  Handlebars.registerHelper("not", (a) => !a);
  Handlebars.registerHelper("and", (...values) => values.slice(0, -1).every(Boolean));
  Handlebars.registerHelper("or", (...values) => values.slice(0, -1).some(Boolean));
  Handlebars.registerHelper("ifThen", (test, a, b) => (test ? a : b));
  Handlebars.registerHelper("numberFormat", (value, options) => {
    const { decimals = 0, sign = false } = options?.hash ?? {};
    const text = Number(value).toFixed(decimals);
    return sign && value >= 0 ? `+${text}` : text;
  });
}

export function createTemplates(env) {
  const cache = new Map();
  const Handlebars = env.Handlebars;
  if (Handlebars) registerHelpers(env, Handlebars);

  async function getTemplate(path, id) {
    if (!cache.has(path)) {
      const text = await env.fetchText(path);
      const compiled = Handlebars.compile(text, { strict: false, preventIndent: true });
      Handlebars.registerPartial(id ?? path, compiled);
      cache.set(path, compiled);
    }
    return cache.get(path);
  }
  async function loadTemplates(paths) {
    const entries = Array.isArray(paths) ? paths.map((p) => [p, p]) : Object.entries(paths).map(([id, p]) => [p, id]);
    return Promise.all(entries.map(([path, id]) => getTemplate(path, id)));
  }
  async function renderTemplate(path, data) {
    const template = await getTemplate(path);
    return template(data ?? {}, { allowProtoMethodsByDefault: true, allowProtoPropertiesByDefault: true });
  }
  return { getTemplate, loadTemplates, renderTemplate };
}

/** The V12 globals; in V13+ the same functions wrapped in Foundry's deprecation warning. */
export function templateGlobals(env, templates) {
  if (env.generation < 13) {
    return { loadTemplates: templates.loadTemplates, renderTemplate: templates.renderTemplate, getTemplate: templates.getTemplate };
  }
  return {
    loadTemplates(paths) {
      deprecated(env, "loadTemplates (use foundry.applications.handlebars.loadTemplates)", 13, 15);
      return templates.loadTemplates(paths);
    },
    renderTemplate(path, data) {
      deprecated(env, "renderTemplate (use foundry.applications.handlebars.renderTemplate)", 13, 15);
      return templates.renderTemplate(path, data);
    },
    getTemplate(path, id) {
      deprecated(env, "getTemplate (use foundry.applications.handlebars.getTemplate)", 13, 15);
      return templates.getTemplate(path, id);
    },
  };
}
