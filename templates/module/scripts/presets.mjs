// A stat block read from the world's game system: the actor's own data and embedded items, by a
// mapping (a data path per stat-block field, and rules for embedded items such as skills and
// weapons). Presets for HârnMaster 3 (system "hm3" → hmk) and Mythras ("mythras-foundry" →
// combat-styles) are shaped from those systems' data models (docs/client.md); a GM edits the
// mapping of any system (world setting "mappings", `api.statBlocks.editMapping`). The mapping
// only reads and renames: every number the engines decide with is still the server's to check.

/**
 * Mapping shape. `fields`: stat-block path → {path, scale?, map?}. `items`: rules, each
 * {type, where?: {path: value}, into, key?, value, first?, best?, only?}:
 *  - `into` a stat-block path: a list gets every matching item's value, unless `first` (the first
 *    one) or `best` (the value ranked last in that list of ids wins); with `key`, a mapping.
 *  - `key` / `value`: {path, map?, scale?, skill?, each?, via?}: `skill` names a path whose value
 *    is the name of another item whose `path` is read (HM3 weapons name their skill); `each`
 *    reads a list of item ids and `via` {path, map} reads each of those items (Mythras armour
 *    names the hit-location items it covers).
 *  - `map`: value → id (exact, else case-insensitive); `only`: drop values the map lacks.
 * `outcomes` (optional): where outcomes land in the system's own data (system-fields.mjs):
 * `locations` {type, key, value} (hit-location items and the path of their current hit points),
 * `injuries` {type, ipPerLevel} (an item per injuring blow), `statuses` (condition → the
 * system's own status effect id). `vitals` {value, max}: data paths the total is written to.
 */
const HM3_WEAPONS = {
  Broadsword: "long-sword", Longsword: "long-sword", Shortsword: "short-sword", Bastard_Sword: "long-sword",
  Greatsword: "two-handed-sword", Dagger: "dagger", Knife: "dagger", Keltan: "dagger", Handaxe: "hand-axe",
  Battleaxe: "battle-axe", Club: "club", Mace: "mace", Morningstar: "mace", Warhammer: "war-hammer",
  Staff: "quarterstaff", Spear: "spear", Shortbow: "short-bow", Longbow: "long-bow", Hartbow: "long-bow",
  Light_Crossbow: "light-crossbow", Heavy_Crossbow: "heavy-crossbow",
}; // fmt: keys with "_" match names with spaces
const HM3_ARMOUR = ["Cloth", "Quilt", "Leather", "Kurbul", "Ring", "Mail", "Scale", "Plate"];
const HM3_ARMOUR_IDS = { Cloth: "padded", Quilt: "padded", Leather: "leather", Kurbul: "studded-leather", Ring: "ring-mail", Mail: "chain-mail", Scale: "scale-mail", Plate: "plate" };

const MYTHRAS_SKILLS = { aguante: "endurance", atletismo: "athletics", evadir: "evade", musculo: "brawn", voluntad: "willpower", montar: "ride", nadar: "swim", pelea: "unarmed", acrobacias: "acrobatics" };
const MYTHRAS_WEAPONS = {
  daga: "dagger", cuchillo: "knife", hachuela: "hatchet", "main-gauche": "main_gauche", clava: "club", maza: "mace",
  "espada-corta": "shortsword", "espada-ancha": "broadsword", cimitarra: "scimitar", alfanje: "falchion", sable: "sabre",
  "hacha-batalla": "battleaxe_1h", mayal: "flail", "bola-cadena": "ball_and_chain", "pico-militar": "military_pick",
  "espada-larga": "longsword_1h", estoque: "rapier", "lanza-corta": "shortspear", tridente: "trident", red: "net",
  latigo: "whip", "lanza-caballeria": "lance", "cuerda-estrangular": "garrotte", baston: "quarterstaff",
  "gran-hacha": "great_axe", "gran-clava": "great_club", "gran-martillo": "great_hammer", espadon: "greatsword",
  "alabarda-hacha-armas": "halberd", "lanza-larga": "longspear", "pica-sarisa": "pike", "mayal-militar": "military_flail",
  "guja-ronfea": "glaive", "puno-patada": "unarmed", rodela: "buckler", heraldo: "heater", pelta: "peltast",
  tarja: "target_shield", vikingo: "viking_shield", hoplon: "hoplite_shield", cometa: "kite_shield", "scutum-paves": "scutum",
};
const MYTHRAS_ARMOUR = { "natural-cured": "natural", "padded-reinforced": "padded", laminated: "laminated", scales: "scaled", cuirass: "half_plate", mail: "mail", "plate-mail": "plated_mail", "articulated-plate": "articulated_plate" };
const MYTHRAS_LOCATIONS = { "Pierna derecha": "right_leg", "Pierna izquierda": "left_leg", Abdomen: "abdomen", Pecho: "chest", "Brazo derecho": "right_arm", "Brazo izquierdo": "left_arm", Cabeza: "head", "Right Leg": "right_leg", "Left Leg": "left_leg", Chest: "chest", "Right Arm": "right_arm", "Left Arm": "left_arm", Head: "head" };

