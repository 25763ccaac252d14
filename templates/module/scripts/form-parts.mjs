// Small pieces every request form uses: form values read back as typed values, labelled
// fields, a fresh free encounter and who may answer an outcome's pending choices.

export const checkbox = (v) => v === "on" || v === true;
export const number = (v, fallback = 0) => (v === undefined || v === "" ? fallback : Number(v));
export const list = (v) => (v === undefined || v === null || v === "" ? [] : [].concat(v));
/** Comma-separated ids as a list (blanks dropped). */
export const ids = (v) => String(v ?? "").split(",").map((s) => s.trim()).filter(Boolean);

/** One labelled field; `key` is a `lang/en.json` key. */
export function label(view, key, inner) {
  return `<label>${view.escapeHtml(view.i18n(key))} ${inner}</label>`;
}

/** A fresh encounter id for a one-off exchange with its combatants inline. */
export function freeEncounter() {
  return `free-${foundry.utils.randomID(16)}`;
}

/** The encounter field: a named encounter (default `table`, the API's). */
export function encounterField(view, value = "table") {
  return label(view, "ARBITER.Dialog.Encounter", `<input type="text" name="encounter" value="${view.escapeHtml(value)}" placeholder="—">`);
}

/** Who may answer an outcome's pending choices: each side's actor's owners (and the asker). */
export function owners(blocks) {
  const result = {};
  for (const block of [blocks.attacker, blocks.defender, ...(blocks.targets ?? [])]) {
    if (block?.id) result[block.id] = [game.user.id];
  }
  result["*"] = [game.user.id];
  return result;
}
