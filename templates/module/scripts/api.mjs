// The module's API (`game.modules.get("arbiter").api`): requests, choices, player records, the
// GM's stat blocks, the combat binding, the tabletop, dialogs and tables. docs/client.md.
import { notifySuccess } from "./compat.mjs";
import { outcomeMessage } from "./cards.mjs";
import { openDialog } from "./dialogs.mjs";
import { encountersOf } from "./encounters.mjs";
import { hands } from "./private.mjs";
import { openEditor, statBlockSchema } from "./stat-block-editor.mjs";
import { editMapping } from "./mapping-editor.mjs";
import { mappingFor, readStatBlock } from "./presets.mjs";
import { applyOutcome, undoApplied } from "./tabletop.mjs";
import { participantOf } from "./vault.mjs";
import { isDerived } from "./system-blocks.mjs";
import { actorFrom, allActors } from "./actors.mjs";

function escapeHtml(text) {
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => map[c]);
}

/**
 * The API object, and `exposeRequestTypes(rulesets)` which adds one call per request type the
 * server serves. `ctx` (arbiter.mjs): module, version, cards, i18n, rules(), connection(),
 * isConnector(), newId(), titleOf(ruleset), request(…), choose(…) (requests.mjs), players(),
 * bound, undoCard(id) (outcomes.mjs), diagnosis(), staleRulesets(), checkStatBlock(ruleset,
 * block), editorContext, vault, systemBlocks, tracker.
 */
