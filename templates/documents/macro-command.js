[# The command of a script macro: one call on the module's API. Rendered without HTML escaping. #]
const api = game.modules.get([= "arbiter" | json =])?.api;
if (!api) {
  ui.notifications.error([= label("ARBITER.Error.NotActive") | json =]);
} else {
  [= action.call() =];
}
