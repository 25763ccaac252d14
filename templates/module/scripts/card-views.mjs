// What the chat cards draw besides the result's own fields: the tables of combatants, the odds
// as a chart of the outcome distribution, a blow on a body outline built from the rule data's
// hit locations. Plain data for the Handlebars templates (numbers already turned into widths),
// computed from the public result only.

/** A share as a CSS percentage (0–100, one decimal), never NaN. */
function percent(part, whole) {
  if (!whole || !Number.isFinite(part)) return 0;
  return Math.max(0, Math.min(100, Math.round((1000 * part) / whole) / 10));
}

/** An hmk summary's lasting conditions (docs/requests-hmk.md) as labels: a translation key, or
 * a condition's own name (`condition:hearing-halved`). */
function hmkLasting(lasting) {
  return (lasting ?? []).map((kind) => {
    const text = String(kind);
    if (text.startsWith("condition:")) return { kind: "condition", name: text.slice("condition:".length) };
    return { kind: text, key: "ARBITER.Lasting." + text }; // the family in lang/en.json
  });
}

/** HMK: every combatant's summary as a row (name, IP left as a bar, status, death timer, what
 * lasts). */
function hmkCombatants(combatants) {
  return Object.entries(combatants ?? {}).map(([id, c]) => ({
    id,
    name: c.name ?? id,
    ip: c.ip,
    max: c.max_ip,
    width: percent(c.ip, c.max_ip),
    status: c.status ?? "active",
    deathIn: c.death_in ?? null,
    lasting: hmkLasting(c.lasting),
  }));
}

/** Combat Styles: every combatant's action points as pips, whose turn it is marked. */
function turns(result) {
  return Object.entries(result.action_points ?? {}).map(([id, ap]) => ({
    id,
    current: id === result.current,
    ap,
    pips: ap === null || ap === undefined ? "—" : "●".repeat(Math.max(0, ap)) || "○",
  }));
}

/** The four d100 levels of a Combat Styles side, as the segments of one bar. */
const LEVELS = ["critical", "success", "failure", "fumble"];

function levelBar(label, side) {
  if (!side?.levels) return null;
  return {
    label,
    target: side.target,
    segments: LEVELS.filter((l) => side.levels[l]).map((l) => ({
      level: l,
      width: percent(side.levels[l].p, 1),
      exact: side.levels[l].exact,
    })),
  };
}

/**
 * Combat Styles odds: each side's levels as a bar, and the special effects won as a column
 * chart from the defender's three effects to the attacker's three (none in the middle).
 */
function csOdds(result) {
  const columns = [];
  const push = (who, n, share) => share && columns.push({ who, n, exact: share.exact, p: share.p });
  for (const n of ["3", "2", "1"]) push("defender", n, result.effects?.defender?.[n]);
  if (result.no_effects) columns.push({ who: "none", n: "0", exact: result.no_effects.exact, p: result.no_effects.p });
  for (const n of ["1", "2", "3"]) push("attacker", n, result.effects?.attacker?.[n]);
  const top = Math.max(...columns.map((c) => c.p), 0);
  return {
    bars: [levelBar("attack", result.attack), levelBar("defence", result.defence)].filter(Boolean),
    columns: columns.map((c) => ({ ...c, height: percent(c.p, top) })),
  };
}

/** HMK odds: one bar of the d100 — critical, plain hit, miss, fumble — out of its faces. */
function hmkOdds(result) {
  const faces = result.faces ?? 100;
  const critical = result.critical?.count ?? 0;
  const parts = [
    { level: "critical", count: critical, exact: result.critical?.exact },
    { level: "success", count: (result.hit?.count ?? 0) - critical, exact: null },
    { level: "failure", count: result.miss?.count ?? 0, exact: result.miss?.exact },
    { level: "fumble", count: result.fumble?.count ?? 0, exact: result.fumble?.exact },
  ];
  return {
    bars: [{ label: "strike", target: result.chance?.effective, segments: parts.filter((p) => p.count > 0).map((p) => ({ ...p, width: percent(p.count, faces), exact: p.exact ?? `${p.count}/${faces}` })) }],
    columns: [],
  };
}

/**
 * Where a location sits on a figure facing the viewer (its right side on our left), by the
 * words of its id: the rule data names the locations, this only places them. A location no
 * word places is drawn in a column beside the figure, so every location of the data is shown.
 */
