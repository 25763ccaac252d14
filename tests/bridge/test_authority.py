"""Who may act: every request type of every ruleset says whom it acts for, and a player's
connection may send only requests for participants it holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from arbiter.bridge.authority import acting_fields, acting_ids, authorize
from arbiter.bridge.engine.combat_styles.bodies.request_types import REQUESTS as COMBAT_STYLES
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.hmk.engine import ENGINE as HMK
from arbiter.bridge.engine.karmic.requests import REQUESTS as KARMIC
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.views import GM, Viewer
from tests.security.support import Client, bundled_server, karmic, rows

RULESETS: dict[str, dict[str, type[BaseModel]]] = {
    "karmic": dict(KARMIC),
    "hmk": dict(HMK.requests),
    "combat-styles": dict(COMBAT_STYLES),
}
EVERY_TYPE = [(r, t, m) for r, types in RULESETS.items() for t, m in types.items()]
DEVON = Viewer(gm=False, participants=frozenset({"devon"}), player="devon-player")


def req(type: str, body: dict[str, Any], ruleset: str = "karmic") -> Request:
    return Request(id="r-1", ruleset=ruleset, type=type, body=body)


@pytest.mark.parametrize(("ruleset", "type", "model"), EVERY_TYPE)
def test_every_request_type_declares_whom_it_acts_for_with_fields_of_its_body(
    ruleset: str, type: str, model: type[BaseModel]
) -> None:
    assert "acting" in vars(model), f"{ruleset} {type}: {model.__name__} declares no 'acting'"
    for field in acting_fields(model):
        assert field in model.model_fields, f"{ruleset} {type}: no field {field!r}"


def test_the_table_actions_are_the_ones_that_act_for_nobody_in_particular() -> None:
    table = {(r, t) for r, t, m in EVERY_TYPE if not acting_fields(m)}
    assert {(r, t) for r, t in table if r == "karmic"} == {
        ("karmic", t)
        for t in (
            "start_duel",
            "draw_initiative",
            "draw_hands",
            "reveal",
            "resolve_register",
            "entangle",
        )
    }
    assert {t for r, t in table if r == "hmk"} == {"start", "initiative", "round"}
    assert {t for r, t in table if r == "combat-styles"} == {
        "opposed",
        "odds",
        "start_encounter",
        "initiative",
        "next_turn",
        "next_cycle",
        "next_round",
        "state",
    }


def test_a_player_acts_for_his_own_participant_and_is_refused_for_another_s() -> None:
    authorize(req("declare", {"combatant": "devon", "maneuvers": []}), KARMIC["declare"], DEVON)
    with pytest.raises(ProtocolError) as refused:
        authorize(
            req("declare", {"combatant": "soldier", "maneuvers": []}), KARMIC["declare"], DEVON
        )
    assert refused.value.code == "forbidden"
    assert refused.value.message == "this connection does not act for 'soldier'"
    assert refused.value.id == "r-1"


def test_a_table_action_is_the_gm_s_and_the_gm_may_send_anything() -> None:
    with pytest.raises(ProtocolError) as refused:
        authorize(req("reveal", {}), KARMIC["reveal"], DEVON)
    assert refused.value.message == "'reveal' is the GM's to send"
    authorize(req("reveal", {}), KARMIC["reveal"], GM)
    authorize(req("declare", {"combatant": "soldier"}), KARMIC["declare"], GM)


def test_every_id_of_a_list_field_counts_and_a_stat_block_counts_by_its_id() -> None:
    exchange = COMBAT_STYLES["exchange"]
    body = {"attacker": "devon", "defender": "orc", "mitigate_damage": ["devon", "orc"]}
    assert acting_ids(exchange, body) == ["devon", "devon", "orc"]
    with pytest.raises(ProtocolError, match="'orc'"):
        authorize(req("exchange", body, "combat-styles"), exchange, DEVON)
    attack = HMK.requests["attack"]
    assert acting_ids(attack, {"attacker": {"id": "devon"}, "defender": "orc"}) == ["devon"]


def test_a_request_naming_nobody_it_acts_for_is_the_gm_s() -> None:
    check = COMBAT_STYLES["check"]
    with pytest.raises(ProtocolError) as refused:
        authorize(req("check", {"skill": 50}, "combat-styles"), check, DEVON)
    assert refused.value.message == "'check' is the GM's to send"
    authorize(req("check", {"skill": 50, "combatant": "devon"}, "combat-styles"), check, DEVON)


def test_an_unknown_type_is_left_to_the_server_s_own_refusal(tmp_path: Path) -> None:
    # authorize has no model to read acting fields from and lets it through …
    assert authorize(req("nonsense", {}), None, DEVON) is None
    # … and the server refuses it by its own rule, naming the type (not as 'forbidden', which
    # would say the type exists and is another's), logging nothing.
    with bundled_server(tmp_path) as srv:
        token = srv.player("devon-player", "devon")
        assert token is not None
        devon = Client(srv, token, events=[])
        refused = devon.ask(karmic("n-1", "nonsense", {"combatant": "devon"}))
        devon.close()
        assert rows(srv) == 0
    assert (refused["type"], refused["code"]) == ("error", "unknown_request_type")
    assert refused["message"].startswith("unknown request type 'nonsense' for ruleset 'karmic'")
