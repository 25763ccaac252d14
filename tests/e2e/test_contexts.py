"""Every test starts from fresh browser contexts: client settings (kept in localStorage, as
Foundry keeps them) that one test leaves behind never reach the next test, nor another user's
page in the same test."""

from __future__ import annotations

import pytest

from tests.e2e.support.browser import BRAM, OpenPage
from tests.e2e.support.process import Server

STORED = "() => Object.fromEntries(Object.entries(window.localStorage))"


@pytest.mark.parametrize("run", ["first", "second"])
def test_client_settings_set_in_one_test_are_absent_in_the_next(
    site: str, server: Server, open_page: OpenPage, run: str
) -> None:
    # Both runs find an empty store and leave a setting in it, on the same site (the same
    # origin, whose localStorage a shared browser profile would keep): whichever runs second
    # would find the first's setting if contexts were shared between tests.
    gm = open_page(site, server)
    gm.wait_status("open")
    assert gm.call(STORED) == {}
    assert gm.call("() => game.settings.get('arbiter', 'heartbeat')") != 7
    gm.call("async () => game.settings.set('arbiter', 'heartbeat', 7)")
    assert gm.call(STORED) == {"arbiter.heartbeat": "7"}
    # Another user's page, opened after, is another browser: it holds nothing of the GM's.
    bram = open_page(site, server, user=BRAM)
    assert bram.call(STORED) == {}
    assert gm.problems == bram.problems == []
