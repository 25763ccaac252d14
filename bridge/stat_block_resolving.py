"""A request's references to stored stat blocks, and a player's blocks of others, resolved.

* A request names a stored block by a *reference* where a stat block goes: the object
  ``{"id": "orc-1", "stored": true}`` (exactly these keys). :meth:`Resolver.resolve` replaces
  each with the stored block before the body is validated, so the roll log keeps the resolved
  request and ``arbiter replay`` / ``replay --from-log`` decide from the log alone. A player
  (his own connection, V12 too, or relayed by the GM client) may name any stored block: he
  cannot attack an orc without the orc's numbers being used, but he never receives them.
* **A player writes in only the blocks of the participants he holds.** Every other block in
  his request, written in or referenced, is the GM's: on the first send as on a resend it
  counts as a reference to its ``id`` (:func:`~arbiter.bridge.stat_block_positions.masked`),
  so the decision uses the stored block whatever he wrote it to hold (an honest client that
  writes in a block it read from the NPC's sheet keeps working once the GM's is stored; a
  hostile one's numbers are never read). With none stored the request is refused before any
  die (:data:`MUST_BE_STORED`, naming the participant and what the GM does). That refusal
  tells him no block is stored under that id, which a request naming it tells him anyway (it
  is decided when one is); it never depends on what he wrote, nor on what a block holds.
  Every other refusal of a player's request that used (or named) a block of somebody he does
  not hold says one fixed thing (:data:`SHIELDED`): its reason may depend on that block.
  Only the refusals that read no body (:data:`~arbiter.bridge.admission.BODY_BLIND`), made
  before any block is looked up, reach him as they are. GM connections write in any block.

A reference is resolved once per request id: a resend of a decided id whose references name
the blocks the logged request holds is the logged request (the GM may have edited the block
since; the retry still gets the stored outcome, never ``id_conflict``).

The logged request holds its blocks in full, filled in or written in by the GM's client, and
whatever its sender chose, so a player's resend is never compared with what he may not read:
were it, resending an id with guesses of the orc's block would say which guess was right (the
stored outcome against ``id_conflict``). A player's resend of an id logged for somebody else is
refused whatever it holds (:data:`~arbiter.bridge.stat_block_shield.ANOTHERS`). In his resend of
his own, a block of somebody he does not hold, written in or referenced, counts as a reference
to its id (:func:`~arbiter.bridge.stat_block_positions.masked`, only where the body holds a stat
block): the resend gets the stored outcome if the rest is the logged request, else
:data:`SHIELDED`, whatever he wrote the block to hold. For the same reason a refusal after dice
of a player's request naming such a block, written in too, is :data:`SHIELDED` on the first
send as on every resend (the log cannot tell a block he wrote in from one filled in).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel

from arbiter.bridge import stat_blocks
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.stat_block_door import Plugging, is_referencing, plugged, replaced
from arbiter.bridge.stat_block_kept import Found, Kept
from arbiter.bridge.stat_block_plugs import Plug, Plugs, tail_of
from arbiter.bridge.stat_block_positions import block_shape, filled, foreign, masked
from arbiter.bridge.stat_block_references import matches, references, substitute
from arbiter.bridge.stat_block_shield import (
    ANOTHERS,
    MUST_BE_STORED,
    SHIELDED,
    Resolved,
    written_by,
)
from arbiter.bridge.store import Roll
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.views import Viewer

log = logging.getLogger("arbiter.vault")

MAX_REFERENCES = 64
"""At most this many references in one request (each is one lookup)."""


class Resolver:
    """Resolves requests against one world's stored blocks (read through ``kept``)."""

    def __init__(self, store: WorldStore, kept: Kept) -> None:
        self.store = store
        self.kept = kept
        self.plugs = Plugs(kept)
        """Requests of the same text resolved once (:mod:`arbiter.bridge.stat_block_plugs`)."""

    def resolve(
        self,
        read: RequestMessage | Sent,
        viewer: Viewer,
        admit: Callable[[RequestMessage], object] | None = None,
        rules: RulesSnapshot | None = None,
    ) -> Resolved:
        """``read`` with each reference to a stored block replaced by that block.

        A player's resend of an id logged for another (the GM, or another player) is
        refused ``id_conflict`` whatever its body (:data:`ANOTHERS`); his resend of his own,
        naming a block of somebody he does not hold, written in or referenced, is compared as
        :meth:`_resent` says; on his first send each such block becomes a reference to its
        id, so the decision never reads what he wrote in it. Raises ProtocolError
        ``invalid_request`` naming the field of a reference to a block that is not stored (for
        the request's ruleset; :data:`MUST_BE_STORED` for a participant the player does not
        hold), or of too many references. For such a player's request whose id is not logged, ``admit`` (the decision's
        checks that read no body: :func:`~arbiter.bridge.admission.admitted`) runs before any
        block is looked up, so its refusals are the same whether a named block is stored or
        not; the :data:`~arbiter.bridge.admission.BODY_BLIND` ones reach him as they are, the
        others as :data:`SHIELDED`.

        A request read by the fast path (:class:`Sent`, its body typed already, references and
        all) and not a resend comes back as one, under ``rules`` (the snapshot that decides
        it): its body the request type's own model with each stored block's model, validated
        once per snapshot (:mod:`arbiter.bridge.stat_block_door`), and the request to log
        with the blocks filled in, as the slow path logs it. Anything else (no ``rules``, a
        resend, a block the rules now refuse) comes back untyped, the blocks filled in, and
        its body is validated whole when decided, as it always was: the same decision and the
        same words either way.
        """
        # The request as read (a Sent's message is built only where it is needed).
        request = read.typed if isinstance(read, Sent) else read.request
        row: Roll | None = None
        if not viewer.gm:
            row = self.store.find(request.id)
            if row is not None and not written_by(row.entry, viewer):
                # Not his to compare: the logged request may hold what he may not read (the
                # GM's choices for the orc, the orc's block), and the answer to a resend
                # that is compared says whether his guess of it is right.
                raise ProtocolError("id_conflict", ANOTHERS.format(request.id), request.id)
        if request.ruleset not in stat_blocks.STAT_BLOCKS:
            return Resolved(read)  # no stat blocks: refused as an unknown ruleset, or its body
        if resolves_to_itself(read, viewer):
            return Resolved(read)
        referencing = isinstance(read, Sent) and is_referencing(request.body)
        looked = not viewer.gm
        if isinstance(read, Sent) and rules is not None:
            if not looked:
                row, looked = self.store.find(request.id), True
            # The same text resolved before, for the same viewer, with the same stored blocks:
            # what the rest of this function would give again (stat_block_plugs).
            again = None if row is not None else self._again(read, viewer, rules, admit)
            if again is not None:
                return again
        sent: dict[str, Any] = read.request["body"] if isinstance(read, Sent) else request.body
        others = False
        if not viewer.gm:
            shape = block_shape(request.ruleset, request.type)
            others = next(foreign(sent, viewer.participants, shape), None) is not None
            if others and row is not None:
                return self._resent(_message(read), row, masked(sent, viewer.participants, shape))
            if others:
                # His first send: a block of somebody he does not hold is the GM's, whatever
                # he wrote it to hold. Each becomes a reference to its id, so the decision
                # uses the stored block (or none: refused below, before any die).
                sent = masked(sent, viewer.participants, shape)
        if isinstance(read, Sent) and not (referencing or others):
            return Resolved(read)  # no reference: a reference is no valid stat block
        if isinstance(read, Sent) and rules is not None:
            if not looked:
                row = self.store.find(request.id)
            fast = (
                None if row is not None else self._plugged(read, viewer, rules, sent, others, admit)
            )
            if fast is not None:
                return fast
        found = references(sent)
        if not found:
            # A body read by the referencing model names no stored block after all ("stored"
            # was some text): validated whole when decided.
            return Resolved(_untyped(read.message, sent) if isinstance(read, Sent) else read)
        if len(found) > MAX_REFERENCES:
            raise ProtocolError(
                "invalid_request",
                f"invalid {request.type!r} request: at most {MAX_REFERENCES} stored stat blocks "
                "per request",
                request.id,
            )
        shielded = not viewer.gm and any(p not in viewer.participants for _, p in found)
        if viewer.gm:
            row = self.store.find(request.id)
        body = self._logged_body(row, sent)
        if body is not None:  # a resend of the logged request: compared when decided
            return Resolved(_untyped(_message(read), body), shielded, others)
        if shielded and row is None and admit is not None:
            try:
                admit(_message(read))
            except ProtocolError as err:
                raise Resolved(read, shielded).error(err) from None
        blocks: dict[str, dict[str, Any]] = {}
        for path, participant in found:
            stored = self.kept.stored(request.ruleset, participant, None)
            if stored is None and not viewer.sees(participant):
                # Whether a block is stored under an id he names shows anyway (a request
                # naming it is decided); what it holds never does. The words depend on
                # the id alone, never on what he wrote the block to hold.
                raise ProtocolError(
                    "invalid_request", MUST_BE_STORED.format(
                        type=request.type, path=path, ruleset=request.ruleset,
                        participant=participant),
                    request.id,
                    unstored=participant,
                )  # fmt: skip
            if stored is None:
                raise ProtocolError(
                    "invalid_request",
                    f"invalid {request.type!r} request: {path}: no {request.ruleset} stat "
                    f"block of {participant!r} is stored (the GM saves one with the "
                    "stat-block editor)",
                    request.id,
                )
            blocks[participant] = stored[0]
        # Untyped: validated whole when decided (deciding.strict_body), as it always was.
        return Resolved(_untyped(_message(read), substitute(sent, blocks)), shielded, others)

    def _plugged(
        self,
        read: Sent,
        viewer: Viewer,
        rules: RulesSnapshot,
        sent: dict[str, Any],
        others: bool,
        admit: Callable[[RequestMessage], object] | None,
    ) -> Resolved | None:
        """A request read by the fast path, whose id is not logged, naming stored blocks
        (``sent``: its body as sent, a player's blocks of others made references) decided with
        the stored blocks' models, validated once under ``rules`` (:meth:`Kept.stored <arbiter.bridge.stat_block_kept.Kept.stored>`); None when
        anything stands in the way (a block not stored or refused by the rules, a reference
        where no block goes, an escape in the frame, too many): the caller then takes the
        whole path, whose refusals name what is wrong.

        What comes back is what the whole path gives for such a request: the body as
        validating the filled-in one whole leaves it (:mod:`arbiter.bridge.stat_block_door`),
        the request to log with the blocks filled in (the same bytes), the same shielding.
        """
        request = read.typed
        ruleset = request.ruleset
        blocks: dict[str, dict[str, Any]] = {}
        used: dict[tuple[str, str], Found] = {}

        def lookup(participant: str) -> BaseModel:
            stored = self.kept.stored(ruleset, participant, rules)
            if stored is None or stored[1] is None:
                raise KeyError(participant)  # none, or refused by these rules
            blocks[participant] = stored[0]
            used[ruleset, participant] = stored
            return stored[1]

        plugging = Plugging(ruleset, lookup, None if viewer.gm else viewer.participants)
        body = plugged(request.body, plugging)
        named = plugging.references + plugging.foreign
        # Each reference writes "stored" once (without a backslash, so without an escape): as
        # many as were plugged, none is elsewhere.
        frame = read.frame
        if (
            body is None
            or named > MAX_REFERENCES
            or not frame
            or "\\" in frame
            or frame.count('"stored"') != plugging.references
        ):
            return None
        count = [0]
        logged = filled(sent, block_shape(ruleset, request.type), blocks, count)
        if count[0] != named:
            return None
        shielded = not viewer.gm and any(p not in viewer.participants for p in blocks)
        written = {**read.request, "body": logged}
        text = None
        try:
            # The log's text of it (deciding.request_json writes the same of these values).
            full = orjson.dumps(written)
        except TypeError:
            pass  # an integer beyond 64 bits: request_json says what the log keeps
        else:
            text = full.decode()
            # Kept for a body the reader kept alone (the one later frames of this text carry):
            # an entry for any other would never be taken, and would only hold objects.
            tail = tail_of(request.id, full) if read.kept else None
            if tail is not None:
                envelope = (ruleset, request.type, request.encounter)
                plug = Plug(request.body, rules, envelope, tuple(used.items()), body, tail,
                            plugging.references, shielded, others)  # fmt: skip
                self.plugs.keep(plug, viewer)
        if shielded and admit is not None:
            try:
                admit(read.message)
            except ProtocolError as err:
                raise Resolved(read, shielded).error(err) from None
        done = read.with_request(replaced(request, body=body), written, text)
        return Resolved(done, shielded, others, True)

    def again(
        self,
        read: Sent,
        viewer: Viewer,
        rules: RulesSnapshot,
        admit: Callable[[RequestMessage], object] | None,
    ) -> Resolved | None:
        """What :meth:`resolve` gives ``read`` when it is a request of a text resolved before
        (:meth:`_again`: a kept resolution, taken) whose id is not logged; None otherwise (a
        miss; an id logged: a resend, or another's), and :meth:`resolve` then says what it is.

        The session asks it first and skips resolve's other steps on a hit: a kept resolution
        is one of a ruleset with stat blocks and of a body naming a stored block (a GM's that
        names none is never kept), and resolve takes it once it finds the id not logged, as
        here. A player's resend, or his use of another's id, is found logged here and left to
        resolve, which refuses or compares it as before, whatever was kept for him."""
        return self._again(read, viewer, rules, admit, False)

    def _again(
        self,
        read: Sent,
        viewer: Viewer,
        rules: RulesSnapshot,
        admit: Callable[[RequestMessage], object] | None,
        looked: bool = True,
    ) -> Resolved | None:
        """What :meth:`_plugged` gave for a request of the same body object (the reader's kept
        one: the same text after the id) and viewer under ``rules``, around ``read``'s id,
        when the stored blocks it used are still the ones kept (:class:`Plugs`); None
        otherwise. ``looked``: the caller found the id not logged; else it is looked up here
        once an entry is found (None when it is logged). ``read`` is then the resolved request
        (:meth:`~arbiter.bridge.reading.Sent.plug_in`).

        What :meth:`_plugged` checked of the frame holds without a look: the body is the very
        object the entry was made for, which the reader keeps for one text after the id alone
        (:class:`~arbiter.bridge.pure.known_bodies._Known`), and a frame it takes opens with a
        fixed head and an id of no backslash, no quote, no control character, not ``stored``:
        the frame holds no backslash, and ``"stored"`` as often, as the one the entry was
        made of. For the same reason the id is written as orjson would write it (between
        quotes, as it is), as the reader writes the log's text of a kept body
        (:meth:`~arbiter.bridge.pure.known_bodies._Known.find`)."""
        if not read.kept:
            return None  # an entry is made and taken only for a body the reader kept
        fields = read.typed.__dict__
        envelope = (fields["ruleset"], fields["type"], fields["encounter"])
        plug = self.plugs.find(fields["body"], viewer, rules, envelope)
        if plug is None:
            return None
        rid = fields["id"]
        if not looked and self.store.find(rid) is not None:
            return None
        if plug.shielded and admit is not None:
            try:
                admit(read.message)
            except ProtocolError as err:
                raise Resolved(read, True).error(err) from None
        # The reader's request for this frame alone becomes the resolved one (no copy).
        done = read.plug_in(plug.plugged, f'{{"id":"{rid}"{plug.tail}')
        return _new_resolved(Resolved, (done, plug.shielded, plug.others, True))

    def _resent(self, message: RequestMessage, row: Roll, seen: dict[str, Any]) -> Resolved:
        """A player's resend of his own request ``row`` naming a block of somebody he does not
        hold (``seen``: its body as sent, each such block made a reference to it): the logged
        request to replay, or the shielded refusal.

        The logged request holds every block it used in full (filled in from a reference, or
        written in by the GM's client), which the player may not read. So the resend is
        compared as he may see it: each such block, written in or referenced, counts as a
        reference to its ``id``, and the answer (the stored outcome, or one fixed refusal)
        never depends on what a block holds, nor on what he guessed it holds.
        """
        request = message.request
        body = self._logged_body(row, seen)
        if body is None:
            log.info("a resend of %r naming the GM's stat blocks is another request", request.id)
            raise ProtocolError("invalid_request", SHIELDED, request.id)
        # The envelope (ruleset, type, encounter) is compared by the decision, whose
        # id_conflict is shielded like any other refusal.
        resolved = request.model_copy(update={"body": body})
        return Resolved(message.model_copy(update={"request": resolved}), True, True)

    @staticmethod
    def _logged_body(row: Roll | None, sent: dict[str, Any]) -> dict[str, Any] | None:
        """The logged body of the request ``row`` logs (None: its id is not logged) if
        ``sent`` is that request, references and all (a resend), else None."""
        if row is None:
            return None
        logged = json.loads(row.entry.request).get("body")
        return logged if isinstance(logged, dict) and matches(sent, logged) else None


