// The stat-block editor: an actor's combatant for each ruleset, without JSON. Its form is
// generated from the ruleset's stat-block schema (schemas/stat-blocks/<ruleset>.schema.json,
// which the build copies from the server's own pydantic model), its choices from the compiled
// rule data (weapons, armour, hit locations, traits), and a "start from" list offers the rule
// data's ready combatants. Saving stores the block on the Arbiter server (the GM's; vault.mjs),
// which validates it as the `check` message does (its own messages, field by field; nothing is
// logged or rolled) and keeps it where only the GM's connection reads it; the actor keeps only
// its combatant's id, and the request dialogs get the block from the server for the selected
// and targeted tokens. The GM opens it: a player's browser never holds an NPC's block.

import { escapeHtml } from "./dialogs.mjs";
import { mappingFor, readStatBlock } from "./presets.mjs";
import { LEGACY, PARTICIPANT } from "./vault.mjs";

const schemas = new Map(); // ruleset → the schema (fetched once)

/** The schema of a ruleset's stat block, as the build shipped it. */
export async function statBlockSchema(module, ruleset) {
  if (!schemas.has(ruleset)) {
    const response = await fetch(`modules/${module}/schemas/stat-blocks/${ruleset}.schema.json`);
    if (!response.ok) throw new Error(`schemas/stat-blocks/${ruleset}.schema.json: HTTP ${response.status}`);
    schemas.set(ruleset, await response.json());
  }
  return schemas.get(ruleset);
}

/** A property's own schema: `$ref` resolved, `anyOf [X, null]` unwrapped (nullable). */
function resolve(root, prop) {
  let node = prop;
  let nullable = false;
  if (node.anyOf) {
    const kinds = node.anyOf.filter((k) => k.type !== "null");
    nullable = kinds.length < node.anyOf.length;
    node = { ...kinds[0], ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "anyOf")) };
  }
  if (node.$ref) node = { ...root.$defs[node.$ref.split("/").pop()], ...node, $ref: undefined };
  return { node, nullable };
}

/** The schema of a mapping's values (`additionalProperties`, or its one `patternProperties`). */
function valuesOf(node) {
  return node.additionalProperties ?? Object.values(node.patternProperties ?? {})[0] ?? {};
}

/** Entries ({id, name}) of dotted paths into the ruleset's rule data, plus fixed names. */
function entries(data, paths = [], names = []) {
  const out = [];
  for (const path of paths) {
    let value = data;
    for (const step of path.split(".")) value = value?.[step];
    for (const entry of Array.isArray(value) ? value : []) if (entry?.id) out.push({ id: entry.id, name: entry.name ?? entry.id });
  }
  for (const name of names) out.push({ id: name, name: name.replaceAll("_", " ") });
  const seen = new Set();
  return out.filter((e) => !seen.has(e.id) && seen.add(e.id));
}

function label(name, node) {
  return escapeHtml(node.title ?? name);
}

function select(name, list, value, blank = true) {
  const opts = list.map((o) => `<option value="${escapeHtml(o.id)}"${o.id === value ? " selected" : ""}>${escapeHtml(o.name)}</option>`);
  return `<select name="${escapeHtml(name)}">${blank ? '<option value=""></option>' : ""}${opts.join("")}</select>`;
}

function scalar(name, node, value, data) {
  const choices = node["x-arbiter-values"] ? entries(data, node["x-arbiter-values"]) : null;
  const literal = node.enum ?? null;
  if (choices) return select(name, choices, value ?? "");
  if (literal) return select(name, literal.map((v) => ({ id: v, name: v })), value ?? node.default ?? "", !("default" in node));
  if (node.type === "boolean") return `<input type="checkbox" name="${escapeHtml(name)}"${value ? " checked" : ""}>`;
  if (node.type === "integer" || node.type === "number") {
    // No min/max attributes: the browser would refuse to submit the form and the server's own
    // message could not be shown; the range is the placeholder.
    const range = node.minimum !== undefined || node.maximum !== undefined ? ` placeholder="${node.minimum ?? ""}–${node.maximum ?? ""}"` : "";
    return `<input type="number" step="any" name="${escapeHtml(name)}"${range} value="${escapeHtml(value ?? "")}">`;
  }
  return `<input type="text" name="${escapeHtml(name)}" value="${escapeHtml(value ?? "")}">`;
}

