"""The JSON Schemas of the protocol's client and server messages (``docs/schemas/``), which the
module build ships for the client: ``python -m arbiter.bridge.protocol_schemas DIR`` writes
them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from arbiter.bridge.protocol import CLIENT_MESSAGE, SERVER_MESSAGE


def schemas() -> dict[str, dict[str, Any]]:
    """JSON Schemas of the client and server messages, by file name."""
    return {
        "client-message.schema.json": _titled(CLIENT_MESSAGE, "Arbiter client message (v1)"),
        "server-message.schema.json": _titled(SERVER_MESSAGE, "Arbiter server message (v1)"),
    }


def _titled(adapter: TypeAdapter[Any], title: str) -> dict[str, Any]:
    schema = adapter.json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **schema}


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder``; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = folder / name
        path.write_text(schema_text(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/schemas")
    for path in write_schemas(target):
        print(path)
