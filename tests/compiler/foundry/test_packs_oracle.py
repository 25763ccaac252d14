"""The official Foundry CLI (``fvtt package unpack``) reads the packs ``write_pack`` writes.

Each test writes documents shaped like the ones Arbiter ships, unpacks the pack with the CLI
(LevelDB itself, via classic-level, opens it) and compares the unpacked JSON with the documents.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from arbiter.compiler.foundry.packs import PackLockedError, read_pack, write_pack

REPO = Path(__file__).resolve().parents[3]

Doc = tuple[str, dict[str, Any]]


def ident(prefix: str, n: int) -> str:
    """A 16-character Foundry id, readable in failures."""
    return f"{prefix}{n:0{16 - len(prefix)}d}"


def folder(fid: str, name: str, kind: str) -> Doc:
    return (
        f"!folders!{fid}",
        {
            "_id": fid,
            "name": name,
            "type": kind,
            "folder": None,
            "sorting": "a",
            "sort": 0,
            "color": None,
            "description": "",
            "flags": {},
        },
    )


def roll_table(
    tid: str, name: str, rows: list[tuple[int, int, str]], folder_id: str | None
) -> list[Doc]:
    results = [ident(f"R{tid[:3]}", i) for i in range(len(rows))]
    docs: list[Doc] = [
        (
            f"!tables!{tid}",
            {
                "_id": tid,
                "name": name,
                "img": "icons/svg/d20-grey.svg",
                "description": "",
                "results": results,
                "formula": "1d100",
                "replacement": True,
                "displayRoll": True,
                "folder": folder_id,
                "sort": 0,
                "ownership": {"default": 0},
                "flags": {},
            },
        )
    ]
    for rid, (lo, hi, text) in zip(results, rows, strict=True):
        docs.append(
            (
                f"!tables.results!{tid}.{rid}",
                {
                    "_id": rid,
                    "type": "text",
                    "text": text,
                    "img": "icons/svg/d20-black.svg",
                    "documentCollection": "",
                    "documentId": None,
                    "weight": hi - lo + 1,
                    "range": [lo, hi],
                    "drawn": False,
                    "flags": {},
                },
            )
        )
    return docs


def journal(jid: str, name: str, pages: list[tuple[str, str]]) -> list[Doc]:
    page_ids = [ident(f"P{jid[:3]}", i) for i in range(len(pages))]
    docs: list[Doc] = [
        (
            f"!journal!{jid}",
            {
                "_id": jid,
                "name": name,
                "pages": page_ids,
                "folder": None,
                "sort": 0,
                "ownership": {"default": 0},
                "flags": {"arbiter": {"source": "hmk"}},
            },
        )
    ]
    for i, (pid, (title, html)) in enumerate(zip(page_ids, pages, strict=True)):
        docs.append(
            (
                f"!journal.pages!{jid}.{pid}",
                {
                    "_id": pid,
                    "name": title,
                    "type": "text",
                    "title": {"show": True, "level": 1},
                    "text": {"content": html, "format": 1},
                    "sort": i * 100000,
                    "ownership": {"default": -1},
                    "flags": {},
                },
            )
        )
    return docs


def macro(mid: str, name: str, command: str) -> Doc:
    return (
        f"!macros!{mid}",
        {
            "_id": mid,
            "name": name,
            "type": "script",
            "scope": "global",
            "command": command,
            "img": "icons/svg/dice-target.svg",
            "folder": None,
            "sort": 0,
            "ownership": {"default": 0},
            "flags": {},
        },
    )


def test_the_cli_unpacks_roll_tables_with_their_results_and_folders(fvtt, tmp_path: Path) -> None:
    fid = ident("Fold", 1)
    docs = [
        folder(fid, "HârnMaster Tables", "RollTable"),
        *roll_table(
            ident("Tcrit", 1), "Critical Success", [(1, 5, "Stunned"), (6, 100, "Bleeds")], fid
        ),
        *roll_table(ident("Tfumb", 2), "Melee Fumbles", [(1, 1, "Drops weapon")], None),
        *roll_table(ident("Tempty", 3), "Empty", [], None),
    ]
    pack = tmp_path / "tables"
    write_pack(pack, docs)
    assert fvtt.unpack(pack, tmp_path) == fvtt.expected(docs)


def test_the_cli_unpacks_journals_with_pages_and_macros(fvtt, tmp_path: Path) -> None:
    docs = journal(
        ident("Jrefs", 1),
        "Combat Styles: Reference",
        [
            ("Weapon Sizes", "<table><tr><td>S</td></tr></table>"),
            ("Reach", "<p>{{not a helper}}</p>"),
        ],
    )
    write_pack(tmp_path / "journal", docs)
    assert fvtt.unpack(tmp_path / "journal", tmp_path) == fvtt.expected(docs)

    macros = [
        macro(ident("Mroll", i), f"Roll {i}", "game.modules.get('arbiter').api.roll();")
        for i in range(3)
    ]
    write_pack(tmp_path / "macros", macros)
    assert fvtt.unpack(tmp_path / "macros", tmp_path) == fvtt.expected(macros)


def test_the_cli_unpacks_unicode_text_and_empty_values(fvtt, tmp_path: Path) -> None:
    docs = [
        *roll_table(
            ident("Tuni", 1),
            "Ŧäблица 表 🎲",
            [
                (1, 1, ""),
                (2, 2, "Łódź — “quoted” ‘text’ ☠"),
                (3, 3, 'tab\tnew\nline \\ " </script>'),
            ],
            None,
        ),
        macro(ident("Muni", 1), "Ωmega 🗡", ""),
    ]
    write_pack(tmp_path / "unicode", docs)
    assert fvtt.unpack(tmp_path / "unicode", tmp_path) == fvtt.expected(docs)


def test_the_cli_unpacks_a_large_pack_spanning_many_log_blocks(fvtt, tmp_path: Path) -> None:
    docs: list[Doc] = []
    for t in range(150):
        rows = [
            (r * 5 + 1, r * 5 + 5, f"Row {r} of table {t}: " + "x" * (r * 7)) for r in range(20)
        ]
        docs += roll_table(ident("Tbig", t), f"Table {t}", rows, None)
    # One document far larger than a 32 KiB block, so its record has FIRST, MIDDLE and LAST parts.
    docs += journal(ident("Jhuge", 1), "Huge", [("All", "<p>" + "é✓" * 60000 + "</p>")])
    pack = tmp_path / "large"
    write_pack(pack, docs)
    assert (pack / "000003.log").stat().st_size > 20 * 32768
    unpacked = fvtt.unpack(pack, tmp_path)
    assert len(unpacked) == 151
    assert unpacked == fvtt.expected(docs)


def test_a_pack_held_open_by_leveldb_itself_is_refused(fvtt, tmp_path: Path) -> None:
    """A running Foundry holds its packs open with LevelDB; classic-level plays Foundry here."""
    pack = tmp_path / "open"
    write_pack(pack, [macro(ident("Mopen", 1), "Open", "")])
    script = (
        "const { ClassicLevel } = require(process.argv[1]);"
        "const db = new ClassicLevel(process.argv[2]);"
        "db.open().then(() => { console.log('open'); process.stdin.once('data', () => db.close()); });"
    )
    holder = subprocess.Popen(
        ["node", "-e", script, str(REPO / "node_modules" / "classic-level"), str(pack)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(PackLockedError, match=str(pack)):
            write_pack(pack, [macro(ident("Mopen", 2), "Other", "")])
    finally:
        assert holder.stdin is not None
        holder.stdin.write("close\n")
        holder.stdin.close()
        holder.wait(timeout=30)


def test_the_cli_unpacks_an_empty_pack_as_no_documents(fvtt, tmp_path: Path) -> None:
    write_pack(tmp_path / "empty", [])
    assert fvtt.unpack(tmp_path / "empty", tmp_path) == {}


def test_a_pack_leveldb_has_compacted_is_rewritten_whole(fvtt, tmp_path: Path) -> None:
    """Foundry compacts a pack's log into table files when it opens it; a rebuild replaces all."""
    pack = tmp_path / "tables"
    old = roll_table(ident("Told", 1), "Old", [(1, 2, "old row")], None)
    write_pack(pack, old)
    fvtt.run(
        "package", "unpack", "-n", "tables", "--in", str(tmp_path), "--out", str(tmp_path / "o")
    )
    assert any(p.suffix == ".ldb" for p in pack.iterdir()), "LevelDB compacted the pack in place"
    new = roll_table(ident("Tnew", 1), "New", [(1, 1, "new row"), (2, 2, "другой")], None)
    write_pack(pack, new)
    assert sorted(p.name for p in pack.iterdir()) == [
        "000003.log",
        "CURRENT",
        "LOCK",
        "MANIFEST-000002",
    ]
    assert fvtt.unpack(pack, tmp_path) == fvtt.expected(new)


