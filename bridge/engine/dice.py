"""Dice sources and dice expressions: the only randomness the engine ever sees.

A *source* yields uniform integers; :class:`Dice` wraps one, parses expressions and records every
die it rolls (expression, faces, result) so an outcome can be shown, verified and replayed.

Sources:

* :class:`SecureSource` — the operating system's CSPRNG (``secrets``).
* :class:`KeyedSource` — die *n* is derived from HMAC-SHA256(seed, n), unbiased by rejection
  sampling. Publishing the seed after a session lets anyone recompute every roll (commit-reveal).
* :class:`ScriptedSource` — a fixed list of results, for tests and replays.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import NamedTuple, Protocol, TypeVar

from arbiter.compiler.model.dice_limits import MAX_DICE as MAX_DICE
from arbiter.compiler.model.dice_limits import MAX_FACES as MAX_FACES
from arbiter.compiler.model.dice_limits import MAX_TEXT

T = TypeVar("T")

# MAX_DICE (most dice one expression may roll) and MAX_FACES (most faces one die may have) are
# the rule data's limits too: the loader refuses a rule file with dice beyond them, so they live
# in arbiter.compiler.model (which never imports bridge) and are read from there.
_SHA256_BLOCK = 64
"""SHA-256's block size in bytes: the length HMAC pads its key to."""


class DiceError(ValueError):
    """A dice expression is malformed or over budget, or a scripted source ran dry or mismatched."""


class ScriptedDiceError(DiceError):
    """A scripted source ran dry or holds a result its die cannot show: the fault of the dice
    given, not of the request (the server does not log it as the request's outcome)."""


class DiceSource(Protocol):
    """Anything that yields uniform integers in ``1..faces``."""

    def randint(self, faces: int) -> int: ...


class SecureSource:
    """Dice from the operating system's CSPRNG."""

    def randint(self, faces: int) -> int:
        _check_faces(faces)
        return secrets.randbelow(faces) + 1


