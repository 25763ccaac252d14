"""The stat-block editor in V12, V13 and V14: opened from the token HUD, its form generated from
the shipped schema, filled from the "start from" list, bad values shown field by field with the
server's own messages (nothing logged), saved on the server (the actor keeps only its
combatant's id); then a request dialog needs only the selected and targeted tokens (no JSON
typed)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.support.browser import ARTIFACTS, Page, log_rows
from tests.e2e.support.process import Server, wait_until

KARA = "actorKara0000001"
ORM = "actorOrm00000001"
EDITOR = "dialog.application:has(.arbiter-editor)"


def open_from_token_hud(page: Page, token: str) -> None:
    """Render a token HUD as Foundry does (V12: jQuery-wrapped, V13+: an HTMLElement) and press
    the module's button on it."""
    page.call(
        """(token) => {
            const element = document.createElement("div");
            element.id = "token-hud";
            element.innerHTML = '<div class="col left"></div><div class="col right"></div>';
            document.body.append(element);
            const placeable = canvas.tokens.placeables.find((t) => t.id === token);
            const hud = { object: placeable, document: placeable.document };
            Hooks.callAll("renderTokenHUD", hud, game.release.generation >= 13 ? element : [element], {});
        }""",
        token,
    )
    page.page.locator("#token-hud .arbiter-stat-block").click()
    page.page.locator(EDITOR).wait_for()
    page.call("() => document.getElementById('token-hud').remove()")


def load(page: Page, ruleset: str | None = None, start_from: str | None = None) -> None:
    """Pick a ruleset or a ready combatant and press Load (the editor re-opens)."""
    editor = page.page.locator(EDITOR)
    if ruleset is not None:
        editor.locator('select[name="__ruleset"]').select_option(ruleset)
    if start_from is not None:
        editor.locator('select[name="__from"]').select_option(start_from)
    editor.locator('button[data-action="load"]').click()
    page.page.locator(EDITOR).wait_for()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator(EDITOR).screenshot(path=str(ARTIFACTS / f"{name}.png"))


