// The GM's mapping from this world's game system to a ruleset's stat block (presets.mjs): a data
// path (and a scale) per stat-block field, listed from the ruleset's schema, and the rules for
// embedded items (skills, weapons, armour) as JSON. Saved in the world setting "mappings".

import { escapeHtml } from "./dialogs.mjs";
import { mappingFor } from "./presets.mjs";
import { statBlockSchema } from "./stat-block-editor.mjs";

/** Every field a mapping may fill: the schema's properties, nested objects' leaves by path. */
export function mappableFields(schema) {
  const out = [];
  const walk = (properties, prefix) => {
    for (const [name, prop] of Object.entries(properties)) {
      const ref = prop.$ref ? schema.$defs[prop.$ref.split("/").pop()] : null;
      if (ref?.properties) walk(ref.properties, `${prefix}${name}.`);
      else out.push(`${prefix}${name}`);
    }
  };
  walk(schema.properties, "");
  return out;
}

/** Open the mapping of `system` → `ruleset`; resolves with the saved mapping, or null. */
export async function editMapping(ctx, ruleset, system = game.system.id) {
  const schema = await statBlockSchema(ctx.module, ruleset);
  const current = mappingFor(ctx.module, system, ruleset) ?? { ruleset, fields: {}, items: [] };
  let problem = "";
  for (;;) {
    const rows = mappableFields(schema).map((field) => {
      const spec = current.fields?.[field] ?? {};
      return `<div class="form-group" data-field="${escapeHtml(field)}"><label>${escapeHtml(field)}</label><div class="form-fields">
        <input type="text" name="path:${escapeHtml(field)}" value="${escapeHtml(spec.path ?? "")}" placeholder="system.…">
        <input type="number" step="any" name="scale:${escapeHtml(field)}" value="${escapeHtml(spec.scale ?? "")}" placeholder="×"></div></div>`;
    });
    const content = `<div class="arbiter-dialog arbiter-mapping" data-system="${escapeHtml(system)}" data-ruleset="${escapeHtml(ruleset)}">
      ${problem ? `<p class="arbiter-problem">${escapeHtml(problem)}</p>` : ""}
      <p class="notes">${escapeHtml(ctx.i18n("ARBITER.Mapping.Hint"))}</p>${rows.join("")}
      <div class="form-group stacked"><label>${escapeHtml(ctx.i18n("ARBITER.Mapping.Items"))}</label>
      <textarea name="items" rows="8">${escapeHtml(JSON.stringify(current.items ?? [], null, 1))}</textarea></div></div>`;
    const form = await foundry.applications.api.DialogV2.wait({
      window: { title: ctx.i18n("ARBITER.Mapping.Title", { system, ruleset }) },
      content,
      rejectClose: false,
      buttons: [
        { action: "save", label: ctx.i18n("ARBITER.Editor.Save"), default: true, callback: (_e, button) => button.form },
        { action: "cancel", label: ctx.i18n("ARBITER.Dialog.Cancel"), callback: () => null },
      ],
    });
    if (!form) return null;
    const data = new FormData(form);
    const fields = {};
    for (const field of mappableFields(schema)) {
      const path = String(data.get(`path:${field}`) ?? "").trim();
      if (!path) continue;
      const scale = Number(data.get(`scale:${field}`));
      fields[field] = { path, ...(data.get(`scale:${field}`) && Number.isFinite(scale) ? { scale } : {}), ...(current.fields?.[field]?.map ? { map: current.fields[field].map } : {}) };
    }
    let items;
    try {
      items = JSON.parse(String(data.get("items") || "[]"));
      if (!Array.isArray(items)) throw new Error("not a list");
    } catch {
      problem = ctx.i18n("ARBITER.Dialog.BadJson", { field: ctx.i18n("ARBITER.Mapping.Items") });
      Object.assign(current, { fields });
      continue;
    }
    const mapping = { ruleset, fields, items, ...(current.vitals ? { vitals: current.vitals } : {}), ...(current.outcomes ? { outcomes: current.outcomes } : {}) };
    const all = { ...(game.settings.get(ctx.module, "mappings") ?? {}), [`${system}/${ruleset}`]: mapping };
    await game.settings.set(ctx.module, "mappings", all);
    return mapping;
  }
}
