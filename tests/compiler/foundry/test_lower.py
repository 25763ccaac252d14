"""Lowering rule data to Foundry documents: shapes, keys, ids, folders, escaping."""

from __future__ import annotations

import functools
import html
from pathlib import Path
from typing import Any

import pytest
from rules_fixture import TinyRules, make_rules, write_rules

from arbiter.compiler.errors import RuleError
from arbiter.compiler.foundry.ids import is_valid_id
from arbiter.compiler.foundry.journals import lower_journal
from arbiter.compiler.foundry.layout import MACROS, PACKS, REFERENCE, TABLES
from arbiter.compiler.foundry.lower import folder_id, lower, pack_entries
from arbiter.compiler.foundry.macros import lower_macros
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.foundry.tables import formula, rollable_tables
from arbiter.compiler.model.common import DieTable, ReferenceTable
from arbiter.compiler.model.loader import Ruleset, load_all, load_ruleset

Doc = dict[str, Any]


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_rules(tmp_path, monkeypatch)


@pytest.fixture
def renderer() -> Renderer:
    return Renderer()


def lowered(root: Path, renderer: Renderer, overlay: Path | None = None) -> dict[str, list[Doc]]:
    return lower(load_all(root, overlay), renderer)


def all_documents(docs: dict[str, list[Doc]]) -> list[Doc]:
    out = []
    for pack_docs in docs.values():
        for doc in pack_docs:
            out.append(doc)
            out.extend(doc.get("results", []))
            out.extend(doc.get("pages", []))
    return out


def test_every_document_has_a_valid_id_and_the_key_the_cli_expects(
    rules_root: Path, renderer: Renderer
) -> None:
    docs = lowered(rules_root, renderer)
    for pack in PACKS:
        for doc in docs[pack.name]:
            collection = "folders" if doc["_key"].startswith("!folders!") else pack.collection
            assert doc["_key"] == f"!{collection}!{doc['_id']}"
            assert is_valid_id(doc["_id"])
            for field in ("results", "pages"):
                for child in doc.get(field, []):
                    assert is_valid_id(child["_id"])
                    assert child["_key"] == f"!{collection}.{field}!{doc['_id']}.{child['_id']}"


def test_ids_are_unique_across_the_whole_module(rules_root: Path, renderer: Renderer) -> None:
    ids = [d["_id"] for d in all_documents(lowered(rules_root, renderer))]
    assert len(ids) == len(set(ids))


def test_each_rollable_table_becomes_a_roll_table_with_the_rows_as_v12_results(
    rules_root: Path, renderer: Renderer
) -> None:
    rules = load_all(rules_root)
    docs = lower(rules, renderer)[TABLES.name]
    tables = {
        (t["flags"]["arbiter"]["ruleset"], t["flags"]["arbiter"]["table"]): t
        for t in docs
        if "results" in t
    }
    expected = {(rid, t.id): t for rid, r in rules.items() for t in rollable_tables(r.model)}
    assert set(tables) == set(expected)
    fumble = tables["tiny", "fumble"]
    assert fumble["name"] == "Fumble"
    assert fumble["formula"] == "1d10"
    assert [(r["range"], r["weight"], r["text"]) for r in fumble["results"]] == [
        ([1, 5], 5, "Drop weapon"),
        ([6, 9], 4, "Trip"),
        ([10, 10], 1, "Hit yourself"),
    ]
    for result in fumble["results"]:
        assert result["type"] == "text"
        assert result["drawn"] is False
        assert result["img"]
        # The V13 fields would be lost on V12; V13/V14 migrate `text` forward themselves.
        assert "description" not in result and "name" not in result
    assert "Roll when a natural 00 comes up." in fumble["description"]


def test_a_richer_row_shows_its_further_fields_in_the_result(
    rules_root: Path, renderer: Renderer
) -> None:
    docs = lowered(rules_root, renderer)[TABLES.name]
    critical = next(t for t in docs if t["name"] == "Critical success")
    assert critical["formula"] == "1d100"
    assert critical["results"][1]["text"] == (
        "Telling blow<br><strong>injury percent</strong>: 50"
        "<br><strong>effect</strong>: Stunned one round"
    )


def test_an_assumed_table_says_so_in_its_description(rules_root: Path, renderer: Renderer) -> None:
    docs = lowered(rules_root, renderer)[TABLES.name]
    location = next(t for t in docs if t["name"] == "Hit location")
    assert "Locations follow the common humanoid split." in location["description"]


@pytest.mark.parametrize(("die", "expected"), [("d100", "1d100"), ("1d20", "1d20"), ("2d6", "2d6")])
def test_the_formula_comes_from_the_die(die: str, expected: str) -> None:
    assert formula(die) == expected


