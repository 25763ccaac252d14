"""What the GM's browser says of a ``stat_blocks_invalid`` event: the module's own
``vault.mjs`` runs in node on an event built by the server's own model, so the two cannot drift
apart unseen. Each refused block is named by its actor's name (the block's name when the actor
is gone), with its participant, its ruleset and each problem as ``field: message``."""

from __future__ import annotations

import json
import subprocess

from arbiter.bridge.checking import FieldProblem
from arbiter.bridge.protocol import StatBlocksInvalid
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.vault_messages import InvalidStatBlock
from tests.e2e.support.paths import ROOT

VAULT = ROOT / "templates" / "module" / "scripts" / "vault.mjs"
TEXT = """
const { invalidBlocksText } = await import(%(vault)s);
const [event, actors] = JSON.parse(process.argv[1]);
process.stdout.write(JSON.stringify(invalidBlocksText(event.blocks, (id) => actors[id] ?? null)));
"""


def notice_text(event: StatBlocksInvalid, actors: dict[str, str]) -> str:
    script = TEXT % {"vault": json.dumps(VAULT.as_uri())}
    argument = json.dumps([json.loads(encode(event)), actors])
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, argument],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return str(json.loads(done.stdout))


def test_the_gm_is_told_each_refused_block_by_its_actor_s_name_and_each_field_s_problem() -> None:
    unknown = FieldProblem(field="weapon", message="unknown weapon 'war-hammer' (known: dagger)")
    skill = FieldProblem(field="skills.war-hammer", message="unknown weapon 'war-hammer'")
    event = StatBlocksInvalid(
        blocks=[
            InvalidStatBlock(
                ruleset="hmk",
                participant="orc",
                name="Orc",
                actor="actorGrum",
                problems=[skill, unknown],
            ),
            InvalidStatBlock(
                ruleset="hmk", participant="elf", name="Elf", actor="actorGone", problems=[unknown]
            ),
        ]
    )
    assert notice_text(event, {"actorGrum": "Grum the orc"}) == (
        "Grum the orc (orc, hmk): skills.war-hammer: unknown weapon 'war-hammer'; "
        "weapon: unknown weapon 'war-hammer' (known: dagger) | "
        "Elf (elf, hmk): weapon: unknown weapon 'war-hammer' (known: dagger)"
    )