/** One property's form part; `path` is its dotted path, the `name` of its inputs. */
function field(root, path, prop, value, data) {
  const { node } = resolve(root, prop);
  const name = path.split(".").pop();
  const row = (inner) => `<div class="form-group arbiter-field" data-field="${escapeHtml(path)}"><label>${label(name, node)}</label><div class="form-fields">${inner}</div></div>`;
  if (node.type === "object" && node.properties) {
    const parts = Object.entries(node.properties).map(([k, p]) => field(root, `${path}.${k}`, p, value?.[k], data));
    return `<fieldset class="arbiter-field" data-field="${escapeHtml(path)}"><legend>${label(name, node)}</legend>${parts.join("")}</fieldset>`;
  }
  if (node.type === "object") {
    // A mapping: one row per key the rule data offers (and any key the block already has).
    const values = valuesOf(node);
    const keys = entries(data, node["x-arbiter-keys"], node["x-arbiter-names"]);
    for (const k of Object.keys(value ?? {})) if (!keys.some((e) => e.id === k)) keys.push({ id: k, name: k });
    const inner = { ...resolve(root, values).node, "x-arbiter-values": node["x-arbiter-values"] };
    const rows = keys.map((k) => `<div class="form-group arbiter-field" data-field="${escapeHtml(`${path}.${k.id}`)}"><label>${escapeHtml(k.name)}</label><div class="form-fields">${scalar(`${path}.${k.id}`, inner, value?.[k.id], data)}</div></div>`);
    const extra = keys.length ? "" : `<input type="text" name="${escapeHtml(path)}.__json" value="${escapeHtml(value ? JSON.stringify(value) : "")}">`;
    return `<fieldset class="arbiter-field arbiter-map" data-field="${escapeHtml(path)}" data-map="${escapeHtml(path)}"><legend>${label(name, node)}</legend>${rows.join("")}${extra}</fieldset>`;
  }
  if (node.type === "array") {
    const choices = entries(data, node["x-arbiter-values"]);
    if (choices.length) {
      const held = new Set(value ?? []);
      const boxes = choices.map((c) => `<label class="arbiter-pick"><input type="checkbox" name="${escapeHtml(path)}" value="${escapeHtml(c.id)}"${held.has(c.id) ? " checked" : ""}> ${escapeHtml(c.name)}</label>`);
      return `<fieldset class="arbiter-field arbiter-picks" data-field="${escapeHtml(path)}"><legend>${label(name, node)}</legend>${boxes.join("")}</fieldset>`;
    }
    return row(`<input type="text" name="${escapeHtml(path)}" value="${escapeHtml((value ?? []).join(", "))}">`);
  }
  return row(scalar(path, node, value, data));
}

/** The editor's HTML: ruleset, "start from", every field of the schema, the problems. */
export function editorHtml({ schema, block, data, ruleset, rulesets, combatants, problems, i18n }) {
  const top = `<div class="arbiter-editor-top">
    <div class="form-group"><label>${escapeHtml(i18n("ARBITER.Editor.Ruleset"))}</label>${select("__ruleset", rulesets, ruleset, false)}</div>
    <div class="form-group"><label>${escapeHtml(i18n("ARBITER.Editor.StartFrom"))}</label>${select("__from", combatants.map((c) => ({ id: c.id, name: `${c.name} (${i18n(c.kind === "foe" ? "ARBITER.Editor.Foe" : "ARBITER.Editor.Named")})` })), "")}</div></div>`;
  const listed = problems.length
    ? `<ul class="arbiter-problems">${problems.map((p) => `<li data-problem="${escapeHtml(p.field)}"><code>${escapeHtml(p.field || "—")}</code> ${escapeHtml(p.message)}</li>`).join("")}</ul>`
    : "";
  const fields = Object.entries(schema.properties).map(([k, p]) => field(schema, k, p, block[k], data));
  return `<div class="arbiter-dialog arbiter-editor" data-ruleset="${escapeHtml(ruleset)}">${top}${listed}${fields.join("")}</div>`;
}

/** Mark each field the server refused with its message (next to the input). */
export function markProblems(element, problems) {
  for (const p of problems) {
    let path = p.field;
    let target = null;
    while (path && !(target = element.querySelector(`[data-field="${CSS.escape(path)}"]`))) path = path.split(".").slice(0, -1).join(".");
    if (!target) continue;
    target.classList.add("arbiter-invalid");
    const note = document.createElement("p");
    note.className = "arbiter-problem notes";
    note.textContent = p.message;
    target.append(note);
  }
}

