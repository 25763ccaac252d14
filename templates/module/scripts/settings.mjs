// The module's settings. `token` is client scope: the world secret stays in the GM's browser,
// and a player's own player token in his (docs/client.md, "Trust on the client").

/** Register the settings of `module`; `reconnect` runs when the address or the token changes. */
export function registerSettings(module, reconnect) {
  game.settings.register(module, "serverUrl", {
    name: "ARBITER.Settings.ServerUrl.Name",
    hint: "ARBITER.Settings.ServerUrl.Hint",
    scope: "world",
    config: true,
    type: String,
    default: "ws://127.0.0.1:8765",
    onChange: reconnect,
  });
  game.settings.register(module, "token", {
    name: "ARBITER.Settings.Token.Name",
    hint: "ARBITER.Settings.Token.Hint",
    scope: "client",
    config: true,
    type: String,
    default: "",
    onChange: reconnect,
  });
  game.settings.register(module, "heartbeat", {
    name: "ARBITER.Settings.Heartbeat.Name",
    hint: "ARBITER.Settings.Heartbeat.Hint",
    scope: "client",
    config: false,
    type: Number,
    default: 15,
  });
  // The GM's mappings from a game system's actor data to a ruleset's stat block, by
  // "<system id>/<ruleset>" (presets.mjs): world scope, edited by api.statBlocks.editMapping.
  game.settings.register(module, "mappings", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
  });
}
