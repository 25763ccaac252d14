"""Server messages as the JSON text sent: a model dumped compactly (:func:`encode`), and the
outcome messages and events written around an outcome's JSON text, serialised once."""

from __future__ import annotations

from pydantic import BaseModel


def encode(message: BaseModel) -> str:
    """A server message as compact JSON text."""
    return message.model_dump_json(exclude_none=False)


def outcome_message_text(seq: int, replayed: bool, outcome: str) -> str:
    """An :class:`OutcomeMessage` as compact JSON text, around an outcome's JSON text.

    The outcome is serialised once (``arbiter.bridge.views``); wrapping it costs no second pass.
    """
    flag = "true" if replayed else "false"
    return f'{{"v":1,"type":"outcome","seq":{seq:d},"replayed":{flag},"outcome":{outcome}}}'


def outcome_event_text(seq: int, outcome: str) -> str:
    """An :class:`OutcomeEvent` as compact JSON text, around an outcome's JSON text."""
    return f'{{"v":1,"type":"event","event":"outcome","seq":{seq:d},"outcome":{outcome}}}'


def outcome_message_bytes(seq: int, replayed: bool, outcome: bytes) -> bytes:
    """:func:`outcome_message_text` as UTF-8 bytes, around an outcome's UTF-8 JSON text."""
    flag = b"true" if replayed else b"false"
    return b'{"v":1,"type":"outcome","seq":%d,"replayed":%s,"outcome":%s}' % (seq, flag, outcome)


def outcome_event_bytes(seq: int, outcome: bytes) -> bytes:
    """:func:`outcome_event_text` as UTF-8 bytes, around an outcome's UTF-8 JSON text."""
    return b'{"v":1,"type":"event","event":"outcome","seq":%d,"outcome":%s}' % (seq, outcome)


def replayed_event_bytes(seq: int, outcome: bytes) -> bytes:
    """:func:`outcome_event_bytes` of an outcome sent again after a reconnect (``replayed``)."""
    return b'{"v":1,"type":"event","event":"outcome","seq":%d,"replayed":true,"outcome":%s}' % (
        seq,
        outcome,
    )
