"""Driving the module's request dialogs in the harness, and stat blocks for the e2e tests."""

from __future__ import annotations

from typing import Any

from tests.e2e.support.browser import Page


def send_dialog(page: Page, macro: str, fill: dict[str, str], check: tuple[str, ...] = ()) -> None:
    """Run a macro, fill its dialog (field name → value; textareas and inputs alike, selects by
    option), tick ``check``, press Send and wait for the request's card (or error card)."""
    page.run_macro(macro)
    dialog = page.page.locator("dialog.application")
    # The optional stat-block fields are folded away until opened.
    folded = dialog.locator("details.arbiter-stat-fields:not([open]) > summary")
    while folded.count():
        folded.first.click()
    for name, value in fill.items():
        field = dialog.locator(f'[name="{name}"]')
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    for name in check:
        dialog.locator(f'input[name="{name}"]').check()
    before = page.call("() => game.messages.size")
    dialog.locator('button[data-action="send"]').click()
    page.call("async () => window.macro")
    # The macro does not wait for its dialog's request: its card (or error card) says it is done.
    page.page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=30000)


def rolled_row(card: Any, side: str) -> tuple[str, str]:
    row = card.locator(f'[data-side="{side}"]')
    return row.locator('[data-field="roll"]').inner_text(), row.locator(
        '[data-field="level"]'
    ).inner_text()


def fighter(cid: str, skill: int, weapon: str) -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid.title(),
        "characteristics": {"str": 14, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
        "skills": {"combat_style": skill, "evade": 30, "endurance": 35, "willpower": 30},
        "weapons": [weapon],
    }


def script_next_dice(page: Page, dice: list[int]) -> None:
    """Make the next request the page's connection sends carry ``dice`` (the server must be
    started with --allow-scripted-dice): a dialog's request, whose body the dialog still writes,
    gets the known dice a worked example needs. Only that one request is scripted."""
    page.call(
        """(dice) => {
            const connection = game.modules.get("arbiter").api.connection;
            const send = connection.request;
            connection.request = function (envelope, scripted) {
                connection.request = send;
                return send.call(this, envelope, scripted ?? dice);
            };
        }""",
        dice,
    )


def option_values(page: Page, name: str) -> list[str]:
    """The values of the open dialog's ``<select name=name>`` options, in order."""
    select = page.page.locator(f'dialog.application select[name="{name}"]')
    return select.locator("option").evaluate_all("els => els.map(e => e.value)")


def script_dice_queue(page: Page, queue: list[list[int]]) -> None:
    """Make the next ``len(queue)`` requests the page's connection sends carry the dice of
    ``queue``, one list each, in order (a Foundry action that sends several requests, such as
    starting combat: the encounter's start, then its initiative)."""
    page.call(
        """(queue) => {
            const connection = game.modules.get("arbiter").api.connection;
            const send = connection.request;
            const left = [...queue];
            connection.request = function (envelope, scripted, ...rest) {
                const dice = left.shift();
                if (!left.length) connection.request = send;
                return send.call(this, envelope, scripted ?? dice, ...rest);
            };
        }""",
        queue,
    )
