// RollTable stand-in: what Foundry's table sheet does when a GM presses its Roll button
// (V12 RollTableConfig#_onRollTable, V13+ RollTableSheet: `this.document.draw()`). Foundry's own
// `draw` rolls the table's formula with the browser's random numbers (`roll`) and posts the
// result (`toMessage`); the harness records every such local roll, so a test can tell a draw
// the server decided from one Foundry decided.

/** `CONFIG.RollTable.documentClass`. `data`: a packed RollTable with its `results`. */
export function createRollTable(env) {
  class RollTable {
    constructor(data = {}) {
      Object.assign(this, { _id: null, name: "", formula: "1d100", flags: {}, results: [] }, structuredClone(data));
    }
    get id() {
      return this._id;
    }
    getFlag(scope, key) {
      return this.flags?.[scope]?.[key];
    }
    getResultsForRoll(value) {
      return this.results.filter((r) => r.range[0] <= value && value <= r.range[1]);
    }
    async roll(options = {}) {
      let roll = options.roll;
      if (!roll) {
        const faces = Number(/d(\d+)/.exec(this.formula)?.[1] ?? 100);
        const total = 1 + Math.floor(Math.random() * faces);
        env.record.localTableRolls.push({ table: this.id, total });
        roll = env.Roll.fromData({
          class: "Roll", formula: `1d${faces}`, evaluated: true, total, options: {}, dice: [],
          terms: [{ class: "Die", number: 1, faces, modifiers: [], results: [{ result: total, active: true }], options: {}, evaluated: true }],
        });
      }
      return { roll, results: this.getResultsForRoll(roll.total) };
    }
    async draw(options = {}) {
      let { roll, results } = options;
      if (!results) ({ roll, results } = await this.roll({ roll }));
      if (options.displayChat !== false) await this.toMessage(results, { roll });
      return { roll, results };
    }
    async toMessage(results, options = {}) {
      const content = results.map((r) => r.text ?? r.description ?? "").join("");
      return env.ChatMessage.create({ content, rolls: options.roll ? [options.roll] : [] });
    }
  }
  return RollTable;
}