const PLACES = [
  [/head/, { x: 43, y: 2, w: 22, h: 22, rx: 11 }],
  [/chest|thorax|torso/, { x: 37, y: 26, w: 34, h: 28, rx: 4 }],
  [/abdomen|belly|waist/, { x: 39, y: 56, w: 30, h: 22, rx: 4 }],
  [/right.*arm|arm.*right/, { x: 21, y: 26, w: 14, h: 50, rx: 6 }],
  [/left.*arm|arm.*left/, { x: 73, y: 26, w: 14, h: 50, rx: 6 }],
  [/right.*leg|leg.*right/, { x: 39, y: 80, w: 14, h: 56, rx: 6 }],
  [/left.*leg|leg.*left/, { x: 55, y: 80, w: 14, h: 56, rx: 6 }],
];

/** A blow on the body outline: every hit location of the rule data, the one struck marked. */
function bodyOutline(locations, struck) {
  if (!struck || !Array.isArray(locations) || !locations.length) return null;
  let spare = 0;
  const parts = locations.map((l) => {
    const found = PLACES.find(([pattern]) => pattern.test(l.id));
    const box = found ? found[1] : { x: 92, y: 2 + 20 * spare++, w: 16, h: 16, rx: 3 };
    return { id: l.id, name: l.name ?? l.id, ...box, hit: l.id === struck };
  });
  if (!parts.some((p) => p.hit)) return null;
  // As shares of the figure's box (HTML boxes, not SVG: chat content keeps plain elements).
  const width = spare ? 110 : 90;
  const height = Math.max(138, 4 + 20 * spare);
  const box = (p) => ({
    ...p,
    left: percent(p.x, width), top: percent(p.y, height), width: percent(p.w, width), height: percent(p.h, height),
    round: p.rx >= p.w / 2 ? "50%" : `${p.rx}px`,
  });
  return { parts: parts.map(box), ratio: `${width} / ${height}`, struck: parts.find((p) => p.hit).name };
}

/** The karmic plays of a reveal or a view's register, per combatant in the order played. */
function plays(declarations) {
  return Object.entries(declarations ?? {}).map(([combatant, list]) => ({
    combatant,
    plays: (list ?? []).map((p, play) => ({ ...p, play, targets: (p.targets ?? []).join(", ") })),
  }));
}

/** Karmic: a duel's (or a view's) fighters with vitality, hand size, weapons and effects. */
function duellists(view) {
  return Object.entries(view?.combatants ?? {}).map(([id, c]) => ({
    id,
    ...c,
    effects: (c.effects ?? []).map((e) => e.effect ?? e.kind ?? "").filter(Boolean),
  }));
}

/** Karmic: each pair of duellists with its range and who holds the initiative. */
function pairs(view) {
  return Object.entries(view?.pairs ?? {}).map(([key, p]) => ({ between: key.split("|").join(" ⟷ "), ...p }));
}

/**
 * What a card draws for an outcome (`final`: the result it shows, a resolved one included),
 * given the compiled rule data of every ruleset (`rules`: data/rules.json's `rulesets`).
 */
export function cardView(outcome, final, rules) {
  const kind = final?.kind;
  const view = {};
  if (outcome.ruleset === "hmk") {
    if (final?.combatants) view.combatants = hmkCombatants(final.combatants);
    if (kind === "odds") view.chart = hmkOdds(final);
  }
  if (outcome.ruleset === "combat-styles") {
    if (final?.action_points) view.turns = turns(final);
    if (kind === "odds") view.chart = csOdds(final);
    const locations = rules?.["combat-styles"]?.data?.hit_locations;
    // By defender: a sweep attack's every pair has a blow of its own.
    const exchanges = kind === "sweep_attack" ? (final.exchanges ?? []) : [final ?? {}];
    view.bodyOf = Object.fromEntries(exchanges.map((e) => [e.defender, bodyOutline(locations, e.blow?.location)]));
  }
  if (outcome.ruleset === "karmic") {
    if (final?.declarations) view.plays = plays(final.declarations);
    if (final?.ranges) view.ranges = Object.entries(final.ranges).map(([key, r]) => ({ between: key.split("|").join(" ⟷ "), ...r }));
    const duel = kind === "duel" ? final.view : kind === "view" ? final : null;
    if (duel) {
      view.duellists = duellists(duel);
      view.pairs = pairs(duel);
      view.registers = (duel.registers ?? []).map((r) => ({ number: r.number, resolved: r.resolved, revealed: r.revealed, plays: plays(r.declarations) }));
      view.deck = duel.deck ?? null;
    }
  }
  return view;
}
