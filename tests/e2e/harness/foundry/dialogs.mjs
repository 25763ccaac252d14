// `foundry.applications.api.DialogV2` (V12+): a <dialog> with the caller's content inside a form
// and one button per configured action. A button's callback gets (event, button, dialog) and its
// return value resolves `wait`, as in Foundry.

export function createDialogV2(env) {
  class DialogV2 {
    constructor(options) {
      this.options = options ?? {};
      this.element = null;
    }
    static async wait(options) {
      const dialog = new this(options);
      return dialog._show();
    }
    static async prompt(options) {
      const ok = { action: "ok", label: "Confirm", default: true, ...(options?.ok ?? {}) };
      return this.wait({ ...options, buttons: [ok] });
    }
    async close() {
      this.element?.remove();
      this.element = null;
    }
    _show() {
      const doc = env.document;
      const { window: win = {}, content = "", buttons = [], rejectClose = true } = this.options;
      const element = doc.createElement("dialog");
      element.className = "application dialog";
      element.innerHTML = `<header class="window-header"><h1 class="window-title"></h1><button type="button" data-close>×</button></header>
        <form class="dialog-form window-content"><div class="dialog-content"></div><footer class="form-footer"></footer></form>`;
      element.querySelector(".window-title").textContent = env.game().i18n.localize(win.title ?? "");
      element.querySelector(".dialog-content").innerHTML = content;
      const footer = element.querySelector(".form-footer");
      for (const config of buttons) {
        const button = doc.createElement("button");
        button.type = "submit";
        button.dataset.action = config.action;
        button.textContent = env.game().i18n.localize(config.label ?? config.action);
        if (config.default) button.autofocus = true;
        footer.append(button);
      }
      doc.body.append(element);
      element.show();
      this.element = element;
      env.record.dialogs.push(win.title ?? "");
      return new Promise((resolve, reject) => {
        element.querySelector("[data-close]").addEventListener("click", () => {
          this.close();
          if (rejectClose) reject(new Error("Dialog was dismissed without pressing a button."));
          else resolve(null);
        });
        element.querySelector("form").addEventListener("submit", async (event) => {
          event.preventDefault();
          const button = event.submitter;
          const config = buttons.find((b) => b.action === button.dataset.action);
          try {
            const result = config?.callback ? await config.callback(event, button, env.generation >= 13 ? this : element) : config.action;
            this.close();
            resolve(result === undefined ? config.action : result);
          } catch (err) {
            this.close();
            reject(err);
          }
        });
      });
    }
  }
  return DialogV2;
}
