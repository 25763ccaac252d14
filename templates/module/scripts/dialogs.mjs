// Dialogs that declare a request: combatants come from the selected (controlled) and targeted
// tokens, and each combatant's stat block is remembered on its actor (a flag per ruleset and
// request type) so the next exchange starts from the last values.

const FLAG = "statBlocks";

function escapeHtml(text) {
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text ?? "").replace(/[&<>"']/g, (c) => map[c]);
}

/** The combatants of an exchange: first selected token acts, first target receives. */
export function combatants() {
  const selected = canvas?.tokens?.controlled ?? [];
  const targeted = [...(game.user.targets ?? [])];
  return { actor: selected[0] ?? null, target: targeted[0] ?? null };
}

function remembered(module, token, key) {
  return token?.actor?.getFlag(module, FLAG)?.[key] ?? {};
}

async function remember(module, token, key, block) {
  if (!token?.actor) return;
  const blocks = { ...(token.actor.getFlag(module, FLAG) ?? {}), [key]: block };
  await token.actor.setFlag(module, FLAG, blocks);
}

function parseBlock(text, i18n) {
  try {
    const value = JSON.parse(text || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // fall through to the error below
  }
  throw new Error(i18n("ARBITER.Dialog.BadJson"));
}

/**
 * Open the dialog for one request type and send it. The body is built from the two stat
 * blocks (`attacker`, `defender`) plus the request's own fields; the server validates it and
 * answers with an error card naming any field at fault.
 */
export async function openDialog({ module, ruleset, type, title, i18n, send, tables }) {
  const { actor, target } = combatants();
  const key = `${ruleset}.${type}`;
  const sides = [
    ["attacker", actor, "ARBITER.Dialog.Attacker"],
    ["defender", target, "ARBITER.Dialog.Defender"],
  ];
  const blocks = sides
    .map(([name, token, label]) => {
      const block = JSON.stringify(remembered(module, token, key), null, 1);
      return `<fieldset><legend>${escapeHtml(i18n(label))}: ${escapeHtml(token?.name ?? i18n("ARBITER.Dialog.Nobody"))}</legend>
        <textarea name="${name}" rows="3">${escapeHtml(block)}</textarea></fieldset>`;
    })
    .join("");
  const tableField = tables?.length
    ? `<label>${escapeHtml(i18n("ARBITER.Dialog.Table"))} <select name="table">${tables
        .map((t) => `<option value="${escapeHtml(t.id)}">${escapeHtml(t.name)}</option>`)
        .join("")}</select></label>`
    : "";
  const content = `<div class="arbiter-dialog">${tableField}${tables?.length ? "" : blocks}
    <label>${escapeHtml(i18n("ARBITER.Dialog.Body"))}<textarea name="body" rows="3">{}</textarea></label></div>`;
  const form = await foundry.applications.api.DialogV2.wait({
    window: { title: i18n("ARBITER.Dialog.Request", { title, request: type }) },
    content,
    rejectClose: false,
    buttons: [
      {
        action: "send",
        label: i18n("ARBITER.Dialog.Send"),
        default: true,
        callback: (_event, button) => Object.fromEntries(new FormData(button.form).entries()),
      },
      { action: "cancel", label: i18n("ARBITER.Dialog.Cancel"), callback: () => null },
    ],
  });
  if (!form) return null;
  const body = parseBlock(form.body, i18n);
  if (form.table) body.table = form.table;
  for (const [name, token] of sides.map(([n, t]) => [n, t])) {
    if (form[name] === undefined) continue;
    const block = parseBlock(form[name], i18n);
    await remember(module, token, key, block);
    if (Object.keys(block).length) body[name] = { name: token?.name ?? name, ...block };
  }
  return send(ruleset, type, body);
}