const spaced = (map) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k.replaceAll("_", " "), v]));
const ability = (name) => ({ path: `system.abilities.${name}.base`, scale: 5 });

export const PRESETS = {
  // HârnMaster 3 (toastygm/HarnMaster-3-FoundryVTT): abilities are 3–18 and rolled against
  // ability × 5 on d100, as hmk's attributes are; skills are `skill` items (type "Combat") whose
  // effective mastery level is the d100 target; a weapon names its skill (`assocSkill`).
  "hm3/hmk": {
    ruleset: "hmk",
    fields: {
      name: { path: "name" },
      "attributes.STR": ability("strength"),
      "attributes.DEX": ability("dexterity"),
      "attributes.AGL": ability("agility"),
      "attributes.HEA": ability("stamina"),
      "attributes.INT": ability("intelligence"),
      "attributes.AWA": ability("eyesight"),
      // HM3 has no injury points: three per point of its endurance (ours; GM-editable).
      ip: { path: "system.endurance", scale: 3 },
    },
    items: [
      { type: "skill", where: { name: "Awareness" }, into: "attributes.AWA", first: true, value: { path: "system.effectiveMasteryLevel" } },
      { type: "skill", where: { name: "Dodge" }, into: "defensive_tactics", first: true, value: { path: "system.effectiveMasteryLevel" } },
      { type: "weapongear", where: { "system.isEquipped": true }, into: "weapon", first: true, value: { path: "name", map: spaced(HM3_WEAPONS) } },
      { type: "weapongear", where: { "system.isCarried": true }, into: "weapons", value: { path: "name", map: spaced(HM3_WEAPONS) } },
      { type: "weapongear", into: "skills", key: { path: "name", map: spaced(HM3_WEAPONS) }, value: { skill: "system.assocSkill", path: "system.effectiveMasteryLevel" } },
      { type: "armorgear", where: { "system.isEquipped": true }, into: "armor", best: HM3_ARMOUR.map((m) => HM3_ARMOUR_IDS[m]), value: { path: "system.material", map: HM3_ARMOUR_IDS } },
    ],
    // Each injuring blow becomes an HM3 `injury` item (template.json: injuryLevel, healRate,
    // notes; the system derives `severity`, its total injury levels and penalties from it).
    // Its level is the IP suffered / 3: the inverse of `ip = endurance × 3` above (ours).
    outcomes: { injuries: { type: "injury", ipPerLevel: 3 } },
  },
  // Mythras (bfgcuga/mythras-foundry): characteristics on the actor's system data; skills are
  // `skill` items with a `slug` and a derived `total`; the combat style a `combatStyle` item;
  // weapons `weapon` items (their `profileKey`); armour `armor` items covering hit-location items.
  "mythras-foundry/combat-styles": {
    ruleset: "combat-styles",
    fields: {
      name: { path: "name" },
      "characteristics.str": { path: "system.strength" },
      "characteristics.con": { path: "system.constitution" },
      "characteristics.siz": { path: "system.size" },
      "characteristics.dex": { path: "system.dexterity" },
      "characteristics.int": { path: "system.intelligence" },
      "characteristics.pow": { path: "system.power" },
      "characteristics.cha": { path: "system.charisma" },
    },
    items: [
      { type: "skill", into: "skills", only: true, key: { path: "system.slug", map: MYTHRAS_SKILLS }, value: { path: "system.total" } },
      { type: "combatStyle", into: "skills.combat_style", first: true, value: { path: "system.total" } },
      { type: "weapon", where: { "system.equipped": true }, into: "weapons", value: { path: "system.profileKey", map: MYTHRAS_WEAPONS } },
      { type: "armor", where: { "system.equipped": true }, into: "armor", key: { each: "system.coveredLocationIds", via: { path: "name", map: MYTHRAS_LOCATIONS } }, value: { path: "system.profileKey", map: MYTHRAS_ARMOUR } },
      { type: "hitLocation", into: "hit_points", key: { path: "name", map: MYTHRAS_LOCATIONS }, value: { path: "system.maxHitPoints" } },
    ],
    // A blow's hit points left go to its `hitLocation` item's `system.currentHitPoints` (the
    // system derives the wound level from it); conditions show as the system's own statuses
    // (scripts/rules/statuses.js, registered at its init), core's or Arbiter's otherwise. Not its
    // `incapacitated`: Mythras sets and clears that one itself from the hit points (its
    // updateItem hook, syncIncapacitatedStatus), and two hands on one status would fight.
    outcomes: {
      locations: { type: "hitLocation", key: { path: "name", map: MYTHRAS_LOCATIONS }, value: "system.currentHitPoints" },
      statuses: { serious: "seriousWound", stunned: "stunned" },
    },
  },
};

