"""The karmic card-duel engine (pure): decks and hidden hands, sealed registers, ranges.

``ENGINE`` satisfies :class:`arbiter.bridge.engine.contract.Engine`; request types and their bodies
are in :mod:`arbiter.bridge.engine.karmic.requests` and ``docs/requests-karmic.md``.
"""

from arbiter.bridge.engine.karmic.engine import ENGINE, KarmicEngine

__all__ = ["ENGINE", "KarmicEngine"]
