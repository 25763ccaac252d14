"""Load, overlay, validate and cross-check rule sources.

``load_ruleset("hmk")`` reads ``compiler/rules/hmk/*.toml``, overlays a GM's house-rule folder
when given (``overlay/hmk/*.toml``: entries replace or add by ``id``, other keys replace), and
validates the result with the ruleset's model (``arbiter.compiler.model.<id with _>.RULESET_MODEL``).
Every problem is reported with its file, entry and field; nothing half-loaded escapes.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arbiter.compiler.errors import RuleError, RuleProblem
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.dice_limits import dice_problem
from arbiter.compiler.paths import RULES_ROOT

META_FILE = "ruleset.toml"


@dataclass(frozen=True)
class Ruleset:
    """A validated ruleset with its content hash (hex SHA-256 of the canonical data)."""

    id: str
    model: RulesetBase
    content_hash: str
    files: tuple[str, ...]
    """The source files read, relative to their rules root (bundled first, then overlay)."""


@dataclass
class _Raw:
    """Merged TOML data with the file that supplied each part (longest path prefix wins)."""

    data: dict[str, Any] = field(default_factory=dict)
    origin: dict[tuple[Any, ...], str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def file_of(self, path: tuple[Any, ...]) -> str:
        for n in range(len(path), 0, -1):
            found = self.origin.get(tuple(path[:n]))
            if found:
                return found
        return self.files[0] if self.files else "?"


def available_rulesets(root: Path = RULES_ROOT) -> list[str]:
    """Ids of the rulesets under ``root`` (folders holding a ruleset.toml), sorted."""
    return sorted(p.parent.name for p in root.glob(f"*/{META_FILE}"))


def model_class(ruleset_id: str) -> type[RulesetBase]:
    """The pydantic model class of a ruleset, found by convention."""
    module = importlib.import_module(f"arbiter.compiler.model.{ruleset_id.replace('-', '_')}")
    return module.RULESET_MODEL


def load_all(root: Path = RULES_ROOT, overlay: Path | None = None) -> dict[str, Ruleset]:
    """Every ruleset under ``root``; raises one RuleError listing the problems of all of them."""
    problems: list[RuleProblem] = []
    out: dict[str, Ruleset] = {}
    ids = available_rulesets(root)
    if overlay is not None:
        if not overlay.is_dir():
            raise RuleError([RuleProblem(str(overlay), None, None, "house-rule folder not found")])
        for extra in sorted(p for p in overlay.iterdir() if p.is_dir()):
            if extra.name not in ids:
                problems.append(
                    RuleProblem(
                        extra.name,
                        None,
                        None,
                        f"no bundled ruleset {extra.name!r} to overlay (known: {', '.join(ids)})",
                    )
                )
    for rid in ids:
        try:
            out[rid] = load_ruleset(rid, root=root, overlay=overlay)
        except RuleError as err:
            problems.extend(err.problems)
    if problems:
        raise RuleError(problems)
    return out


def load_ruleset(
    ruleset_id: str,
    *,
    root: Path = RULES_ROOT,
    overlay: Path | None = None,
    model: type[RulesetBase] | None = None,
) -> Ruleset:
    """Load one ruleset; raises RuleError naming file, entry and field of every problem.

    ``model`` overrides the model class found by convention (tests use small models).
    """
    folder = root / ruleset_id
    if not (folder / META_FILE).is_file():
        raise RuleError(
            [
                RuleProblem(
                    f"{ruleset_id}/{META_FILE}", None, None, "missing file: every ruleset needs one"
                )
            ]
        )
    raw = _Raw()
    problems: list[RuleProblem] = []
    _read_layer(raw, folder, f"{ruleset_id}/", problems, overlay=False)
    if overlay is not None and (overlay / ruleset_id).is_dir():
        _read_layer(
            raw, overlay / ruleset_id, f"{overlay.name}/{ruleset_id}/", problems, overlay=True
        )
    if problems:
        raise RuleError(problems)

    cls = model or model_class(ruleset_id)
    # Dice the engine could not roll are refused with the rest, whatever field holds them.
    dice = _dice_problems(raw, ruleset_id)
    try:
        # Strict JSON-mode validation: TOML arrays become tuples where declared, but a string
        # is never silently turned into a number.
        validated = cls.model_validate_json(json.dumps(raw.data))
    except ValidationError as err:
        found = [_problem_from_loc(raw, ruleset_id, e) for e in err.errors()]
        raise RuleError([*found, *(p for p in dice if p not in found)]) from None
    if dice:
        raise RuleError(dice)

    if validated.ruleset.id != ruleset_id:
        raise RuleError(
            [
                RuleProblem(
                    raw.file_of(("ruleset",)),
                    "ruleset",
                    "id",
                    f"is {validated.ruleset.id!r} but the folder is {ruleset_id!r}; they must match",
                )
            ]
        )
    cross = [_located(raw, p.path, p.message, ruleset_id) for p in validated.cross_check()]
    if cross:
        raise RuleError(cross)
    return Ruleset(
        id=ruleset_id,
        model=validated,
        content_hash=content_hash(validated),
        files=tuple(raw.files),
    )


def _dice_problems(raw: _Raw, ruleset_id: str) -> list[RuleProblem]:
    """Every dice expression of the rule data the engine could not roll (over its limits of
    dice and faces, see :mod:`arbiter.compiler.model.dice_limits`), each named by file, entry, field.

    The walk covers every string of the data, so every dice field of every ruleset (weapon
    damage, table dice, ladders, durations …) is held to the engine's limits, new ones too.
    """
    problems: list[RuleProblem] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), raw.data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            problem = dice_problem(node)
            if problem is not None:
                problems.append(_located(raw, path, problem, ruleset_id))
        elif isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return sorted(problems, key=lambda p: (p.file, p.entry or "", p.field or ""))


def content_hash(model: RulesetBase) -> str:
    """Hex SHA-256 of the model's canonical JSON: formatting and comments do not change it."""
    canonical = json.dumps(model.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _read_layer(
    raw: _Raw, folder: Path, label: str, problems: list[RuleProblem], *, overlay: bool
) -> None:
    defined_here: dict[str, str] = {}
    for path in sorted(folder.glob("*.toml")):
        name = label + path.name
        raw.files.append(name)
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            problems.append(RuleProblem(name, None, None, f"TOML syntax error: {err}"))
            continue
        except UnicodeDecodeError as err:
            problems.append(RuleProblem(name, None, None, f"not UTF-8 text: {err}"))
            continue
        for key, value in doc.items():
            if key in defined_here:
                problems.append(
                    RuleProblem(
                        name, key, None, f"key {key!r} is also defined in {defined_here[key]}"
                    )
                )
                continue
            defined_here[key] = name
            dup = _duplicate_ids(value)
            if dup is not None:
                idx, ident = dup
                problems.append(
                    RuleProblem(name, f"{key} #{idx + 1}", "id", f"duplicate id {ident!r}")
                )
                continue
            if overlay and key in raw.data:
                _overlay_key(raw, key, value, name, problems)
            else:
                raw.data[key] = value
                raw.origin[(key,)] = name


def _duplicate_ids(value: Any) -> tuple[int, str] | None:
    if not isinstance(value, list):
        return None
    seen: set[str] = set()
    for i, item in enumerate(value):
        if isinstance(item, dict) and "id" in item:
            ident = item["id"]
            if ident in seen:
                return i, ident
            seen.add(ident)
    return None


def _overlay_key(raw: _Raw, key: str, value: Any, name: str, problems: list[RuleProblem]) -> None:
    base = raw.data[key]
    if _is_collection(base) and isinstance(value, list):
        merged = list(base)
        index = {item["id"]: i for i, item in enumerate(merged)}
        for j, item in enumerate(value):
            if not isinstance(item, dict) or "id" not in item:
                problems.append(
                    RuleProblem(
                        name,
                        f"{key} #{j + 1}",
                        "id",
                        "house-rule entries need an id to replace or add",
                    )
                )
                continue
            if item["id"] in index:
                i = index[item["id"]]
                merged[i] = item
            else:
                i = len(merged)
                index[item["id"]] = i
                merged.append(item)
            raw.origin[(key, i)] = name
        raw.data[key] = merged
    elif isinstance(base, dict) and isinstance(value, dict):
        merged_dict = dict(base)
        for sub, subvalue in value.items():
            merged_dict[sub] = subvalue
            raw.origin[(key, sub)] = name
        raw.data[key] = merged_dict
    else:
        raw.data[key] = value
        raw.origin[(key,)] = name


def _is_collection(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and "id" in v for v in value)
    )


