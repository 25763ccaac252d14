// Dialogs that declare a request. Combatants come from the selected (controlled) token and the
// targeted token; each combatant's stat block is the one the GM keeps on the Arbiter server
// (vault.mjs): the GM's dialog shows and sends it, a player's sends a reference the server fills
// in (an NPC's numbers never reach a player's browser). Choices come from the compiled rule
// data (weapons, grades, maneuvers, called shots); a karmic hand from the private whispers
// this user has seen. The server validates every body and answers a bad one with an error card.

import { STAT_FIELDS } from "./combat-styles-forms.mjs";
import { forms } from "./dialog-forms.mjs";
import { isReference, participantOf, vault } from "./vault.mjs";

export function escapeHtml(text) {
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text ?? "").replace(/[&<>"']/g, (c) => map[c]);
}

/** The combatants: the first selected token acts, the first targeted token receives
 * (`targets`: every targeted token, for requests against several foes). */
export function combatants() {
  const selected = canvas?.tokens?.controlled ?? [];
  const targeted = [...(game.user.targets ?? [])];
  return { actor: selected[0] ?? null, target: targeted[0] ?? null, targets: targeted };
}

/**
 * The stat block a request uses for a token's actor in a ruleset (async): the block the server
 * keeps, where this browser may read it (the GM; a player for his own participants); else a
 * reference to it (`{id, stored: true}`, which the server fills in); else a starting one (the
 * actor's id and name). `{}` without a token.
 */
export async function statBlock(module, token, ruleset) {
  if (!token) return {};
  const stored = token.actor ? await vault()?.blockFor(token.actor, ruleset) : null;
  return stored ?? { id: token.actor?.id ?? token.id, name: token.name };
}

/** The GM keeps a block changed in the dialog on the server (a valid one; the server refuses
 * the request with its reasons otherwise). A player's browser keeps nothing. */
async function remember(module, token, ruleset, block, before) {
  if (!token?.actor || !game.user.isGM || isReference(block)) return;
  if (JSON.stringify(block) === JSON.stringify(before)) return;
  await vault()?.put(ruleset, block, token.actor);
}

/** A JSON object from a text field; throws a translated error naming the field. */
export function parseJson(text, field, i18n) {
  try {
    const value = JSON.parse(text || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  throw new Error(i18n("ARBITER.Dialog.BadJson", { field }));
}

/** `<select>` options from a list of {id, name}. */
export function options(list, selected) {
  return list
    .map((o) => `<option value="${escapeHtml(o.id)}"${o.id === selected ? " selected" : ""}>${escapeHtml(o.name ?? o.id)}</option>`)
    .join("");
}

/**
 * Open the dialog for one request type and send what it declares. `ctx`: module, ruleset,
 * type, title, i18n, send(ruleset, type, body, options), rules (the ruleset's rule data),
 * hands (karmic: participant id → hand seen in private whispers), tables.
 */
export async function openDialog(ctx) {
  const form = forms[`${ctx.ruleset}.${ctx.type}`] ?? forms.generic;
  const { actor, target, targets } = combatants();
  const blocks = {
    attacker: await statBlock(ctx.module, actor, ctx.ruleset),
    defender: await statBlock(ctx.module, target, ctx.ruleset),
    targets: await Promise.all(targets.map((token) => statBlock(ctx.module, token, ctx.ruleset))),
  };
  const before = { attacker: blocks.attacker, defender: blocks.defender };
  const view = { ...ctx, actor, target, blocks, escapeHtml, options };
  const statFields = form.statBlocks ? STAT_FIELDS[ctx.ruleset] : null;
  const sides = form.statBlocks
    ? [
        ["attacker", actor, "ARBITER.Dialog.Attacker"],
        ["defender", target, "ARBITER.Dialog.Defender"],
      ]
        .map(([name, token, label]) => {
          const json = `<textarea name="${name}" rows="4">${escapeHtml(JSON.stringify(blocks[name]))}</textarea>`;
          // A block the editor saved needs no JSON here: the token is enough (the JSON stays
          // one click away, folded).
          const edited = participantOf(ctx.module, token?.actor, ctx.ruleset);
          const text = edited ? `<p class="arbiter-edited">${escapeHtml(ctx.i18n("ARBITER.Editor.FromActor"))}</p><details><summary>JSON</summary>${json}</details>` : json;
          const own = statFields && !isReference(blocks[name]);
          return `<fieldset><legend>${escapeHtml(ctx.i18n(label))}: ${escapeHtml(token?.name ?? ctx.i18n("ARBITER.Dialog.Nobody"))}</legend>
        ${text}${own ? statFields.fields(view, name, blocks[name]) : ""}</fieldset>`;
        })
        .join("")
    : "";
  const content = `<div class="arbiter-dialog" data-form="${escapeHtml(`${ctx.ruleset}.${ctx.type}`)}">${sides}${form.fields(view)}</div>`;
  const values = await foundry.applications.api.DialogV2.wait({
    window: { title: ctx.i18n("ARBITER.Dialog.Request", { title: ctx.title, request: ctx.type }) },
    content,
    rejectClose: false,
    buttons: [
      {
        action: "send",
        label: ctx.i18n("ARBITER.Dialog.Send"),
        default: true,
        callback: (_event, button) => {
          const data = new FormData(button.form);
          return Object.fromEntries([...data.keys()].map((k) => [k, data.getAll(k).length > 1 ? data.getAll(k) : data.get(k)]));
        },
      },
      { action: "cancel", label: ctx.i18n("ARBITER.Dialog.Cancel"), callback: () => null },
    ],
  });
  if (!values) return null;
  if (form.statBlocks) {
    for (const [name, token] of [["attacker", actor], ["defender", target]]) {
      const edited = parseJson(values[name], name, ctx.i18n);
      blocks[name] = statFields && !isReference(edited) ? statFields.apply(values, name, edited, blocks[name], view) : edited;
      await remember(ctx.module, token, ctx.ruleset, blocks[name], before[name]);
    }
  }
  const { type, body, options: requestOptions } = form.request(values, { ...view, blocks });
  return ctx.send(ctx.ruleset, type ?? ctx.type, body, requestOptions ?? {});
}
