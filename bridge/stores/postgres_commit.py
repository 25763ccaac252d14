"""The PostgreSQL store's group commit: one transaction, pipelined, and the connection left idle.

:func:`commit` sends a flush's staged statements (:class:`arbiter.bridge.stores.postgres.PostgresStore`
stages them) behind the compare-and-append on the world's ``(epoch, head)``, in one round trip;
:func:`settle` rolls a connection back or closes it, so a pool is never given back one
mid-transaction. What the store does when a commit fails (drop, reload, raise) is
:meth:`PostgresStore.flush`'s.
"""

from __future__ import annotations

from typing import Any

import psycopg

from arbiter.bridge.stores.postgres_schema import (
    ADVANCE_HEAD,
    BIND_PLAYER,
    INSERT_ROLL,
    NOTIFY_PLAYERS,
    PUT_PLAYER,
)


async def commit(
    conn: psycopg.AsyncConnection[Any],
    world: str,
    epoch: int,
    head: tuple[int, str],
    rows: list[tuple[Any, ...]],
    ops: list[tuple[str, tuple[Any, ...]]],
    last: tuple[int, str],
) -> None:
    """The group commit's transaction of ``world`` (from ``head`` to ``last``, under ``epoch``), pipelined under one Sync: one round trip. ``BEGIN``
    is queued first and ``COMMIT`` last, as statements: psycopg sends the Sync when the
    pipeline ends even when the block raised (cancelled between awaits, or a parameter
    psycopg could not adapt), and in an implicit transaction that Sync would commit
    whatever was queued before the error. In an explicit one it commits nothing unless
    ``COMMIT`` was queued; a statement the server refuses skips the rest, ``COMMIT``
    included. Promises: when this raises anything but a cancellation or a broken
    connection, nothing landed and the connection is idle again (rolled back); a
    connection it leaves in doubt (broken, or cancelled mid-pipeline) is closed, so a pool
    discards it instead of lending it on: a connection goes back only idle."""
    try:
        async with conn.pipeline():
            await conn.execute("BEGIN")
            await conn.execute(ADVANCE_HEAD, (world, epoch, *head, *last))
            if rows:
                await conn.cursor().executemany(INSERT_ROLL, rows)
            for sql, args in ops:
                await conn.execute(sql, args)
            if any(sql is PUT_PLAYER or sql is BIND_PLAYER for sql, _ in ops):
                # Heard on commit by whoever serves the world's players (the host's
                # listener re-reads them: a re-read begun before this commit is followed
                # by one after it, so the world's cache ends on what the table holds).
                await conn.execute(NOTIFY_PLAYERS, (world,))
            await conn.execute("COMMIT")
    except psycopg.OperationalError:
        await conn.close()
        raise
    except Exception:
        # Refused by the server (the transaction is aborted: INERROR) or failed in the
        # client before COMMIT was queued (the Sync left it open: INTRANS): roll it back.
        await settle(conn)
        raise
    except BaseException:
        await conn.close()
        raise
    if not idle(conn):
        await settle(conn)


async def settle(conn: psycopg.AsyncConnection[Any]) -> None:
    """Leave ``conn`` idle, rolling back the transaction it is in, or close it (a pool then
    discards it) when it cannot be rolled back: a connection never goes back mid-transaction."""
    if conn.closed or idle(conn):
        return
    try:
        await conn.rollback()
    except Exception:
        await conn.close()
        return
    except BaseException:  # cancelled while rolling back: in doubt, never lent again
        await conn.close()
        raise
    if not idle(conn):
        await conn.close()


def idle(conn: psycopg.AsyncConnection[Any]) -> bool:
    return conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


__all__ = ["commit", "idle", "settle"]
