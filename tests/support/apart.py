"""Running a test's coroutine whatever else runs in the main thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a thread of its own, returning its result or raising its
    error.

    The e2e suite's session-wide Playwright (its sync API) keeps an event loop running in the
    main thread for the rest of the run, where ``asyncio.run`` refuses to start another: a test
    collected after the e2e tests must not call it there.
    """
    results: list[T] = []
    errors: list[BaseException] = []

    def main() -> None:
        try:
            results.append(asyncio.run(coroutine))
        except BaseException as err:
            errors.append(err)

    thread = threading.Thread(target=main, name="run-apart")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return results[0]
