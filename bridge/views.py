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
The serialising is written in :mod:`arbiter.bridge.pure.outcome_text` (compiled with the
engine: it runs for every request) and named here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbiter.bridge.pure.outcome_text import OutcomeText, project_for


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
    return project_for(outcome, viewer.gm, viewer.participants)


__all__ = ["GM", "NOBODY", "OutcomeText", "Viewer", "project"]
