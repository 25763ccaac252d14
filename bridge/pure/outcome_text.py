"""The texts of one outcome envelope, serialised once: what the log keeps and what each viewer
receives (:mod:`arbiter.bridge.views` says what a viewer may see, and names this class)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

import orjson

from arbiter.bridge.pure.canonical import canonical_around, canonical_bytes

if TYPE_CHECKING:
    from arbiter.bridge.records import NewRoll
    from arbiter.bridge.views import Viewer

_SORTED: Final = orjson.OPT_SORT_KEYS

_HIDDEN_MARK: Final = b'"hidden":true'
"""How a hidden die reads in canonical dice JSON. A string value cannot hold it (its quotes
would be escaped), so finding it in the dice text means a die is hidden."""

_H: Final = 104
"""``ord("h")``: a byte of :data:`_HIDDEN_MARK` (``hidden``) that dice texts seldom hold."""

_NOBODY: Final[frozenset[str]] = frozenset()


def _has_hidden(dice: bytes) -> bool:
    """Whether the canonical dice text ``dice`` holds a hidden die (:data:`_HIDDEN_MARK`).

    A text without an ``h`` (most: the mark's key is ``hidden``) cannot hold it, and one
    memchr says so (``in`` with an int). ``in`` with bytes costs about 300 ns on every outcome:
    CPython first reads the needle as an integer, raising and clearing a TypeError whose
    message it formats, before it searches. ``find`` searches the rest without that.
    """
    return _H in dice and dice.find(_HIDDEN_MARK) >= 0


def project_for(outcome: dict[str, Any], gm: bool, participants: frozenset[str]) -> dict[str, Any]:
    """The outcome as a viewer may see it: the GM (``gm``) or one holding ``participants``
    (:func:`arbiter.bridge.views.project`). Returns ``outcome`` itself when the view is the
    whole envelope (nothing to withhold)."""
    private = outcome.get("private") or {}
    shown = private if gm else {k: v for k, v in private.items() if k in participants}
    dice = outcome.get("dice") or []
    hidden = sum(1 for d in dice if isinstance(d, dict) and d.get("hidden") is True)
    if not hidden and len(shown) == len(private) and outcome.get("state") is None:
        return outcome
    view = {**outcome, "private": shown, "state": None}
    if hidden:
        view["dice"] = [d for d in dice if not (isinstance(d, dict) and d.get("hidden") is True)]
        view["hidden_dice"] = hidden
    return view


class OutcomeText:
    """The texts of one outcome envelope: what the log keeps and what each viewer receives.

    Each is serialised once, as UTF-8 bytes (what is hashed into the chain and sent); the
    ``str`` forms are decoded from them. Raises TypeError or ValueError (as
    :func:`~arbiter.bridge.records.canonical` does) when the outcome is not JSON.

    ``logged``: the outcome's ``dice`` and ``outcome`` texts as the log holds them
    (:meth:`logged_as`), which are then not serialised again.
    """

    dice: str
    dice_bytes: bytes
    """Canonical JSON of the dice records: the roll log's ``dice`` column."""
    logged: str
    logged_bytes: bytes
    """Canonical JSON of the whole envelope: what the roll log keeps."""
    same_for_all: bool
    """Nothing to withhold from anybody: every viewer receives the logged text itself."""

    def __init__(self, outcome: dict[str, Any], logged: tuple[str, str] | None = None) -> None:
        self._outcome = outcome
        if logged is not None:
            self.dice, self.logged = logged
            self.dice_bytes = self.dice.encode()
            self.logged_bytes = self.logged.encode()
        else:
            try:
                # canonical_bytes and canonical_around written out for an envelope with dice
                # that orjson writes (every outcome but a broken engine's).
                dice: bytes = orjson.dumps(outcome["dice"], option=_SORTED)
                text: bytes = orjson.dumps(
                    {**outcome, "dice": orjson.Fragment(dice)}, option=_SORTED
                )
            except (KeyError, TypeError):
                dice = canonical_bytes(outcome.get("dice", []))
                text = canonical_around(outcome, "dice", dice)
            self.dice_bytes = dice
            self.dice = dice.decode()
            self.logged_bytes = text
            self.logged = text.decode()
        self.same_for_all = (
            not outcome.get("private")
            and not _has_hidden(self.dice_bytes)
            and outcome.get("state") is None
        )
        self._public: bytes | None = None
        self._gm: bytes | None = None
        self._players: dict[frozenset[str], bytes] | None = None

    @classmethod
    def logged_as(cls, outcome: dict[str, Any], dice: str, logged: str) -> OutcomeText:
        """The texts of an outcome read back from the log: ``dice`` and ``logged`` are its
        row's ``dice`` and ``outcome`` columns (``outcome`` is ``logged`` decoded), so the
        logged text is not serialised again; a view that withholds something is serialised
        from ``outcome`` as for a new outcome."""
        return cls(outcome, (dice, logged))

    @classmethod
    def of_row(cls, entry: NewRoll) -> OutcomeText:
        """The texts of a logged row's outcome, as every reader of the log sends it (a resend
        of the row's id, a reconnect's gap replay): :meth:`logged_as` of the row's ``outcome``
        and ``dice`` columns, the outcome parsed from its column (:attr:`outcome`). A view
        withholding nothing is the column's text byte for byte, as an older server wrote it
        (a float the json module's way, say), never a second serialisation of it."""
        logged: str = entry.outcome
        return cls(json.loads(logged), (entry.dice, logged))

    @property
    def outcome(self) -> dict[str, Any]:
        """The outcome envelope whose texts these are (the whole of it: not a view)."""
        return self._outcome

    def shown(self, viewer: Viewer) -> str:
        """``canonical(project(outcome, viewer))``, serialising as little as it can."""
        if self.same_for_all:
            return self.logged
        return self.shown_bytes(viewer).decode()

    def shown_bytes(self, viewer: Viewer) -> bytes:
        """:meth:`shown` as UTF-8 bytes; the same bytes object for every viewer of one view
        (the logged text, the GM's view, the public view), so callers may cache by it."""
        if self.same_for_all:
            return self.logged_bytes  # the common case: nothing to withhold from anybody
        if viewer.gm:
            gm = self._gm
            if gm is None:
                gm = self._gm = self._text(True, _NOBODY)
            return gm
        private = self._outcome.get("private")
        participants: frozenset[str] = viewer.participants
        if private and not participants.isdisjoint(private):
            # A player's view shows the entries of his participants among this outcome's, and
            # nothing else of him: players owning the same of its entries are entitled to the
            # very same text, serialised once for them all (the other entries stay out of it).
            owned = participants.intersection(private)
            players = self._players
            if players is None:
                players = self._players = {}
            text = players.get(owned)
            if text is None:
                text = players[owned] = self._text(False, owned)
            return text
        public = self._public
        if public is None:
            public = self._public = self._text(False, _NOBODY)
        return public

    def _text(self, gm: bool, participants: frozenset[str]) -> bytes:
        view = project_for(self._outcome, gm, participants)
        return self.logged_bytes if view is self._outcome else canonical_bytes(view)


__all__ = ["OutcomeText", "project_for"]
