"""The roll server, its commands, and the engine that decides every request.

Importing the package chooses which engine ``bridge.engine`` loads: the compiled one when it is
fresh, else its sources (see :mod:`bridge.native`).
"""

from bridge.native import select_engine

select_engine()
