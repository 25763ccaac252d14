"""What an engine returns for one request (re-exported by :mod:`arbiter.bridge.engine.contract`).

A module of its own, free of pydantic, so that it is compiled with the engine: a resolution is
built for every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


# mypyc compiles a dataclass's own __init__ but not the one dataclasses generates: the
# constructor is written out; eq and repr stay generated.
@dataclass(init=False)
class Resolution:
    """What an engine returns for one request (never changed once made).

    ``result`` is the outcome shown on the chat card (JSON-able, includes ``"kind"``).
    ``state`` is the new encounter state, or None when the request leaves state untouched.
    ``private`` maps a participant id to data only that participant may see (a karmic hand).
    """

    result: JSON
    state: JSON | None
    private: Mapping[str, JSON]

    def __init__(
        self,
        result: JSON,
        state: JSON | None = None,
        private: Mapping[str, JSON] | None = None,
    ) -> None:
        self.result = result
        self.state = state
        self.private = {} if private is None else private
