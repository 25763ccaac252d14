"""The serve command's console log: plain HTTP answers are not reported as rejections."""

from __future__ import annotations

import logging

from arbiter.bridge.commands.serve import HttpAnswersFilter


def _record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("websockets.server", logging.INFO, __file__, 1, msg, args, None)


def test_a_served_http_page_is_not_logged_as_a_rejected_connection() -> None:
    assert not HttpAnswersFilter().filter(_record("connection rejected (%d %s)", 200, "OK"))


def test_a_refused_websocket_is_still_logged() -> None:
    keep = HttpAnswersFilter()
    assert keep.filter(_record("connection rejected (%d %s)", 403, "Forbidden"))
    assert keep.filter(_record("connection rejected (%d %s)", 500, "Internal Server Error"))


def test_other_server_lines_pass_through() -> None:
    assert HttpAnswersFilter().filter(_record("connection open"))