def _problem_from_loc(raw: _Raw, ruleset_id: str, error: Mapping[str, Any]) -> RuleProblem:
    loc = tuple(error.get("loc", ()))
    msg = error.get("msg", "invalid")
    if error.get("type") == "missing" and len(loc) == 1:
        return RuleProblem(
            f"{ruleset_id}/{loc[0]}.toml",
            None,
            None,
            f"missing: no file defines {loc[0]!r} (expected in {loc[0]}.toml)",
        )
    if "input" in error and error.get("type") not in ("missing",):
        shown = json.dumps(error["input"], default=str)
        if len(shown) <= 60:
            msg = f"{msg} (got {shown})"
    return _located(raw, loc, msg, ruleset_id)


def _located(raw: _Raw, loc: tuple[Any, ...], message: str, ruleset_id: str) -> RuleProblem:
    """Turn a path into the raw data into file, entry and field names."""
    file = raw.file_of(loc) if loc else f"{ruleset_id}/{META_FILE}"
    entry_parts: list[str] = []
    field_parts: list[str] = []
    node: Any = raw.data
    for step in loc:
        if isinstance(step, int) and isinstance(node, list):
            item = node[step] if 0 <= step < len(node) else None
            label = f"'{item['id']}'" if isinstance(item, dict) and "id" in item else f"#{step + 1}"
            owner = field_parts[-1] if field_parts else "entry"
            entry_parts = [*entry_parts, *field_parts[:-1], f"{owner} {label}"]
            field_parts = []
            node = item
        else:
            field_parts.append(str(step))
            node = node.get(step) if isinstance(node, dict) else None
    entry = " > ".join(entry_parts) if entry_parts else None
    if entry is None and field_parts:
        entry, field_parts = field_parts[0], field_parts[1:]
    return RuleProblem(file, entry, ".".join(field_parts) or None, message)
