// Which actors the client reads: the world's, the viewed scene's tokens' (an unlinked token's
// own), an actor named by its id or a token, and the stat block the world's system data gives
// one (presets.mjs: a preset or the GM's mapping). docs/client.md.
import { mappingFor, readStatBlock } from "./presets.mjs";

/** The world's actors and those of the tokens on the scene (unlinked tokens have their own). */
export function allActors() {
  const actors = new Map();
  for (const actor of game.actors ?? []) actors.set(actor.id, actor);
  for (const token of canvas?.tokens?.placeables ?? []) if (token.actor && !actors.has(token.actor.id)) actors.set(token.actor.id, token.actor);
  return [...actors.values()];
}

/** An actor given as itself, its id, or a token of it. By id, the viewed scene's token's actor
 * first (an unlinked token's own, whose block the sheet, the tracker and the outcomes use; a
 * linked token's is the world's anyway), else the world's actor. */
export function actorFrom(actorOrId) {
  if (typeof actorOrId !== "string") return actorOrId?.actor ?? actorOrId ?? null;
  return canvas?.tokens?.placeables?.find((t) => t.actor?.id === actorOrId)?.actor ?? game.actors?.get(actorOrId) ?? null;
}

/** The actors of the viewed scene's tokens, one each (two tokens of one actor share its id). */
export function sceneActors() {
  const actors = new Map();
  for (const token of canvas?.tokens?.placeables ?? []) if (token.actor?.id && !actors.has(token.actor.id)) actors.set(token.actor.id, token.actor);
  return [...actors.values()];
}

/** The block this world's system data gives an actor for a ruleset (a preset or the GM's
 * mapping, when it reads any field), or null. */
export function systemBlock(module, actor, ruleset) {
  const mapping = systemMapping(module, ruleset);
  return mapping ? readStatBlock(actor, mapping) : null;
}

/** This world's system's mapping to a ruleset when it reads any field (not vitals alone), or null. */
export function systemMapping(module, ruleset) {
  const mapping = mappingFor(module, game.system?.id, ruleset);
  return mapping && Object.keys(mapping.fields ?? {}).length ? mapping : null;
}
