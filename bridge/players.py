"""Player records and their tokens: who a connection is, and which participants it holds.

A player record (store table ``players``) names a player, the participants he holds and the
SHA-256 of his token (None for a player who only relays through the GM, see ``bind``). A token
is 32 random bytes, url-safe base64; it is printed once when issued and only its hash is
stored. A revoked record keeps its name (``arbiter token --players`` lists it) but no hello
and no relay is accepted for it any more, and the server closes its live connections.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

from arbiter.bridge.records import Player
from arbiter.bridge.stores import WorldStore


class PlayerRecords(Protocol):
    """What editing the records needs of a store: any :class:`WorldStore`, or the records of
    a PostgreSQL world read for one ``arbiter token`` edit
    (:class:`arbiter.bridge.stores.postgres_players.PlayerEdit`)."""

    def player(self, name: str) -> Player | None: ...
    def players(self) -> list[Player]: ...
    def put_player(self, player: Player) -> None: ...


class BoundRecords(Protocol):
    """What a GM's ``bind`` needs of a store (any :class:`WorldStore`)."""

    def player(self, name: str) -> Player | None: ...
    def bind_player(self, player: Player) -> None: ...


MAX_PARTICIPANTS = 256


def new_token() -> str:
    """A fresh player token: 32 random bytes, url-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the store keeps of a token: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_participants(participants: list[str]) -> tuple[str, ...]:
    """The participants, duplicates dropped (first kept), or ValueError naming what is wrong."""
    if len(participants) > MAX_PARTICIPANTS:
        raise ValueError(f"at most {MAX_PARTICIPANTS} participants per player")
    out: list[str] = []
    for p in participants:
        if not p or len(p) > 128:
            raise ValueError(f"participant id {p!r} must have 1 to 128 characters")
        if p not in out:
            out.append(p)
    return tuple(out)


def check_name(name: str) -> str:
    if not name or len(name) > 128 or not name.isprintable():
        raise ValueError(f"player name {name!r} must be 1 to 128 printable characters")
    return name


def issue(
    store: PlayerRecords, name: str, participants: list[str] | None, rotate: bool, now: float
) -> tuple[Player, str | None]:
    """Create or update player ``name``; returns the record and the new token, if one was made.

    A new player (or a revoked one issued again) gets a token; an existing one keeps his token
    unless ``rotate`` (the old one then stops working) or he has none (made by ``bind``).
    ``participants`` None keeps the current list. Raises ValueError for a bad name or list,
    or a new player without participants.
    """
    check_name(name)
    held = None if participants is None else check_participants(participants)
    old = store.player(name)
    if old is None and held is None:
        raise ValueError(f"{name!r} is a new player: name the participants he holds")
    fresh = old is None or not old.active or rotate or old.token_hash is None
    token = new_token() if fresh else None
    record = Player(
        name=name,
        participants=held if held is not None else old.participants if old else (),
        token_hash=token_hash(token) if token is not None else old.token_hash if old else None,
        created=old.created if old is not None else now,
        revoked=None,
    )
    store.put_player(record)
    return record, token


def bind(store: BoundRecords, name: str, participants: list[str], now: float) -> Player:
    """Create or update player ``name`` holding ``participants`` (a GM's ``bind``).

    A new record has no token (the player relays through the GM); an existing one keeps his
    token. A revoked record is made active again without a token: the revoked token stays void.
    The store writes it as a bind (:meth:`WorldStore.bind_player`): the token and revocation
    are the stored ones when it lands, not those of the record read here, which another
    process may have rotated or revoked since (``arbiter token``).
    """
    check_name(name)
    held = check_participants(participants)
    old = store.player(name)
    if old is None or not old.active:
        record = Player(name, held, None, old.created if old else now, None)
    else:
        record = Player(name, held, old.token_hash, old.created, None)
    store.bind_player(record)
    return record


def revoke(store: PlayerRecords, name: str, now: float) -> Player:
    """Revoke player ``name``'s token and relays; KeyError when there is no such player."""
    old = store.player(name)
    if old is None:
        raise KeyError(name)
    record = Player(old.name, old.participants, old.token_hash, old.created, old.revoked or now)
    store.put_player(record)
    return record


def by_token(store: WorldStore, token: str) -> Player | None:
    """The active player holding ``token``, or None."""
    found = store.player_by_hash(token_hash(token))
    return found if found is not None and found.active else None


__all__ = [
    "BoundRecords",
    "Player",
    "PlayerRecords",
    "bind",
    "by_token",
    "check_name",
    "check_participants",
    "issue",
    "new_token",
    "revoke",
    "token_hash",
]