class KeyedSource:
    """Deterministic dice: block *n* is HMAC-SHA256(seed, n as 8 big-endian bytes).

    Each die takes the first 8 bytes of the next block as a 64-bit integer ``x`` and accepts it
    when ``x < 2**64 - 2**64 % faces`` (then the result is ``x % faces + 1``); otherwise it moves
    on to the next block. The counter of the next block is exposed so a caller can resume.
    """

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        if len(seed) < 16:
            raise ValueError("a keyed dice seed needs at least 16 bytes")
        self._seed = seed
        self.counter = counter
        # HMAC (RFC 2104) keyed once: the hashes of the padded key are computed here and
        # copied per block, which costs a third of building a new HMAC object per die.
        key = hashlib.sha256(seed).digest() if len(seed) > _SHA256_BLOCK else seed
        key = key.ljust(_SHA256_BLOCK, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    @staticmethod
    def commitment(seed: bytes) -> str:
        """The public commitment to a seed: hex SHA-256 of the seed."""
        return hashlib.sha256(seed).hexdigest()

    def block(self, n: int) -> bytes:
        """Block ``n``: HMAC-SHA256(seed, n as 8 big-endian bytes)."""
        inner = self._inner.copy()
        inner.update(n.to_bytes(8, "big"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def randint(self, faces: int) -> int:
        limit = _LIMITS.get(faces) if isinstance(faces, int) else None
        if limit is None:
            _check_faces(faces)
            limit = _acceptance_limit(faces)
        # block() inlined: this runs for every die the server rolls.
        inner_hash, outer_hash = self._inner, self._outer
        while True:
            inner = inner_hash.copy()
            inner.update(self.counter.to_bytes(8, "big"))
            outer = outer_hash.copy()
            outer.update(inner.digest())
            x = int.from_bytes(outer.digest()[:8], "big")
            self.counter += 1
            if x < limit:
                return x % faces + 1


_LIMITS: dict[int, int] = {}
"""Rejection limit by number of faces, for the faces dice are usually rolled with."""


def _acceptance_limit(faces: int) -> int:
    """The largest multiple of ``faces`` not above 2**64: 64-bit values below it are accepted."""
    limit = 2**64 - (2**64 % faces)
    if faces <= MAX_FACES:
        _LIMITS[faces] = limit  # bounded: at most MAX_FACES entries
    return limit


class ScriptedSource:
    """Results from a fixed list, in order; a result outside ``1..faces`` is an error."""

    def __init__(self, results: Iterable[int]) -> None:
        self._results = list(results)
        self.position = 0

    @property
    def remaining(self) -> int:
        return len(self._results) - self.position

    def randint(self, faces: int) -> int:
        _check_faces(faces)
        if self.position >= len(self._results):
            raise ScriptedDiceError(
                f"scripted dice ran out: a d{faces} was needed after {len(self._results)} results"
            )
        value = self._results[self.position]
        if not isinstance(value, int) or not 1 <= value <= faces:
            raise ScriptedDiceError(
                f"scripted die #{self.position + 1} is {value!r} but a d{faces} was rolled"
            )
        self.position += 1
        return value


class BudgetedSource:
    """A dice source that refuses to roll more than ``budget`` dice (a runaway engine or request).

    The server sets the budget per request (``Limits.max_dice_per_request``) and wraps its source
    in one of these; it lives in the engine only so that mypyc compiles it: it runs for every die,
    and a compiled wrapper around a compiled source costs a fraction of an interpreted one."""

    def __init__(self, source: DiceSource, budget: int) -> None:
        self._source = source
        self.budget = budget
        self.used = 0

    def randint(self, faces: int) -> int:
        if self.used >= self.budget:
            raise DiceError(f"the request needs more than {self.budget} dice, over the budget")
        self.used += 1
        return self._source.randint(faces)


def _check_faces(faces: int) -> None:
    # The engine's own annotation says the same (and the compiled engine enforces it at the
    # call): a number of faces that is not an int is a type error, whichever way it is run.
    if not isinstance(faces, int):
        raise TypeError(f"a die's number of faces is an int, not {faces!r}")
    if not 1 <= faces <= MAX_FACES * 1000:
        raise DiceError(f"a die needs between 1 and {MAX_FACES * 1000} faces, not {faces!r}")


# One is made per die: a dataclass compiled by mypyc into a native class, whose constructor is
# written out (mypyc compiles a dataclass's own __init__, not the one dataclasses generates).
@dataclass(slots=True, init=False, unsafe_hash=True)
class DieRecord:
    """One die as rolled: the expression it belonged to, its faces and its result (never
    changed once made). ``hidden`` marks a die that decides hidden state (a shuffle of cards
    nobody may see): it is logged, but never sent to a client (``bridge/views.py``)."""

    expr: str
    faces: int
    result: int
    hidden: bool

    def __init__(self, expr: str, faces: int, result: int, hidden: bool = False) -> None:
        self.expr = expr
        self.faces = faces
        self.result = result
        self.hidden = hidden

    def to_json(self) -> dict[str, object]:
        # The key only when true: every other outcome stays byte-identical in the log.
        if self.hidden:
            return {"expr": self.expr, "faces": self.faces, "result": self.result, "hidden": True}
        return {"expr": self.expr, "faces": self.faces, "result": self.result}


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``count`` dice of ``faces`` faces, added (sign +1) or subtracted (sign -1)."""

    count: int
    faces: int
    sign: int = 1

    def __str__(self) -> str:
        return f"{self.count}d{self.faces}"


@dataclass(frozen=True, slots=True)
class ConstTerm:
    """A constant added to the total."""

    value: int


Term = DiceTerm | ConstTerm


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: a sum of dice terms and constants."""

    terms: tuple[Term, ...]
    text: str = field(init=False, repr=False, compare=False)
    """The canonical text (``str(expr)``), which labels every die the expression rolls."""
    rolls: tuple[tuple[int, int, int], ...] = field(init=False, repr=False, compare=False)
    """(faces, count, sign) of each dice term, in order: what :meth:`Dice.roll` rolls."""
    constant: int = field(init=False, repr=False, compare=False)
    """The sum of the constant terms."""

    def __post_init__(self) -> None:
        # Worked out once here rather than on every roll.
        object.__setattr__(self, "text", _text_of(self.terms))
        object.__setattr__(
            self,
            "rolls",
            tuple((t.faces, t.count, t.sign) for t in self.terms if isinstance(t, DiceTerm)),
        )
        object.__setattr__(
            self, "constant", sum(t.value for t in self.terms if isinstance(t, ConstTerm))
        )

    def __str__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        # Equal expressions have equal text, and a string caches its hash: cheaper than hashing
        # every term (expressions are keys of the damage caches).
        return hash(self.text)

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.terms if isinstance(t, DiceTerm))

    def bounds(self) -> tuple[int, int]:
        """Lowest and highest possible totals."""
        lo = hi = 0
        for t in self.terms:
            if isinstance(t, ConstTerm):
                lo += t.value
                hi += t.value
            elif t.sign > 0:
                lo += t.count
                hi += t.count * t.faces
            else:
                lo -= t.count * t.faces
                hi -= t.count
        return lo, hi

    def plus(self, other: DiceExpr) -> DiceExpr:
        """This expression followed by ``other``'s terms (e.g. adding a damage modifier)."""
        return DiceExpr(self.terms + other.terms)


def _text_of(terms: tuple[Term, ...]) -> str:
    out = ""
    for term in terms:
        if isinstance(term, DiceTerm):
            text, negative = str(term), term.sign < 0
        else:
            text, negative = str(abs(term.value)), term.value < 0
        if out or negative:
            out += ("-" if negative else "+") + text
        else:
            out = text
    return out or "0"


_TOKEN = re.compile(r"\s*([+-]?)\s*(?:(\d*)\s*[dD]\s*(\d+)|(\d+))\s*")


def parse(text: str, *, max_dice: int = MAX_DICE, max_faces: int = MAX_FACES) -> DiceExpr:
    """Parse ``2d6+1d4``, ``1d10+10``, ``-1d4``, ``d100`` into a :class:`DiceExpr`.

    Raises :class:`DiceError` naming the problem for anything else, or when the expression would
    roll more than ``max_dice`` dice or a die of more than ``max_faces`` faces.
    """
    if not isinstance(text, str) or not text.strip():
        raise DiceError("empty dice expression")
    return _parse(text, max_dice, max_faces)


@lru_cache(maxsize=1024)
def _parse(text: str, max_dice: int, max_faces: int) -> DiceExpr:
    """:func:`parse` of a non-empty string (cached: the result is immutable and depends on the
    arguments alone; errors are raised afresh each time, never cached)."""
    if len(text) > MAX_TEXT:
        raise DiceError(f"dice expression longer than {MAX_TEXT} characters")
    pos = 0
    terms: list[Term] = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos or (terms and not m.group(1)):
            raise DiceError(f"cannot read dice expression {text!r} at position {pos + 1}")
        sign = -1 if m.group(1) == "-" else 1
        if m.group(3) is not None:
            count = int(m.group(2) or 1)
            faces = int(m.group(3))
            if count < 1 or faces < 1:
                raise DiceError(
                    f"{text!r}: a dice term needs at least one die of at least one face"
                )
            if faces > max_faces:
                raise DiceError(f"{text!r}: d{faces} is over the budget of {max_faces} faces")
            terms.append(DiceTerm(count, faces, sign))
        else:
            terms.append(ConstTerm(sign * int(m.group(4))))
        pos = m.end()
    expr = DiceExpr(tuple(terms))
    if expr.dice_count > max_dice:
        raise DiceError(f"{text!r} rolls {expr.dice_count} dice, over the budget of {max_dice}")
    return expr


class RollResult(NamedTuple):
    """An evaluated expression: its total and every die rolled for it, in order (an immutable
    named tuple, like :class:`DieRecord`)."""

    expr: str
    total: int
    dice: tuple[DieRecord, ...]


_roll_result = partial(tuple.__new__, RollResult)


class Dice:
    """A recording roller over a :class:`DiceSource`; every die lands in :attr:`records`."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.records: list[DieRecord] = []

    def die(self, faces: int, expr: str | None = None, hidden: bool = False) -> int:
        """Roll one die of ``faces`` faces and record it under ``expr`` (default ``1dF``);
        ``hidden`` marks it as deciding hidden state (see :class:`DieRecord`)."""
        result = self.source.randint(faces)
        self.records.append(DieRecord(expr or f"1d{faces}", faces, result, hidden))
        return result

    def d100(self, expr: str = "1d100") -> int:
        return self.die(100, expr)

    def roll(self, expr: str | DiceExpr) -> RollResult:
        """Evaluate an expression (text or parsed), recording each die under its text."""
        parsed = parse(expr) if isinstance(expr, str) else expr
        label = parsed.text
        randint = self.source.randint
        records = self.records
        start = len(records)
        total = parsed.constant
        for faces, count, sign in parsed.rolls:
            for _ in range(count):
                result = randint(faces)
                records.append(DieRecord(label, faces, result))
                total += sign * result
        return _roll_result((label, total, tuple(records[start:])))

    def total(self, expr: DiceExpr) -> int:
        """Roll a parsed expression like :meth:`roll` (every die recorded) and return only its
        total: the usual need, without building the :class:`RollResult`."""
        randint = self.source.randint
        records = self.records
        label = expr.text
        total = expr.constant
        for faces, count, sign in expr.rolls:
            for _ in range(count):
                result = randint(faces)
                records.append(DieRecord(label, faces, result))
                total += sign * result
        return total

    def shuffle(self, items: Sequence[T], label: str = "shuffle", hidden: bool = False) -> list[T]:
        """A uniformly shuffled copy of ``items`` (Fisher–Yates, one recorded die per swap).

        ``hidden=True`` when the order must stay secret (a deck of cards): its dice are marked
        hidden, so they are logged (and verifiable by commit-reveal) but never sent to a client.
        """
        out: MutableSequence[T] = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.die(i + 1, label, hidden) - 1
            out[i], out[j] = out[j], out[i]
        return list(out)