function number(text) {
  const n = Number(text);
  return text !== "" && Number.isFinite(n) ? n : text; // the server names what is not a number
}

/** Read the form back into a stat block, following the schema (empty inputs are left out). */
export function readForm(schema, form) {
  const data = new FormData(form);
  const read = (path, prop) => {
    const { node } = resolve(schema, prop);
    if (node.type === "object" && node.properties) {
      const out = {};
      for (const [k, p] of Object.entries(node.properties)) {
        const v = read(`${path}.${k}`, p);
        if (v !== undefined) out[k] = v;
      }
      return Object.keys(out).length ? out : undefined;
    }
    if (node.type === "object") {
      const raw = data.get(`${path}.__json`);
      if (raw) {
        try {
          return JSON.parse(raw);
        } catch {
          return raw;
        }
      }
      const inner = resolve(schema, valuesOf(node)).node;
      const out = {};
      for (const [key, v] of data.entries()) {
        if (!key.startsWith(`${path}.`) || v === "") continue;
        out[key.slice(path.length + 1)] = inner.type === "integer" || inner.type === "number" ? number(v) : v;
      }
      return Object.keys(out).length ? out : undefined;
    }
    if (node.type === "array") {
      const values = data.getAll(path);
      if (form.querySelector(`input[type="checkbox"][name="${CSS.escape(path)}"]`)) return values.length ? values : undefined;
      const text = String(values[0] ?? "").trim();
      return text ? text.split(",").map((s) => s.trim()).filter(Boolean) : undefined;
    }
    if (node.type === "boolean") return data.has(path) ? true : undefined;
    const v = data.get(path);
    if (v === null || v === "") return undefined;
    return node.type === "integer" || node.type === "number" ? number(v) : v;
  };
  const block = {};
  for (const [k, p] of Object.entries(schema.properties)) {
    const v = read(k, p);
    if (v !== undefined) block[k] = v;
  }
  return block;
}

/**
 * The stat block the server keeps for an actor in a ruleset (`ctx.vault`), else one an earlier
 * version left in its flags (not yet moved), else one to start from (its id and name).
 */
export async function savedBlock(ctx, actor, ruleset) {
  const stored = await ctx.vault().blockFor(actor, ruleset);
  if (stored && stored.stored !== true) return stored;
  const legacy = actor?.getFlag(ctx.module, LEGACY)?.[ruleset];
  if (legacy) return structuredClone(legacy);
  return { id: actor?.id ?? "", name: actor?.name ?? "" };
}

/**
 * Open the editor for `actor`. `ctx`: module, i18n, rules() (data/rules.json), vault() (the
 * client's vault: blockFor, put → {ok, problems} or null when no connection can store it).
 * Resolves with the saved block, or null when closed.
 */
