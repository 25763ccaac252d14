"""The document validator the oracle applies catches each breach of Foundry's document rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rules_fixture import make_rules

from arbiter.compiler.foundry.document_rules import document_problems
from arbiter.compiler.foundry.layout import PACKS
from arbiter.compiler.foundry.lower import lower
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.model.loader import load_all


@pytest.fixture(scope="module")
def lowered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    with pytest.MonkeyPatch.context() as mp:
        root = make_rules(tmp_path_factory.mktemp("rules"), mp)
        docs = lower(load_all(root), Renderer())
    return {p.type: {d["_key"]: d for d in docs[p.name]} for p in PACKS}


def test_lowered_documents_pass(lowered: dict[str, dict[str, dict[str, Any]]]) -> None:
    for pack_type, docs in lowered.items():
        assert document_problems(pack_type, docs) == []


def first(docs: dict[str, dict[str, Any]], prefix: str) -> dict[str, Any]:
    return next(d for k, d in docs.items() if k.startswith(prefix))


BREACHES = [
    ("RollTable", lambda d: first(d, "!tables!").update(_id="short"), "not 16 alphanumerics"),
    ("RollTable", lambda d: first(d, "!tables!").update(name=" "), "name is required"),
    ("RollTable", lambda d: first(d, "!tables!").update(formula="d%"), "is not NdM"),
    ("RollTable", lambda d: first(d, "!tables!").update(folder="x" * 16), "not a folder"),
    ("RollTable", lambda d: first(d, "!tables!")["results"][0].update(type=0), "is not 'text'"),
    ("RollTable", lambda d: first(d, "!tables!")["results"][0].update(range=[5, 1]), "range"),
    ("RollTable", lambda d: first(d, "!tables!")["results"][0].update(weight=0), "weight"),
    ("RollTable", lambda d: first(d, "!tables!")["results"][0].update(description="x"), "V12"),
    ("RollTable", lambda d: first(d, "!tables!")["results"][0].update(_key="!tables!x"), "_key"),
    ("RollTable", lambda d: first(d, "!folders!").update(type="Item"), "folder type"),
    ("RollTable", lambda d: first(d, "!tables!").update(ownership={"default": 5}), "level"),
    ("RollTable", lambda d: first(d, "!tables!")["_stats"].update(oops=1), "unknown fields"),
    ("JournalEntry", lambda d: first(d, "!journal!")["pages"][0]["text"].update(format=2), "HTML"),
    ("JournalEntry", lambda d: first(d, "!journal!").update(pages=[]), "without pages"),
    ("Macro", lambda d: first(d, "!macros!").update(type="shell"), "macro type"),
    ("Macro", lambda d: first(d, "!macros!").update(scope="world"), "macro scope"),
]


@pytest.mark.parametrize(("pack_type", "breach", "expected"), BREACHES)
def test_the_validator_catches_each_breach(
    lowered: dict[str, dict[str, dict[str, Any]]], pack_type: str, breach: Any, expected: str
) -> None:
    docs = copy.deepcopy(lowered[pack_type])
    breach(docs)
    problems = document_problems(pack_type, docs)
    assert any(expected in p for p in problems), problems
