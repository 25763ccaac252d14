"""write_pack / read_pack: serialisation, determinism, refusing bad documents and locked packs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.compiler.foundry.leveldb import read_database
from arbiter.compiler.foundry.packs import PackError, PackLockedError, read_pack, write_pack

T = "Tab0000000000001"
R1, R2 = "Res0000000000001", "Res0000000000002"
F = "Fol0000000000001"


def table_docs() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"!folders!{F}", {"_id": F, "name": "Tables", "type": "RollTable", "folder": None}),
        (f"!tables!{T}", {"_id": T, "name": "Fumbles", "results": [R1, R2], "folder": F}),
        (f"!tables.results!{T}.{R1}", {"_id": R1, "text": "Slip", "range": [1, 1]}),
        (f"!tables.results!{T}.{R2}", {"_id": R2, "text": "Drop — ✓", "range": [2, 2]}),
    ]


def test_documents_read_back_equal(tmp_path: Path) -> None:
    write_pack(tmp_path / "p", table_docs())
    assert read_pack(tmp_path / "p") == dict(table_docs())


def test_values_are_compact_json_with_sorted_keys_in_utf8(tmp_path: Path) -> None:
    write_pack(tmp_path / "p", table_docs())
    raw = read_database(tmp_path / "p")
    assert raw[f"!tables.results!{T}.{R2}".encode()] == (
        f'{{"_id":"{R2}","range":[2,2],"text":"Drop — ✓"}}'.encode()
    )


def test_the_same_documents_in_another_order_give_identical_files(tmp_path: Path) -> None:
    write_pack(tmp_path / "a", table_docs())
    write_pack(tmp_path / "b", list(reversed(table_docs())))
    for file in sorted((tmp_path / "a").iterdir()):
        assert file.read_bytes() == (tmp_path / "b" / file.name).read_bytes(), file.name


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("tables!Tab0000000000009", "not a Foundry pack key"),
        ("!tables!short", "not a Foundry pack key"),
        ("!tables!Tab000000000000-", "not a Foundry pack key"),
        (f"!tables.results!{R1}", "1 ids"),
    ],
)
def test_a_malformed_key_is_refused(tmp_path: Path, key: str, message: str) -> None:
    with pytest.raises(PackError, match=message):
        write_pack(tmp_path / "p", [(key, {"_id": key[-16:]})])
    assert not (tmp_path / "p").exists()


def test_a_repeated_key_is_refused(tmp_path: Path) -> None:
    docs = table_docs()
    with pytest.raises(PackError, match=f"!tables!{T}: two documents have this key"):
        write_pack(tmp_path / "p", [*docs, docs[1]])


def test_an_id_that_disagrees_with_its_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="field '_id' is 'Other00000000000', the key says"):
        write_pack(tmp_path / "p", [(f"!macros!{T}", {"_id": "Other00000000000"})])


def test_an_embedded_document_missing_from_its_parents_list_is_refused(tmp_path: Path) -> None:
    docs = table_docs()
    docs[1][1]["results"] = [R1]
    with pytest.raises(PackError, match=f"!tables!{T}: field 'results' does not list"):
        write_pack(tmp_path / "p", docs)


def test_a_listed_embedded_document_that_is_absent_is_refused(tmp_path: Path) -> None:
    docs = table_docs()[:2]
    with pytest.raises(PackError, match=f"lists '{R1}' but the pack has no"):
        write_pack(tmp_path / "p", docs)


def test_an_embedded_document_without_its_parent_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="embedded document without its parent"):
        write_pack(tmp_path / "p", table_docs()[2:3])


def test_a_folder_that_is_not_in_the_pack_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="field 'folder' names 'Nowhere000000000'"):
        write_pack(tmp_path / "p", [(f"!macros!{T}", {"_id": T, "folder": "Nowhere000000000"})])


@pytest.mark.parametrize("bad", [float("nan"), {1, 2}, "\ud800"])
def test_a_value_json_cannot_hold_is_refused_naming_the_key(tmp_path: Path, bad: object) -> None:
    with pytest.raises(PackError, match=f"!macros!{T}: not serialisable as JSON"):
        write_pack(tmp_path / "p", [(f"!macros!{T}", {"_id": T, "command": bad})])


def test_a_pack_locked_by_another_process_is_refused_naming_it(tmp_path: Path) -> None:
    pack = tmp_path / "world-pack"
    write_pack(pack, table_docs())
    before = {p.name: p.read_bytes() for p in pack.iterdir()}
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys\n"
            "f = open(sys.argv[1], 'r+b')\n"
            "fcntl.lockf(f, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
            str(pack / "LOCK"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(PackLockedError, match=f"{pack}: the LevelDB database is in use"):
            write_pack(pack, table_docs()[:1])
        assert {p.name: p.read_bytes() for p in pack.iterdir()} == before
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    write_pack(pack, table_docs()[:1])  # the lock released, the pack is replaced
    assert read_pack(pack) == dict(table_docs()[:1])


def test_reading_something_that_is_not_a_pack_is_a_pack_error(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="is not a LevelDB database"):
        read_pack(tmp_path)


def test_a_single_embedded_document_is_named_by_id_not_listed(tmp_path: Path) -> None:
    s, t, d = "Scene00000000001", "Token00000000001", "Delta00000000001"
    docs = [
        (f"!scenes!{s}", {"_id": s, "tokens": [t]}),
        (f"!scenes.tokens!{s}.{t}", {"_id": t, "delta": d}),
        (f"!scenes.tokens.delta!{s}.{t}.{d}", {"_id": d, "name": "changed"}),
    ]
    write_pack(tmp_path / "p", docs)
    assert read_pack(tmp_path / "p") == dict(docs)


def test_a_known_list_of_embedded_documents_given_as_one_id_is_refused(tmp_path: Path) -> None:
    docs = table_docs()
    docs[1][1]["results"] = R1
    with pytest.raises(PackError, match="field 'results' does not list"):
        write_pack(tmp_path / "p", docs)


def test_embedded_documents_inlined_in_their_parent_are_refused(tmp_path: Path) -> None:
    nested = {"_id": T, "name": "Fumbles", "results": [{"_id": R1, "text": "Slip"}]}
    with pytest.raises(PackError, match="field 'results' must be a list of embedded ids"):
        write_pack(tmp_path / "p", [(f"!tables!{T}", nested)])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=5), max_size=6))
def test_any_json_documents_read_back_equal(tmp_path_factory, bodies: list[dict[str, Any]]) -> None:
    directory = tmp_path_factory.mktemp("pack") / "p"
    docs = [
        (f"!macros!{i:016d}", {**body, "_id": f"{i:016d}", "folder": None})
        for i, body in enumerate(bodies)
    ]
    write_pack(directory, docs)
    assert read_pack(directory) == dict(docs)
