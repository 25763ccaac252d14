"""The server's pure per-request helpers, compiled with the engine.

What the server does for every request besides the engine's decision, when it is pure work on
bytes and texts (the row's canonical texts and its link in the hash chain, the outcome's
texts, the request frame's text and the bodies the reader keeps): kept here, apart
from the modules that do I/O, so that ``setup.py`` compiles them with mypyc as it compiles the
engine (``bridge/native.py``: one build, one manifest, all compiled or none). The rule is the
engine's: no I/O, no clock, no global RNG, and no pydantic (mypyc can't compile its models).
They are not rules code, so they live beside the engine rather than in it. Their callers import
them through the modules that name them (``arbiter.bridge.records``, ``arbiter.bridge.views``,
``arbiter.bridge.reading_known``).
"""
