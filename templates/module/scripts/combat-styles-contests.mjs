// The combat-styles rolls that need no encounter: an opposed roll of two skills (`opposed`) and
// the exact odds of an attack against a defence (`odds`). Each side is a skill with the grades,
// grade steps, augment and luck of any contest. Field names follow docs/requests-combat-styles.md.

import { sideBody, sideFields } from "./combat-styles-forms.mjs";
import { checkbox, label, number } from "./form-parts.mjs";

/** A side's fieldset: its skill first, then the contest fields. */
function sideWithSkill(view, side, legend) {
  const skill = label(view, "ARBITER.Dialog.Skill", `<input type="number" name="${side}_skill" value="50" min="0" max="500">`);
  return sideFields(view, side, legend, skill);
}

/** A `Side` body (`skill`, `grades`, `grade_steps`, `augment`, `luck`) from the side's fields. */
function side(values, name) {
  const flat = sideBody(values, name);
  const out = {
    skill: number(values[`${name}_skill`]),
    grades: flat[`${name}_grades`],
    grade_steps: flat[`${name}_grade_steps`],
    augment: flat[`${name}_augment`],
  };
  if (flat[`${name}_luck`]) out.luck = flat[`${name}_luck`];
  return out;
}

export const combatStylesContests = {
  "combat-styles.opposed": {
    statBlocks: false,
    fields: (view) =>
      [
        sideWithSkill(view, "protagonist", "ARBITER.Dialog.Protagonist"),
        sideWithSkill(view, "antagonist", "ARBITER.Dialog.Antagonist"),
        label(view, "ARBITER.Dialog.Differential", '<input type="checkbox" name="differential" checked>'),
      ].join(""),
    request: (values) => ({
      body: { protagonist: side(values, "protagonist"), antagonist: side(values, "antagonist"), differential: checkbox(values.differential) },
      options: { encounter: null },
    }),
  },

  "combat-styles.odds": {
    statBlocks: false,
    fields: (view) =>
      [
        sideWithSkill(view, "attack", "ARBITER.Dialog.Attacker"),
        sideWithSkill(view, "defence", "ARBITER.Dialog.Defender"),
        label(view, "ARBITER.Dialog.NoDefence", '<input type="checkbox" name="no_defence">'),
        label(view, "ARBITER.Dialog.Surprise", '<input type="checkbox" name="surprise">'),
      ].join(""),
    request: (values) => ({
      body: {
        attack: side(values, "attack"),
        defence: checkbox(values.no_defence) ? null : side(values, "defence"),
        surprise: checkbox(values.surprise),
      },
      options: { encounter: null },
    }),
  },
};
