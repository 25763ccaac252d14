"""Logging a failure that repeats (a full disk) without flooding the log.

A server whose disk is full fails every commit and every hello until someone makes room: a
full traceback each time buried the one useful line (1,414 tracebacks in 12 s). A
:class:`FailureLog` logs one line per failure, with the traceback only the first time a given
error (its type and message) is seen.
"""

from __future__ import annotations

import logging

UNAVAILABLE = (
    "the roll log cannot be written (disk full?); nothing was decided. Retry with the same id "
    "once the server has room"
)
"""The ``unavailable`` error's message: the store failed, so nothing was decided or logged."""

UNAVAILABLE_HELLO = (
    "the roll log cannot be written (disk full?), so no session could be opened; nothing was "
    "decided. Send hello again on this connection once the server has room"
)


class FailureLog:
    """One ERROR line per failure; the traceback once per distinct error."""

    def __init__(self, logger: logging.Logger, remember: int = 64) -> None:
        self._logger = logger
        self._seen: set[tuple[type[BaseException], str]] = set()
        self._remember = remember
        self.count = 0
        """Failures reported so far."""

    def report(self, what: str, err: BaseException) -> None:
        """Log ``what: err`` (the traceback too if this error was not seen before)."""
        self.count += 1
        key = (type(err), str(err))
        if key in self._seen:
            self._logger.error("%s: %s", what, err)
            return
        if len(self._seen) < self._remember:
            # Bounded: a flood of distinct messages must not grow memory; past the bound each
            # new one gets its traceback (rare: the messages of one failure repeat).
            self._seen.add(key)
        self._logger.error("%s: %s (traceback shown once)", what, err, exc_info=err)