// Simple Worldbuilding's actors carry `health` {value, min, max} (its template): vitals only,
// written back after each outcome (tabletop.mjs) so the token's bar shows them.
const WORLDBUILDING_VITALS = { fields: {}, items: [], vitals: { value: "system.health.value", max: "system.health.max" } };
for (const ruleset of ["hmk", "combat-styles", "karmic"]) PRESETS[`worldbuilding/${ruleset}`] = { ruleset, ...WORLDBUILDING_VITALS };

/** The value at a dotted path of an object (`system.abilities.strength.base`). */
export function valueAt(object, path) {
  let value = object;
  for (const step of String(path).split(".")) value = value?.[step];
  return value;
}

function setAt(object, path, value) {
  const steps = path.split(".");
  let node = object;
  for (const step of steps.slice(0, -1)) node = node[step] ??= {};
  node[steps.at(-1)] = value;
}

function translate(value, spec) {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "number" && spec.scale) return Math.round(value * spec.scale);
  if (spec.map && typeof value === "string") {
    if (value in spec.map) return spec.map[value];
    const key = Object.keys(spec.map).find((k) => k.toLowerCase() === value.toLowerCase());
    if (key) return spec.map[key];
    if (spec.only) return undefined;
    return value.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  }
  return value;
}

function itemsOf(actor) {
  return actor.items ? Array.from(actor.items) : [];
}

/** The values one item gives a rule's `key` or `value` (several for `each`). */
function readItem(item, spec, actor, only) {
  if (spec.each) {
    const ids = valueAt(item, spec.each) ?? [];
    return ids.map((id) => itemsOf(actor).find((i) => i.id === id || i._id === id)).filter(Boolean).map((i) => translate(valueAt(i, spec.via.path), { ...spec.via, only }));
  }
  let source = item;
  if (spec.skill) {
    const name = valueAt(item, spec.skill);
    source = itemsOf(actor).find((i) => i.name === name && i !== item);
    if (!source) return [undefined];
  }
  return [translate(valueAt(source, spec.path), { ...spec, only })];
}

function matches(item, rule) {
  if (item.type !== rule.type) return false;
  return Object.entries(rule.where ?? {}).every(([path, want]) => valueAt(item, path) === want);
}

/**
 * The stat block `mapping` reads from `actor` (its id and name unless the mapping says
 * otherwise). Fields the actor lacks are left out: the server names whatever is then missing.
 */
export function readStatBlock(actor, mapping) {
  const block = { id: actor.id, name: actor.name };
  for (const [field, spec] of Object.entries(mapping.fields ?? {})) {
    const value = translate(valueAt(actor, spec.path), spec);
    if (value !== undefined) setAt(block, field, value);
  }
  for (const rule of mapping.items ?? []) {
    const items = itemsOf(actor).filter((i) => matches(i, rule));
    let done = false;
    for (const item of items) {
      const values = readItem(item, rule.value, actor, false);
      const value = values[0];
      if (value === undefined) continue;
      if (rule.key) {
        for (const key of readItem(item, rule.key, actor, rule.only)) {
          if (key === undefined) continue;
          const map = valueAt(block, rule.into) ?? {};
          map[key] = value;
          setAt(block, rule.into, map);
        }
      } else if (rule.best) {
        const now = valueAt(block, rule.into);
        if (now === undefined || rule.best.indexOf(value) > rule.best.indexOf(now)) setAt(block, rule.into, value);
      } else if (rule.first) {
        if (!done) setAt(block, rule.into, value);
        done = true;
      } else {
        const list = valueAt(block, rule.into) ?? [];
        if (!list.includes(value)) list.push(value);
        setAt(block, rule.into, list);
      }
    }
  }
  return block;
}

/** The mapping for this world's system and a ruleset: the GM's, else a preset, else null. */
export function mappingFor(module, system, ruleset) {
  const own = game.settings.get(module, "mappings")?.[`${system}/${ruleset}`];
  return own ?? PRESETS[`${system}/${ruleset}`] ?? null;
}
