"""Whose a logged request is, as a player's resend asks it."""

from __future__ import annotations

from arbiter.bridge.stat_block_shield import written_by
from arbiter.bridge.views import GM, Viewer

PAT = Viewer(False, frozenset({"ana"}), "pat")


def test_a_row_is_a_player_s_when_his_connection_or_the_gm_s_relay_sent_it() -> None:
    assert written_by("pat", PAT)
    assert written_by("pat (relayed by Gamemaster)", PAT)


def test_a_row_of_the_gm_or_of_another_player_is_not_his() -> None:
    assert not written_by("Gamemaster", PAT)
    assert not written_by("patrick", PAT)
    assert not written_by("patrick (relayed by Gamemaster)", PAT)
    assert not written_by("bo (relayed by pat)", PAT)
    # The GM's connection is nobody's player: it compares every row exactly instead.
    assert not written_by("Gamemaster", GM)
