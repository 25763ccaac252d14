// The combat-styles request forms beyond the exchange, the check and the combat actions (`act`,
// in combat-styles-acts.mjs): spirit combat, starting an encounter, and the manoeuvres (leaping
// attack, outmanoeuvring, sweep attack, aerial pass, mounting, mounted withdrawal). Combatants
// are named by their stat blocks' ids: the selected token's acts, the targeted tokens' receive.
// The stat-block fields the combat-styles rules add (Magic Points, hands, fatigue …) are here too.

import { checkbox, encounterField, freeEncounter, ids, label, list, number, owners } from "./form-parts.mjs";

export const DEFENCES = {
  parry: "ARBITER.Dialog.Defences.parry",
  evade: "ARBITER.Dialog.Defences.evade",
  none: "ARBITER.Dialog.Defences.none",
  counterattack: "ARBITER.Dialog.Defences.counterattack",
};

const LUCK = { success: "ARBITER.Dialog.LuckPolicy.success", critical: "ARBITER.Dialog.LuckPolicy.critical" };
const THEN = { engage: "ARBITER.Dialog.ThenChoice.engage", withdraw: "ARBITER.Dialog.ThenChoice.withdraw" };

/** `<option>`s, a blank one first, of `{id: lang key}` (or ids shown as they are). */
export function choices(view, named) {
  const entries = Array.isArray(named) ? named.map((id) => [id, null]) : Object.entries(named);
  const shown = entries.map(([id, key]) => `<option value="${view.escapeHtml(id)}">${view.escapeHtml(key ? view.i18n(key) : id)}</option>`);
  return ['<option value="">—</option>', ...shown].join("");
}

export const text = (view, name, key, value) => label(view, key, `<input type="text" name="${name}" value="${view.escapeHtml(value ?? "")}">`);
const targetIds = (view) => (view.blocks.targets ?? []).map((b) => b.id).filter(Boolean).join(", ");
/** The attacker's weapons (else every melee weapon of the rules) as `<option>`s, his first one
 * selected unless `pickFirst` is false. */
export function weaponOptions(view, block, pickFirst = true) {
  const known = [...(view.rules.weapons ?? []), ...(view.rules.ranged_weapons ?? []), ...(view.rules.shields ?? [])];
  const mine = (block.weapons ?? []).map((id) => known.find((w) => w.id === id) ?? { id });
  return view.options(mine.length ? mine : view.rules.weapons ?? [], pickFirst ? mine[0]?.id : undefined);
}

/** One side of a contest: grades, grade steps, augment and luck, fields prefixed by `side`
 * (after `first`, the HTML of any field the side starts with). */
export function sideFields(view, side, legend, first = "") {
  return `<fieldset><legend>${view.escapeHtml(view.i18n(legend))}</legend>${first}${[
    label(view, "ARBITER.Dialog.Grade", `<select name="${side}_grades" multiple>${view.options(view.rules.grades ?? [])}</select>`),
    label(view, "ARBITER.Dialog.GradeSteps", `<input type="number" name="${side}_grade_steps" value="0" min="-6" max="6">`),
    label(view, "ARBITER.Dialog.Augment", `<input type="number" name="${side}_augment" value="0" min="0">`),
    label(view, "ARBITER.Dialog.Luck", `<select name="${side}_luck">${choices(view, LUCK)}</select>`),
  ].join("")}</fieldset>`;
}

export function sideBody(values, side) {
  const body = {
    [`${side}_grades`]: list(values[`${side}_grades`]),
    [`${side}_grade_steps`]: number(values[`${side}_grade_steps`]),
    [`${side}_augment`]: number(values[`${side}_augment`]),
  };
  if (values[`${side}_luck`]) body[`${side}_luck`] = values[`${side}_luck`];
  return body;
}

