// The encounters this client has seen in chat, by ruleset: each encounter's combatants (the
// ids its outcomes named, in the order first named) and the named encounter seen last. Dialogs
// offer them as choices (an opponent, the encounter to act in); the server's state stays the
// authority, and refuses a combatant the encounter does not have.

const seen = {}; // ruleset → {last, combatants: {encounter → [ids]}}

/** The combatant ids an outcome's result names: a start's `combatants`, an initiative
 * `order`, the round snapshot's `action_points` (lists of plain ids only). */
function combatantIds(result) {
  const lists = [result?.combatants, result?.order].filter(Array.isArray);
  const named = lists.flatMap((l) => l.filter((id) => typeof id === "string"));
  const points = result?.action_points && typeof result.action_points === "object" ? Object.keys(result.action_points) : [];
  return [...named, ...points];
}

/** Note an outcome this client has seen (posted or rendered). */
export function noteOutcome(outcome) {
  if (!outcome?.ruleset || !outcome.encounter) return;
  const mine = (seen[outcome.ruleset] ??= { last: null, combatants: {} });
  const known = (mine.combatants[outcome.encounter] ??= []);
  for (const id of combatantIds(outcome.result)) if (!known.includes(id)) known.push(id);
  // A one-off exchange's fresh `free-…` encounter is not where the table's fight goes on.
  if (!outcome.encounter.startsWith("free-")) mine.last = outcome.encounter;
}

/** What this client knows of a ruleset's encounters: `{last, combatants: {encounter → ids}}`. */
export function encountersOf(ruleset) {
  const mine = seen[ruleset] ?? { last: null, combatants: {} };
  return { last: mine.last, combatants: Object.fromEntries(Object.entries(mine.combatants).map(([e, ids]) => [e, [...ids]])) };
}
