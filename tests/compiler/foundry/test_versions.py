"""Module versions Foundry orders: every rebuild whose content changed is newer than the one
before it under Foundry's ``isNewerVersion``, and a rebuild of unchanged content is the same
module, byte for byte (issue #14: ``0.1.0-<hex>`` versions compared their digests as strings,
so about half of all rebuilds looked older than the installed one)."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
from pathlib import Path

import pytest
from rules_fixture import CRITICALS, make_rules

from arbiter.compiler.foundry.build import STAMP, build_module


def _numeric(part: str) -> bool:
    """JavaScript's ``Number.isNumeric`` (Foundry's) for a version part: a finite number."""
    try:
        float(part)
    except ValueError:
        return False
    return part.strip() != ""


def is_newer_version(v1: str, v0: str) -> bool:
    """Foundry's ``foundry.utils.isNewerVersion(v1, v0)`` (common/utils/helpers.mjs, the same in
    V12–V14; declared in foundry-types' helpers.d.mts): the versions are split at the dots and
    compared part by part, numerically when both parts are numeric, else as strings; a part
    the older version lacks makes v1 newer; equal versions are not newer."""
    parts0 = str(v0).split(".")
    for i, p1 in enumerate(str(v1).split(".")):
        if i >= len(parts0):
            return True
        p0 = parts0[i]
        if _numeric(p0) and _numeric(p1):
            if float(p1) != float(p0):
                return float(p1) > float(p0)
        elif p1 != p0:
            return p1 > p0
    return False


def test_the_port_of_is_newer_version_follows_foundrys_documented_rules() -> None:
    assert is_newer_version("1.10", "1.9")  # numeric parts: 10 > 9
    assert not is_newer_version("1.9", "1.10")
    assert is_newer_version("1.0.1", "1.0")  # an extra part
    assert not is_newer_version("1.0", "1.0")
    # The old scheme: the digest part compares as a string.
    assert not is_newer_version("0.1.0-0a1b2c", "0.1.0-f0e1d2")


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_rules(tmp_path, monkeypatch)


def manifest_bytes(module_dir: Path) -> bytes:
    return (module_dir / "module.json").read_bytes()


def module_bytes(module_dir: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(module_dir.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(module_dir).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_a_sequence_of_rebuilds_with_changed_and_unchanged_rules_only_moves_forward(
    tmp_path: Path, rules_root: Path
) -> None:
    out = tmp_path / "out"
    house = tmp_path / "house"
    (house / "tiny").mkdir(parents=True)
    edits = ["Crushing blow", "Telling blow", "Crushing blow", "Grim blow"]
    versions = [build_module(out, rules_root).version]
    shapes = [module_bytes(out / "arbiter")]
    for text in edits:
        (house / "tiny" / "criticals.toml").write_text(
            CRITICALS.replace('"Telling blow"', f'"{text}"')
        )
        changed = build_module(out, rules_root, house)
        assert not changed.skipped
        versions.append(changed.version)
        shapes.append(module_bytes(out / "arbiter"))
        # The same content again (the fingerprint cache bypassed): the very same module.
        (out / STAMP).write_text(
            json.dumps({**json.loads((out / STAMP).read_text()), "fingerprint": ""})
        )
        again = build_module(out, rules_root, house)
        assert not again.skipped and again.version == changed.version
        assert module_bytes(out / "arbiter") == shapes[-1]
    # "Telling blow" is the bundled text: the overlay is identical content to the first build,
    # yet it comes after a change, so it is a newer build, not the first one again.
    for older, newer in itertools.pairwise(versions):
        assert is_newer_version(newer, older), (older, newer)
        assert not is_newer_version(older, newer)
    assert [v.rsplit(".", 1)[1] for v in versions] == ["1", "2", "3", "4", "5"]
    shown = json.loads(manifest_bytes(out / "arbiter"))
    assert shown["version"] == versions[-1] and len(shown["flags"]["arbiter"]["content"]) == 64


def test_the_build_number_survives_a_lost_stamp_through_the_module_json_left_beside_it(
    tmp_path: Path, rules_root: Path
) -> None:
    out = tmp_path / "out"
    first = build_module(out, rules_root).version
    (out / STAMP).unlink()
    house = tmp_path / "house"
    (house / "tiny").mkdir(parents=True)
    (house / "tiny" / "criticals.toml").write_text(CRITICALS.replace("Telling", "Crushing"))
    second = build_module(out, rules_root, house).version
    assert is_newer_version(second, first)


def test_two_fresh_output_folders_get_the_same_version_and_bytes(
    tmp_path: Path, rules_root: Path
) -> None:
    a = build_module(tmp_path / "a", rules_root)
    b = build_module(tmp_path / "b", rules_root)
    assert a.version == b.version
    assert module_bytes(a.module_dir) == module_bytes(b.module_dir)
    shutil.rmtree(tmp_path / "b")