def test_our_reader_reads_packs_the_cli_wrote_and_compacted(fvtt, tmp_path: Path) -> None:
    """The other direction: LevelDB's own table files (Snappy blocks) read back by read_pack."""
    fid = ident("Fold", 7)
    docs = [
        folder(fid, "Folder", "RollTable"),
        *roll_table(
            ident("Tcli", 1), "Big", [(r, r, "ü" * 40 + "abc" * r) for r in range(1, 300)], fid
        ),
        macro(ident("Mcli", 1), "Macro ✓", "return 1;"),
    ]
    pack = tmp_path / "cli" / "tables"
    fvtt.pack(docs, pack)
    assert any(p.suffix == ".ldb" for p in pack.iterdir())
    assert read_pack(pack) == dict(docs)


def test_our_pack_still_reads_back_after_leveldb_compacts_it(fvtt, tmp_path: Path) -> None:
    docs = roll_table(ident("Tcmp", 1), "Compacted", [(1, 50, "low"), (51, 100, "high")], None)
    write_pack(tmp_path / "tables", docs)
    fvtt.run(
        "package", "unpack", "-n", "tables", "--in", str(tmp_path), "--out", str(tmp_path / "o")
    )
    assert any(p.suffix == ".ldb" for p in (tmp_path / "tables").iterdir())
    assert read_pack(tmp_path / "tables") == dict(docs)
