"""A pure-Python LevelDB writer and reader for Foundry compendium packs.

Foundry VTT stores each compendium pack as a LevelDB directory. This package writes one without
any native library: :func:`write_database` for a whole database, built from :mod:`.log`
(block framing), :mod:`.batch` (WriteBatch), :mod:`.manifest` (VersionEdit) and :mod:`.crc32c`.
:func:`read_database` reads it back, and also reads the table files LevelDB writes when it
compacts a database (:mod:`.table`, :mod:`.snappy`), for tests and incremental checks.
"""

from .database import read_database, write_database
from .errors import DatabaseLockedError, LevelDBError

__all__ = ["DatabaseLockedError", "LevelDBError", "read_database", "write_database"]
