"""Lower the common actions to script Macro documents.

Each macro's command is rendered from ``templates/documents/macro-command.js``: it finds the
module's API and makes one call, or says plainly that the module is not active.
"""

from __future__ import annotations

from typing import Any

from arbiter.compiler.foundry.actions import MODULE_ACTIONS, Action, ruleset_actions
from arbiter.compiler.foundry.ids import document_id
from arbiter.compiler.foundry.layout import MACROS, MODULE_ID, SORT_STEP, stats
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.model.loader import Ruleset

MACRO_AUTHOR = document_id("User", MODULE_ID, "author")
"""The ``author`` of every packed macro. Since V13 a Macro's ``author`` is a
``DocumentAuthorField`` (a ``ForeignDocumentField`` of ``User``: ``nullable: false``,
``gmOnly: true``, initial ``() => game.user?.id``). Left out, a pack read where no user is
logged in (the server indexing the compendium, the official CLI) has no initial value for it;
``null`` is refused. Validation asks for a well-formed 16-character document id, not for a user
of the world — and no world user can be named by a module's pack anyway — so every macro names
this fixed, deterministic id (same bytes on every build). A GM who imports a macro may take it
over like any document he edits (V12: the field is a nullable ``ForeignDocumentField``)."""


def macro_id(owner: str, action_id: str) -> str:
    """The document id of the macro for ``action_id`` of ``owner`` (a ruleset id or the module)."""
    return document_id("Macro", owner, action_id)


def lower_module_macros(renderer: Renderer) -> list[dict[str, Any]]:
    """Macros that belong to no ruleset, at the root of the pack."""
    return [
        _macro(
            MODULE_ID, action, renderer.label(action.label_key), None, (i + 1) * SORT_STEP, renderer
        )
        for i, action in enumerate(MODULE_ACTIONS)
    ]


def lower_macros(ruleset: Ruleset, folder: str, renderer: Renderer) -> list[dict[str, Any]]:
    """The ruleset's macros, in its folder."""
    title = ruleset.model.ruleset.title
    return [
        _macro(
            ruleset.id,
            action,
            renderer.label(action.label_key, title=title),
            folder,
            (i + 1) * SORT_STEP,
            renderer,
        )
        for i, action in enumerate(ruleset_actions(ruleset.id))
    ]


def _macro(
    owner: str, action: Action, name: str, folder: str | None, sort: int, renderer: Renderer
) -> dict[str, Any]:
    mid = macro_id(owner, action.id)
    return {
        "_id": mid,
        "_key": f"!{MACROS.collection}!{mid}",
        "name": name,
        "type": "script",
        "author": MACRO_AUTHOR,
        "img": action.icon,
        "scope": "global",
        "command": renderer.render_document("macro-command.js", action=action),
        "folder": folder,
        "sort": sort,
        "ownership": {"default": 0},
        "flags": {MODULE_ID: {"owner": owner, "action": action.id}},
        "_stats": stats(),
    }
