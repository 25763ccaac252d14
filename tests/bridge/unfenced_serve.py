"""``arbiter serve`` as a host whose clock and renewals lie to it: its leases always look valid
(``Lease.valid`` ignores the deadline) and its renewals report nothing lost, so nothing but the
epoch in the database stands between it and a world another host has claimed — what a host
whose clock was stepped, or frozen between its check and its write, would see.

Run: ``python -m tests.bridge.unfenced_serve SERVE-OPTIONS`` (``arbiter serve``'s options).
"""

from __future__ import annotations

import sys

from arbiter.bridge.cli import main
from arbiter.bridge.stores.ownership import Host, Lease


def _always_valid(self: Lease) -> bool:
    return not self.lost


async def _nothing_lost(self: Host) -> list[str]:
    return []


if __name__ == "__main__":
    Lease.valid = _always_valid  # type: ignore[method-assign]
    Host.renew = _nothing_lost  # type: ignore[method-assign]
    sys.exit(main(["serve", *sys.argv[1:]]))
