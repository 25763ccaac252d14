"""The hmk ruleset engine ("Hurting, Maiming, and Killing"); pure, see ``engine.py``."""

from arbiter.bridge.engine.hmk.engine import ENGINE, HmkEngine

__all__ = ["ENGINE", "HmkEngine"]
