"""House rules for tests: the bundled rules with one ``[combat.<section>]`` key changed,
loaded through a real rules overlay (``load_ruleset(..., overlay=DIR)``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import load_ruleset


def toml_value(value: Any) -> str:
    """A TOML literal for plain JSON data (strings, numbers, booleans, lists, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML literal for {value!r}")


def with_combat_rule(model: RulesetBase, folder: Path, section: str, **changes: Any) -> RulesetBase:
    """The bundled rules, overlaid with ``[combat.<section>]`` changed by ``changes``."""
    bundled = getattr(model.combat, section).model_dump(mode="json")  # type: ignore[attr-defined]
    table = {k: v for k, v in {**bundled, **changes}.items() if v is not None}
    lines = [f"[combat.{section}]"] + [f"{k} = {toml_value(v)}" for k, v in table.items()]
    rules = folder / "house" / "combat-styles"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "combat.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_ruleset("combat-styles", overlay=folder / "house").model