def saved(page: Page, actor: str) -> dict[str, object] | None:
    """The blocks the server keeps for ``actor``, by ruleset (None: none), asked by the GM's
    page; the actor's own flags hold no block, only its combatants' ids."""
    found = page.call(
        """async (actor) => {
            const api = game.modules.get("arbiter").api.statBlocks;
            const flags = canvas.tokens.placeables.find((t) => t.actor.id === actor).actor.flags.arbiter ?? {};
            if (flags.statBlocks || flags.editedStatBlocks) throw new Error("a stat block in the actor's flags");
            const out = {};
            for (const ruleset of ["combat-styles", "hmk", "karmic"]) {
                const block = await api.get(actor, ruleset);
                if (block) out[ruleset] = block;
            }
            return out;
        }""",
        actor,
    )
    return found or None


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_a_gm_builds_stat_blocks_in_the_editor_and_attacks_with_only_the_tokens(
    gm: Page, server: Server, macros: dict[tuple[str, str], str], generation: int
) -> None:
    # combat-styles: start from Vessa; an impossible DEX is refused by the server, field by field.
    open_from_token_hud(gm, "tokenKara0000001")
    load(gm, ruleset="combat-styles")
    load(gm, start_from="vessa")
    editor = gm.page.locator(EDITOR)
    assert editor.locator('input[name="characteristics.dex"]').input_value() == "16"
    assert editor.locator('input[name="weapons"][value="dagger"]').is_checked()
    editor.locator('input[name="characteristics.dex"]').fill("500")
    editor.locator('button[data-action="save"]').click()
    problem = gm.page.locator(f'{EDITOR} [data-field="characteristics.dex"] .arbiter-problem')
    problem.wait_for()
    assert problem.inner_text() == "Input should be less than or equal to 200"
    shot(gm, f"v{generation}-editor-combat-styles-refused")
    assert saved(gm, KARA) is None
    gm.page.locator(EDITOR).locator('input[name="characteristics.dex"]').fill("16")
    gm.page.locator(EDITOR).locator('button[data-action="save"]').click()
    wait_until(lambda: saved(gm, KARA))
    block = saved(gm, KARA)["combat-styles"]  # type: ignore[index]
    assert block["id"] == KARA and block["name"] == "Kara"
    assert block["characteristics"] == {
        "str": 11,
        "con": 12,
        "siz": 11,
        "dex": 16,
        "int": 14,
        "pow": 12,
    }
    assert block["traits"] == ["assassination"]

    # hmk for both: Kara from Ana, Orm from a typical foe; karmic for Kara from Devon.
    for actor, token, ruleset, start in (
        (KARA, "tokenKara0000001", "hmk", "ana"),
        (ORM, "tokenOrm00000001", "hmk", "bandit"),
        (KARA, "tokenKara0000001", "karmic", "devon"),
    ):
        open_from_token_hud(gm, token)
        load(gm, ruleset=ruleset)
        load(gm, start_from=start)
        shot(gm, f"v{generation}-editor-{ruleset}-{start}")
        gm.page.locator(EDITOR).locator('button[data-action="save"]').click()
        wait_until(lambda actor=actor, ruleset=ruleset: (saved(gm, actor) or {}).get(ruleset))
    assert saved(gm, ORM)["hmk"]["weapon"] == "hand-axe"  # type: ignore[index]
    assert saved(gm, KARA)["karmic"]["skills"] == {"sword": 3, "combat_training": 1}  # type: ignore[index]
    # Checking decided nothing: the roll log is empty.
    assert log_rows(server) == []

    # The attack dialog needs only the selected and targeted tokens: no JSON to type.
    gm.run_macro(macros[("hmk", "attack")])
    dialog = gm.page.locator("dialog.application")
    assert dialog.locator(".arbiter-edited").count() == 2
    assert not dialog.locator('textarea[name="attacker"]').is_visible()
    dialog.locator('button[data-action="send"]').click()
    gm.call("async () => window.macro")
    [row] = wait_until(lambda: log_rows(server))
    body = json.loads(row["request"])["body"]
    assert body["attacker"]["id"] == KARA and body["attacker"]["skills"] == {"long-sword": 65}
    assert body["defender"]["id"] == ORM and body["defender"]["armor"] == "leather"
    assert json.loads(row["outcome"])["result"].get("kind") != "refused"
    assert gm.problems == []


@pytest.mark.parametrize("generation", [12, 13, 14])
def test_the_actor_sheet_header_offers_the_editor_on_v1_and_v2_sheets(
    gm: Page, generation: int
) -> None:
    # A V1 sheet (every generation; systems such as HârnMaster 3 still use them): Foundry asks
    # for its header buttons and calls the chosen one's onclick.
    labels = gm.call(
        """() => {
            const actor = canvas.tokens.placeables[0].actor;
            const buttons = [];
            Hooks.callAll("getActorSheetHeaderButtons", { actor }, buttons);
            window.headerButton = buttons[0];
            return buttons.map((b) => b.label);
        }"""
    )
    assert labels == ["Arbiter stat block"]
    gm.call("() => { window.headerButton.onclick(new Event('click')); }")
    gm.page.locator(EDITOR).wait_for()
    assert "Kara" in gm.page.locator(f"{EDITOR} .window-title").inner_text()
    gm.page.locator(f'{EDITOR} button[data-action="cancel"]').click()
    # An ApplicationV2 sheet (V13+): a header control whose action the sheet looks up in its
    # options at click time.
    control = gm.call(
        """() => {
            const app = { document: canvas.tokens.placeables[1].actor, options: { actions: {} } };
            const controls = [];
            Hooks.callAll("getHeaderControlsActorSheetV2", app, controls);
            window.sheetApp = app;
            return controls;
        }"""
    )
    assert control == [
        {
            "icon": "fa-solid fa-shield-halved",
            "label": "Arbiter stat block",
            "action": "arbiterStatBlock",
            "ownership": "OWNER",
        }
    ]
    gm.call("() => { window.sheetApp.options.actions.arbiterStatBlock(); }")
    gm.page.locator(EDITOR).wait_for()
    assert "Orm" in gm.page.locator(f"{EDITOR} .window-title").inner_text()
    assert gm.problems == []
