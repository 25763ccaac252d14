"""A hostile client sends JSON that is valid but outside what the protocol promises to read.

Integers of more digits than Python converts (4,300), a stat block number past its bound, a lone
surrogate in a request whose id is already logged, and a protocol version written ``true`` or
``1.0``: each gets a named error (``invalid_message`` / ``invalid_request``) naming the field,
never ``internal``, and the connection stays up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bridge.support import Running, bundled_config, bundled_request, receive, running, send

ROOT = Path(__file__).resolve().parents[2]
HUGE = "7" * 5000


def with_huge(template: str) -> str:
    """``template`` with ``HUGE`` replaced by a 5,000-digit integer."""
    return template.replace("HUGE", HUGE)


def answer(srv: Running, text: str) -> dict[str, object]:
    """The reply to one raw frame, from a fresh authenticated connection that must stay up."""
    ws, _ = srv.hello()
    send(ws, text)
    reply = receive(ws)
    send(ws, {"v": 1, "type": "ping", "id": "still-there"})
    assert receive(ws) == {"v": 1, "type": "pong", "id": "still-there"}
    ws.close()
    return reply


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        (with_huge('{"v":HUGE,"type":"ping"}'), "v"),
        (with_huge('{"v":1,"type":"ping","id":HUGE}'), "id"),
        (
            with_huge(
                '{"v":1,"type":"request","request":{"id":"big-dice","ruleset":"combat-styles",'
                '"type":"check","body":{"skill":50}},"dice":[3,HUGE]}'
            ),
            "dice.1",
        ),
        (
            with_huge(
                '{"v":1,"type":"request","request":{"id":"big-skill","ruleset":"combat-styles",'
                '"type":"check","body":{"skill":HUGE}}}'
            ),
            "request.body.skill",
        ),
        (
            with_huge(
                '{"v":1,"type":"request","request":{"id":"big-extra","ruleset":"combat-styles",'
                '"type":"check","body":{"skill":5,"note":{"n":[-HUGE]}}}}'
            ),
            "request.body.note.n.0",
        ),
    ],
)
def test_an_integer_of_five_thousand_digits_is_refused_naming_its_field(
    tmp_path: Path, frame: str, field: str
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        reply = answer(srv, frame)
    assert reply["type"] == "error"
    assert reply["code"] == "invalid_message"
    assert (
        reply["message"] == f"{field}: an integer of 5000 digits, over the 4300 this server reads"
    )


def test_a_logged_id_resent_with_a_lone_surrogate_in_its_body_names_the_field(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        send(ws, bundled_request("r1", "draw", {"table": "humanoid"}))
        assert receive(ws)["type"] == "outcome"
        ws.close()
        reply = answer(
            srv,
            '{"v":1,"type":"request","request":{"id":"r1","ruleset":"combat-styles","type":"draw",'
            '"body":{"table":"\\udc00"}}}',
        )
    assert reply == {
        "v": 1,
        "type": "error",
        "id": "r1",
        "code": "invalid_request",
        "message": "invalid 'draw' request: body.table: text that is not Unicode "
        "(a lone surrogate escape)",
        "retry_after": None,
    }


def test_a_new_id_with_a_lone_surrogate_in_its_body_names_the_field(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        reply = answer(
            srv,
            '{"v":1,"type":"request","request":{"id":"r2","ruleset":"combat-styles","type":"draw",'
            '"body":{"table":"huma\\ud800noid"}}}',
        )
    assert reply["code"] == "invalid_request"
    # The bundled draw body (a length-limited string) is refused by pydantic in its own words
    # ("unable to parse raw data as a unicode string"); the field is named either way.
    message = str(reply["message"])
    assert message.startswith("invalid 'draw' request: body.table: ")
    assert "unicode" in message.lower()


@pytest.mark.parametrize("version", ["true", "1.0", "1e0"])
def test_a_protocol_version_that_is_not_the_integer_1_is_refused_naming_v(
    tmp_path: Path, version: str
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        reply = answer(srv, '{"v":VERSION,"type":"ping","id":"p"}'.replace("VERSION", version))
        request_reply = answer(
            srv,
            '{"v":VERSION,"type":"request","request":{"id":"v-VERSION","ruleset":"combat-styles",'
            '"type":"check","body":{"skill":50}}}'.replace("VERSION", version),
        )
        logged = srv.server.store.find(f"v-{version}")
    for got in (reply, request_reply):
        assert got["type"] == "error"
        assert got["code"] == "invalid_message"
        assert str(got["message"]).startswith("v: the protocol version is the JSON integer 1, not ")
    assert logged is None


def test_a_hello_whose_version_is_true_is_refused_naming_v(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws = srv.connect()
        send(
            ws,
            '{"v":true,"type":"hello","token":"SECRET","client":{"name":"hostile"}}'.replace(
                "SECRET", srv.server.secret
            ),
        )
        reply = receive(ws)
    assert reply["code"] == "invalid_message"
    assert reply["message"] == "v: the protocol version is the JSON integer 1, not true"


def test_a_stat_block_number_past_the_served_bound_is_refused_naming_field_and_bound(
    tmp_path: Path,
) -> None:
    """An exchange carrying its stat blocks, one evade of 501 and one SIZ of 0 (bundled bounds:
    skills 0-500, SIZ 1-500): refused before any die, both named, nothing logged, and the same
    exchange within the bounds is then decided."""
    example = json.loads((ROOT / "docs/examples/combat-styles.json").read_text())["requests"]
    start = next(e for e in example if e["type"] == "start_encounter")
    exchange = next(e for e in example if e["type"] == "exchange")
    guard, vessa = (json.loads(json.dumps(b)) for b in start["body"]["combatants"])
    body = {**exchange["body"], "combatants": [guard, vessa], "effects": []}
    guard["skills"]["evade"] = 501
    guard["characteristics"]["siz"] = 0
    with running(bundled_config(tmp_path)) as srv:
        reply = answer(srv, json.dumps(bundled_request("fudged", "exchange", body)))
        logged = srv.call(_found(srv, "fudged"))
        guard["skills"]["evade"], guard["characteristics"]["siz"] = 500, 1
        fair = answer(srv, json.dumps(bundled_request("fair", "exchange", body)))
    assert reply["type"] == "error"
    assert reply["code"] == "invalid_request"
    message = str(reply["message"])
    assert "body.combatants.0.characteristics.siz" in message
    assert "greater than or equal to 1" in message
    assert "body.combatants.0.skills.evade" in message
    assert "less than or equal to 500" in message
    assert logged is None
    assert fair["type"] == "outcome"


async def _found(srv: Running, rid: str) -> object:
    return srv.server.store.find(rid)
