"""Re-deriving the roll log: every row resolved again with its recorded dice and compared.

Rows are replayed in log order; each encounter's state is threaded from row to row exactly as
the server did (a row whose outcome leaves state untouched keeps it). A row matches when the
re-derived outcome, as the log keeps it (:func:`~arbiter.bridge.records.kept`), is byte-identical
(canonical JSON) to the logged one. A row refused after dice (``arbiter.bridge.refusals``) matches when
the same request, state and dice are refused again with the same code and message.

A row logged under other rules (a hot reload, a later edit of the rule files) carries the old
``rules_hash`` in its outcome, and a re-derived one the current: when that is the only
difference the row is *rehashed* (the edit did not change what it decided), not mismatched; any
other difference is a mismatch naming the first place it differs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from arbiter.bridge.engine import registry
from arbiter.bridge.engine.contract import JSON, Engine
from arbiter.bridge.engine.dice import Dice, ScriptedDiceError, ScriptedSource
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.limits import BudgetedSource
from arbiter.bridge.refusals import (
    UNUSABLE,
    Refusal,
    RefusedBeforeDice,
    refusal_in,
    refused_outcome,
    settle,
)
from arbiter.bridge.store import Roll, canonical
from arbiter.compiler.model.loader import Ruleset


@dataclass
class LogReplay:
    """The result of replaying a log: counts, and one line per row that did not match."""

    rows: int = 0
    matched: int = 0
    mismatches: list[str] = field(default_factory=list)
    other_rules: int = 0
    """Rows logged under a rules hash other than the current one (hot reload, later edits)."""
    rehashed: list[str] = field(default_factory=list)
    """One line per row logged under other rules whose re-derived outcome is identical to the
    logged one but for ``rules_hash``: the rules changed, what the row decided did not."""

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def same_under_other_rules(self) -> bool:
        """No row differs, and some were logged under other rules: the rules changed since (a
        reload, an edit), the outcomes did not."""
        return self.ok and self.other_rules > 0


def first_difference(logged: JSON, now: JSON, path: str = "") -> str | None:
    """Where ``now`` first differs from ``logged`` (keys in sorted order, list items in order),
    as ``path: logged X, re-derived Y`` (JSON values, cut to 80 characters); None when equal."""
    if isinstance(logged, dict) and isinstance(now, dict):
        for key in sorted(set(logged) | set(now)):
            where = f"{path}.{key}" if path else str(key)
            if key not in logged or key not in now:
                was = _short(logged[key]) if key in logged else "nothing"
                is_ = _short(now[key]) if key in now else "nothing"
                return f"{where}: logged {was}, re-derived {is_}"
            found = first_difference(logged[key], now[key], where)
            if found is not None:
                return found
        return None
    if isinstance(logged, list) and isinstance(now, list):
        for i, (a, b) in enumerate(zip(logged, now, strict=False)):
            found = first_difference(a, b, f"{path}.{i}" if path else str(i))
            if found is not None:
                return found
        if len(logged) == len(now):
            return None
        return f"{path}: {len(logged)} items logged, {len(now)} re-derived"
    if logged == now and type(logged) is type(now):
        return None
    return f"{path}: logged {_short(logged)}, re-derived {_short(now)}"


def _short(value: JSON) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def replay_log(
    rolls: Iterable[Roll],
    rulesets: Mapping[str, Ruleset],
    find_engine: Callable[[str], Engine] | None = None,
) -> LogReplay:
    """Resolve every row again from its request and recorded dice; report any difference."""
    find = find_engine or registry.get_engine
    report = LogReplay()
    states: dict[str, JSON | None] = {}
    for roll in rolls:
        report.rows += 1
        label = f"row {roll.seq} ({roll.entry.request_id})"
        ruleset = rulesets.get(roll.entry.ruleset)
        if ruleset is None:
            report.mismatches.append(f"{label}: ruleset {roll.entry.ruleset!r} is not available")
            continue
        note = ""
        if ruleset.content_hash != roll.entry.rules_hash:
            report.other_rules += 1
            note = " (logged under other rules: hash differs)"
        request = Request.model_validate_json(roll.entry.request)
        recorded = [d["result"] for d in json.loads(roll.entry.dice)]
        source = ScriptedSource(recorded)
        logged = json.loads(roll.entry.outcome)
        # A row refused after dice is re-derived under a budget of the dice it recorded: a
        # refusal for the budget rolled exactly the budget, and any other refusal used no more.
        refused = refusal_in(logged) is not None
        dice = Dice(BudgetedSource(source, len(recorded)) if refused else source)
        state = states.get(request.encounter) if request.encounter else None
        try:
            engine = find(roll.entry.ruleset)
            outcome = settle(request, engine, ruleset.model, ruleset.content_hash, state, dice)
            text = canonical(outcome)
        except (registry.UnknownRuleset, ScriptedDiceError) as err:
            report.mismatches.append(f"{label}: cannot be re-derived: {err}{note}")
            continue
        except RefusedBeforeDice as err:
            report.mismatches.append(
                f"{label}: cannot be re-derived: refused before any die: {err}{note}"
            )
            continue
        except (TypeError, ValueError):
            # Not JSON: the server logged this engine fault as an internal refusal.
            unusable = Refusal("internal", UNUSABLE.format(request.ruleset))
            outcome = refused_outcome(request, ruleset.model, ruleset.content_hash, unusable, dice)
            text = canonical(outcome)
        if request.encounter is not None and logged.get("state") is not None:
            states[request.encounter] = logged["state"]
        if source.remaining:
            report.mismatches.append(f"{label}: {source.remaining} recorded dice unused{note}")
        # Equal values are no mismatch, whichever canonical form the row was written in.
        elif text != roll.entry.outcome and (now := json.loads(text)) != logged:
            keys = sorted(k for k in set(now) | set(logged) if now.get(k) != logged.get(k))
            if note and keys == ["rules_hash"]:
                report.rehashed.append(
                    f"{label}: identical under the current rules but for rules_hash{note}"
                )
                continue
            if note and "rules_hash" in keys:
                # The hash differs as a matter of course under other rules: name what else does.
                keys.remove("rules_hash")
                now["rules_hash"] = logged["rules_hash"]
            first = first_difference(logged, now)
            report.mismatches.append(
                f"{label}: outcome differs in {', '.join(keys)} (first at {first}){note}"
            )
        else:
            report.matched += 1
    return report
