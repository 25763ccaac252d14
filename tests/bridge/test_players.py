"""Player records: issued with a token printed once, only its hash stored; updated, rotated,
bound by the GM and revoked."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge import players
from arbiter.bridge.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "arbiter.sqlite3")


def test_a_new_player_gets_a_token_whose_hash_alone_is_stored(store: Store, tmp_path: Path) -> None:
    record, token = players.issue(store, "ann", ["devon", "devon", "mule"], False, 10.0)
    assert token is not None and len(token) == 43
    assert record.participants == ("devon", "mule")
    assert record.token_hash == players.token_hash(token) != token
    assert players.by_token(store, token) == record
    store.close()
    assert token.encode() not in (tmp_path / "arbiter.sqlite3").read_bytes()


def test_updating_participants_keeps_the_token_and_rotating_replaces_it(store: Store) -> None:
    _, token = players.issue(store, "ann", ["devon"], False, 10.0)
    assert token is not None
    updated, none = players.issue(store, "ann", ["mule"], False, 20.0)
    assert none is None and updated.participants == ("mule",) and updated.created == 10.0
    assert players.by_token(store, token) == updated
    rotated, new = players.issue(store, "ann", None, True, 30.0)
    assert new is not None and rotated.participants == ("mule",)
    assert players.by_token(store, token) is None
    assert players.by_token(store, new) == rotated


def test_a_revoked_token_opens_nothing_and_issuing_again_makes_a_new_one(store: Store) -> None:
    _, token = players.issue(store, "ann", ["devon"], False, 10.0)
    assert token is not None
    revoked = players.revoke(store, "ann", 20.0)
    assert revoked.revoked == 20.0 and not revoked.active
    assert players.by_token(store, token) is None
    again, new = players.issue(store, "ann", ["devon"], False, 30.0)
    assert new is not None and new != token and again.active
    with pytest.raises(KeyError):
        players.revoke(store, "nobody", 1.0)


def test_bind_makes_a_player_without_a_token_and_keeps_an_existing_one(store: Store) -> None:
    bound = players.bind(store, "bob", ["soldier"], 10.0)
    assert bound.token_hash is None and bound.active
    _, token = players.issue(store, "ann", ["devon"], False, 10.0)
    assert token is not None
    players.bind(store, "ann", ["devon", "mule"], 20.0)
    assert players.by_token(store, token) is not None
    players.revoke(store, "ann", 30.0)
    revived = players.bind(store, "ann", ["devon"], 40.0)
    # Bound again, he may be relayed for; the revoked token stays void.
    assert revived.active and revived.token_hash is None
    assert players.by_token(store, token) is None


def test_a_new_player_needs_participants_and_a_printable_name(store: Store) -> None:
    with pytest.raises(ValueError, match="name the participants"):
        players.issue(store, "ann", None, False, 1.0)
    with pytest.raises(ValueError, match="printable"):
        players.issue(store, "a\nb", ["x"], False, 1.0)
    with pytest.raises(ValueError, match="participant id"):
        players.bind(store, "ann", [""], 1.0)
    assert store.players() == []


class _ReadBefore:
    """The server's store, whose read of the record was made before ``arbiter token`` (another
    process, another connection to the file) rotated the token: the race between a bind's read
    and its write."""

    def __init__(self, store: Store, read: players.Player | None) -> None:
        self.store, self.read = store, read

    def player(self, name: str) -> players.Player | None:
        return self.read

    def put_player(self, player: players.Player) -> None:
        self.store.put_player(player)

    def bind_player(self, player: players.Player) -> None:
        self.store.bind_player(player)


def test_a_bind_read_before_a_rotation_by_another_process_keeps_the_rotated_token(
    store: Store, tmp_path: Path
) -> None:
    _, old = players.issue(store, "ann", ["devon"], False, 10.0)
    read = store.player("ann")
    other = Store(tmp_path / "arbiter.sqlite3")  # `arbiter token --player ann --rotate`
    _, new = players.issue(other, "ann", None, True, 20.0)
    other.close()
    assert old is not None and new is not None
    players.bind(_ReadBefore(store, read), "ann", ["devon", "mule"], 30.0)
    assert players.by_token(store, old) is None
    found = players.by_token(store, new)
    assert found is not None and found.participants == ("devon", "mule")


def test_a_bind_read_before_a_revoke_by_another_process_leaves_the_token_void(
    store: Store, tmp_path: Path
) -> None:
    _, old = players.issue(store, "ann", ["devon"], False, 10.0)
    read = store.player("ann")
    other = Store(tmp_path / "arbiter.sqlite3")  # `arbiter token --player ann --revoke`
    players.revoke(other, "ann", 20.0)
    other.close()
    assert old is not None
    players.bind(_ReadBefore(store, read), "ann", ["devon"], 30.0)
    assert players.by_token(store, old) is None
    record = store.player("ann")
    assert record is not None and record.active and record.token_hash is None
