"""What a connection may see of an outcome: the one place a logged outcome becomes a view.

The roll log keeps the canonical JSON of the whole envelope: the encounter ``state`` (which may
hold every hand and the deck order), every participant's ``private`` entry and every die,
hidden ones included. A connection receives ``project(outcome, viewer)``, for its reply,
for the replay of a retried id and for ``outcome`` events alike:

* ``state`` is always null: it stays on the server;
* ``private`` holds only the viewer's own participants' entries (a GM viewer: all of them);
* dice marked ``hidden`` (they decide hidden state, e.g. a karmic deck shuffle) are withheld
  from everybody, the GM included, and the view says how many: ``"hidden_dice": N`` (the key
  only when N > 0). They stay in the log for ``arbiter reveal`` and ``replay --from-log``.

:class:`OutcomeText` serialises each view once. Usually (no state kept, no private entries, no
hidden die) the view is the envelope itself, so the logged text is sent as it is: one
serialisation serves the log, the requester and every subscriber. Otherwise the public view
(nobody's private entries) is serialised once for every viewer who owns none, the GM's view once
for every GM, and a player's once for every player owning the same of the outcome's entries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from arbiter.bridge.records import NewRoll, canonical_around, canonical_bytes

_dumps = orjson.dumps
_Fragment = orjson.Fragment
_SORTED = orjson.OPT_SORT_KEYS

_HIDDEN_MARK = b'"hidden":true'
"""How a hidden die reads in canonical dice JSON. A string value cannot hold it (its quotes
would be escaped), so finding it in the dice text means a die is hidden."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who receives a view: the GM (sees every private entry) or a player and the
    participants it holds (``player`` is None for a GM, or for a viewer bound to nobody)."""

    gm: bool
    participants: frozenset[str]
    player: str | None = None

    def sees(self, participant: str) -> bool:
        """Whether this viewer may see ``participant``'s private entries."""
        return self.gm or participant in self.participants


GM = Viewer(gm=True, participants=frozenset(), player=None)
"""The GM's view: every private entry."""
NOBODY = Viewer(gm=False, participants=frozenset(), player=None)
"""The public view: no private entry."""


def project(outcome: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The outcome as ``viewer`` may see it (see the module's docstring).

    Returns ``outcome`` itself when the view is the whole envelope (nothing to withhold).
    """
    private = outcome.get("private") or {}
    shown = private if viewer.gm else {k: v for k, v in private.items() if k in viewer.participants}
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
    """

    __slots__ = (
        "_gm",
        "_outcome",
        "_players",
        "_public",
        "dice",
        "dice_bytes",
        "logged",
        "logged_bytes",
        "same_for_all",
    )

    def __init__(self, outcome: dict[str, Any]) -> None:
        self._outcome = outcome
        try:
            # canonical_bytes and canonical_around written out for an envelope with dice that
            # orjson writes (every outcome but a broken engine's): no call of either per request.
            dice = _dumps(outcome["dice"], option=_SORTED)
            logged = _dumps({**outcome, "dice": _Fragment(dice)}, option=_SORTED)
        except (KeyError, TypeError):
            dice = canonical_bytes(outcome.get("dice", []))
            logged = canonical_around(outcome, "dice", dice)
        self.dice_bytes = dice
        """Canonical JSON of the dice records: the roll log's ``dice`` column."""
        self.dice = dice.decode()
        self.logged_bytes = logged
        """Canonical JSON of the whole envelope: what the roll log keeps."""
        self.logged = logged.decode()
        self.same_for_all = (
            not outcome.get("private") and _HIDDEN_MARK not in dice and outcome.get("state") is None
        )
        """Nothing to withhold from anybody: every viewer receives the logged text itself."""
        self._public: bytes | None = None
        self._gm: bytes | None = None
        self._players: dict[frozenset[str], bytes] | None = None

    @classmethod
    def logged_as(cls, outcome: dict[str, Any], dice: str, logged: str) -> OutcomeText:
        """The texts of an outcome read back from the log: ``dice`` and ``logged`` are its
        row's ``dice`` and ``outcome`` columns (``outcome`` is ``logged`` decoded), so the
        logged text is not serialised again; a view that withholds something is serialised
        from ``outcome`` as for a new outcome."""
        text = object.__new__(cls)
        text._outcome = outcome
        text.dice = dice
        text.dice_bytes = dice.encode()
        text.logged = logged
        text.logged_bytes = logged.encode()
        text.same_for_all = (
            not outcome.get("private")
            and _HIDDEN_MARK not in text.dice_bytes
            and outcome.get("state") is None
        )
        text._public = None
        text._gm = None
        text._players = None
        return text

    @classmethod
    def of_row(cls, entry: NewRoll) -> OutcomeText:
        """The texts of a logged row's outcome, as every reader of the log sends it (a resend
        of the row's id, a reconnect's gap replay): :meth:`logged_as` of the row's ``outcome``
        and ``dice`` columns, the outcome parsed from its column (:attr:`outcome`). A view
        withholding nothing is the column's text byte for byte, as an older server wrote it
        (a float the json module's way, say), never a second serialisation of it."""
        return cls.logged_as(json.loads(entry.outcome), entry.dice, entry.outcome)

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
            if self._gm is None:
                self._gm = self._text(GM)
            return self._gm
        private = self._outcome.get("private")
        if private and not viewer.participants.isdisjoint(private):
            # A player's view shows the entries of his participants among this outcome's, and
            # nothing else of him: players owning the same of its entries are entitled to the
            # very same text, serialised once for them all (the other entries stay out of it).
            owned = viewer.participants.intersection(private)
            players = self._players
            if players is None:
                players = self._players = {}
            text = players.get(owned)
            if text is None:
                text = players[owned] = self._text(Viewer(False, owned))
            return text
        if self._public is None:
            self._public = self._text(NOBODY)
        return self._public

    def _text(self, viewer: Viewer) -> bytes:
        view = project(self._outcome, viewer)
        return self.logged_bytes if view is self._outcome else canonical_bytes(view)


__all__ = ["GM", "NOBODY", "OutcomeText", "Viewer", "project"]
