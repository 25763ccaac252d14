"""The request bodies and stat blocks, as pydantic validates them at the edge: ``stat_blocks``,
``requests``, ``move_requests``, and ``request_types`` (every request type and its body).

These modules import pydantic, so they stay interpreted (mypyc compiles the rest). They import
only ``core`` (a stat block's damage modifier is checked with the dice grammar)."""
