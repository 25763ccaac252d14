"""Hold a pack open the way a running Foundry world does, for tests of the build's refusal."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

# classic-level is the LevelDB binding Foundry itself uses; it holds the LOCK while open.
LOCK_HOLDER = """
const { ClassicLevel } = require("classic-level");
const db = new ClassicLevel(process.argv[1], { keyEncoding: "utf8", valueEncoding: "json" });
db.open().then(() => { console.log("open"); setInterval(() => {}, 1000); });
"""


@contextmanager
def held_open(pack: Path) -> Iterator[None]:
    """Keep ``pack`` open in a Node process (classic-level) for the duration of the block."""
    holder = subprocess.Popen(
        ["node", "-e", LOCK_HOLDER, str(pack)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline().strip()
        assert line == "open", f"classic-level could not open {pack}"
        yield
    finally:
        holder.kill()
        holder.wait()
