"""Every result kind of every ruleset has a designed card (issue #14).

The worked examples (``docs/examples/<ruleset>.json``) hold a request of every type each
engine serves (checked against the engine's own list, plus the shared table ``draw``), so
replaying them gives an outcome of every result kind. Each outcome, as the GM's connection
receives it (``arbiter.bridge.views.project``: no hidden dice, ``hidden_dice`` counting them), is
rendered by the module's own ``renderCard`` in Chromium; a card fails if it is the "unknown
result" card, shows a raw i18n key, ``[object Object]``, ``undefined``, ``NaN``, ``#null`` or a
``key: value; key: value`` dump. One screenshot per kind is saved under the folder the test
prints (``test-artifacts/e2e/cards``, never committed). An outcome of a kind no module knows
gets the plain "unknown result" card, which says so and prints none of its fields.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from arbiter.bridge.engine.registry import get_engine
from arbiter.bridge.views import GM, project
from arbiter.compiler.model.loader import load_all
from tests.e2e.support.browser import Page
from tests.e2e.support.paths import ARTIFACTS, ROOT

RULESETS = ("combat-styles", "hmk", "karmic")
CARDS = ARTIFACTS / "cards"
DUMP = re.compile(r"\b[a-z_]+: [^;\n]*; [a-z_]+: ")
RAW_KEY = re.compile(r"\bARBITER\.[A-Za-z]|\{[a-z_]+\}")  # a key, or a placeholder left unfilled


def example_entries(ruleset: str) -> list[dict[str, Any]]:
    data = json.loads((ROOT / "docs" / "examples" / f"{ruleset}.json").read_text("utf-8"))
    return data["requests"] if isinstance(data, dict) else data


@pytest.fixture(scope="module")
def outcomes() -> list[dict[str, Any]]:
    """Every example outcome as the GM's connection receives it."""
    seen = []
    for ruleset in RULESETS:
        path = ROOT / "docs" / "examples" / f"{ruleset}.json"
        command = [sys.executable, "-m", "arbiter.bridge.cli", "replay", str(path)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        seen.extend(project(o, GM) for o in json.loads(done.stdout))
    return seen


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    return bundled_gm


def render(gm: Page, outcome: dict[str, Any]) -> Any:
    """The outcome's card as the module renders it, appended to the harness's chat log."""
    html = gm.call("async (o) => game.modules.get('arbiter').api.renderCard(o)", outcome)
    gm.call(
        """([html, id]) => { const li = document.createElement("li");
          li.className = "chat-message coverage"; li.dataset.coverage = id; li.innerHTML = html;
          document.getElementById("chat-log").append(li); }""",
        [html, outcome["id"]],
    )
    return gm.page.locator(f'li[data-coverage="{outcome["id"]}"]')


def test_the_examples_hold_a_request_of_every_type_every_engine_serves() -> None:
    rules = load_all()
    for ruleset in RULESETS:
        served = set(get_engine(ruleset).requests)
        if not rules[ruleset].model.roll_tables():
            served.discard("draw")  # a ruleset without rollable tables refuses every draw
        sent = {e["type"] for e in example_entries(ruleset)}
        assert served <= sent, f"{ruleset}: no example of {sorted(served - sent)}"


def test_every_result_kind_of_every_ruleset_renders_a_designed_card(
    gm: Page, outcomes: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    with capsys.disabled():  # said on the terminal whatever pytest captures
        print(f"\ncard screenshots: {CARDS}")
    CARDS.mkdir(parents=True, exist_ok=True)
    kinds: dict[tuple[str, str], dict[str, Any]] = {}
    for outcome in outcomes:
        where = f"{outcome['ruleset']} {outcome['type']} ({outcome['id']})"
        card = render(gm, outcome)
        text = card.inner_text()
        assert card.locator(".arbiter-card--unknown").count() == 0, f"{where}: unknown card"
        assert card.locator(".arbiter-card__fields").count() == 0, f"{where}: a field dump"
        for bad in ("[object Object]", "undefined", "NaN", "#null"):
            assert bad not in text, f"{where}: {bad!r} in {text!r}"
        assert not RAW_KEY.search(text), f"{where}: raw i18n key in {text!r}"
        assert not DUMP.search(text), f"{where}: key/value dump in {text!r}"
        assert card.locator(".arbiter-die").count() == len(outcome["dice"]), where
        kinds[(outcome["ruleset"], outcome["result"]["kind"])] = outcome
    assert gm.call("() => harness.record.missingKeys") == []
    # The last outcome of each kind (a resolved exchange shows its blow) is photographed.
    for (ruleset, kind), outcome in sorted(kinds.items()):
        shot = gm.page.locator(f'li[data-coverage="{outcome["id"]}"]')
        shot.scroll_into_view_if_needed()
        shot.screenshot(path=str(CARDS / f"{ruleset}-{kind}.png"))
    assert len(kinds) >= 44
    assert gm.problems == []


def test_a_duel_card_counts_the_withheld_shuffle_dice_and_shows_none_of_them(
    gm: Page, outcomes: list[dict[str, Any]]
) -> None:
    duel = next(o for o in outcomes if o["result"]["kind"] == "duel")
    assert duel["dice"] == [] and duel["hidden_dice"] == 47
    card = render(gm, duel)
    assert card.locator(".arbiter-die").count() == 0
    withheld = card.locator('[data-field="hidden_dice"]').inner_text()
    assert "47 dice withheld until the session is revealed" in withheld
    # The deck is drawn as the data's faces: none is a hand-drawn copy.
    assert card.locator('[data-field="deck"]').inner_text().startswith("48")
    assert gm.problems == []


def test_karmic_cards_show_card_faces_drawn_from_the_deck_data(
    gm: Page, outcomes: list[dict[str, Any]]
) -> None:
    reveal = next(o for o in outcomes if o["result"]["kind"] == "reveal")
    card = render(gm, reveal)
    # Wait until each image has loaded or failed (decode() settles either way): a card just
    # rendered may not have fetched them yet, and a failed one keeps naturalWidth 0.
    faces = card.locator("img.arbiter-face").evaluate_all(
        "els => Promise.all(els.map(e => e.decode().catch(() => null)))"
        ".then(() => els.map(e => [e.dataset.face, e.naturalWidth]))"
    )
    assert faces == [["3-hit", 60], ["5", 60]]  # loaded: the build wrote them
    assert gm.problems == []


def test_a_resolved_exchange_shows_its_blow_on_the_body_outline_of_the_rule_data(
    gm: Page, outcomes: list[dict[str, Any]]
) -> None:
    blow = next(o for o in outcomes if o["id"] == "cs-4")
    card = render(gm, blow)
    parts = card.locator(".arbiter-body__part").evaluate_all(
        "els => els.map(e => [e.dataset.location, e.classList.contains('arbiter-body__part--hit')])"
    )
    locations = [loc.id for loc in load_all()["combat-styles"].model.hit_locations]  # type: ignore[attr-defined]
    assert [p[0] for p in parts] == locations
    assert [p[0] for p in parts if p[1]] == [blow["result"]["blow"]["location"]] == ["head"]
    assert gm.problems == []


def test_the_odds_cards_draw_the_outcome_distribution_as_a_chart(
    gm: Page, outcomes: list[dict[str, Any]]
) -> None:
    cs = next(o for o in outcomes if o["ruleset"] == "combat-styles" and o["type"] == "odds")
    card = render(gm, cs)
    attack = card.locator('[data-bar="attack"] [data-level]').evaluate_all(
        "els => els.map(e => [e.dataset.level, e.style.width])"
    )
    # 7/100 critical, 63/100 success, 28/100 failure, 2/100 fumble (docs/examples cs-6)
    assert attack == [["critical", "7%"], ["success", "63%"], ["failure", "28%"], ["fumble", "2%"]]
    assert card.locator("[data-column]").count() == 7
    hmk = next(o for o in outcomes if o["ruleset"] == "hmk" and o["type"] == "odds")
    strike = (
        render(gm, hmk)
        .locator('[data-bar="strike"] [data-level]')
        .evaluate_all("els => els.map(e => [e.dataset.level, e.style.width])")
    )
    # 6 criticals, 54 other hits, 35 misses, 5 fumbles out of 100 (docs/examples ford-9)
    assert strike == [["critical", "6%"], ["success", "54%"], ["failure", "35%"], ["fumble", "5%"]]
    assert gm.problems == []


def test_an_unknown_result_kind_gets_the_plain_unknown_card_without_its_fields(
    gm: Page, outcomes: list[dict[str, Any]]
) -> None:
    base = next(o for o in outcomes if o["ruleset"] == "hmk" and o["type"] == "initiative")
    strange = {
        **base,
        "id": "unknown-1",
        "type": "divine",
        "result": {"kind": "omen", "portent": {"secret-field": "zzz-value"}},
    }
    card = render(gm, strange)
    assert card.locator(".arbiter-card--unknown").count() == 1
    text = card.inner_text()
    assert "Unknown result" in text and "“omen”" in text
    assert "zzz-value" not in text and "portent" not in text
    assert card.locator(".arbiter-die").count() == len(base["dice"])
    CARDS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(CARDS / "unknown.png"))
    assert gm.problems == []