export const combatStylesForms = {
  "combat-styles.spirit_combat": {
    statBlocks: true,
    fields: (view) =>
      [sideFields(view, "attacker", "ARBITER.Dialog.Attacker"), sideFields(view, "defender", "ARBITER.Dialog.Defender"), encounterField(view, "")].join(""),
    request: (values, { blocks }) => {
      const body = { attacker: blocks.attacker.id, defender: blocks.defender.id, ...sideBody(values, "attacker"), ...sideBody(values, "defender") };
      // Without a named encounter the contest carries both stat blocks, as a free exchange does.
      if (!values.encounter) body.combatants = [blocks.attacker, blocks.defender];
      return { body, options: { encounter: values.encounter || freeEncounter(), owners: owners(blocks) } };
    },
  },

  "combat-styles.start_encounter": {
    statBlocks: true,
    fields: (view) =>
      [
        text(view, "surprised", "ARBITER.Dialog.Surprised", ""),
        label(view, "ARBITER.Dialog.FatigueChecks", '<input type="checkbox" name="fatigue_checks">'),
        encounterField(view),
      ].join(""),
    request: (values, { blocks }) => {
      // Every targeted token's remembered block joins the selected one's (each id once).
      const all = [blocks.attacker, blocks.defender, ...(blocks.targets ?? []).slice(1)].filter((b) => b?.id);
      const combatants = all.filter((b, i) => all.findIndex((o) => o.id === b.id) === i);
      const body = { combatants, surprised: ids(values.surprised), fatigue_checks: checkbox(values.fatigue_checks) };
      return { body, options: { encounter: values.encounter || "table", owners: owners(blocks) } };
    },
  },

  "combat-styles.leaping_attack": {
    statBlocks: false,
    fields: (view) => {
      const leap = view.rules.combat?.leaping_attack ?? {};
      const skills = [...(leap.defender_skills ?? []), leap.quadruped_defender_skill, "none"].filter((s, i, a) => s && a.indexOf(s) === i);
      return [
        text(view, "attacker", "ARBITER.Dialog.Attacker", view.blocks.attacker.id),
        text(view, "defender", "ARBITER.Dialog.Defender", view.blocks.defender.id),
        label(view, "ARBITER.Dialog.ResistWith", `<select name="resist_with">${choices(view, skills)}</select>`),
        label(view, "ARBITER.Dialog.Braced", '<input type="checkbox" name="defender_braced">'),
        label(view, "ARBITER.Dialog.AttackerAugment", '<input type="number" name="attacker_augment" value="0" min="0">'),
        label(view, "ARBITER.Dialog.DefenderAugment", '<input type="number" name="defender_augment" value="0" min="0">'),
        encounterField(view),
      ].join("");
    },
    request: (values) => {
      const body = {
        attacker: values.attacker,
        defender: values.defender,
        defender_braced: checkbox(values.defender_braced),
        attacker_augment: number(values.attacker_augment),
        defender_augment: number(values.defender_augment),
      };
      if (values.resist_with) body.resist_with = values.resist_with;
      const who = { [values.attacker]: [game.user.id], [values.defender]: [game.user.id], "*": [game.user.id] };
      return { body, options: { encounter: values.encounter || "table", owners: who } };
    },
  },

  "combat-styles.outmaneuver": {
    statBlocks: false,
    fields: (view) =>
      [
        text(view, "combatant", "ARBITER.Dialog.Combatant", view.blocks.attacker.id),
        text(view, "opponents", "ARBITER.Dialog.Opponents", targetIds(view)),
        label(view, "ARBITER.Dialog.Then", `<select name="then">${choices(view, THEN)}</select>`),
        text(view, "engage", "ARBITER.Dialog.Engage", ""),
        encounterField(view),
      ].join(""),
    request: (values) => {
      const body = { combatant: values.combatant, opponents: ids(values.opponents) };
      if (values.then) body.then = values.then;
      if (values.then === "engage") body.engage = values.engage || body.opponents[0];
      return { body, options: { encounter: values.encounter || "table" } };
    },
  },

  "combat-styles.sweep_attack": {
    statBlocks: false,
    fields: (view) => {
      const defences = Object.entries(DEFENCES).map(([id, key]) => ({ id, name: view.i18n(key) }));
      return [
        text(view, "attacker", "ARBITER.Dialog.Attacker", view.blocks.attacker.id),
        label(view, "ARBITER.Dialog.Weapon", `<select name="weapon">${weaponOptions(view, view.blocks.attacker)}</select>`),
        text(view, "targets", "ARBITER.Dialog.Targets", targetIds(view)),
        label(view, "ARBITER.Dialog.Defence", `<select name="defence">${view.options(defences, "parry")}</select>`),
        encounterField(view),
      ].join("");
    },
    request: (values) => {
      const targets = ids(values.targets).map((defender) => ({ defender, defence: values.defence || "parry" }));
      const who = Object.fromEntries([values.attacker, ...targets.map((t) => t.defender), "*"].map((id) => [id, [game.user.id]]));
      return { body: { attacker: values.attacker, weapon: values.weapon, targets }, options: { encounter: values.encounter || "table", owners: who } };
    },
  },

  "combat-styles.aerial_pass": {
    statBlocks: false,
    fields: (view) =>
      [
        text(view, "combatant", "ARBITER.Dialog.Combatant", view.blocks.attacker.id),
        text(view, "opponents", "ARBITER.Dialog.Opponents", targetIds(view)),
        label(view, "ARBITER.Dialog.AerialSkills", `<input type="text" name="skills" value="" placeholder="${view.escapeHtml((view.rules.combat?.aerial?.skills ?? []).join(" / "))}">`),
        encounterField(view),
      ].join(""),
    request: (values) => {
      // "knight=ride, griffon=fly": who jockeys with which skill (default the data's first).
      const skills = Object.fromEntries(ids(values.skills).map((pair) => pair.split("=").map((s) => s.trim())).filter((p) => p.length === 2 && p[0] && p[1]));
      return { body: { combatant: values.combatant, opponents: ids(values.opponents), skills }, options: { encounter: values.encounter || "table" } };
    },
  },

  "combat-styles.mount": {
    statBlocks: false,
    fields: (view) =>
      [
        text(view, "rider", "ARBITER.Dialog.Rider", view.blocks.attacker.id),
        text(view, "mount", "ARBITER.Dialog.Mount", view.blocks.defender.id),
        label(view, "ARBITER.Dialog.Dismount", '<input type="checkbox" name="dismount">'),
        encounterField(view),
      ].join(""),
    request: (values) => ({
      body: { rider: values.rider, mount: checkbox(values.dismount) ? null : values.mount },
      options: { encounter: values.encounter || "table" },
    }),
  },

  "combat-styles.mounted_withdraw": {
    statBlocks: false,
    fields: (view) =>
      [
        text(view, "rider", "ARBITER.Dialog.Rider", view.blocks.attacker.id),
        text(view, "opponents", "ARBITER.Dialog.Opponents", targetIds(view)),
        encounterField(view),
      ].join(""),
    request: (values) => ({
      body: { rider: values.rider, opponents: ids(values.opponents) },
      options: { encounter: values.encounter || "table" },
    }),
  },
};

