"""Moves beyond a plain exchange, each its own request: ``leaping`` (leaping attack),
``sweeping`` (sweep attack), ``outmaneuvering``, ``aerial`` (aerial passes) and ``mounted``
(mounting and mounted withdrawal, and exchanges by or against a ridden mount)."""
