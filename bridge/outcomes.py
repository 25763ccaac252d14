"""An outcome as the roll log keeps it and as each client may see it, serialised once.

The roll log keeps the canonical JSON of the whole envelope and, in its ``dice`` column, that of
the dice. A client receives its view (:func:`visible`): ``state`` null, only the ``private``
entries of the participants it declared. Usually (no state kept, no private entries) the view is
the envelope itself, so the logged text is sent as it is: one serialisation serves the log, the
requester and every subscriber. Otherwise the public view is serialised once for everyone who
owns no private entry, and only a client owning one gets a text of its own.
"""

from __future__ import annotations

from typing import Any

from bridge.records import canonical


def visible(outcome: dict[str, Any], participants: frozenset[str]) -> dict[str, Any]:
    """The outcome as one client may see it: ``result`` and the dice, the ``private`` entries of
    the participants it declared, and never the encounter ``state``.

    State stays on the server: it may hold every hand and the deck order (karmic). GM clients
    get no exception; a GM client relaying for players declares their participants.
    """
    private = outcome.get("private") or {}
    shown = {k: v for k, v in private.items() if k in participants}
    if len(shown) == len(private) and outcome.get("state") is None:
        return outcome
    return {**outcome, "private": shown, "state": None}


class OutcomeText:
    """The texts of one outcome envelope.

    Raises TypeError or ValueError (as :func:`~bridge.records.canonical` does) when the outcome
    is not JSON.
    """

    __slots__ = ("_outcome", "_public", "dice", "logged")

    def __init__(self, outcome: dict[str, Any]) -> None:
        self._outcome = outcome
        self.logged = canonical(outcome)
        """Canonical JSON of the whole envelope: what the roll log keeps."""
        self.dice = canonical(outcome.get("dice", []))
        """Canonical JSON of the dice records: the roll log's ``dice`` column."""
        self._public: str | None = None

    def shown(self, participants: frozenset[str]) -> str:
        """``canonical(visible(outcome, participants))``, serialising as little as it can."""
        outcome = self._outcome
        private = outcome.get("private") or {}
        if private and not participants.isdisjoint(private):
            view = visible(outcome, participants)
            return self.logged if view is outcome else canonical(view)
        if self._public is None:
            view = visible(outcome, frozenset())
            self._public = self.logged if view is outcome else canonical(view)
        return self._public


__all__ = ["OutcomeText", "visible"]
