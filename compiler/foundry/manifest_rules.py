"""Foundry's manifest rules (shared/reference/foundry.md §2), as a validator the build runs.

``manifest_problems(module_dir)`` reads ``module_dir/module.json`` and lists every rule it
breaks; an empty list means Foundry V12–V14 accepts it. It checks the manifest on its own terms
(ids, required fields, pack types, ownership names) and against the folder (folder name = id,
every file and pack it names exists). The build checks its staging folder before it swaps it in,
so it names the folder the module will have (``folder_name``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ID = re.compile(r"^[A-Za-z0-9_-]+$")
RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
VERSION_FORBIDDEN = set("'\"<>&")
PACK_TYPES = {
    "Actor",
    "Adventure",
    "Cards",
    "Item",
    "JournalEntry",
    "Macro",
    "Playlist",
    "RollTable",
    "Scene",
    "ActiveEffect",
}
SYSTEM_PACK_TYPES = {"Actor", "Item", "ActiveEffect"}
ROLES = {"NONE", "PLAYER", "TRUSTED", "ASSISTANT", "GAMEMASTER"}
LEVELS = {"NONE", "LIMITED", "OBSERVER", "OWNER"}
PACK_FOLDER_DEPTH = 3


def manifest_problems(module_dir: Path, folder_name: str | None = None) -> list[str]:
    """Every rule ``module_dir/module.json`` breaks (empty: valid); ``folder_name`` is the name
    the folder will have when installed (default: its name now)."""
    try:
        data = json.loads((module_dir / "module.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return [f"module.json unreadable: {err}"]
    if not isinstance(data, dict):
        return ["module.json: not a JSON object"]
    return check(data, module_dir, folder_name)


def check(data: dict[str, Any], module_dir: Path, folder_name: str | None = None) -> list[str]:
    """Every rule the manifest ``data`` breaks, its files looked up under ``module_dir``."""
    problems: list[str] = []
    add = problems.append
    for field in ("id", "title", "version"):
        if not isinstance(data.get(field), str) or not data[field].strip():
            add(f"{field}: required, a non-blank string")
    if not isinstance(data.get("description", ""), str):
        add("description: must be a string")
    ident = data.get("id", "")
    if isinstance(ident, str):
        problems.extend(_id_problems("id", ident))
        folder = module_dir.name if folder_name is None else folder_name
        if folder != ident:
            add(f"id: {ident!r} differs from the folder name {folder!r}")
    version = data.get("version", "")
    if isinstance(version, str) and VERSION_FORBIDDEN & set(version):
        add(f"version: {version!r} contains one of ' \" < > &")
    compat = data.get("compatibility", {})
    if not isinstance(compat, dict):
        add("compatibility: must be an object")
    else:
        if "maximum" in compat:
            add("compatibility.maximum: set; the module would be unavailable on newer cores")
        for key in ("minimum", "verified"):
            if not isinstance(compat.get(key), str) or not compat[key]:
                add(f"compatibility.{key}: required here, a string such as '12'")
    for field in ("esmodules", "scripts", "styles"):
        for path in data.get(field, []):
            if not isinstance(path, str) or not (module_dir / path).is_file():
                add(f"{field}: {path!r} is not a file of the module")
    for i, lang in enumerate(data.get("languages", [])):
        for key in ("lang", "name", "path"):
            if not isinstance(lang.get(key), str) or not lang[key]:
                add(f"languages[{i}].{key}: required")
        path = module_dir / str(lang.get("path", ""))
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            add(f"languages[{i}].path: {lang.get('path')!r} is not a JSON file of the module")
    problems.extend(_pack_problems(data.get("packs", []), module_dir))
    names = {p.get("name") for p in data.get("packs", []) if isinstance(p, dict)}
    problems.extend(_folder_problems(data.get("packFolders", []), names, 1))
    if not isinstance(data.get("socket", False), bool):
        add("socket: must be a boolean")
    return problems


def _id_problems(where: str, value: str) -> list[str]:
    out = []
    if not ID.match(value):
        out.append(f"{where}: {value!r} may hold only letters, digits, '-' and '_' (no periods)")
    if RESERVED.match(value):
        out.append(f"{where}: {value!r} is a reserved file name on Windows")
    return out


def _pack_problems(packs: Any, module_dir: Path) -> list[str]:
    out: list[str] = []
    if not isinstance(packs, list):
        return ["packs: must be a list"]
    seen_names: set[str] = set()
    seen_paths: set[str] = set()
    for i, pack in enumerate(packs):
        where = f"packs[{i}]"
        name = pack.get("name")
        if not isinstance(name, str) or not name:
            out.append(f"{where}.name: required")
            continue
        out.extend(_id_problems(f"{where}.name", name))
        if name in seen_names:
            out.append(f"{where}.name: {name!r} is used twice")
        seen_names.add(name)
        if not isinstance(pack.get("label"), str) or not pack["label"].strip():
            out.append(f"{where}.label: required")
        kind = pack.get("type")
        if kind not in PACK_TYPES:
            out.append(f"{where}.type: {kind!r} is not a compendium document type")
        if kind in SYSTEM_PACK_TYPES and not pack.get("system"):
            out.append(f"{where}.system: required for {kind} packs")
        path = str(pack.get("path", f"packs/{name}")).removesuffix(".db")
        if path in seen_paths:
            out.append(f"{where}.path: {path!r} is used twice")
        seen_paths.add(path)
        if not (module_dir / path / "CURRENT").is_file():
            out.append(f"{where}.path: {path!r} is not a LevelDB folder of the module")
        ownership = pack.get("ownership", {})
        for role, level in ownership.items():
            if role not in ROLES or level not in LEVELS:
                out.append(f"{where}.ownership: {role}: {level} is not a role and a level")
        if ownership == {}:
            out.append(f"{where}.ownership: empty; the pack would be hidden even from GMs")
    return out


def _folder_problems(folders: Any, packs: set[Any], depth: int) -> list[str]:
    out: list[str] = []
    if depth > PACK_FOLDER_DEPTH:
        return [f"packFolders: nested deeper than {PACK_FOLDER_DEPTH} levels"]
    for i, folder in enumerate(folders):
        if not isinstance(folder.get("name"), str) or not folder["name"]:
            out.append(f"packFolders[{i}].name: required")
        if folder.get("sorting", "a") not in ("a", "m"):
            out.append(f"packFolders[{i}].sorting: must be 'a' or 'm'")
        for name in folder.get("packs", []):
            if name not in packs:
                out.append(f"packFolders[{i}].packs: {name!r} is not a pack of the manifest")
        out.extend(_folder_problems(folder.get("folders", []), packs, depth + 1))
    return out
