"""Arbiter: the rules compiler (``arbiter.compiler``) and the authoritative roll server
(``arbiter.bridge``), one import package for the installed distribution.

The repository keeps them as top-level folders (``compiler/``, ``bridge/``); ``arbiter/bridge``
and ``arbiter/compiler`` are links to them, so a checkout imports, type-checks and compiles
(mypyc names modules after their paths) under the same names as an installed wheel.
"""
