"""A connection's request: checked for who sent it (or whom a GM relays), then decided.

:func:`request` authorizes a request before anything is looked up (the refusal depends on
nothing but the request as sent and who sent it: :mod:`arbiter.bridge.authority`), resolves the
GM's stored stat blocks it references (:mod:`arbiter.bridge.stat_block_vault`), decides it
(:mod:`arbiter.bridge.deciding`) and announces a new outcome to the other listeners once its
row is durable. What each viewer sees of it is :mod:`arbiter.bridge.views`'s.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from arbiter.bridge.admission import admitted
from arbiter.bridge.authority import authorize
from arbiter.bridge.deciding import Context, decide
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_encoding import encode, outcome_message_bytes
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.stat_block_resolving import resolves_to_itself
from arbiter.bridge.stat_block_shield import Resolved
from arbiter.bridge.views import Viewer

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession


def _relayed(session: ClientSession, name: str, rid: str) -> Viewer:
    """The viewer request ``rid`` is decided for when a GM relays it for player ``name`` (the
    message's ``player``)."""
    if not session.viewer.gm:
        raise ProtocolError("forbidden", "only a GM connection may relay for a player", rid)
    record = session.server.store.player(name)
    if record is None or not record.active:
        raise ProtocolError(
            "unknown_player",
            f"no active player {name!r}: `arbiter token --players` lists them; a GM "
            "connection adds one with bind",
            rid,
        )
    return Viewer(False, frozenset(record.participants), record.name)


def request(
    session: ClientSession, read: RequestMessage | Sent, rules: RulesSnapshot
) -> str | bytes:
    """The answer to one request of ``session`` (read by the fast or the slow path), decided
    on ``rules``; raises ProtocolError naming why it is refused."""
    server = session.server
    # The request as read (a Sent's message is not built for it).
    request = read.typed if isinstance(read, Sent) else read.request
    player = read.player
    viewer = session.viewer if player is None else _relayed(session, player, request.id)
    # Before the idempotency lookup, the encounter and any die: the refusal depends on
    # nothing but the request as sent and who sent it.
    if not viewer.gm:  # the GM may send anything
        served = rules.served.get(request.ruleset)
        model = served.engine.requests.get(request.type) if served is not None else None
        body = read.request["body"] if isinstance(read, Sent) else request.body
        authorize(request, model, viewer, body)
    ctx = session._context
    if ctx is None:
        # Who asks and under which limits does not change once the hello is done.
        ctx = session._context = Context(
            session=session.id,
            user=session.user,
            keyed=session.keyed,
            allow_scripted_dice=server.config.allow_scripted_dice,
            max_dice=server.config.limits.max_dice_per_request,
            player=session.viewer.player,
        )
    if viewer is not session.viewer:
        # ``user`` is the log's text for people; ``player`` says whose the row is.
        ctx = replace(
            ctx, user=f"{viewer.player} (relayed by {session.user})", player=viewer.player
        )
    resolved: Resolved | None
    decided_read: RequestMessage | Sent
    if resolves_to_itself(read, viewer):
        # What the vault would give back (the read itself, unshielded), without the call and
        # its closure: decided as read, its refusals as they are.
        resolved, decided_read, unlogged = None, read, False
    else:
        # References to the GM's stored stat blocks become the blocks (the log keeps those).
        allow = ctx.allow_scripted_dice
        vault = server.vault
        admit = lambda m: admitted(m, rules, server.store, allow)  # noqa: E731
        # A text resolved before, its id new (the GM's client's usual request): what the
        # vault's resolve would give, without its other steps.
        again = vault.resolver.again(read, viewer, rules, admit) if type(read) is Sent else None
        resolved = again if again is not None else vault.resolve(read, viewer, admit, rules)
        decided_read, unlogged = resolved.read, resolved.unlogged
    try:
        decided = decide(decided_read, rules, server.store, ctx, time.time(), unlogged)
    except ProtocolError as err:
        if resolved is None:
            raise
        raise resolved.error(err) from None
    session.outcome_row = (request.id, decided.row.hash)
    if decided.refusal is not None:
        # Refused after dice: the refusal is the id's logged outcome. The error goes out
        # once its row is durable, and again on every resend; nobody else is told.
        refusal = decided.refusal
        code, why = refusal if resolved is None else resolved.refusal(refusal)
        return encode(ProtocolError(code, why, request.id).reply())
    seq, text = decided.row.seq, decided.text
    if not decided.replayed:
        # Tell the other listeners once the row is durable. Even when nobody else listens
        # now: one may join before the commit, and only this event brings it the row
        # (arbiter.bridge.gap_replay); publishing skips a lone listener's own outcomes.
        server.announce(seq, text, session, session.outcome_row)
    return outcome_message_bytes(seq, decided.replayed, text.shown_bytes(viewer))


__all__ = ["request"]
