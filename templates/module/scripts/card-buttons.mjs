// The buttons of an outcome's card: each pending choice's section, enabled only for the users who
// may answer it, and the GM's Undo of what the outcome changed on the tabletop. docs/client.md.
import { pendingChoices, resolutionsOf } from "./cards.mjs";
import { noteOutcome } from "./encounters.mjs";
import { APPLIED } from "./tabletop.mjs";

/** `ctx` (arbiter.mjs): module, i18n, rules(), choose(…) (requests.mjs), undoCard(id) (outcomes.mjs). */
export function createCardButtons(ctx) {
  const { i18n } = ctx;
  const choose = (...args) => ctx.choose(...args);
  const undoCard = (id) => ctx.undoCard(id);

  /**
   * Card buttons: each pending choice's section is enabled only for the users who may answer it;
   * a click answers that choice (a card may hold several: a karmic reveal's hit draws).
   */
  function onRenderCard(message, element) {
    const flags = message.flags?.[ctx.module];
    if (!flags?.outcome) return;
    noteOutcome(flags.outcome);
    const choices = pendingChoices(flags.outcome, flags.owners, ctx.rules().rulesets, resolutionsOf(flags));
    for (const section of element.querySelectorAll(".arbiter-choice")) {
      const choice = choices.find((c) => (c.key ?? "") === (section.dataset.choiceKey ?? ""));
      wireChoice(message, section, choice);
    }
    const pending = (flags[APPLIED] ?? []).filter((e) => !e.undone);
    if (game.user.isGM && pending.length && !element.querySelector("[data-arbiter-undo]")) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.arbiterUndo = message.id;
      button.className = "arbiter-undo";
      button.textContent = i18n("ARBITER.Tabletop.Undo");
      button.addEventListener("click", (event) => {
        event.preventDefault();
        button.disabled = true;
        undoCard(message.id).catch((err) => ui.notifications.error(err.message));
      });
      (element.querySelector(".arbiter-card") ?? element).append(button);
    }
  }

  /** The buttons of one choice's section: toggles for a pick-several choice, then the answer. */
  function wireChoice(message, section, choice) {
    const allowed = Boolean(choice) && (choice.users.includes(game.user.id) || game.user.isGM);
    const toggles = [...section.querySelectorAll("[data-arbiter-toggle]")];
    for (const toggle of toggles) {
      toggle.disabled = !allowed;
      if (!allowed) continue;
      toggle.addEventListener("click", (event) => {
        event.preventDefault();
        const pressed = toggle.getAttribute("aria-pressed") === "true";
        const count = toggles.filter((t) => t.getAttribute("aria-pressed") === "true").length;
        if (!pressed && count >= choice.count) return;
        toggle.setAttribute("aria-pressed", String(!pressed));
      });
    }
    for (const button of section.querySelectorAll("[data-arbiter-choice]")) {
      button.disabled = !allowed;
      if (!allowed) continue;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        const option = choice.count
          ? toggles
              .filter((t) => t.getAttribute("aria-pressed") === "true")
              .map((t) => {
                const pick = { id: t.dataset.arbiterToggle };
                const select = section.querySelector(`[data-arbiter-param="${t.dataset.arbiterToggle}"]`);
                if (select) pick[select.name] = select.value;
                return pick;
              })
          : button.dataset.arbiterChoice;
        section.querySelectorAll("[data-arbiter-choice], [data-arbiter-toggle]").forEach((b) => (b.disabled = true));
        choose(message.id, option, game.user.id, choice.key).catch((err) => ui.notifications.error(err.message));
      });
    }
  }

  return onRenderCard;
}
