"""Whose a logged request is, as a player's resend asks it."""

from __future__ import annotations

from arbiter.bridge.records import NewRoll
from arbiter.bridge.stat_block_shield import written_by
from arbiter.bridge.views import GM, Viewer

PAT = Viewer(False, frozenset({"ana"}), "pat")


def row(user: str, player: str | None) -> NewRoll:
    """A logged request whose ``user`` text and ``player`` record are as given."""
    return NewRoll("r-1", "s-1", user, "hmk", "attack", None, "h", "{}", "[]", "{}", 0, False,
                   1.0, player)  # fmt: skip


def test_a_row_is_a_player_s_when_it_logs_his_record_sent_or_relayed() -> None:
    assert written_by(row("pat", "pat"), PAT)
    assert written_by(row("pat (relayed by Gamemaster)", "pat"), PAT)


def test_a_row_of_the_gm_or_of_another_player_is_not_his() -> None:
    assert not written_by(row("Gamemaster", None), PAT)
    assert not written_by(row("patrick", "patrick"), PAT)
    assert not written_by(row("bo (relayed by pat)", "bo"), PAT)
    # The GM's connection is nobody's player: it compares every row exactly instead.
    assert not written_by(row("Gamemaster", None), GM)


def test_the_user_text_never_makes_a_row_his() -> None:
    # The GM's client named its user "pat"; another player is named "pat (relayed by Gm)".
    assert not written_by(row("pat", None), PAT)
    assert not written_by(row("pat (relayed by Gm)", "pat (relayed by Gm)"), PAT)


def test_a_row_logged_before_rows_named_their_player_is_nobody_s() -> None:
    # Its owner is unknown: a resend of it is refused as another's, never compared.
    assert not written_by(row("pat", None), PAT)
