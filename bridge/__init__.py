"""The roll server, its commands, and the engine that decides every request.

Importing the package chooses which engine ``arbiter.bridge.engine`` loads: the compiled one when it is
fresh, else its sources (see :mod:`arbiter.bridge.native`).
"""

from arbiter.bridge.native import select_engine

select_engine()
