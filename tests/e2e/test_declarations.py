"""The harness's Foundry stand-ins match the community type declarations of each generation."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "e2e" / "harness" / "check-declarations.mjs"


def run_check(drift: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_DRIFT"}
    if drift:
        env["HARNESS_DRIFT"] = drift
    return subprocess.run(
        ["node", str(CHECK)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_every_stand_in_matches_a_declaration_in_v12_v13_and_v14() -> None:
    result = run_check()
    assert result.returncode == 0, result.stdout + result.stderr
    for generation in (12, 13, 14):
        assert f"V{generation}: " in result.stdout


def test_a_stand_in_with_the_wrong_parameters_is_reported_as_drift() -> None:
    result = run_check(drift="Roll.fromData")
    assert result.returncode == 1
    assert "MISMATCH V12 Roll.fromData" in result.stdout
    assert "MISMATCH V14 Roll.fromData" in result.stdout


def test_the_user_query_stand_in_is_checked_on_v13_and_v14_and_must_be_absent_on_v12() -> None:
    result = run_check(drift="game.user.query")
    assert result.returncode == 1
    assert "MISMATCH V13 game.user.query" in result.stdout
    assert "MISMATCH V14 game.user.query" in result.stdout
    assert "MISMATCH V12 game.user.query: should be absent" in result.stdout


def test_the_combat_stand_ins_are_checked_like_the_others() -> None:
    result = run_check(drift="Combat.prototype.nextRound")
    assert result.returncode == 1
    for generation in (12, 13, 14):
        assert f"MISMATCH V{generation} Combat.prototype.nextRound" in result.stdout