_new_resolved = tuple.__new__
"""``tuple.__new__(Resolved, fields)``: a :class:`Resolved` of its fields in order, without
its Python-level ``__new__`` (one per request naming stored blocks)."""


def resolves_to_itself(read: RequestMessage | Sent, viewer: Viewer) -> bool:
    """Whether :meth:`Resolver.resolve` gives ``read`` back as it is, unshielded, before
    reading its body: the GM's request read by the fast path naming no stored block (what the
    test for a reference gives for the GM's, none of his blocks being another's; the reader
    may have kept only the body's text). The session decides such a request without the call."""
    return viewer.gm and isinstance(read, Sent) and not is_referencing(read.typed.body)


def _message(read: RequestMessage | Sent) -> RequestMessage:
    """The message ``read`` holds (a Sent's built when asked)."""
    return read.message if isinstance(read, Sent) else read


def _untyped(message: RequestMessage, body: dict[str, Any]) -> RequestMessage:
    """``message`` whose request carries ``body`` untyped: validated whole when decided
    (:func:`~arbiter.bridge.deciding.strict_body`)."""
    request = message.request
    envelope = Request(id=request.id, ruleset=request.ruleset, type=request.type, body=body,
                       encounter=request.encounter)  # fmt: skip
    return message.model_copy(update={"request": envelope})