/**
 * The optional stat-block fields of combat-styles, shown under each side's JSON and written
 * back into it (and so remembered on the actor): Magic Points, spirit-combat skill, ENC
 * carried, movement (metres; a mount's decides a free withdrawal), starting fatigue level,
 * body plan, style traits and what each hand holds. An emptied field removes the key (the
 * rule data's default applies).
 */
export const combatStylesStatFields = {
  fields(view, side, block) {
    const num = (key, name) => label(view, key, `<input type="number" min="0" name="${side}.${name}" value="${block[name] ?? ""}">`);
    const pick = (key, name, entries) =>
      label(view, key, `<select name="${side}.${name}"><option value=""></option>${view.options(entries, block[name])}</select>`);
    const traits = (view.rules.style_traits ?? []).map((t) => `<option value="${view.escapeHtml(t.id)}"${(block.traits ?? []).includes(t.id) ? " selected" : ""}>${view.escapeHtml(t.name ?? t.id)}</option>`).join("");
    const weapons = (block.weapons ?? []).map((id) => ({ id }));
    const hands = (view.rules.combat?.hands?.hands ?? []).map((h) => {
      const held = block.hands ? block.hands[h.id] ?? "-" : "";
      const empty = `<option value="-"${held === "-" ? " selected" : ""}>${view.escapeHtml(view.i18n("ARBITER.Dialog.EmptyHand"))}</option>`;
      return label(view, "ARBITER.Dialog.Hand", `<small>${view.escapeHtml(h.id)}</small> <select name="${side}.hand.${h.id}" data-hand="${view.escapeHtml(h.id)}"><option value=""></option>${empty}${view.options(weapons, held)}</select>`);
    });
    // Folded away unless the block already uses one of them.
    const used = ["magic_points", "spirit_combat", "enc", "movement", "fatigue", "body_plan", "traits", "hands"].some((k) => block[k] !== undefined);
    return `<details class="arbiter-stat-fields" data-side="${side}"${used ? " open" : ""}><summary>${view.escapeHtml(view.i18n("ARBITER.Dialog.StatFields"))}</summary>${[
      num("ARBITER.Dialog.MagicPoints", "magic_points"),
      num("ARBITER.Dialog.SpiritCombat", "spirit_combat"),
      num("ARBITER.Dialog.Enc", "enc"),
      num("ARBITER.Dialog.Movement", "movement"),
      pick("ARBITER.Dialog.Fatigue", "fatigue", view.rules.fatigue_levels ?? []),
      pick("ARBITER.Dialog.BodyPlan", "body_plan", view.rules.hit_location_tables ?? []),
      label(view, "ARBITER.Dialog.Traits", `<select name="${side}.traits" multiple>${traits}</select>`),
      ...hands,
    ].join("")}</details>`;
  },

  /**
   * `edited` (the side's JSON as submitted) with the fields written into it. A field still
   * showing what it was rendered with (from `original`) leaves the JSON's value alone, so an
   * edit of either the JSON or the field wins.
   */
  apply(values, side, edited, original, view) {
    const out = { ...edited };
    const write = (name, now, shown, value) => {
      if (now === shown) return;
      if (value === undefined) delete out[name];
      else out[name] = value;
    };
    for (const name of ["magic_points", "spirit_combat", "enc", "movement"]) {
      const now = values[`${side}.${name}`] ?? "";
      write(name, now, String(original[name] ?? ""), now === "" ? undefined : Number(now));
    }
    for (const name of ["fatigue", "body_plan"]) {
      const now = values[`${side}.${name}`] ?? "";
      write(name, now, original[name] ?? "", now || undefined);
    }
    const traits = list(values[`${side}.traits`]);
    write("traits", traits.join(","), (original.traits ?? []).join(","), traits.length ? traits : undefined);
    // Hands: blank everywhere is the default fill; otherwise every hand is stated.
    const handIds = (view.rules.combat?.hands?.hands ?? []).map((h) => h.id);
    const held = handIds.map((h) => [h, values[`${side}.hand.${h}`] ?? ""]);
    const shown = handIds.map((h) => (original.hands ? original.hands[h] ?? "-" : "")).join(",");
    const hands = held.every(([, v]) => v === "") ? undefined : Object.fromEntries(held.map(([h, v]) => [h, v === "" || v === "-" ? null : v]));
    write("hands", held.map(([, v]) => v).join(","), shown, hands);
    return out;
  },
};

/** Stat-block fields by ruleset (rulesets without extra fields edit the JSON only). */
export const STAT_FIELDS = { "combat-styles": combatStylesStatFields };
