// The combat-styles `act` forms: the selected token's combatant takes one combat action in a
// named encounter — any action the rule data lists (the act dialog), or a preset one: readying
// or dropping a weapon, the follow-up trip, regaining his footing — and the round's own steps
// (initiative, the next turn, cycle or round, where the encounter stands). The encounter defaults to the
// named one this client saw last; the opponent (`target`) is chosen among the combatants seen in
// it and the targeted tokens; Regain Footing's skill among those `combat.regain_footing` lists.
// Field names follow the `act` body in docs/requests-combat-styles.md.

import { choices, text, weaponOptions } from "./combat-styles-forms.mjs";
import { checkbox, encounterField, label, list } from "./form-parts.mjs";

/** Actions `act` refuses: each is a request of its own (exchange, outmaneuver, mount). */
const OWN_REQUESTS = ["attack", "outmaneuver", "mount"];

/** The encounter a dialog acts in by default: the named one seen last, else the API's. */
const encounterOf = (view) => view.encounters?.last ?? "table";

/**
 * The opponent: blank (the engine decides — unengaged, or whoever holds him down; the only
 * entangled foe), else one of the encounter's combatants seen in chat, then the targeted
 * tokens' combatants; never the acting combatant himself.
 */
function targetField(view) {
  const known = view.encounters?.combatants?.[encounterOf(view)] ?? [];
  const targeted = (view.blocks.targets ?? []).map((b) => b.id).filter(Boolean);
  const foes = [...new Set([...known, ...targeted])].filter((id) => id !== view.blocks.attacker.id);
  return label(view, "ARBITER.Dialog.Opponent", `<select name="target">${choices(view, foes)}</select>`);
}

/** Regain Footing's skill: blank (his better one), else one `combat.regain_footing` allows. */
function footingSkillField(view) {
  const skills = view.rules.combat?.regain_footing?.skills ?? [];
  return label(view, "ARBITER.Dialog.FootingSkill", `<select name="skill">${choices(view, skills)}</select>`);
}

/** The optional body fields: sent only when given. */
function optional(values) {
  const body = {};
  if (values.weapon) body.weapon = values.weapon;
  const locations = list(values.locations);
  if (locations.length) body.locations = locations;
  if (checkbox(values.crouching)) body.crouching = true;
  if (values.target) body.target = values.target;
  if (values.skill) body.skill = values.skill;
  return body;
}

/** An `act` form: `action` (or the action chosen in the dialog when null) with `fields`. */
function actForm(action, fields) {
  return {
    statBlocks: false,
    fields: (view) =>
      [text(view, "combatant", "ARBITER.Dialog.Combatant", view.blocks.attacker.id), ...fields(view), encounterField(view, encounterOf(view))].join(""),
    request: (values) => ({
      type: "act",
      body: { combatant: values.combatant, action: action ?? values.action, ...optional(values) },
      options: { encounter: values.encounter || "table" },
    }),
  };
}

const weaponField = (view) => label(view, "ARBITER.Dialog.Weapon", `<select name="weapon">${weaponOptions(view, view.blocks.attacker)}</select>`);

/** Every action of the rule data `act` takes, with its kind, as `<option>`s. */
function actionField(view) {
  const actions = (view.rules.actions ?? []).filter((a) => !OWN_REQUESTS.includes(a.id));
  const shown = actions.map((a) => ({ id: a.id, name: `${a.name ?? a.id} (${a.kind})` }));
  return label(view, "ARBITER.Dialog.Action", `<select name="action">${view.options(shown)}</select>`);
}

/** The round's steps, each a request with an empty body (docs/requests-combat-styles.md). */
const ROUND_STEPS = {
  initiative: "ARBITER.Dialog.RoundStep.initiative",
  next_turn: "ARBITER.Dialog.RoundStep.next_turn",
  next_cycle: "ARBITER.Dialog.RoundStep.next_cycle",
  next_round: "ARBITER.Dialog.RoundStep.next_round",
  state: "ARBITER.Dialog.RoundStep.state",
};

export const combatStylesActs = {
  "combat-styles.round": {
    statBlocks: false,
    fields: (view) => {
      const steps = Object.entries(ROUND_STEPS).map(([id, key]) => ({ id, name: view.i18n(key) }));
      return [label(view, "ARBITER.Dialog.Step", `<select name="step">${view.options(steps)}</select>`), encounterField(view, encounterOf(view))].join("");
    },
    request: (values) => ({ type: values.step, body: {}, options: { encounter: values.encounter || "table" } }),
  },
  "combat-styles.act": actForm(null, (view) => [
    actionField(view),
    label(view, "ARBITER.Dialog.Weapon", `<select name="weapon"><option value="">—</option>${weaponOptions(view, view.blocks.attacker, false)}</select>`),
    label(view, "ARBITER.Dialog.WardLocations", `<select name="locations" multiple>${view.options(view.rules.hit_locations ?? [])}</select>`),
    label(view, "ARBITER.Dialog.Crouching", '<input type="checkbox" name="crouching">'),
    targetField(view),
    footingSkillField(view),
  ]),
  "combat-styles.ready_weapon": actForm("ready_weapon", (view) => [weaponField(view)]),
  "combat-styles.drop_weapon": actForm("drop_weapon", (view) => [weaponField(view)]),
  "combat-styles.trip_entangled": actForm("trip_entangled", (view) => [targetField(view)]),
  "combat-styles.regain_footing": actForm("regain_footing", (view) => [targetField(view), footingSkillField(view)]),
};
