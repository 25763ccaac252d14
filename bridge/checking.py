"""The ``check`` message: is this stat block one the server would accept? Decides nothing.

A client (GM or player alike) sends ``{"v": 1, "type": "check", "id": "c-1", "ruleset": "hmk",
"stat_block": {…}}`` and gets ``{"v": 1, "type": "checked", "id": "c-1", "ok": false,
"problems": [{"field": "attributes.STR", "message": "…"}]}``: the server's own validation
messages, field by field, for the stat-block editor. Nothing is logged, no die is rolled, no
encounter is read, and the answer depends on nothing but the message (so it reveals nothing a
viewer may not see). Kept apart from :mod:`bridge.protocol` and :mod:`bridge.session`, which
only name these models and route the message here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arbiter.bridge import stat_blocks
from arbiter.compiler.model.common import RulesetBase

CheckId = Annotated[str, Field(min_length=1, max_length=128)]
MAX_PROBLEMS = 50
"""At most this many problems are listed (a stat block that is all wrong still gets a short
answer)."""


class Check(BaseModel):
    """Client → server: validate ``stat_block`` as ``ruleset``'s stat-block model would."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Annotated[int, Field(strict=True, ge=1, le=1)]
    type: Literal["check"]
    id: CheckId | None = None
    ruleset: str = Field(min_length=1, max_length=64)
    stat_block: dict[str, Any]


class FieldProblem(BaseModel):
    """One field the server would refuse, and why (the message a refused request carries)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="dotted path from the stat block's root; '' for the whole")
    message: str


class Checked(BaseModel):
    """Server → client: the answer to ``check``; ``ok`` when ``problems`` is empty."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1
    type: Literal["checked"] = "checked"
    id: CheckId | None = None
    ruleset: str
    ok: bool
    problems: list[FieldProblem] = Field(default_factory=list)


def checked(message: Check, served: Mapping[str, RulesetBase] | None = None) -> Checked:
    """The answer to ``message``. ``served``: the rule models this server serves, by ruleset
    id (``RulesSnapshot.models``); another ruleset is a problem on the field ``ruleset``, and
    the block is validated under these rules, as every request carrying it is (an id the rule
    data lacks is a problem at its field). None: any ruleset with a stat-block model, its
    shape only."""
    rid = message.ruleset
    if rid not in stat_blocks.STAT_BLOCKS or (served is not None and rid not in served):
        known = sorted(stat_blocks.STAT_BLOCKS if served is None else served)
        problem = FieldProblem(
            field="ruleset",
            message=f"no stat block for ruleset {rid!r} here (known: {', '.join(known)})",
        )
        return Checked(id=message.id, ruleset=rid, ok=False, problems=[problem])
    found = stat_blocks.problems(rid, message.stat_block, served)
    listed = [FieldProblem(field=f, message=m) for f, m in found[:MAX_PROBLEMS]]
    if len(found) > MAX_PROBLEMS:
        listed.append(FieldProblem(field="", message=f"and {len(found) - MAX_PROBLEMS} more"))
    return Checked(id=message.id, ruleset=rid, ok=not found, problems=listed)
