"""Spirit-combat special effects: offered by the rule data's requirements and chosen like the
weapon exchange's (pending token, ``choose_effects``). Their consequences are in
test_spirit_effect_consequences.py."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.spirits import (
    choose,
    engage,
    ghost,
    offered,
    shaman,
)

# --- the two steps ---------------------------------------------------------------------------


def test_a_won_spirit_combat_waits_for_the_winners_choice_and_rolls_nothing_more(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])  # success against failure: one effect, no damage rolled yet
    assert out["status"] == "awaiting_effects"
    assert out["chooser"] == "shaman" and out["differential"]["effects"] == 1
    assert "spirit_damage" not in out
    assert table.who("ghost")["magic_points"] == 12
    done = choose(table, out["token"], ["compel_bargain"], [5])
    assert done["status"] == "complete"
    assert done["spirit_damage"]["magic_points"] == {"before": 12, "after": 7}
    assert done["effects"] == [
        {
            "id": "compel_bargain",
            "name": "Compel Bargain",
            "narrative": True,
            "outcome": "recorded: the GM's call",
        }
    ]
    assert table.state is not None and out["token"] not in table.state["pending"]


def test_choosing_more_effects_than_were_won_is_refused(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="2 effects chosen but only 1 were won"):
        choose(table, out["token"], ["spirit_lance", "psychic_stun"])


def test_an_effect_the_winner_may_not_take_is_refused_with_the_reason(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="Withdraw cannot be chosen: only the defender"):
        choose(table, out["token"], ["withdraw"])
    with pytest.raises(EngineError, match="unknown spirit-combat effect 'impale'"):
        choose(table, out["token"], ["impale"])


def test_a_weapon_effect_option_on_a_spirit_effect_is_refused(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="Spirit Lance takes no options"):
        table(
            "choose_effects",
            {"token": out["token"], "effects": [{"id": "spirit_lance", "location": "head"}]},
        )


def test_a_choice_sent_in_advance_finishes_the_exchange_at_once(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 3, 6], effects=[{"id": "spirit_lance"}])
    assert out["status"] == "complete"
    assert out["spirit_damage"]["rolled"] == 6


# --- eligibility -----------------------------------------------------------------------------


def test_a_mortal_attacker_who_succeeds_is_offered_the_attackers_and_mortals_effects(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    assert offered(out) == {
        "compel_bargain",
        "drive_off",
        "psychic_stun",
        "restrain",
        "spirit_lance",
        "suppress_ability",
    }
    assert out["ineligible"]["bleed_essence"] == "needs a critical by the taker"
    assert out["ineligible"]["possess"] == "only a spirit may take it"
    assert out["ineligible"]["withdraw"] == "only the defender may take it"
    assert out["ineligible"]["sunder_binding"] == "needs the opponent to fumble"


def test_a_critical_opens_the_critical_only_effects(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [3, 70])  # critical against failure: two effects
    assert out["differential"]["effects"] == 2
    assert {"bleed_essence", "leech_strength"} <= offered(out)


def test_a_spirit_attacker_may_possess_a_mortal_but_not_restrain_him(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [20, 90])
    assert "possess" in offered(out)
    assert out["ineligible"]["restrain"] == "only a mortal may take it"
    assert out["ineligible"]["drive_off"] == "only a mortal may take it"


def test_a_winning_defender_is_offered_the_defenders_effects(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [80, 2])  # failure against critical: the ghost wins two
    assert out["chooser"] == "ghost"
    assert {"obscure", "turn_back", "withdraw", "psychic_stun", "bleed_essence"} <= offered(out)
    assert out["ineligible"]["spirit_lance"] == "only the attacker may take it"


def test_sunder_binding_needs_the_spirit_to_fumble(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 99])  # the ghost fumbles
    assert "sunder_binding" in offered(out)
    done = choose(table, out["token"], ["sunder_binding"], [4])
    assert done["effects"][0]["narrative"] is True
    assert table.who("ghost")["marks"] == ["sunder_binding"]


def test_a_mortal_against_a_mortal_is_not_offered_the_effects_that_work_only_on_spirits(
    table: Table,
) -> None:
    duel(table, shaman(), fighter("ghost", spirit_combat=50, magic_points=12))
    out = engage(table, [20, 70])
    assert out["ineligible"]["restrain"] == "works only against a spirit"
    assert out["ineligible"]["drive_off"] == "works only against a spirit"


def test_with_no_effect_to_offer_the_exchange_finishes_at_once(model: Any) -> None:
    # Only Withdraw left (a defender's effect): the winning attacker has nothing to choose.
    kept = [e for e in model.spirit_effects if e.id == "withdraw"]
    table = Table(model.model_copy(update={"spirit_effects": kept}))
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 5])
    assert out["status"] == "complete" and out["effects"] == []
    assert out["spirit_damage"]["rolled"] == 5