export async function openEditor(ctx, actor, ruleset = undefined) {
  const all = ctx.rules().rulesets ?? {};
  const rulesets = Object.entries(all).map(([id, r]) => ({ id, name: r.title ?? id }));
  const known = { ...(actor.getFlag(ctx.module, LEGACY) ?? {}), ...(actor.getFlag(ctx.module, PARTICIPANT) ?? {}) };
  ruleset ??= Object.keys(known)[0] ?? rulesets[0]?.id;
  let block = await savedBlock(ctx, actor, ruleset);
  let problems = [];
  for (;;) {
    const schema = await statBlockSchema(ctx.module, ruleset);
    const data = all[ruleset]?.data ?? {};
    const combatants = data.combatants ?? [];
    let marked = false;
    const mark = (root) => {
      const editor = root?.querySelector?.(".arbiter-editor") ?? (root?.classList?.contains("arbiter-editor") ? root : null);
      if (marked || !editor) return;
      marked = true;
      markProblems(editor, problems);
    };
    const content = editorHtml({ schema, block, data, ruleset, rulesets, combatants, problems, i18n: ctx.i18n });
    const title = ctx.i18n("ARBITER.Editor.Title", { name: actor.name, title: all[ruleset]?.title ?? ruleset });
    const opened = foundry.applications.api.DialogV2.wait({
      window: { title },
      classes: ["arbiter-stat-block-editor"],
      position: { width: 560 },
      content,
      rejectClose: false,
      // V12 passes (event, html), V13+ (event, dialog): mark the refused fields once shown.
      render: (_event, shown) => mark(shown?.element ?? shown),
      buttons: [
        { action: "save", label: ctx.i18n("ARBITER.Editor.Save"), default: true, callback: (_e, button) => ({ action: "save", form: button.form }) },
        { action: "load", label: ctx.i18n("ARBITER.Editor.Load"), callback: (_e, button) => ({ action: "load", form: button.form }) },
        ...(Object.keys(mappingFor(ctx.module, game.system?.id, ruleset)?.fields ?? {}).length
          ? [{ action: "system", label: ctx.i18n("ARBITER.Editor.FromSystem", { system: game.system.title ?? game.system.id }), callback: (_e, button) => ({ action: "system", form: button.form }) }]
          : []),
        { action: "cancel", label: ctx.i18n("ARBITER.Dialog.Cancel"), callback: () => null },
      ],
    });
    if (!marked) {
      await new Promise((r) => setTimeout(r, 0));
      mark([...document.querySelectorAll(".arbiter-editor")].pop()?.parentElement);
    }
    const result = await opened;
    if (!result) return null;
    const form = result.form;
    const picked = { ruleset: form.elements.__ruleset?.value, from: form.elements.__from?.value };
    const edited = readForm(schema, form);
    problems = [];
    if (result.action === "load") {
      if (picked.ruleset && picked.ruleset !== ruleset) {
        ruleset = picked.ruleset;
        block = await savedBlock(ctx, actor, ruleset);
      } else if (picked.from) {
        const ready = combatants.find((c) => c.id === picked.from);
        // The ready combatant's numbers and gear, under this actor's id and name.
        block = { ...structuredClone(ready.stat_block), id: edited.id ?? actor.id, name: edited.name ?? actor.name };
      } else block = edited;
      continue;
    }
    if (result.action === "system") {
      // The actor's own data read by the mapping, for the GM to review before saving.
      block = readStatBlock(actor, mappingFor(ctx.module, game.system.id, ruleset));
      continue;
    }
    block = edited;
    // Stored on the server only if valid; the actor then notes its combatant's id.
    const answer = await ctx.vault().put(ruleset, block, actor);
    if (!answer) {
      problems = [{ field: "", message: ctx.i18n("ARBITER.Vault.NoServer") }];
      continue;
    }
    if (!answer.ok) {
      problems = answer.problems;
      continue;
    }
    return block;
  }
}

/**
 * Where the GM opens the editor (only the GM's connection stores stat blocks): the actor sheet's header (V1 sheets'
 * `getActorSheetHeaderButtons`; V2 sheets' `getHeaderControlsActorSheetV2`, V13+) and the token
 * HUD (`renderTokenHUD`: jQuery in V12, an HTMLElement since V13).
 */
export function registerEditorEntries(ctx, open) {
  const title = () => ctx.i18n("ARBITER.Editor.Open");
  Hooks.on("getActorSheetHeaderButtons", (sheet, buttons) => {
    if (!game.user.isGM || !sheet.actor) return;
    buttons.unshift({ label: title(), class: "arbiter-stat-block", icon: "fas fa-shield-halved", onclick: () => open(sheet.actor) });
  });
  Hooks.on("getHeaderControlsActorSheetV2", (app, controls) => {
    if (!game.user.isGM || !app.document) return;
    // A header control names an action the application looks up in its options at click time.
    app.options.actions ??= {};
    app.options.actions.arbiterStatBlock ??= () => open(app.document);
    controls.push({ icon: "fa-solid fa-shield-halved", label: title(), action: "arbiterStatBlock", ownership: "OWNER" });
  });
  Hooks.on("renderTokenHUD", (hud, html) => {
    const root = html instanceof HTMLElement ? html : html[0];
    const actor = hud.object?.actor ?? hud.document?.actor;
    const column = root?.querySelector(".col.right") ?? root;
    if (!game.user.isGM || !actor || !column) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "control-icon arbiter-stat-block";
    button.dataset.tooltip = title();
    button.setAttribute("aria-label", title());
    button.innerHTML = '<i class="fas fa-shield-halved"></i>';
    button.addEventListener("click", (event) => {
      event.preventDefault();
      open(actor);
    });
    column.append(button);
  });
}
