"""The compiled rule data the client needs for its dialogs: ``data/rules.json``.

Per ruleset: its title, version and content hash, its actions (the macros' API calls), its
roll tables (id, name, die, formula and the UUID of their RollTable), and every other piece of
rule data as the loader validated it (weapons, effects, maneuvers…). Roll tables' rows stay in the packs and
with the server, which draws from them: the client only needs to name them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arbiter.compiler.foundry.actions import ruleset_actions
from arbiter.compiler.foundry.layout import MODULE_ID, TABLES, uuid
from arbiter.compiler.foundry.tables import formula, rollable_tables, table_id
from arbiter.compiler.model.common import DieTable, RulesetBase, walk
from arbiter.compiler.model.loader import Ruleset

RULES_DATA_PATH = "data/rules.json"


def rules_data(rulesets: Mapping[str, Ruleset]) -> dict[str, Any]:
    """The JSON-able rule data of every ruleset, keyed by ruleset id (sorted)."""
    return {
        "module": MODULE_ID,
        "rulesets": {rid: _ruleset(rulesets[rid]) for rid in sorted(rulesets)},
    }


def rules_json(rulesets: Mapping[str, Ruleset]) -> bytes:
    """``data/rules.json`` as bytes: compact, UTF-8, key order as in the rule sources."""
    text = json.dumps(rules_data(rulesets), ensure_ascii=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def _ruleset(ruleset: Ruleset) -> dict[str, Any]:
    meta = ruleset.model.ruleset
    return {
        "title": meta.title,
        "version": meta.version,
        "hash": ruleset.content_hash,
        "actions": [
            {"id": a.id, "function": a.function, "arguments": list(a.arguments)}
            for a in ruleset_actions(ruleset.id)
        ],
        "tables": [_table_ref(ruleset.id, t) for t in rollable_tables(ruleset.model)],
        "data": _data(ruleset.id, ruleset.model),
    }


def _table_ref(ruleset_id: str, table: DieTable) -> dict[str, Any]:
    return {
        "id": table.id,
        "name": table.name,
        "die": table.die,
        "formula": formula(table.die),
        "uuid": uuid(TABLES, table_id(ruleset_id, table.id)),
    }


def _data(ruleset_id: str, model: RulesetBase) -> dict[str, Any]:
    # Everything is dumped as validated (JSON mode, field order kept); each roll table inside
    # it becomes a reference to its RollTable.
    data = model.model_dump(mode="json", exclude={"ruleset"})
    for path, table in walk(model, DieTable):
        parent: Any = data
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # a field the model leaves out of its dump (an index, a cache)
        parent[path[-1]] = {
            "table": table.id,
            "uuid": uuid(TABLES, table_id(ruleset_id, table.id)),
        }
    return data