def test_every_pack_has_one_folder_per_ruleset_holding_its_documents(
    rules_root: Path, renderer: Renderer
) -> None:
    docs = lowered(rules_root, renderer)
    for pack in PACKS:
        folders = {d["_id"]: d for d in docs[pack.name] if d["_key"].startswith("!folders!")}
        assert sorted(f["name"] for f in folders.values()) == ["Tiny Rules", "Wee Rules"]
        assert all(f["type"] == pack.type for f in folders.values())
        for doc in docs[pack.name]:
            if doc["_key"].startswith("!folders!"):
                continue
            ruleset = doc["flags"]["arbiter"].get("ruleset") or doc["flags"]["arbiter"]["owner"]
            if ruleset == "arbiter":
                assert doc["folder"] is None
            else:
                assert doc["folder"] == folder_id(pack, ruleset)


def test_the_journal_has_an_about_page_a_page_per_reference_table_and_the_assumptions(
    rules_root: Path, renderer: Renderer
) -> None:
    journals = [d for d in lowered(rules_root, renderer)[REFERENCE.name] if "pages" in d]
    tiny = next(j for j in journals if j["flags"]["arbiter"]["ruleset"] == "tiny")
    assert tiny["name"] == "Tiny Rules: rules reference"
    assert [p["name"] for p in tiny["pages"]] == [
        "About these rules",
        "Sizes",
        "Weapons",
        "Assumed values",
    ]
    assumed = tiny["pages"][-1]["text"]["content"]
    assert "<strong>weapons club</strong>" in assumed
    assert "we took the dagger&#x27;s neighbour." in assumed
    assert "<strong>tables location</strong>" in assumed
    weapons = tiny["pages"][2]["text"]
    assert weapons["format"] == 1
    assert "<td>Dagger</td><td>1d4+1</td>" in weapons["content"]
    about = tiny["pages"][0]["text"]["content"]
    assert load_all(rules_root)["tiny"].content_hash in about


def test_macros_call_the_module_api(rules_root: Path, renderer: Renderer) -> None:
    macros = [d for d in lowered(rules_root, renderer)[MACROS.name] if "command" in d]
    by_name = {m["name"]: m for m in macros}
    assert set(by_name) == {
        "Arbiter: server status",
        "Tiny Rules: draw from a table",
        "Wee Rules: draw from a table",
    }
    draw = by_name["Tiny Rules: draw from a table"]
    assert draw["type"] == "script"
    assert 'game.modules.get("arbiter")?.api' in draw["command"]
    assert 'api.tables.choose("tiny");' in draw["command"]


def test_the_bundled_rulesets_get_their_own_actions(rules_root: Path, renderer: Renderer) -> None:
    # A ruleset named like a bundled one gets that ruleset's request macros.
    tiny = load_ruleset("tiny", root=rules_root, model=TinyRules)
    as_hmk = Ruleset("hmk", tiny.model, tiny.content_hash, tiny.files)
    commands = [m["command"] for m in lower_macros(as_hmk, "x" * 16, renderer)]
    assert any('api.dialogs.open("hmk", "attack");' in c for c in commands)
    assert any('api.dialogs.open("hmk", "initiative");' in c for c in commands)


def test_rule_text_with_markup_and_template_syntax_is_inert_in_every_document(
    tmp_path: Path, rules_root: Path, renderer: Renderer
) -> None:
    evil = "<script>alert(1)</script> {{constructor}} [[/r 1d6]] @UUID[x]"
    write_rules(
        rules_root,
        tables=f"""
[[tables]]
id = "fumble"
name = "Fumble <b>"
die = "1d10"
description = "{evil}"
rows = [{{ range = [1, 10], text = "{evil}" }}]

[[tables]]
id = "location"
name = "Loc"
die = "1d20"
rows = [{{ range = [1, 20], text = "x" }}]
""",
        weapons=f'[[weapons]]\nid = "dagger"\nname = "{evil}"\ndamage = "1d4"\nsize = "s"\n',
    )
    docs = lowered(rules_root, renderer)
    fumble = next(
        t for t in docs[TABLES.name] if t["flags"].get("arbiter", {}).get("table") == "fumble"
    )
    result = fumble["results"][0]["text"]
    for text in (result, fumble["description"], _page(docs, "Weapons")):
        assert "<script" not in text
        assert "{{" not in text and "[[" not in text
        assert "&lt;script&gt;" in text
    assert html.unescape(result) == evil
    assert fumble["name"] == "Fumble <b>"  # names are plain text fields: Foundry escapes them


