"""Rules overlays for tests: the bundled combat-styles rules with house-rule files on top."""

from __future__ import annotations

from pathlib import Path

from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import load_ruleset


def house_rules(tmp_path: Path, files: dict[str, str]) -> RulesetBase:
    """The bundled rules overlaid with ``files`` (file name → TOML text), as ``arbiter build
    --rules`` would load them."""
    folder = tmp_path / "house" / "combat-styles"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return load_ruleset("combat-styles", overlay=tmp_path / "house").model
