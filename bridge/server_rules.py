"""The rules a world is served with, changed while it runs (:class:`RulesNotices`, a part of
:class:`arbiter.bridge.server.ArbiterServer`).

New rules are served once the module is rebuilt for them; the clients subscribed to ``rules``
are told (``rules_updated``, or ``rules_error`` when they do not compile), and the stored stat
blocks of the rulesets that changed are checked again: those the rules refuse are logged and
told to the GM's connections only.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from arbiter.bridge.protocol import RulesError, RulesUpdated, StatBlocksInvalid
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.server_config import ServerConfig
from arbiter.bridge.server_support import rebuild_module, settle_heap
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.vault_messages import InvalidStatBlock
from arbiter.compiler.errors import RuleError

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession

log = logging.getLogger("arbiter.server")


class RulesNotices:
    """Serving new rules and telling the clients (the server sets the fields)."""

    config: ServerConfig
    rules: RulesSnapshot
    vault: Vault
    clients: set[ClientSession]

    async def swap_rules(self, rules: RulesSnapshot) -> None:
        """Rebuild the module for new rules, then serve them and tell the clients."""
        if self.config.build and self.config.module_dir is not None:
            try:
                await self.rebuild_module()
            except RuleError as err:
                await self.report_error([str(p) for p in err.problems])
                return
        _ = rules.reader  # built before the first frame, and settled with the rules
        before = self.rules.info()
        self.rules = rules
        settle_heap()
        self.rules_swapped(before, rules)

    def rules_swapped(self, before: dict[str, Any], rules: RulesSnapshot) -> None:
        """Tell this world's clients about the rules now served (``before``: the previous
        rules' ``info()``), and recheck the stored stat blocks of the rulesets that changed."""
        self.rules = rules
        after = rules.info()
        text = encode(RulesUpdated(rulesets=after))
        for client in tuple(self.clients):
            if "rules" in client.events:
                client.outbox.send(text)
        log.info("rules updated: %s", ", ".join(f"{k} {v.version}" for k, v in after.items()))
        changed = {rid for rid in before.keys() | after.keys() if before.get(rid) != after.get(rid)}
        invalid = self.vault.recheck(changed & self.vault.rulesets(), rules.models)
        if invalid:
            self._log_invalid(invalid)
            # The blocks and their problems are the GM's: never a player's connection.
            notice = encode(StatBlocksInvalid(blocks=invalid))
            for client in tuple(self.clients):
                if client.gm and "rules" in client.events:
                    client.outbox.send(notice)

    @staticmethod
    def _log_invalid(invalid: list[InvalidStatBlock]) -> None:
        for block in invalid:
            problems = "; ".join(f"{p.field}: {p.message}" for p in block.problems)
            log.warning(
                "the served rules refuse the stored %s stat block of %r: %s",
                block.ruleset,
                block.participant,
                problems,
            )

    async def report_error(self, problems: list[str]) -> None:
        text = encode(RulesError(problems=problems))
        for client in tuple(self.clients):
            if client.gm and "rules" in client.events:
                client.outbox.send(text)

    async def rebuild_module(self) -> None:
        """Build the module off the event loop (a no-op when it is up to date)."""
        await rebuild_module(self.config)


__all__ = ["RulesNotices"]
