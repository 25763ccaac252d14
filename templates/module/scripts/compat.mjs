// The one place that knows how Foundry V12, V13 and V14 differ for this module.
// Everything else calls these functions instead of touching the moved or renamed APIs.

/** The running core generation (12, 13, 14…). */
export function generation() {
  return Number(game.release?.generation ?? 12);
}

/** Handlebars template functions: `foundry.applications.handlebars` since V13, globals in V12. */
function handlebars() {
  if (generation() >= 13 && foundry.applications?.handlebars) return foundry.applications.handlebars;
  return { loadTemplates: globalThis.loadTemplates, renderTemplate: globalThis.renderTemplate };
}

export function loadTemplates(paths) {
  return handlebars().loadTemplates(paths);
}

export function renderTemplate(path, data) {
  return handlebars().renderTemplate(path, data);
}

/**
 * Call `fn(message, element)` whenever a chat message renders, with a plain HTMLElement:
 * `renderChatMessageHTML` since V13, the jQuery-based `renderChatMessage` in V12.
 */
export function onRenderChatMessage(fn) {
  if (generation() >= 13) Hooks.on("renderChatMessageHTML", (message, html) => fn(message, html));
  else Hooks.on("renderChatMessage", (message, html) => fn(message, html[0] ?? html));
}

/** A success notice (`ui.notifications.success` exists since V13; V12 shows it as info). */
export function notifySuccess(text) {
  return generation() >= 13 ? ui.notifications.success(text) : ui.notifications.info(text);
}

/**
 * The user's current chat visibility as one of "public", "gm", "blind", "self":
 * V14's `messageMode` setting, or V12/V13's `rollMode` ("publicroll", "gmroll", …).
 */
export function currentMode() {
  if (generation() >= 14) return game.settings.get("core", "messageMode") ?? "public";
  const rollMode = game.settings.get("core", "rollMode") ?? "publicroll";
  return { publicroll: "public", gmroll: "gm", blindroll: "blind", selfroll: "self" }[rollMode] ?? "public";
}

/**
 * Whisper recipients and blindness for a visibility mode (the same in every generation).
 * `requester` is the user who asked: the GM's client posts relayed cards, so "self" and "gm"
 * must name the player, not the GM who happens to author the message.
 */
export function visibility(mode, requester = game.user.id) {
  const gms = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
  switch (mode) {
    case "gm":
      return { whisper: [...new Set([...gms, requester])], blind: false };
    case "blind":
      return { whisper: gms, blind: true };
    case "self":
      return { whisper: [requester], blind: false };
    default:
      return { whisper: [], blind: false };
  }
}

/**
 * Chat message creation data in the shape every generation accepts: `style` (never the numeric
 * `type` V14 rejects), no `user` (the author defaults to the current user).
 */
export function messageData({ content, speaker, flags, rolls, mode, requester }) {
  return {
    content,
    speaker,
    flags,
    rolls,
    style: CONST.CHAT_MESSAGE_STYLES.OTHER,
    ...visibility(mode ?? currentMode(), requester),
  };
}