def _page(docs: dict[str, list[Doc]], name: str) -> str:
    for journal in docs[REFERENCE.name]:
        for page in journal.get("pages", []):
            if page["name"] == name:
                return page["text"]["content"]
    raise AssertionError(f"no page {name!r}")


def test_two_roll_tables_with_one_id_are_refused(rules_root: Path, renderer: Renderer) -> None:
    write_rules(
        rules_root,
        criticals="""
[[criticals]]
id = "fumble"
name = "Another fumble"
die = "1d10"
rows = [{ range = [1, 10], text = "x", injury_percent = 1 }]
""",
    )
    with pytest.raises(RuleError) as info:
        lowered(rules_root, renderer)
    (problem,) = info.value.problems
    assert (problem.file, problem.entry, problem.field) == ("tiny/", "table 'fumble'", "id")


def test_pack_entries_store_children_under_their_own_keys(
    rules_root: Path, renderer: Renderer
) -> None:
    docs = lowered(rules_root, renderer)[TABLES.name]
    table = next(t for t in docs if "results" in t)
    entries = dict(pack_entries([table]))
    parent = entries[table["_key"]]
    assert "_key" not in parent
    assert parent["results"] == [r["_id"] for r in table["results"]]
    for result in table["results"]:
        stored = entries[result["_key"]]
        assert stored == {k: v for k, v in result.items() if k != "_key"}
    assert "_key" in table["results"][0]  # the source documents are left untouched


def test_journal_entries_get_an_empty_category_list_like_the_cli_gives_them(
    rules_root: Path, renderer: Renderer
) -> None:
    journal = next(d for d in lowered(rules_root, renderer)[REFERENCE.name] if "pages" in d)
    parent = dict(pack_entries([journal]))[journal["_key"]]
    assert parent["categories"] == []
    assert parent["pages"] == [p["_id"] for p in journal["pages"]]


class IndexedRules(TinyRules):
    @functools.cached_property
    def table_index(self) -> dict[str, DieTable]:
        return {t.id: t for t in self.tables}


def test_a_table_reached_twice_through_a_cached_index_is_lowered_once(
    rules_root: Path, renderer: Renderer
) -> None:
    tiny = load_ruleset("tiny", root=rules_root, model=IndexedRules)
    assert tiny.model.table_index  # cached in the model's __dict__, so walking the model sees it
    assert len(tiny.model.roll_tables()) == 5
    docs = lower({"tiny": tiny}, renderer)[TABLES.name]
    assert sorted(d["name"] for d in docs if "results" in d) == [
        "Critical success",
        "Fumble",
        "Hit location",
    ]


class TwiceReferenced(TinyRules):
    def reference_tables(self) -> list[ReferenceTable]:
        table = ReferenceTable(id="sizes", name="Sizes", columns=("id",), rows=(("s",),))
        return [table, table]


def test_two_reference_tables_with_one_id_are_refused(rules_root: Path, renderer: Renderer) -> None:
    tiny = load_ruleset("tiny", root=rules_root, model=TwiceReferenced)
    with pytest.raises(RuleError) as info:
        lower({"tiny": tiny}, renderer)
    (problem,) = info.value.problems
    assert (problem.file, problem.entry, problem.field) == (
        "tiny/",
        "reference table 'sizes'",
        "id",
    )


def test_karmic_macros_open_the_dialogs_of_its_request_types(
    rules_root: Path, renderer: Renderer
) -> None:
    tiny = load_ruleset("tiny", root=rules_root, model=TinyRules)
    as_karmic = Ruleset("karmic", tiny.model, tiny.content_hash, tiny.files)
    macros = {
        m["flags"]["arbiter"]["action"]: m for m in lower_macros(as_karmic, "x" * 16, renderer)
    }
    assert 'api.dialogs.open("karmic", "declare");' in macros["register"]["command"]
    assert 'api.dialogs.open("karmic", "draw_initiative");' in macros["initiative"]["command"]
    assert 'api.dialogs.open("karmic", "reveal");' in macros["reveal"]["command"]
    assert 'api.dialogs.open("karmic", "resolve_register");' in macros["resolve"]["command"]
    assert macros["register"]["name"] == "Tiny Rules: play a register"


def test_the_combat_styles_journal_has_the_spirit_effects_page_with_what_arbiter_does(
    renderer: Renderer,
) -> None:
    journal = lower_journal(load_ruleset("combat-styles"), "folder0000000000", renderer)
    [page] = [p for p in journal["pages"] if p["name"] == "Spirit Combat Special Effects"]
    content = page["text"]["content"]
    assert "<th>Arbiter</th>" in content
    assert "<td>Spirit Lance</td>" in content
    assert "GM&#x27;s call (recorded)" in content
    assert "applied as end engagement" in content