export function createApi(ctx) {
  const { i18n, isConnector, newId, titleOf, request, choose, players, undoCard, diagnosis, staleRulesets, checkStatBlock, editorContext } = ctx;

  const api = {
    version: ctx.version,
    get rules() {
      return ctx.rules();
    },
    get connection() {
      return ctx.connection();
    },
    request,
    choose,
    players: {
      /** The server's player records this GM's client knows: name → participants. */
      list: () => players(),
      /**
       * Bind a Foundry user (id or name) to participants on the server (GM only): his requests
       * relayed by this client then act for them, and their private data goes to his browser.
       */
      async bind(userOrName, participants) {
        if (!game.user.isGM || !isConnector() || ctx.connection()?.status !== "open") throw new Error(i18n("ARBITER.Error.BindGM"));
        const name = (game.users.get(userOrName) ?? game.users.find((u) => u.name === userOrName))?.name ?? userOrName;
        await ctx.connection().control({ v: 1, type: "bind", id: newId(), player: name, participants: [...participants] });
        ctx.bound[name] = [...participants];
        return players();
      },
    },
    /** The HTML of an outcome's card (e.g. to show a replayed outcome), without posting it. */
    async renderCard(outcome) {
      const data = await outcomeMessage({ module: ctx.module, cards: ctx.cards, outcome, title: titleOf(outcome.ruleset), seq: null, owners: {}, mode: "public", rules: ctx.rules().rulesets });
      return data.content;
    },
    /** Show the connection's state as a notification. */
    status() {
      const ok = isConnector() && ctx.connection()?.status === "open" && !staleRulesets().length;
      return ok ? notifySuccess(diagnosis()) : ui.notifications.warn(diagnosis());
    },
    /** The connection doctor: a whispered chat message explaining the current state. */
    doctor() {
      return ChatMessage.create({
        content: `<div class="arbiter-card arbiter-doctor"><p>${escapeHtml(diagnosis())}</p></div>`,
        whisper: [game.user.id],
        style: CONST.CHAT_MESSAGE_STYLES.OTHER,
      });
    },
    statBlocks: {
      /** Open the stat-block editor for an actor (or its id); resolves with the saved block. */
      edit(actorOrId, ruleset) {
        const actor = actorFrom(actorOrId);
        if (!actor) throw new Error(i18n("ARBITER.Editor.NoActor"));
        return openEditor(editorContext, actor, ruleset);
      },
      /**
       * The stat block a request uses for an actor (itself, its id or a token) in a ruleset: the
       * block the server keeps where this browser may read it (the GM), else a reference
       * `{id, stored: true}` the server fills in, else null. Async.
       */
      async get(actorOrId, ruleset) {
        const actor = actorFrom(actorOrId);
        return actor ? ctx.vault.blockFor(actor, ruleset) : null;
      },
      /** The participant id of an actor's stored block in a ruleset (its `participant` flag), or null. */
      participant: (actorOrId, ruleset) => participantOf(ctx.module, actorFrom(actorOrId), ruleset),
      /** Store a block on the server for an actor (GM): the server's verdict {ok, problems}. */
      save: (actorOrId, ruleset, block) => ctx.vault.put(ruleset, block, actorFrom(actorOrId)),
      /** The stored blocks this connection may hear of: [{ruleset, participant, name, actor, updated}]. */
      list: (ruleset) => ctx.vault.list(ruleset),
      /** Forget a stored block (GM). */
      remove: (ruleset, participant) => ctx.vault.remove(ruleset, participant),
      /** Move blocks earlier versions kept in actor flags to the server (GM; done at connect). */
      migrate: () => ctx.vault.migrate(allActors()),
      /** The server's verdict on a stat block ({ok, problems}), or null without a connection. */
      check: checkStatBlock,
      /** The JSON Schema of a ruleset's stat block (shipped by the build). */
      schema: (ruleset) => statBlockSchema(ctx.module, ruleset),
      /** The stat block this world's system data gives an actor for a ruleset (presets.mjs), or null. */
      fromSystem(actor, ruleset) {
        const mapping = mappingFor(ctx.module, game.system?.id, ruleset);
        return mapping ? readStatBlock(actor, mapping) : null;
      },
      /** Whether the actor's stored block is the one its system data gives (kept in step with
       * its sheet by the GM's client), not one the GM saved. */
      derived: (actorOrId, ruleset) => isDerived(ctx.module, actorFrom(actorOrId), ruleset),
      /** Resolves when the blocks the GM's client stores by itself (system-blocks.mjs) are stored. */
      settled: () => ctx.systemBlocks.settled(),
      /** The mapping from this world's system (or `system`) to a ruleset: the GM's, or a preset. */
      mapping: (ruleset, system = game.system?.id) => mappingFor(ctx.module, system, ruleset),
      /** The GM edits that mapping: a data path per field, rules for embedded items. */
      editMapping: (ruleset, system) => editMapping(editorContext, ruleset, system),
    },
    combat: {
      /** The encounter the scene's Combat is bound to for a ruleset ({encounter, ids}), or null. */
      bound: (ruleset) => ctx.tracker.bound(ruleset),
      /** Resolves when the binding's requests (a start, a round) are answered. */
      settled: () => ctx.tracker.settled(),
    },
    tabletop: {
      /** Write an outcome (as this connection received it) onto the tabletop now (active GM);
       * resolves with the undo record. */
      apply: (outcome) => applyOutcome({ module: ctx.module, outcome, mapping: (ruleset) => mappingFor(ctx.module, game.system?.id, ruleset), i18n }),
      /** Restore what `apply` changed. */
      undo: (ruleset, undo) => undoApplied(ctx.module, ruleset, undo),
      /** Undo every application a card holds (GM). */
      undoCard: (messageId) => undoCard(messageId),
    },
    dialogs: {
      open(ruleset, type) {
        const data = ctx.rules().rulesets[ruleset]?.data ?? {};
        return openDialog({ module: ctx.module, ruleset, type, title: titleOf(ruleset), i18n, send: request, rules: data, hands: hands(), encounters: encountersOf(ruleset), bound: ctx.tracker.bound(ruleset) });
      },
    },
    tables: {
      draw(ruleset, table, options) {
        return request(ruleset, "draw", { table }, options);
      },
      choose(ruleset) {
        const title = i18n("ARBITER.Dialog.ChooseTable", { title: titleOf(ruleset) });
        const tables = ctx.rules().rulesets[ruleset]?.tables ?? [];
        if (!tables.length) return ui.notifications.warn(i18n("ARBITER.Error.NoTables", { title: titleOf(ruleset) }));
        return openDialog({ module: ctx.module, ruleset, type: "draw", title, i18n, send: request, rules: {}, hands: hands(), tables });
      },
    },
  };

  /** One call per request type the server serves: `api["combat-styles"].exchange(body, options)`. */
  function exposeRequestTypes(rulesets) {
    for (const [ruleset, info] of Object.entries(rulesets)) {
      api[ruleset] = Object.fromEntries(info.requests.map((type) => [type, (body, options) => request(ruleset, type, body, options)]));
    }
  }

  return { api, exposeRequestTypes };
}
