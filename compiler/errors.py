"""Errors raised while loading rule sources.

Every problem names the file, the entry (by id or by position) and the field, and says what
was expected, so a GM can fix a rule file without reading Python.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleProblem:
    """One thing wrong with the rule sources."""

    file: str
    """Path of the offending file relative to its rules root, e.g. ``hmk/weapons.toml``."""
    entry: str | None
    """The entry, e.g. ``weapons 'dagger'`` or ``critical row #4``; None for the whole file."""
    field: str | None
    """The field inside the entry, e.g. ``injury[2]``; None for the whole entry."""
    message: str
    """What is wrong and what was expected."""

    def __str__(self) -> str:
        parts = [self.file]
        if self.entry:
            parts.append(f"entry {self.entry}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


class RuleError(Exception):
    """The rule sources are invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: list[RuleProblem] | tuple[RuleProblem, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.report())

    def report(self) -> str:
        """A human-readable report, one problem per line."""
        n = len(self.problems)
        head = f"{n} problem{'s' if n != 1 else ''} in the rule sources:"
        return "\n".join([head, *(f"  {p}" for p in self.problems)])
