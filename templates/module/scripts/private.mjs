// Private parts of outcomes (a karmic hand, sealed cards, the odds a player asked for): kept in
// this browser's memory and shown in a panel of this page only. They never go into a chat
// message, a document flag or a module socket message, which other browsers receive.

import { renderTemplate } from "./compat.mjs";

/** The parts this browser has received: participant id → data. */
export const privateSeen = {};

/** Participant id → hand, for the dialogs (the karmic register dialog's card list). */
export function hands() {
  return Object.fromEntries(Object.entries(privateSeen).map(([p, d]) => [p, d.hand ?? []]));
}

/** Keep one participant's private data and show it in this page's private panel. */
export async function showPrivate({ module, cards, participant, data }) {
  privateSeen[participant] = data;
  const html = await renderTemplate(`modules/${module}/${cards.private}`, { participant, data });
  let panel = document.getElementById("arbiter-private");
  if (!panel) {
    panel = document.createElement("section");
    panel.id = "arbiter-private";
    panel.className = "arbiter-private";
    document.body.append(panel);
  }
  const holder = document.createElement("div");
  holder.dataset.privateOf = participant;
  holder.innerHTML = html;
  const old = [...panel.children].find((c) => c.dataset.privateOf === participant);
  if (old) old.replaceWith(holder);
  else panel.append(holder);
}

/**
 * An outcome as it may be shown to everybody (a chat card and its flags): no private entries
 * and no encounter state. Hidden dice are never in an outcome a client receives.
 */
export function publicView(outcome) {
  if (!outcome) return outcome;
  return { ...outcome, private: {}, state: null };
}
