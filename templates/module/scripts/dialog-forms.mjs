// The form of each request dialog: its fields (HTML from the rule data) and how the submitted
// values become a request body. Keyed by "<ruleset>.<type>"; `generic` takes a JSON body.
// Field names follow the request bodies documented in docs/requests-<ruleset>.md.

import { combatStylesActs } from "./combat-styles-acts.mjs";
import { combatStylesContests } from "./combat-styles-contests.mjs";
import { combatStylesForms, DEFENCES } from "./combat-styles-forms.mjs";
import { checkbox, freeEncounter, label, list, number, owners } from "./form-parts.mjs";

/** The encounter bound to the scene's combat (combat-tracker.mjs), when both sides of the
 * dialog (the selected and the targeted token) are in it; else "". */
function boundTo(view) {
  const ids = view.bound?.ids ?? [];
  const sides = [view.blocks?.attacker?.id, view.blocks?.defender?.id].filter(Boolean);
  return view.bound && sides.length && sides.every((id) => ids.includes(id)) ? view.bound.encounter : "";
}

/** The rider's skills that may defend his mount (`defended_with`). */
const RIDER_SKILLS = ["combat_style", "ride"];

export const forms = {
  generic: {
    statBlocks: false,
    fields: (view) => {
      const tables = view.tables?.length
        ? label(view, "ARBITER.Dialog.Table", `<select name="table">${view.options(view.tables)}</select>`)
        : "";
      return `${tables}${label(view, "ARBITER.Dialog.Body", '<textarea name="body" rows="4">{}</textarea>')}`;
    },
    request: (values, view) => {
      const body = JSON.parse(values.body || "{}");
      if (values.table) body.table = values.table;
      return { body };
    },
  },

  "combat-styles.exchange": {
    statBlocks: true,
    fields: (view) => {
      const weapons = [...(view.rules.weapons ?? []), ...(view.rules.ranged_weapons ?? [])];
      const parry = [...(view.rules.weapons ?? []), ...(view.rules.shields ?? [])];
      const defences = Object.entries(DEFENCES).map(([id, key]) => ({ id, name: view.i18n(key) }));
      return [
        label(view, "ARBITER.Dialog.Weapon", `<select name="weapon">${view.options(weapons, view.blocks.attacker.weapons?.[0])}</select>`),
        label(view, "ARBITER.Dialog.Defence", `<select name="defence">${view.options(defences, "parry")}</select>`),
        label(view, "ARBITER.Dialog.ParryWeapon", `<select name="parry_weapon"><option value=""></option>${view.options(parry, view.blocks.defender.weapons?.[0])}</select>`),
        label(view, "ARBITER.Dialog.Encounter", `<input type="text" name="encounter" value="${view.escapeHtml(boundTo(view))}" placeholder="—">`),
        label(view, "ARBITER.Dialog.ShowOdds", '<input type="checkbox" name="odds">'),
        label(view, "ARBITER.Dialog.MitigateAttacker", '<input type="checkbox" name="mitigate_attacker">'),
        label(view, "ARBITER.Dialog.MitigateDefender", '<input type="checkbox" name="mitigate_defender">'),
        label(view, "ARBITER.Dialog.Charging", '<input type="checkbox" name="charging">'),
        label(view, "ARBITER.Dialog.Mounted", '<input type="checkbox" name="mounted">'),
        label(view, "ARBITER.Dialog.BracedWeapon", '<input type="checkbox" name="braced_weapon">'),
        label(view, "ARBITER.Dialog.DefendedBy", '<input type="text" name="defended_by" value="">'),
        label(view, "ARBITER.Dialog.DefendedWith", `<select name="defended_with">${view.options(RIDER_SKILLS.map((id) => ({ id })), "combat_style")}</select>`),
      ].join("");
    },
    request: (values, { blocks }) => {
      const body = {
        attacker: blocks.attacker.id,
        defender: blocks.defender.id,
        weapon: values.weapon,
        defence: values.defence,
        odds: checkbox(values.odds),
      };
      if (values.parry_weapon) body.parry_weapon = values.parry_weapon;
      // Mitigate Damage: who spends a Luck Point should a blow leave him a Major wound.
      const mitigate = [["mitigate_attacker", blocks.attacker.id], ["mitigate_defender", blocks.defender.id]];
      const spenders = mitigate.filter(([field, id]) => checkbox(values[field]) && id).map(([, id]) => id);
      if (spenders.length) body.mitigate_damage = spenders;
      // Mounted combat: the situation's flags, and a rider defending his mount.
      const situation = Object.fromEntries(["charging", "mounted", "braced_weapon"].filter((f) => checkbox(values[f])).map((f) => [f, true]));
      if (Object.keys(situation).length) body.situation = situation;
      if (values.defended_by) Object.assign(body, { defended_by: values.defended_by, defended_with: values.defended_with || "combat_style" });
      // Without a named encounter the exchange carries both stat blocks and runs on its own.
      if (!values.encounter) body.combatants = [blocks.attacker, blocks.defender];
      return { body, options: { encounter: values.encounter || freeEncounter(), owners: owners(blocks) } };
    },
  },

  "combat-styles.check": {
    statBlocks: false,
    fields: (view) =>
      [
        label(view, "ARBITER.Dialog.Skill", '<input type="number" name="skill" value="50" min="0">'),
        label(view, "ARBITER.Dialog.Grade", `<select name="grades" multiple>${view.options(view.rules.grades ?? [])}</select>`),
        label(view, "ARBITER.Dialog.Label", '<input type="text" name="label" value="">'),
      ].join(""),
    request: (values) => {
      const body = { skill: number(values.skill), grades: list(values.grades) };
      if (values.label) body.label = values.label;
      return { body, options: { encounter: null } };
    },
  },

  "hmk.attack": {
    statBlocks: true,
    fields: (view) =>
      [
        label(view, "ARBITER.Dialog.Weapon", `<select name="weapon"><option value=""></option>${view.options(view.rules.weapons ?? [], view.blocks.attacker.weapon)}</select>`),
        label(view, "ARBITER.Dialog.Range", `<select name="range"><option value=""></option>${view.options(["short", "medium", "long"].map((id) => ({ id })))}</select>`),
        label(view, "ARBITER.Dialog.Modifier", '<input type="number" name="modifier" value="0">'),
        // In an encounter defending is the defender's own declaration, not the attack's.
        boundTo(view) ? "" : label(view, "ARBITER.Dialog.Defending", '<input type="checkbox" name="defending">'),
      ].join(""),
    request: (values, view) => {
      const { blocks } = view;
      // In the encounter bound to the scene's combat the attack names both by id; without an
      // encounter hmk takes whole stat blocks (docs/requests-hmk.md).
      const encounter = boundTo(view) || null;
      const body = encounter
        ? { attacker: blocks.attacker.id, defender: blocks.defender.id, modifier: number(values.modifier) }
        : { attacker: blocks.attacker, defender: blocks.defender, modifier: number(values.modifier) };
      if (values.weapon) body.weapon = values.weapon;
      if (values.range) body.range = values.range;
      // `defending` is an encounter's declaration there, not the attack's.
      if (!encounter) body.defending = checkbox(values.defending);
      return { body, options: { encounter, owners: owners(blocks) } };
    },
  },

  "hmk.initiative": {
    statBlocks: false,
    fields: (view) => label(view, "ARBITER.Dialog.Entrants", `<input type="text" name="entrants" value="${view.escapeHtml([view.actor?.name, view.target?.name].filter(Boolean).join(", "))}">`),
    request: (values) => ({
      body: {
        mode: "individual",
        entrants: String(values.entrants).split(",").map((s) => s.trim()).filter(Boolean).map((id) => ({ id, modifiers: [] })),
      },
      options: { encounter: null },
    }),
  },

  "karmic.register": {
    statBlocks: false,
    fields: (view) => {
      // The combatant: the selected token's, else the one whose hand this user was whispered.
      const seen = Object.keys(view.hands ?? {});
      const me = view.hands?.[view.blocks.attacker.id] ? view.blocks.attacker.id : (seen[0] ?? view.blocks.attacker.id);
      const hand = (view.hands?.[me] ?? []).map((c) => ({ id: c.card, name: `${c.value > 0 ? "+" : ""}${c.value}${c.hit ? " ✶" : ""}` }));
      return [
        label(view, "ARBITER.Dialog.Combatant", `<input type="text" name="combatant" value="${view.escapeHtml(me ?? "")}">`),
        label(view, "ARBITER.Dialog.Maneuver", `<select name="maneuver">${view.options(view.rules.maneuvers ?? [])}</select>`),
        label(view, "ARBITER.Dialog.Card", `<select name="card">${view.options(hand)}</select>`),
        label(view, "ARBITER.Dialog.Target", `<input type="text" name="target" value="${view.escapeHtml(view.blocks.defender.id ?? "")}">`),
        label(view, "ARBITER.Dialog.Location", `<select name="location"><option value=""></option>${view.options(view.rules.called_shots ?? [])}</select>`),
        label(view, "ARBITER.Dialog.OffHand", '<input type="checkbox" name="off">'),
        label(view, "ARBITER.Dialog.NoStep", '<input type="checkbox" name="nostep">'),
        label(view, "ARBITER.Dialog.Encounter", `<input type="text" name="encounter" value="${view.escapeHtml(boundTo(view) || "table")}">`),
      ].join("");
    },
    request: (values) => {
      const maneuver = { maneuver: values.maneuver, card: values.card, target: values.target, weapon: checkbox(values.off) ? "off" : "main" };
      if (checkbox(values.nostep)) maneuver.step = false;
      if (values.location) maneuver.location = values.location;
      return {
        type: "declare",
        body: { combatant: values.combatant, maneuvers: [maneuver] },
        options: { encounter: values.encounter || "table" },
      };
    },
  },

  "karmic.initiative": {
    statBlocks: false,
    fields: (view) =>
      [
        label(view, "ARBITER.Dialog.Between", `<input type="text" name="between" value="${view.escapeHtml([view.actor?.actor?.id, view.target?.actor?.id].filter(Boolean).join(", "))}">`),
        label(view, "ARBITER.Dialog.Encounter", `<input type="text" name="encounter" value="${view.escapeHtml(boundTo(view) || "table")}">`),
      ].join(""),
    request: (values) => ({
      type: "draw_initiative",
      body: { between: String(values.between).split(",").map((s) => s.trim()).filter(Boolean) },
      options: { encounter: values.encounter || "table" },
    }),
  },

  ...combatStylesForms,
  ...combatStylesActs,
  ...combatStylesContests,
};

// A karmic register's table actions: reveal it, then resolve it (the GM's; docs/requests-karmic.md).
for (const type of ["reveal", "resolve_register"]) {
  forms[`karmic.${type}`] = {
    statBlocks: false,
    fields: (view) =>
      [
        label(view, "ARBITER.Dialog.Register", '<input type="number" name="register" value="" min="1">'),
        label(view, "ARBITER.Dialog.Encounter", `<input type="text" name="encounter" value="${view.escapeHtml(view.bound?.encounter ?? "table")}">`),
      ].join(""),
    request: (values) => ({
      body: values.register ? { register: number(values.register) } : {},
      options: { encounter: values.encounter || "table" },
    }),
  };
}

// The karmic macros open their dialogs by request type (actions.py: `declare`,
// `draw_initiative`); their forms are named after the macros (register, initiative).
forms["karmic.declare"] = forms["karmic.register"];
forms["karmic.draw_initiative"] = forms["karmic.initiative"];
