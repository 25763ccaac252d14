"""The module's language file loads the way Foundry loads it: ``foundry.utils.expandObject``
over the flat keys (the harness's faithful copy, ``harness/foundry/utils.mjs``), read back with
``getProperty``. No key may be both a string and an object (issue #14: the plain
``ARBITER.Dialog.Defence`` overwrote ``ARBITER.Dialog.Defence.parry`` and its siblings, and the
exchange dialog showed raw keys)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.support.paths import HARNESS, ROOT

LANG = ROOT / "templates" / "module" / "lang" / "en.json"
CHECK = """
import {{ readFileSync }} from "node:fs";
import {{ languageCollisions }} from "{}";
const flat = JSON.parse(readFileSync(process.argv[1], "utf-8"));
process.stdout.write(JSON.stringify(languageCollisions(flat)));
""".format((HARNESS / "foundry" / "utils.mjs").as_uri())


def collisions(path: Path) -> list[str]:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", CHECK, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_language_file_expanded_as_foundry_does_has_no_key_both_string_and_object() -> None:
    assert collisions(LANG) == []


def test_the_expansion_finds_a_key_that_is_both_a_string_and_an_object(tmp_path: Path) -> None:
    later_string = tmp_path / "later.json"
    later_string.write_text(
        json.dumps({"A.Defence.parry": "Parry", "A.Defence.evade": "Evade", "A.Defence": "Defence"})
    )
    assert collisions(later_string) == ["A.Defence.parry", "A.Defence.evade"]
    earlier_string = tmp_path / "earlier.json"
    earlier_string.write_text(json.dumps({"A.Defence": "Defence", "A.Defence.parry": "Parry"}))
    [failure] = collisions(earlier_string)
    assert failure.startswith("expandObject failed: ")
