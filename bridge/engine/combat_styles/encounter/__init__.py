"""The encounter's records and what changes them directly: ``combatants`` (a combatant's record,
built from his stat block), ``wounds`` and ``blows`` (a blow landing: location, armour, wound),
``brace``, ``follow_ups``, ``engagement``, ``spirit_engagement`` and ``saddle`` (who rides whom)."""
