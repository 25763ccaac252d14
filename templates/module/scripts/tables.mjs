// Arbiter's RollTables (from its compendium, or imported into the world: they carry
// `flags.<module>.ruleset` and `.table`) are drawn by the server, whatever asks Foundry to
// draw them: the sheet's Roll button (V12 RollTableConfig, V13+ RollTableSheet: both call
// `RollTable#draw`), a macro or another module calling `draw`, `drawMany` or `roll`. Foundry
// has no hook before a draw in any generation, so the document class's methods are wrapped
// (for our tables only; every other table draws as Foundry does). The server rolls the
// table's die, logs it, and the outcome is posted as Arbiter's card; the wrapped method returns
// what Foundry's would — the roll (the server's die) and the table's results for it — without
// posting Foundry's own message or rolling a local die.

import { rollFromDie } from "./cards.mjs";

/** Our table's {ruleset, table}, or null for any other table. */
function arbiterTable(table, module) {
  const flags = table?.flags?.[module];
  return flags?.ruleset && flags?.table ? { ruleset: flags.ruleset, table: flags.table } : null;
}

/**
 * Route draws of Arbiter's tables to the server. `draw(ruleset, table)` sends the request
 * (and posts the card); it resolves with `{outcome}`.
 */
export function routeTableDraws({ module, draw }) {
  const cls = globalThis.CONFIG?.RollTable?.documentClass;
  const proto = cls?.prototype;
  if (!proto || proto.draw?.[module]) return false;
  const { draw: foundryDraw, drawMany: foundryDrawMany, roll: foundryRoll } = proto;

  /** One server draw: Foundry's `{roll, results}` for the die the server rolled. */
  async function serverDraw(table, ours) {
    const { outcome } = await draw(ours.ruleset, ours.table);
    const die = (outcome.dice ?? [])[0];
    const roll = rollFromDie(die ?? { faces: 100, result: outcome.result.roll, expr: "" });
    roll.options.arbiter = outcome.id; // a roll of ours: never sent to the server again
    return { roll, results: table.getResultsForRoll(outcome.result.roll) };
  }

  proto.roll = async function (options = {}) {
    const ours = arbiterTable(this, module);
    return ours ? serverDraw(this, ours) : foundryRoll.call(this, options);
  };
  proto.draw = async function (options = {}) {
    const ours = arbiterTable(this, module);
    if (!ours) return foundryDraw.call(this, options);
    // A roll the server already decided (roll() then draw({roll, results})) is not re-rolled.
    if (options.roll?.options?.arbiter && options.results) return { roll: options.roll, results: options.results };
    return serverDraw(this, ours);
  };
  if (foundryDrawMany) {
    proto.drawMany = async function (number, options = {}) {
      const ours = arbiterTable(this, module);
      if (!ours) return foundryDrawMany.call(this, number, options);
      const draws = [];
      for (let i = 0; i < number; i += 1) draws.push(await serverDraw(this, ours));
      return { roll: draws[draws.length - 1]?.roll, results: draws.flatMap((d) => d.results) };
    };
  }
  proto.draw[module] = true;
  return true;
}
