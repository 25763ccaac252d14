"""The exchange from attack roll to wound: ``exchange`` (rolls, the differential, parking the
pending exchange while the winner chooses effects), ``finishing`` (applying the chosen effects
and the blow), and ``odds`` (exact odds of an attack against a defence)."""
